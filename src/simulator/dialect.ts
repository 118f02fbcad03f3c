/**
 * A dialect is one HTTP surface of the simulator: how a request body is read and how every outcome is written.
 * The engine (sim-engine.ts) decides what happens — the same quota, faults, scripts and answers for every dialect —
 * and the dialect renders it: the Gemini Developer API (gemini-dialect.ts), Vertex AI's paths (vertex-dialect.ts),
 * and OpenAI's chat/completions in its two styles (openai-dialect.ts).
 */
import type { BuiltAnswer } from './answer-builder.js';
import type { MinuteHeadroom } from './minute-limiters.js';
import type { Violation } from './quota-ledger.js';
import type { Random } from './random.js';
import type { RequestView } from './request-view.js';
import type { BillingCode, QuotaFlavour, ServedTier, Tier } from './types.js';

/** The API methods served. */
export type Endpoint = 'generateContent' | 'streamGenerateContent' | 'countTokens' | 'chatCompletions';

/** The dialects, as the HTTP layer names them by path. */
export type DialectName = 'gemini' | 'vertex' | 'openai' | 'gemini-compat';

/** A status, a JSON body (an object, or an array for array-wrapped errors) and extra headers. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A request refused before any answer, in neutral terms; each dialect writes its own body. */
export type SimFailure =
  | { kind: 'missing-key' }
  | { kind: 'invalid-key'; key: string }
  | { kind: 'leaked-key' }
  /** `resource`: Vertex's `projects/{p}/locations/{l}` of the path, when there is one. */
  | { kind: 'model-not-found'; model: string; apiVersion: string; endpoint: Endpoint; resource?: string }
  | { kind: 'invalid-json'; detail: string }
  /** A 400 for the body (`param`/`code`: OpenAI's fields, when known). */
  | { kind: 'invalid-request'; message: string; param?: string; code?: string }
  | { kind: 'thinking-budget-zero' }
  | { kind: 'context-too-long'; limit: number; tokens: number }
  | { kind: 'fault'; fault: '503' | '500' | '504' | '429-bare'; highDemand: boolean }
  /** A scripted error status with no body of its own. */
  | { kind: 'generic'; status: number };

/** A quota rejection to write. */
export interface QuotaRejection {
  tier: Tier;
  project: string;
  /** The model id as requested, and `quotaDimensions.model`. */
  model: string;
  quotaModel: string;
  violations: Violation[];
  flavour: QuotaFlavour;
  retryAfterHeader: boolean;
  limitZero: boolean;
  random: Random;
  /** Tokens the request asked the quota for (input tokens, plus max_tokens where they count). */
  requestedTokens: number;
  /** RPM/TPM left at the rejection. */
  headroom: MinuteHeadroom;
}

/** A request body read: the view the engine answers from, the model (chat/completions names it in the body). */
export type ReadResult =
  | {
      ok: true;
      view: RequestView;
      model?: string;
      /** Tokens charged to TPM on top of the prompt (OpenAI counts max_tokens up front). */
      extraTokens: number;
    }
  | { ok: false; failure: SimFailure };

/** Everything an answer body needs besides the built answer. */
export interface AnswerMeta {
  model: string;
  responseId: string;
  /** Epoch ms of the simulator clock. */
  now: number;
  /** The service tier that served the answer (`standard` for a request that named none). */
  servedTier: ServedTier;
  /** Whether the request named a service tier (`serviceTier` at the root of its body). */
  tierNamed: boolean;
}

/** One HTTP surface. */
export interface Dialect {
  readonly name: DialectName;
  /** Reads a JSON body of `endpoint`. */
  read(endpoint: Endpoint, body: unknown): ReadResult;
  failure(f: SimFailure): Reply;
  quota(q: QuotaRejection): Reply;
  /** The billing 429 (`insufficientQuota` projects); undefined for dialects that have none. */
  billing?(code: BillingCode): Reply;
  /** The 200 body of an answer. */
  answer(a: BuiltAnswer, meta: AnswerMeta): unknown;
  /** Headers of an answer beside the body (the Developer API's `x-gemini-service-tier`), if the dialect sends any. */
  answerHeaders?(meta: AnswerMeta): Record<string, string> | undefined;
  /** Headers for every response of a (project, model) with per-minute limits (x-ratelimit-*), if the dialect sends any. */
  limitHeaders?(headroom: MinuteHeadroom, limits: { rpm?: number; tpm?: number }): Record<string, string>;
}
