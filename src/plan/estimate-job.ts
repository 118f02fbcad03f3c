/**
 * What a job will take, before anything is sent: rows, input and output tokens, requests, the time each quota
 * dimension needs, and the cost at list price. Input tokens come from the local estimator (schedule/token-estimator.ts)
 * with its prior, or scaled by one countTokens call on a sample of the job's prompts (`--count-tokens`).
 */
import type { PreparedJob } from '../job/prepare-job.js';
import { TokenEstimator, tokenFeatures } from '../schedule/token-estimator.js';
import { providerCatalog } from '../providers/create-provider.js';
import { priceOf, type BillingTier, type ModelPrice } from './price.js';
import { rowsUnderBudget, tierCosts, type TierCost, type TierRows } from './tier-costs.js';
import { startingLimitsFor } from './starting-limits.js';

/** Where a limit plan uses comes from. */
export type LimitOrigin =
  /** --rpm / --tpm / --rpd */
  | 'given'
  /** the published limits of the --tier given (plan/published-limits.ts) */
  | 'tier'
  /** the model's default start (its provider's catalog: for Gemini its published Tier 1 limits, or a guess) */
  | 'default'
  /** the simulator's scenario (--simulate-config) or its generous built-in quota (--simulate) */
  | 'simulator';

export interface LimitUsed {
  value: number;
  source: LimitOrigin;
}

/** What bounds how long the job takes. */
export type Binding =
  /** A per-minute limit: the job takes `minutes` at the quota's full rate. */
  | { dimension: 'RPM' | 'TPM'; minutes: number }
  /** RPD: more requests than a day allows, so the job spans `days` quota days (per-minute pace alone: `minutes`). */
  | { dimension: 'RPD'; days: number; minutes: number };

export interface JobEstimate {
  /** The zone the provider's quota days follow (QuotaDay.zone: `PT`, `UTC`). */
  dayZone: string;
  rows: number;
  /** Rows with a result in the job directory already. */
  done: number;
  /** Rows whose estimated prompt is over --max-input-tokens (they would end `skipped`). */
  tooLong: number;
  /** The input limit per request (tokens) and whether it is the model's own or --max-input-tokens. */
  maxInputTokens: { value: number; source: 'model' | 'given' };
  requests: number;
  inputTokens: number;
  /** Output tokens (the answers), and how they were guessed. */
  outputTokens: number;
  outputBasis: string;
  /** Thinking tokens: 0 when thinking is off; a maximum when a budget bounds it; undefined when unbounded. */
  thinkingTokens: number | undefined;
  thinkingBasis: string;
  /** Factor from --count-tokens applied to every row's estimate (countTokens of the sample ÷ its estimate). */
  countTokensScale: number | undefined;
  projects: number;
  limits: { rpm: LimitUsed; tpm: LimitUsed; rpd: LimitUsed | undefined };
  /** Which limits these are and why (`the free tier's published limits for gemini-2.5-flash (…)`). */
  limitsWhy: string;
  /** Set when the model has no quota where the job would run (--tier, or the scenario's `limit: 0`): why. */
  noQuota: string | undefined;
  headroom: number;
  /** Minutes the requests need under RPM, and the input tokens under TPM; days under RPD. */
  minutesUnderRpm: number;
  minutesUnderTpm: number;
  daysUnderRpd: number | undefined;
  binding: Binding;
  price: ModelPrice | undefined;
  /** The job's cost at list price at {@link JobEstimate.costTier}, USD (thinking included when bounded). */
  costUsd: number | undefined;
  /** The tier the job asks for (--service-tier), whose cost is {@link JobEstimate.costUsd}. */
  costTier: BillingTier;
  /** The job's cost at every tier the price lists (standard, flex, batch, priority as a range); empty without a price. */
  tierCosts: TierCost[];
  /** --max-cost's effect: how many of the rows to send, in input order, fit under the cap less the job's spend so far. */
  cap: { capUsd: number; spentUsd: number; rows: TierRows[] } | undefined;
  /** false on the free tier (--tier free): nothing is billed; undefined when the tier is not known. */
  billed: boolean | undefined;
  /** The provider has usage tiers that `--tier` names (the Gemini API only). */
  hasUsageTiers: boolean;
  /** The provider can count tokens (`--count-tokens`). */
  canCountTokens: boolean;
}

/** Limits the endpoint is known to have: the scenario's or the generous simulator's, with the reason to use them. */
export interface KnownLimits {
  rpm?: number;
  tpm?: number;
  rpd?: number;
  why: string;
  /** The model has no quota there (a scenario's `limit: 0`): why. */
  noQuota?: string;
  /** false when the account rehearsed is a free-tier one (not billed). */
  billed?: boolean;
}

export interface EstimateOptions {
  prepared: PreparedJob;
  /** Rows already finished (journal of a matching job), to leave out. */
  isDone(row: number): boolean;
  projects: number;
  /** Tokens of the given prompts, counted by the API in one countTokens call; undefined to use the estimator alone. */
  countTokens?: (prompts: string[]) => Promise<number>;
  /** Limits the endpoint is known to have (the simulator), used where no --rpm/--tpm/--rpd is given. */
  knownLimits?: KnownLimits;
  /** `--output-tokens`: answer tokens per row in free-text mode, instead of the estimate from the input. */
  outputTokensPerRow?: number;
  /** Whether --max-input-tokens was given (else it is the model's input limit). */
  maxInputTokensGiven?: boolean;
  /** What the job has spent already (its journal's, job/spend-budget.ts `journalSpend`), USD: --max-cost counts it. */
  spentUsd?: number;
}

/** Prompts sent in the one countTokens call of `--count-tokens`. */
export const COUNT_TOKENS_SAMPLE = 20;

/** Reads the whole input once and adds up the estimates. @throws InputError from reading the input. */
export async function estimateJob(o: EstimateOptions): Promise<JobEstimate> {
  const { config, source, template } = o.prepared;
  const estimator = new TokenEstimator();
  const limit = config.limit ?? Infinity;
  let rows = 0;
  let done = 0;
  let tooLong = 0;
  // Per row: the estimate of its prompt text, and of everything else sent with it (system, examples, schema).
  let promptTokens = 0;
  let fixedTokens = 0;
  // Tokens of the row's own text inserted into the prompt (the prompt minus the template's fixed words): what a free
  // answer that rewrites or translates the row comes to.
  let insertedTokens = 0;
  let templateTokens: number | undefined;
  const sample = new EvenSample<string>(COUNT_TOKENS_SAMPLE);
  // Each row's prompt part and fixed part, in input order, to cost rows one by one (tiers, --max-cost).
  const rowPrompt = new GrowingArray();
  const rowFixed = new GrowingArray();
  for await (const record of source.records()) {
    if (record.index >= limit) break;
    rows++;
    if (o.isDone(record.index)) {
      done++;
      continue;
    }
    const full = estimator.estimate(o.prepared.features(record.cells));
    if (full > config.maxInputTokens) {
      tooLong++;
      continue;
    }
    const prompt = template.render(record.cells);
    const promptPart = Math.min(full, estimator.estimate(tokenFeatures(prompt)));
    templateTokens ??= estimator.estimate(tokenFeatures(template.render(record.cells.map(() => ''))));
    insertedTokens += Math.max(0, promptPart - templateTokens);
    promptTokens += promptPart;
    fixedTokens += full - promptPart;
    rowPrompt.push(promptPart);
    rowFixed.push(full - promptPart);
    if (o.countTokens) sample.offer(prompt);
  }
  // --count-tokens: the ratio of the API's count to our estimate on prompts spread through the file scales the prompt
  // part; the fixed part (the same text every time) is left as estimated.
  let scale: number | undefined;
  if (o.countTokens && sample.items.length > 0) {
    const estimated = sample.items.reduce((n, text) => n + estimator.estimate(tokenFeatures(text)), 0);
    if (estimated > 0) scale = (await o.countTokens(sample.items)) / estimated;
  }
  const inputTokens = Math.round(promptTokens * (scale ?? 1) + fixedTokens);
  const rowInputs = new Float64Array(rowPrompt.length);
  for (let i = 0; i < rowInputs.length; i++) rowInputs[i] = rowPrompt.at(i) * (scale ?? 1) + rowFixed.at(i);
  const requests = rows - done - tooLong;
  const { perRow, basis } = outputPerRow(o.prepared, { insertedPerRow: requests > 0 ? insertedTokens / requests : 0, given: o.outputTokensPerRow });
  const catalog = providerCatalog(config.provider);
  const info = catalog.model(config.model);
  const thinking = thinkingPerRow(o.prepared, info.leastReasoningTokens, catalog.reasoningOff);
  const start = startingLimitsFor(catalog, config.model, config.tier);
  const known = o.knownLimits;
  const startSource: LimitOrigin = start.fromTier ? 'tier' : 'default';
  const pick = (given: number | undefined, fromEndpoint: number | undefined, fallback: number): LimitUsed =>
    given !== undefined ? { value: given, source: 'given' } : fromEndpoint !== undefined ? { value: fromEndpoint, source: 'simulator' } : { value: fallback, source: known ? 'simulator' : startSource };
  const rpd = (): LimitUsed | undefined => {
    if (config.rpd !== undefined) return { value: config.rpd, source: 'given' };
    if (known) return known.rpd !== undefined ? { value: known.rpd, source: 'simulator' } : undefined;
    return start.limits.rpd !== undefined ? { value: start.limits.rpd, source: startSource } : undefined;
  };
  const limits = {
    rpm: pick(config.rpm, known?.rpm, known ? Infinity : start.limits.rpm),
    tpm: pick(config.tpm, known?.tpm, known ? Infinity : start.limits.tpm),
    rpd: rpd(),
  };
  const allGiven = config.rpm !== undefined && config.tpm !== undefined;
  const limitsWhy = allGiven ? 'as given (--rpm, --tpm' + (config.rpd !== undefined ? ', --rpd)' : ')') : (known?.why ?? start.why);
  const usable = 1 - config.headroom;
  const outputTokens = perRow * requests;
  const thinkingTokens = thinking.perRow === undefined ? undefined : thinking.perRow * requests;
  const price = priceOf(info.price, config.price);
  const rowOutput = perRow + (thinking.perRow ?? 0);
  const costs = price ? tierCosts(price, rowInputs, rowOutput) : [];
  const minutesUnderRpm = requests / (o.projects * limits.rpm.value * usable);
  const minutesUnderTpm = inputTokens / (o.projects * limits.tpm.value * usable);
  const daysUnderRpd = limits.rpd ? requests / (o.projects * limits.rpd.value) : undefined;
  const perMinute: Binding = minutesUnderTpm > minutesUnderRpm ? { dimension: 'TPM', minutes: minutesUnderTpm } : { dimension: 'RPM', minutes: minutesUnderRpm };
  const binding: Binding = daysUnderRpd !== undefined && daysUnderRpd > 1 ? { dimension: 'RPD', days: Math.ceil(daysUnderRpd), minutes: perMinute.minutes } : perMinute;
  return {
    dayZone: catalog.quotaDay.zone,
    rows,
    done,
    tooLong,
    maxInputTokens: { value: config.maxInputTokens, source: o.maxInputTokensGiven ? 'given' : 'model' },
    requests,
    inputTokens,
    outputTokens,
    outputBasis: basis,
    thinkingTokens,
    thinkingBasis: thinking.basis,
    countTokensScale: scale,
    projects: o.projects,
    limits,
    limitsWhy,
    noQuota: known?.noQuota ?? (start.tierHasNoQuota && !known ? start.why : undefined),
    headroom: config.headroom,
    minutesUnderRpm,
    minutesUnderTpm,
    daysUnderRpd,
    binding,
    price,
    costUsd: price ? (costs.find((c) => c.tier === (config.serviceTier ?? 'standard'))?.usd ?? costs[0]?.usd) : undefined,
    costTier: config.serviceTier ?? 'standard',
    tierCosts: costs,
    cap:
      price && config.maxCostUsd !== undefined
        ? {
            capUsd: config.maxCostUsd,
            spentUsd: o.spentUsd ?? 0,
            rows: rowsUnderBudget(price, rowInputs, rowOutput, Math.max(0, config.maxCostUsd - (o.spentUsd ?? 0))),
          }
        : undefined,
    billed: known?.billed ?? start.billed,
    hasUsageTiers: catalog.usageTiers,
    canCountTokens: catalog.countsTokens,
  };
}

/**
 * Answer tokens per row: the longest label; the JSON of a schema's answer; for free text `--output-tokens`, else as
 * long as the row's own text inserted into the prompt (what a rewrite or a translation returns), at most
 * --max-output-tokens.
 */
function outputPerRow(p: PreparedJob, free: { insertedPerRow: number; given: number | undefined }): { perRow: number; basis: string } {
  const estimator = new TokenEstimator();
  const tokens = (text: string) => Math.max(1, estimator.estimate(tokenFeatures(text)) - estimator.estimate(tokenFeatures('')));
  const { config } = p;
  if (config.labels) return { perRow: Math.max(...config.labels.map(tokens)), basis: 'the longest label' };
  if (config.schema) {
    let n = 2;
    for (const [name, spec] of config.schema.types) {
      n += tokens(JSON.stringify(name)) + 2;
      if (spec.enum) n += Math.max(...spec.enum.map((v) => tokens(JSON.stringify(v))));
      else n += spec.type === 'string' ? 25 : spec.type === 'boolean' || spec.type === 'integer' || spec.type === 'number' ? 2 : 20;
    }
    return { perRow: n, basis: 'the schema (25 tokens per free-text property, assumed)' };
  }
  if (free.given !== undefined) return { perRow: free.given, basis: `free text: ${free.given} per row, as --output-tokens says` };
  const inserted = Math.max(1, Math.round(free.insertedPerRow));
  const max = config.maxOutputTokens;
  if (max !== undefined && max < inserted) return { perRow: max, basis: `free text: at most --max-output-tokens ${max} per row (the rows' own text is about ${inserted})` };
  return {
    perRow: inserted,
    basis: `free text: assumed as long as the row's own text in the prompt, about ${inserted} per row (a rewrite or a translation; a short answer costs less) — --output-tokens N states yours`,
  };
}

/**
 * Thinking tokens per row: the --thinking-budget, else the model's least thinking (ModelInfo.leastReasoningTokens);
 * when thinking is dynamic or set by level, at most --max-output-tokens, else unbounded.
 */
function thinkingPerRow(p: PreparedJob, leastReasoningTokens: number | undefined, reasoningOff: string): { perRow: number | undefined; basis: string } {
  const budget = p.config.thinkingBudget ?? leastReasoningTokens;
  if (budget === 0) return { perRow: 0, basis: `thinking off (${reasoningOff})` };
  if (budget !== undefined && budget > 0) return { perRow: budget, basis: `at most the thinking budget, ${budget} per row` };
  const max = p.config.maxOutputTokens;
  return max !== undefined
    ? { perRow: max, basis: `thinking on: at most maxOutputTokens, ${max} per row` }
    : { perRow: undefined, basis: 'thinking on and unbounded: set --thinking-budget or --max-output-tokens' };
}

/** A list of numbers that grows by doubling (a row's estimate each, for millions of rows without a boxed array). */
class GrowingArray {
  #values = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.#values.length) {
      const next = new Float64Array(this.#values.length * 2);
      next.set(this.#values);
      this.#values = next;
    }
    this.#values[this.length++] = value;
  }

  at(index: number): number {
    return this.#values[index] as number;
  }
}

/**
 * Keeps at most `size` items spread evenly over a stream of unknown length: every item while there is room, then
 * every 2nd, 4th, … (the kept ones are thinned to every other one each time the list fills up).
 */
class EvenSample<T> {
  readonly items: T[] = [];
  #stride = 1;
  #seen = 0;

  constructor(readonly size: number) {}

  offer(item: T): void {
    if (this.#seen++ % this.#stride !== 0) return;
    this.items.push(item);
    if (this.items.length > this.size) {
      const kept = this.items.filter((_, i) => i % 2 === 0);
      this.items.length = 0;
      this.items.push(...kept);
      this.#stride *= 2;
    }
  }
}
