/**
 * The simulator's data model: a validated {@link Scenario} (what `parseScenario` returns), the injectable
 * {@link SimClock}, and {@link SimStats}, the ground truth served at `GET /__sim/stats`.
 * The scenario file format is documented in ./README.md.
 */
import type { BatchScenario, BatchStats } from './batch-types.js';
import type { PackFault } from './pack-answer.js';

/** Source of the current time, epoch milliseconds. Tests inject a fake one to cross minutes and Pacific midnight. */
export interface SimClock {
  now(): number;
}

/** Quota tier: picks the quotaMetric/quotaId names (docs/reference/gemini-api-facts.md §1.4). */
export type Tier = 'free' | 'paid';

/**
 * How a per-minute limit (RPM, TPM) is enforced.
 * - `rolling`: at most `rpm` requests / `tpm` input tokens in any 60 s window (t-60 s, t].
 * - `fixed`: at most the limit per clock minute (UTC minute boundaries, i.e. floor(epoch ms / 60 000)).
 * - `bucket`: a token bucket holding at most `burst` requests (and `tokenBurst` tokens), refilled at rpm/60 per
 *   second (tpm/60 tokens per second). Over any interval of d ms it admits at most burst + rpm*d/60 000.
 */
export type WindowPolicy =
  | { kind: 'rolling' }
  | { kind: 'fixed' }
  | { kind: 'bucket'; burst: number; tokenBurst: number };

/** The limits of one (quota project, model) pair. An absent dimension is unlimited; 0 means "no quota at all". */
export interface ModelLimits {
  /** Requests per minute. */
  rpm?: number;
  /** Input tokens per minute (TPM counts input tokens only, docs/reference/gemini-api-facts.md §1.2). */
  tpm?: number;
  /** Requests per Pacific day (reset at 00:00 America/Los_Angeles). */
  rpd?: number;
  /** Input tokens per Pacific day. */
  tpd?: number;
  /** `limit: 0` in the scenario: the model has no quota on this tier; every request gets the fixture-F 429. */
  limitZero: boolean;
  window: WindowPolicy;
}

/** One API key of a quota project. `key` is the exact string clients send; `alias` is what stats and logs show. */
export interface ScenarioKey {
  key: string;
  alias: string;
  /** Requests with this key get 403 "reported as leaked" (fixture 403-leaked-key.json). */
  leaked: boolean;
}

/** A Google Cloud project: its keys share every limit (quota is per project and model, not per key). */
export interface ScenarioProject {
  id: string;
  tier: Tier;
  keys: ScenarioKey[];
  /** Limits per model id; the entry `*` applies to every model without its own entry. No entry: unlimited. */
  limits: Record<string, ModelLimits>;
  /**
   * OpenAI dialect only: after `afterRequests` admitted requests of this project (0: from the first), every request
   * gets the billing 429 with `code` (docs/reference/batch-openai-vertex-facts.md §b.2; fixture test/fixtures/openai/429-insufficient-quota.json).
   */
  insufficientQuota?: { afterRequests: number; code: BillingCode };
}

/** The `code` of OpenAI's billing 429s: `insufficient_quota` and its newer codes (docs/reference/batch-openai-vertex-facts.md §b.2). */
export const BILLING_CODES = [
  'insufficient_quota', 'credit_balance_exhausted', 'organization_spend_limit_exceeded', 'project_spend_limit_exceeded',
  'organization_usage_limit_exceeded',
] as const;
export type BillingCode = (typeof BILLING_CODES)[number];

/** `response_format.type` values of chat/completions. */
export const RESPONSE_FORMATS = ['json_schema', 'json_object', 'text'] as const;
export type ResponseFormatType = (typeof RESPONSE_FORMATS)[number];

/**
 * Error and header conventions of the OpenAI dialect: `openai` (OpenAI's own bodies, x-ratelimit-* and retry-after
 * headers) or `gemini-compat` (Gemini's compatibility endpoint: Google errors wrapped in a JSON array, no headers).
 */
export type OpenAIStyle = 'openai' | 'gemini-compat';

/** How `POST …/chat/completions` behaves (README "OpenAI dialect"). */
export interface OpenAIOptions {
  /** `auto`: by path — `/v1beta/openai/chat/completions` is `gemini-compat`, `/v1/chat/completions` is `openai`. */
  style: 'auto' | OpenAIStyle;
  /** `openai` style: x-ratelimit-limit/remaining/reset-requests/-tokens on every response of a limited model. */
  rateLimitHeaders: boolean;
  /** `openai` style: `retry-after` (s) and `retry-after-ms` on quota 429s. */
  retryAfterHeaders: boolean;
  /** `max_tokens` / `max_completion_tokens` count against TPM up front; undefined = by style (openai yes, gemini-compat no). */
  countMaxTokens?: boolean;
  /** The `response_format` types the server accepts; another is a 400 (a server without structured output). */
  responseFormats: ResponseFormatType[];
}

/** Thinking behaviour of a model (https://ai.google.dev/gemini-api/docs/thinking). */
export type ThinkingMode =
  /** does not think unless a positive thinkingBudget is given (2.5 Flash-Lite, 2.0) */
  | 'off'
  /** thinks by default; thinkingBudget 0 turns it off (2.5 Flash, 3.x Flash) */
  | 'dynamic'
  /** always thinks; thinkingBudget 0 is a 400 (2.5 Pro, 3.x Pro) */
  | 'always';

/** What the simulator knows about a model id. */
export interface ModelSpec {
  /** Largest promptTokenCount accepted; above it a 400 (fixture 400-context-too-long.json). Default 1,048,576. */
  contextWindow: number;
  thinking: ThinkingMode;
  /** Range of thought tokens spent when thinking with a dynamic budget; the count is a hash of the prompt. */
  thoughtTokens: { min: number; max: number };
  /** `modelVersion` of responses. */
  modelVersion: string;
  /** `quotaDimensions.model` of 429s (the base model id). */
  quotaModel: string;
}

/** Selectable shapes of the quota 429 (docs/reference/gemini-api-facts.md §2.3; fixtures 429-a…h). */
export type QuotaFlavour = 'full-new' | 'full-old' | 'help-only' | 'bare' | 'daily-misleading' | 'vary-order';

/** Kinds of random faults; the rate of each is a probability per request. */
export const FAULT_KINDS = ['503', '500', '504', 'reset', 'hang', 'html-502', '429-bare'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One scripted answer for prompts carrying a marker (see README "scripts"). */
export type ScriptResponse =
  | { kind: 'enum'; delayMs?: number }
  | { kind: 'text'; text: string; finishReason?: string; delayMs?: number }
  | { kind: 'json'; value: unknown; delayMs?: number }
  | { kind: 'blocked'; blockReason: string; delayMs?: number }
  | { kind: 'finish'; finishReason: string; text?: string; delayMs?: number }
  | { kind: 'max-tokens'; thoughtsTokenCount?: number; delayMs?: number }
  | { kind: 'error'; status: number; fixture?: string; body?: unknown; delayMs?: number }
  | { kind: 'reset'; delayMs?: number }
  | { kind: 'hang' }
  | { kind: 'delay-ms'; ms: number }
  /** A packed request's answer with a fault on the items holding the rule's `match` (pack-answer.ts). */
  | { kind: 'pack'; fault: PackFault; delayMs?: number };

/** Prompts whose user text contains `match` get `responses` in order, per distinct prompt; the last repeats. */
export interface ScriptRule {
  match: string;
  responses: ScriptResponse[];
}

/** A lognormal delay given by its median and 99th percentile, optionally clamped to [minMs, maxMs], ms. Median 0 = none. */
export interface DelaySpec {
  medianMs: number;
  p99Ms: number;
  minMs?: number;
  maxMs?: number;
}

/**
 * Where a request's time goes: the uplink (from the client's sending to the server's arrival — the quota counts the
 * request after it), the model's generation (per model id), and the downlink (the answer's way back).
 */
export interface LatencyModel extends DelaySpec {
  /** From sending to arrival, for every request (default none). */
  uplink?: DelaySpec;
  /** The answer's way back, for every request (default none). */
  downlink?: DelaySpec;
  /** Generation time per model id, over the default above. */
  models?: Record<string, DelaySpec>;
}

/** The online service tiers a generateContent request can name (`serviceTier` at the root of the body). */
export type ServedTier = 'standard' | 'flex' | 'priority';

/**
 * How the simulator serves `serviceTier: "flex"` (scenario `flex`, README "Service tiers"): answers take minutes
 * (the 1–15 min target of docs/service-tiers.md), and the server sheds load with 503 UNAVAILABLE.
 */
export interface FlexTier {
  /** Probability that a Flex request is shed (HTTP 503 with the real UNAVAILABLE body), 0–1. */
  shedRate: number;
  /** Generation time of a Flex answer in real time, ms (before {@link FlexTier.timeScale}); replaces `latency`'s. */
  latency: DelaySpec;
  /** Factor applied to {@link FlexTier.latency}: 0.001 turns the minutes of a real Flex answer into tenths of a second. */
  timeScale: number;
}

/**
 * How the simulator serves `serviceTier: "priority"` (scenario `priority`): at most `rpm` Priority requests per
 * project and model in any 60 s; beyond that a request is served at standard (a graceful downgrade, answered with
 * `x-gemini-service-tier: standard`).
 */
export interface PriorityTier {
  rpm: number;
}

/** A validated scenario; see ./README.md for the file format and defaults. */
export interface Scenario {
  description?: string;
  /** Seed of every random draw (faults, latency, 429 flavour variation). */
  seed: number;
  /** Unknown keys are accepted and charged to `defaultProject` instead of a 400 API_KEY_INVALID. */
  acceptAnyKey: boolean;
  defaultProject: string;
  projects: ScenarioProject[];
  /** Every model id the simulator answers for (built-in catalogue merged with the scenario's); others are 404. */
  models: Record<string, ModelSpec>;
  /** Rejected requests (429, and 400 after the key and model are known) count against RPM/TPM. */
  countRejected: boolean;
  quota429: { flavour: QuotaFlavour; retryAfterHeader: boolean };
  faults: {
    rates: Record<FaultKind, number>;
    /** Faulted requests pass the quota first and consume it (true), or fail before it (false). */
    countAgainstQuota: boolean;
  };
  /**
   * Latency = uplink + generation + downlink. `medianMs`/`p99Ms` (with optional clamps) are the generation time of
   * admitted requests for every model without its own entry in `models`; the quota counts a request after its uplink.
   */
  latency: LatencyModel;
  scripts: ScriptRule[];
  /** Keep a per-request log served at `GET /__sim/log`. */
  requestLog: boolean;
  /** The OpenAI dialect's conventions. */
  openai: OpenAIOptions;
  /** The Batch API's clock, limits and scripted cases (batch-types.ts); absent: every default. */
  batch?: BatchScenario;
  /** Flex requests' latency and sheds; absent: Flex requests are answered like standard ones (and say `flex`). */
  flex?: FlexTier;
  /** Priority requests' limit before a downgrade to standard; absent: every Priority request is served at priority. */
  priority?: PriorityTier;
}

/** Counters of one key, project or model. Tokens are those of answered (HTTP 200) requests. */
export interface SimCounters {
  requests: number;
  ok: number;
  rateLimited: number;
  /** Other non-200 outcomes: 4xx other than 429, faults, resets, hangs. */
  errors: number;
  inputTokens: number;
  outputTokens: number;
}

/** Most requests / input tokens seen in any rolling 60 s window. */
export interface PeakCounts {
  requests: number;
  inputTokens: number;
}

/** `admitted`: requests that passed the quota. `arrived`: every request, rejected included. */
export interface Peaks60s {
  admitted: PeakCounts;
  arrived: PeakCounts;
}

/** The ground truth served at `GET /__sim/stats`. Times are epoch ms of the simulator clock. */
export interface SimStats {
  startedAt: number;
  now: number;
  requests: {
    total: number;
    /** By HTTP status code as a string, plus `reset` and `hang` for requests that got no status. */
    byStatus: Record<string, number>;
    /** `generateContent`, `streamGenerateContent`, `countTokens`, `chatCompletions`, `other`. */
    byEndpoint: Record<string, number>;
  };
  /** Requests answered with HTTP 200 by generateContent / streamGenerateContent. */
  answeredOk: number;
  /** 429s; `byQuotaId` counts each violated quotaId (also for flavours whose body does not show it). */
  rateLimited: { total: number; byQuotaId: Record<string, number> };
  /**
   * Faults served, by kind: `503`, `500`, `504`, `reset`, `hang`, `html-502`, `script-*` for scripted ones, and
   * `flex-shed` for Flex requests shed with a 503.
   */
  faults: Record<string, number>;
  tokens: { input: number; output: number; thoughts: number };
  /** Answers (HTTP 200) of requests that named a service tier, by the tier that served them (`flex`, `standard`, `priority`). */
  servedTiers: Record<string, number>;
  /** By key alias (never the key string). */
  keys: Record<string, SimCounters & { project: string }>;
  projects: Record<
    string,
    SimCounters & { peak60s: Peaks60s; models: Record<string, SimCounters & { peak60s: Peaks60s }> }
  >;
  /** The Batch API: batches created and rejected, by state, per set of line keys; files uploaded, downloads. */
  batches: BatchStats;
}

/** One entry of `GET /__sim/log` (only when the scenario sets `requestLog`). */
export interface SimLogEntry {
  seq: number;
  /** Arrival time, epoch ms of the simulator clock. */
  t: number;
  keyAlias?: string;
  project?: string;
  model?: string;
  endpoint: string;
  /** HTTP status, or 0 for a reset / hang. */
  status: number;
  /** `ok`, `rate-limited`, `fault:<kind>`, `script:<kind>`, `blocked`, `max-tokens`, `error`. */
  outcome: string;
  /** sha256 hex of the concatenated user text parts. */
  promptSha256?: string;
  /** The answer text (e.g. the enum label) of a 200. */
  label?: string;
  /** Uplink + the answer's delay + downlink, ms: the time the client waits (absent for a hang). */
  latencyMs?: number;
}
