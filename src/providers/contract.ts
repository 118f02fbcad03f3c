/**
 * The provider-neutral contract: what the job asks of a model, what comes back, and what a provider offers. Data flows
 * one way — rows in → prompts → scheduler → provider → answers judged → journal → output — and nothing before or after
 * the provider sees a provider's shapes: every adapter (./gemini/, ./openai/…) maps this request to its wire format, its
 * answer to {@link ModelAnswer}, and its errors to the typed failures of ./failures.ts with neutral
 * {@link RateLimitDetails}. This file imports nothing provider-specific (a test, test/providers/import-boundary.test.ts,
 * proves no file outside an adapter imports a provider SDK or an adapter's module).
 *
 * After the vercel/ai provider packages: one adapter per provider behind a neutral model interface, finish reasons
 * mapped in one small file per adapter, the provider's own data kept aside (`finishDetail`, `raw`) for whoever needs it.
 */

/** The providers gemini-batch speaks to (`--provider`). */
export type ProviderName = 'gemini' | 'openai' | 'vertex';

/** A JSON Schema document (draft 2020-12 subset: object, properties, required, enum, type…). */
export type JsonSchema = Record<string, unknown>;

/** The answer the job wants. */
export type WantedOutput =
  /** One of `labels`, exactly (enum output: Gemini `text/x.enum`, OpenAI a strict json_schema with an enum). */
  | { kind: 'labels'; labels: readonly string[] }
  /** A JSON object matching `schema` (structured output); `name` names it where the provider asks for one. */
  | { kind: 'json'; schema: JsonSchema; name: string }
  /** Free text. */
  | { kind: 'text' };

/** What the job wants from the model for one request (one row; a pack of rows later, issue 15). */
export interface ModelRequest {
  /** The model id as the user named it (`gemini-2.5-flash`), without a `models/` prefix. */
  model: string;
  /** System instruction, if any. */
  system?: string;
  /** Few-shot turns sent before the prompt: a user turn `prompt`, then a model turn `answer`, each. */
  examples?: ReadonlyArray<{ prompt: string; answer: string }>;
  /** The user turn. */
  prompt: string;
  output: WantedOutput;
  /**
   * Cap on the answer's output tokens as the user gave it (--max-output-tokens; reasoning included where the provider
   * counts it there, as Gemini does). undefined: the adapter chooses — for labels, room for a label plus the reasoning
   * budget; otherwise the provider's default.
   */
  maxOutputTokens?: number;
  /** Sampling temperature, 0–2. undefined: the provider's default. */
  temperature?: number;
  /**
   * How much the model may think. `least`: as little as the model allows (off where it can be turned off, else its
   * minimum); `budgetTokens`: that many thinking tokens at most (0 = off, -1 = the model decides), --thinking-budget.
   */
  reasoning: 'least' | { budgetTokens: number };
  /**
   * The last answer was cut at the output limit (length, no usable text): give this one 4× the room it would get
   * otherwise (at least 2,048 tokens), with as little reasoning as the model allows (whatever `reasoning` says).
   */
  moreRoom?: boolean;
  /** Gemini's service tier; other providers refuse it up front (exit 2). undefined: the provider's default. */
  serviceTier?: 'flex' | 'standard' | 'priority';
}

/**
 * Why the model stopped, neutral. Each adapter maps its own values in one small file (Gemini: ./gemini/finish-reason.ts).
 * - `stop`: a natural end; `length`: cut at the output limit (Gemini MAX_TOKENS, OpenAI `length`);
 * - `content-filter`: the answer was blocked by a safety or policy filter (Gemini SAFETY, PROHIBITED_CONTENT…;
 *   OpenAI `content_filter`); `recitation`: blocked as recitation of training data (Gemini RECITATION);
 * - `other`: anything else (OTHER, MALFORMED_FUNCTION_CALL, an unknown value).
 */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'recitation' | 'other';

/** Tokens one answer used, as the provider reported them; 0 when not reported. */
export interface AnswerUsage {
  /** Input tokens of the request (Gemini usageMetadata.promptTokenCount, OpenAI usage.prompt_tokens). */
  inputTokens: number;
  /**
   * Output tokens of the answer, thinking NOT included (Gemini candidatesTokenCount; OpenAI completion_tokens minus
   * completion_tokens_details.reasoning_tokens).
   */
  outputTokens: number;
  /** Thinking tokens (Gemini thoughtsTokenCount, OpenAI reasoning_tokens); billed as output. */
  reasoningTokens: number;
}

/** What the server said about its limits in a successful answer's headers (x-ratelimit-*), when it said anything. */
export interface LimitHints {
  requests?: LimitHint;
  /** Tokens as the server counts them (OpenAI-style servers count max_tokens up front). */
  tokens?: LimitHint;
}

export interface LimitHint {
  /** The limit (x-ratelimit-limit-*). */
  limit?: number;
  /** Left in the current window (x-ratelimit-remaining-*). */
  remaining?: number;
  /** Until the window refills, ms (x-ratelimit-reset-*, Go durations such as `6m0s`). */
  resetMs?: number;
}

/** An HTTP 200 answer, whatever it holds. Judging it (label, blocked, cut) is src/answers/'s job. */
export interface ModelAnswer {
  /** The answer's text parts joined (no thoughts), known keys redacted; undefined when there is none. */
  text: string | undefined;
  /** Neutral finish reason; undefined when the answer has no candidate or the server gave none. */
  finish: FinishReason | undefined;
  /** The provider's own finish value (`STOP`, `MAX_TOKENS`, `length`…): what the journal's finishReason records. */
  finishDetail: string | undefined;
  /** The prompt was blocked before any answer (Gemini promptFeedback.blockReason, e.g. `SAFETY`). */
  blocked: string | undefined;
  usage: AnswerUsage;
  /** What served it, when the provider says: service tier (x-gemini-service-tier), model version (modelVersion). */
  served?: { serviceTier?: string; modelVersion?: string };
  /** Limits the response headers announced (x-ratelimit-*). */
  limits?: LimitHints;
  /** The provider's answer object, kept aside for whoever needs it; never judged. */
  raw?: unknown;
}

/** When a request's last byte was handed to the operating system, and the round trip of its connection. */
export interface UploadTiming {
  /** Date.now() at the request's `finish` event (after connection and TLS set-up, when the socket was new), ms. */
  flushedAt: number;
  /** How long the TCP connect of the request's socket took (one round trip, plus our own delays), ms; undefined if unseen. */
  connectRttMs: number | undefined;
}

/** Receives the {@link UploadTiming} of one request. */
export type UploadListener = (timing: UploadTiming) => void;

/** How one request is sent. */
export interface GenerateOptions {
  /** Aborts the request (job interrupted); it then rejects with CancelledFailure. */
  signal?: AbortSignal;
  /**
   * Told when the request's bytes were handed to the operating system (the scheduler bounds its arrival from it); an
   * adapter whose transport cannot tell never calls it.
   */
  onUploaded?: UploadListener;
  /** Abort after this many ms without an answer (TimeoutFailure); default the provider's `timeoutMs`. */
  timeoutMs?: number;
}

/** Sends requests with one credential (an API key, a bearer token, or Vertex's Application Default Credentials). */
export interface ModelCaller {
  /**
   * Sends one request.
   * @throws ApiFailure subclasses of ./failures.ts only (RateLimitFailure, BillingFailure, ServerFailure,
   *   ConnectionFailure, TimeoutFailure, KeyFailure, ModelFailure, RequestFailure, CancelledFailure).
   */
  generate(request: ModelRequest, options?: GenerateOptions): Promise<ModelAnswer>;
}

/** A credential requests go out with. The secret never leaves the adapter; messages show `alias`. */
export interface Credential {
  /** `key-1 …x7Qa`, or `adc` for Application Default Credentials. */
  alias: string;
  /** The quota project whose limits it shares. */
  project: string;
  /** The API key or bearer token; undefined where the provider finds its own (Vertex ADC). */
  secret: string | undefined;
}

/**
 * The calendar a provider's daily quotas (RPD) follow. Gemini's reset at midnight America/Los_Angeles
 * (./gemini/quota-day.ts); the limiter and the request log count per {@link QuotaDay.dayOf}.
 */
export interface QuotaDay {
  /** How messages name the days' zone: `PT` (Pacific time), `UTC`. */
  readonly zone: string;
  /** The quota day an instant (ms since epoch) falls in, `YYYY-MM-DD` in the provider's zone. */
  dayOf(ms: number): string;
  /** The next day boundary strictly after `ms`, ms since epoch. */
  nextBoundary(ms: number): number;
  /** An instant as users read it in messages: `2026-11-29 00:00 PT`. */
  clock(ms: number): string;
}

/** Per-project limits to start from: requests/min, input tokens/min, requests/day (undefined: no daily limit known). */
export interface StartLimits {
  rpm: number;
  tpm: number;
  rpd: number | undefined;
}

/**
 * How a request is billed: the online service tiers a request can ask for ({@link ModelRequest.serviceTier}) and be
 * served at ({@link ModelAnswer.served}), and the provider's batch service. `standard` is what a request without a tier
 * gets.
 */
export type BillingTier = 'standard' | 'flex' | 'priority' | 'batch';

/** The price of a billing tier other than `standard`, as a factor of the standard price. */
export interface TierFactor {
  /** What costs are counted at: the standard price times this (Gemini Flex and Batch 0.5). */
  factor: number;
  /** When the provider publishes a range (Gemini Priority: +75–100 %), its low end; `factor` is then the high end. */
  low?: number;
  /** Where the figure comes from. */
  source: string;
}

/** USD per 1,000,000 tokens (reasoning tokens are billed as output), at the standard tier. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Prompts above `above` input tokens cost these instead (Gemini 2.5 Pro). */
  longPrompt?: { above: number; input: number; output: number };
  /** Where the figures come from: a price table (with its date), or the command line. */
  source: string;
  /** The other billing tiers the provider offers for the model, priced from the figures above; absent: none. */
  tiers?: Partial<Record<Exclude<BillingTier, 'standard'>, TierFactor>>;
}

/** What a provider knows of a model id, for options checked before any request and for `plan`. */
export interface ModelInfo {
  /** The id as the provider knows it (`gemini-2.5-flash`). */
  id: string;
  /** The most input tokens one request may hold: the default of --max-input-tokens. */
  inputTokenLimit: number;
  /**
   * The most output tokens one answer may hold (thinking included where the provider counts it there, as Gemini does):
   * how many rows a pack's answer has room for (--rows-per-request; docs/rows-per-request.md).
   */
  outputTokenLimit: number;
  /** Whether thinking can be turned off (--thinking-budget 0). */
  canTurnOffReasoning: boolean;
  /** The smallest thinking budget the model accepts when it cannot turn thinking off, tokens. */
  minReasoningBudget: number;
  /**
   * Thinking tokens one answer spends at `reasoning: 'least'`, as far as known (tokens; 0 when thinking is off), or
   * undefined when the model decides (a thinking level): `plan` estimates output from it.
   */
  leastReasoningTokens: number | undefined;
  /** Limits to start from when the user gives none; 429s and probing correct them. */
  defaultLimits: StartLimits;
  /** Where `defaultLimits` come from, for the run's header and `plan`. */
  defaultLimitsSource: string;
  /** List price, or undefined when not known (then only --price-input/--price-output give a cost). */
  price: ModelPrice | undefined;
  /**
   * Batch API: the input tokens a quota project's unfinished batches of this model may hold at once ("enqueued
   * tokens"), by usage tier (`1`, `2`, `3`), and where the figures come from; absent when no figure is known.
   */
  batchQueue?: { tokens: Readonly<Record<string, number>>; source: string };
}

/** What the job needs to know about a provider before it connects (options, plan, status). */
export interface ProviderCatalog {
  readonly name: ProviderName;
  /** The calendar of its daily quotas. */
  readonly quotaDay: QuotaDay;
  /** It has published usage tiers that `--tier free|1|2|3` names (the Gemini API only: docs/rate-limits.md). */
  readonly usageTiers: boolean;
  /** It can count a prompt's tokens before sending (`plan --count-tokens`). */
  readonly countsTokens: boolean;
  /**
   * It serves the online service tiers `--service-tier` names (flex, standard, priority: {@link ModelRequest.serviceTier})
   * and says which one served each answer (Gemini and Vertex: docs/service-tiers.md).
   */
  readonly serviceTiers: boolean;
  /** How a request turns reasoning off, for messages: `thinkingBudget 0`, `reasoning_effort "none"`. */
  readonly reasoningOff: string;
  /** Knowledge of a model id; unknown ids get conservative defaults. */
  model(id: string): ModelInfo;
}

/** Where and how to connect (from --base-url, --project, --location, --timeout). */
export interface ProviderConnection {
  /** The endpoint (the simulator's `http://127.0.0.1:PORT`); undefined: the provider's default. */
  baseUrl?: string;
  /** Vertex: the Google Cloud project. */
  project?: string;
  /** Vertex: the region or `global`. */
  location?: string;
  /** Default per-request timeout, ms. */
  timeoutMs: number;
  /** The environment the credentials are read from (io.env). */
  env: NodeJS.ProcessEnv;
  /**
   * A bearer token to send instead of the provider's own credentials discovery (Vertex: Application Default
   * Credentials) — the built-in simulator's, or a test's. Never shown.
   */
  accessToken?: string;
  /**
   * Receives what the adapter has to tell the user once (e.g. the OpenAI adapter stepping down a field the server
   * refused); shown as a notice. Never given a credential.
   */
  notice?: (text: string) => void;
}

/**
 * A batch's state, neutral. Gemini's REST values are `BATCH_STATE_*` (docs/batch-runner.md "States"): PENDING → `pending`,
 * RUNNING → `running`, SUCCEEDED, FAILED, CANCELLED, EXPIRED; anything else `unknown` (kept in
 * {@link BatchInfo.stateDetail}). Terminal: succeeded, failed, cancelled, expired.
 */
export type BatchState = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired' | 'unknown';

/** The batch's own counters of its lines (Gemini batchStats, int64 strings on the wire); 0 when not reported. */
export interface BatchCounts {
  requests: number;
  pending: number;
  succeeded: number;
  failed: number;
}

/** What a provider says of one batch (create, get, list). Every field the provider may omit is optional here. */
export interface BatchInfo {
  /** `batches/abc123`: what get, cancel and the journal know it by. */
  name: string;
  displayName: string | undefined;
  state: BatchState;
  /** The provider's own state value (`BATCH_STATE_RUNNING`). */
  stateDetail: string | undefined;
  /** ISO 8601, the server's clock. */
  createTime: string | undefined;
  updateTime: string | undefined;
  counts: BatchCounts | undefined;
  /** Why the batch failed, when the provider says. */
  error: string | undefined;
  /**
   * Where its results are: a file to download (`files/batch-…`), answers held inline in the batch itself, or nowhere
   * yet (not finished, or finished without output).
   */
  output: { kind: 'file'; file: string } | { kind: 'inline'; count: number } | undefined;
}

/**
 * One line of a batch's results, joined to its request only by `key` (lines come back in any order, docs/batch-runner.md
 * "Results"). `key` is undefined when the line carries none (an inline answer without metadata).
 */
export type BatchResult =
  /** An HTTP-200-like answer: judged as an online answer is (blocked, cut, invalid…). */
  | { kind: 'answer'; key: string | undefined; answer: ModelAnswer }
  /** A per-line error: a google.rpc.Status, `code` a gRPC code (3 INVALID_ARGUMENT, 13 INTERNAL…), not an HTTP status. */
  | { kind: 'error'; key: string | undefined; code: number; status: string | undefined; message: string }
  /** A line that is neither (not JSON, no response and no error). */
  | { kind: 'unreadable'; key: string | undefined; problem: string };

/** The uploaded input file of a batch. */
export interface BatchUpload {
  /** `files/abc123`. */
  file: string;
  /** When the provider deletes it (Gemini: 48 h after upload), ms since epoch; undefined when not said. */
  expiresAt: number | undefined;
}

/**
 * A provider's batch service for one credential (Gemini: the Files API and the batches resource,
 * docs/batch-runner.md). Every call throws the typed failures of ./failures.ts (RateLimitFailure for a create refused
 * with 429, KeyFailure, ServerFailure, ConnectionFailure, TimeoutFailure, RequestFailure, ModelFailure for a 404).
 */
export interface BatchService {
  /** The most bytes one input file may hold. */
  readonly maxFileBytes: number;
  /**
   * One line of an input file (no newline): `request` under `key`, in the provider's REST field names — what the
   * online call would send, so that batch and online answers are the same.
   */
  requestLine(key: string, request: ModelRequest): string;
  /** Uploads the input file at `path` (JSONL). */
  upload(path: string, displayName: string, signal?: AbortSignal): Promise<BatchUpload>;
  /**
   * Creates a batch over an uploaded file. NOT idempotent: a create whose answer is lost may still have made a batch
   * (and a second create makes a second, billed one); see {@link find}.
   */
  create(model: string, file: string, displayName: string, signal?: AbortSignal): Promise<BatchInfo>;
  /** The batch's state now. A 404 (ModelFailure) means it no longer exists. */
  get(name: string, signal?: AbortSignal): Promise<BatchInfo>;
  /**
   * Looks for the batch a create whose answer was lost may have made: the one named `displayName`, created at or after
   * `since` (ms since epoch), reading the provider's list (newest first) until a batch created before `since` or the
   * list's end. undefined: the list was read to that point and holds none.
   * @throws the failures above when the list cannot be read that far: nothing may then be concluded.
   */
  find(displayName: string, since: number, signal?: AbortSignal): Promise<BatchInfo | undefined>;
  /** Asks the provider to cancel the batch (it may still finish some lines). */
  cancel(name: string, signal?: AbortSignal): Promise<void>;
  /** Streams the results of a finished batch: its responses file, or its inline answers. */
  results(batch: BatchInfo, signal?: AbortSignal): AsyncIterable<BatchResult>;
}

/** A provider, connected: callers per credential and what the manifest records of it. */
export interface Provider extends ProviderCatalog {
  /** Where requests go, for the run's header, without credentials: `https://generativelanguage.googleapis.com`. */
  describeEndpoint(): string;
  /** The answers' origin for the manifest (issue 11): the provider and the endpoint's host, never a credential. */
  identity(): { provider: ProviderName; endpoint: string };
  /** A caller sending with `credential`. */
  caller(credential: Credential): ModelCaller;
  /**
   * Tokens the server charges to its TPM for `request` beyond the prompt, counted up front whatever the answer uses
   * (OpenAI-style servers count max_tokens, docs/reference/batch-openai-vertex-facts.md §b.2); the scheduler reserves them with the
   * prompt's. Absent: the server counts input tokens only (Gemini).
   */
  quotaTokens?(request: ModelRequest): number;
  /**
   * The most output tokens (reasoning included) `request` allows as the adapter sends it now: Gemini's
   * maxOutputTokens, OpenAI's max_completion_tokens / max_tokens; undefined when it goes out without a cap (the model's
   * own output limit applies). `--max-cost` reserves this much output for each request in flight (../job/spend-budget.ts).
   */
  outputRoom?(request: ModelRequest): number | undefined;
  /**
   * Counts the input tokens of `prompts`, each its own user turn, in one call (`plan --count-tokens`); absent when the
   * provider cannot.
   * @throws ApiFailure subclasses.
   */
  countTokens?(credential: Credential, model: string, prompts: string[]): Promise<number>;
  /**
   * The provider's batch service (`--batch`: half price, up to 24 h) for `credential`; absent when the provider has
   * none gemini-batch can drive (only the Gemini Developer API has one here).
   */
  batches?(credential: Credential): BatchService;
}
