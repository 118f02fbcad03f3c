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
import { jobPacker } from '../job/job-packer.js';
import { freshWorkItem, type WorkItem } from '../schedule/work-item.js';
import { PackedRequests, type OutputTokens } from './packed-requests.js';
import { SUGGESTED_KS, suggestRowsPerRequest, type RequestFigures, type Suggestion } from './suggest-rows-per-request.js';

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
  /** Rows whose every cell is empty (classify skips them: ../job/row-source.ts). */
  empty: number;
  /** The input limit per request (tokens) and whether it is the model's own or --max-input-tokens. */
  maxInputTokens: { value: number; source: 'model' | 'given' };
  /** Rows to send: rows less those done, those over the input limit and the empty ones. */
  rowsToSend: number;
  /** --rows-per-request K: the requests, tokens, times and costs below are for it. */
  rowsPerRequest: number;
  /** Requests at K (a row alone, or a pack of rows, is one request). */
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
  /** With K > 1, the same figures at one row a request, to compare. */
  alone: RequestFigures | undefined;
  /** At K = 1 when RPD or RPM binds: a K that relieves it, with its figures. */
  suggestion: Suggestion | undefined;
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
  const catalog = providerCatalog(config.provider);
  const info = catalog.model(config.model);
  let rows = 0;
  let done = 0;
  let tooLong = 0;
  let empty = 0;
  // Tokens of the row's own text inserted into the prompt (the prompt minus the template's fixed words): what a free
  // answer that rewrites or translates the row comes to.
  let insertedTokens = 0;
  let templateTokens: number | undefined;
  const sample = new EvenSample<string>(COUNT_TOKENS_SAMPLE);
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
  const noQuota = known?.noQuota ?? (start.tierHasNoQuota && !known ? start.why : undefined);
  // The requests of K = 1, of the --rows-per-request asked, and (at K = 1) of the Ks a suggestion may name: the rows go
  // through classify's own packer for each (./packed-requests.ts).
  const asked = config.rowsPerRequest;
  // Requests can bind only under an RPD or a finite RPM: without them (the generous simulator) no K is suggested.
  const suggestable = asked === 1 && !noQuota && (limits.rpd !== undefined || Number.isFinite(limits.rpm.value));
  const ks = [...new Set([1, asked, ...(suggestable ? SUGGESTED_KS : [])])];
  const byK = new Map(ks.map((k) => [k, new PackedRequests({ rowsPerRequest: k, estimator, ...(k > 1 ? { packer: jobPacker(o.prepared, info, estimator, 'plan', k) } : {}) })]));
  const all = [...byK.values()];
  // Each row's prompt is rendered and counted once for every K (the packers share the template).
  const anyPacker = ks.length > 1 ? jobPacker(o.prepared, info, estimator, 'plan', Math.max(...ks)) : undefined;
  for await (const record of source.records()) {
    if (record.index >= limit) break;
    rows++;
    if (o.isDone(record.index)) {
      done++;
      continue;
    }
    if (record.cells.every((cell) => cell.trim() === '')) {
      empty++;
      continue;
    }
    const features = o.prepared.features(record.cells);
    const full = estimator.estimate(features);
    if (full > config.maxInputTokens) {
      tooLong++;
      continue;
    }
    const prompt = template.render(record.cells);
    const promptPart = Math.min(full, estimator.estimate(tokenFeatures(prompt)));
    templateTokens ??= estimator.estimate(tokenFeatures(template.render(record.cells.map(() => ''))));
    insertedTokens += Math.max(0, promptPart - templateTokens);
    const item = plannedItem(record.index, record.cells, features);
    const row = { item, promptPart, member: anyPacker?.member(item) };
    for (const packed of all) packed.push(row);
    if (o.countTokens) sample.offer(prompt);
  }
  for (const packed of all) packed.end();
  // --count-tokens: the ratio of the API's count to our estimate on prompts spread through the file scales the prompt
  // part; the fixed part (the same text every time) is left as estimated.
  let scale: number | undefined;
  if (o.countTokens && sample.items.length > 0) {
    const estimated = sample.items.reduce((n, text) => n + estimator.estimate(tokenFeatures(text)), 0);
    if (estimated > 0) scale = (await o.countTokens(sample.items)) / estimated;
  }
  const rowsToSend = rows - done - tooLong - empty;
  const { perRow, basis } = outputPerRow(o.prepared, { insertedPerRow: rowsToSend > 0 ? insertedTokens / rowsToSend : 0, given: o.outputTokensPerRow });
  const thinking = thinkingPerRow(o.prepared, info.leastReasoningTokens, catalog.reasoningOff);
  const allGiven = config.rpm !== undefined && config.tpm !== undefined;
  const limitsWhy = allGiven ? 'as given (--rpm, --tpm' + (config.rpd !== undefined ? ', --rpd)' : ')') : (known?.why ?? start.why);
  const usable = 1 - config.headroom;
  const price = priceOf(info.price, config.price);
  const costTier: BillingTier = config.serviceTier ?? 'standard';
  const outputs = outputTokensOf(o.prepared, perRow, thinking);
  const figuresOf = (packed: PackedRequests): Figures => {
    const inputs = packed.scaledInputs(scale);
    const requestOutputs = packed.requestOutputs(outputs);
    const costs = price ? tierCosts(price, inputs, requestOutputs) : [];
    const inputTokens = packed.inputTokens(scale);
    const days = limits.rpd ? packed.requests / (o.projects * limits.rpd.value) : undefined;
    return {
      packed,
      inputs,
      requestOutputs,
      costs,
      figures: {
        rowsPerRequest: packed.rowsPerRequest,
        requests: packed.requests,
        inputTokens,
        outputTokens: packed.outputTokens(outputs),
        minutesUnderRpm: packed.requests / (o.projects * limits.rpm.value * usable),
        minutesUnderTpm: inputTokens / (o.projects * limits.tpm.value * usable),
        daysUnderRpd: days,
        costUsd: price ? (costs.find((c) => c.tier === costTier)?.usd ?? costs[0]?.usd) : undefined,
      },
    };
  };
  const chosen = figuresOf(byK.get(asked) as PackedRequests);
  const alone = asked > 1 ? figuresOf(byK.get(1) as PackedRequests).figures : undefined;
  const { requests, inputTokens, outputTokens, minutesUnderRpm, minutesUnderTpm, daysUnderRpd } = chosen.figures;
  const thinkingTokens = chosen.packed.thinkingTokens(outputs);
  const perMinute: Binding = minutesUnderTpm > minutesUnderRpm ? { dimension: 'TPM', minutes: minutesUnderTpm } : { dimension: 'RPM', minutes: minutesUnderRpm };
  const binding: Binding = daysUnderRpd !== undefined && daysUnderRpd > 1 ? { dimension: 'RPD', days: Math.ceil(daysUnderRpd), minutes: perMinute.minutes } : perMinute;
  const candidates = suggestable ? SUGGESTED_KS.map((k) => figuresOf(byK.get(k) as PackedRequests).figures) : [];
  return {
    dayZone: catalog.quotaDay.zone,
    rows,
    done,
    tooLong,
    empty,
    maxInputTokens: { value: config.maxInputTokens, source: o.maxInputTokensGiven ? 'given' : 'model' },
    rowsToSend,
    rowsPerRequest: asked,
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
    noQuota,
    headroom: config.headroom,
    minutesUnderRpm,
    minutesUnderTpm,
    daysUnderRpd,
    binding,
    alone,
    suggestion: noQuota ? undefined : suggestRowsPerRequest(chosen.figures, candidates),
    price,
    costUsd: chosen.figures.costUsd,
    costTier,
    tierCosts: chosen.costs,
    cap:
      price && config.maxCostUsd !== undefined
        ? {
            capUsd: config.maxCostUsd,
            spentUsd: o.spentUsd ?? 0,
            rows: rowsUnderBudget(price, chosen.inputs, chosen.requestOutputs, Math.max(0, config.maxCostUsd - (o.spentUsd ?? 0))).map((r) => ({
              ...r,
              rows: chosen.packed.rowsIn(r.rows),
              ...(r.lowRows !== undefined ? { lowRows: chosen.packed.rowsIn(r.lowRows) } : {}),
            })),
          }
        : undefined,
    billed: known?.billed ?? start.billed,
    hasUsageTiers: catalog.usageTiers,
    canCountTokens: catalog.countsTokens,
  };
}

/** The estimate of one K with what costs it: each request's input and output tokens, and the cost at every tier. */
interface Figures {
  packed: PackedRequests;
  inputs: Float64Array;
  requestOutputs: Float64Array;
  costs: TierCost[];
  figures: RequestFigures;
}

/** A row to send as plan hands it to the packers: what ../job/pack-rows.ts reads of a work item (row, cells, features). */
function plannedItem(row: number, cells: string[], features: Float64Array): WorkItem {
  return freshWorkItem(row, cells, '', features);
}

/**
 * Output tokens of each kind of request: a row alone answers `perRow`; a packed answer holds each row's answer inside
 * its item's JSON (`{"id":"bc","label":…},`) within `{"items":[…]}` (../prompt/pack-request.ts); a thinking budget
 * bounds each request.
 */
function outputTokensOf(p: PreparedJob, perRow: number, thinking: { perRow: number | undefined; byOutputCap: boolean }): OutputTokens {
  const field = p.config.labels ? 'label' : p.config.schema ? undefined : 'answer';
  return {
    alone: perRow,
    perItem: perRow + jsonTokens(field ? `{"id":"bc","${field}":""},` : '{"id":"bc",},'),
    perPack: jsonTokens('{"items":[]}'),
    thinkingPerRequest: thinking.perRow,
    thinkingPerRow: thinking.byOutputCap,
  };
}

/**
 * Tokens of a short JSON text: one per word and one per run of punctuation (`":"`, `","`, `"},`): subword vocabularies
 * hold those runs whole (o200k_base, the simulator's tokenizer, counts `{"id":"bc","label":"late"},` as 9).
 */
function jsonTokens(text: string): number {
  return (text.match(/[A-Za-z0-9_]+|[^A-Za-z0-9_\s]+/g) ?? []).length;
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
 * Thinking tokens per request (a row alone, or a pack): the --thinking-budget, else the model's least thinking (ModelInfo.leastReasoningTokens);
 * when thinking is dynamic or set by level, at most --max-output-tokens, else unbounded.
 */
function thinkingPerRow(p: PreparedJob, leastReasoningTokens: number | undefined, reasoningOff: string): { perRow: number | undefined; basis: string; byOutputCap: boolean } {
  const budget = p.config.thinkingBudget ?? leastReasoningTokens;
  if (budget === 0) return { perRow: 0, basis: `thinking off (${reasoningOff})`, byOutputCap: false };
  if (budget !== undefined && budget > 0) return { perRow: budget, basis: `at most the thinking budget, ${budget} per request`, byOutputCap: false };
  const max = p.config.maxOutputTokens;
  return max !== undefined
    ? { perRow: max, basis: `thinking on: at most maxOutputTokens, ${max} per row`, byOutputCap: true }
    : { perRow: undefined, basis: 'thinking on and unbounded: set --thinking-budget or --max-output-tokens', byOutputCap: false };
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
