/**
 * What a job will take, before anything is sent: rows, input and output tokens, requests, the time each quota
 * dimension needs, and the cost at list price. Input tokens come from the local estimator (schedule/token-estimator.ts)
 * with its prior, or scaled by one countTokens call on a sample of the job's prompts (`--count-tokens`).
 */
import type { PreparedJob } from '../job/prepare-job.js';
import { modelProfile } from '../prompt/model-profile.js';
import { enumMaxOutputTokens } from '../prompt/build-request.js';
import { TokenEstimator, tokenFeatures } from '../schedule/token-estimator.js';
import { priceOf, requestCost, type ModelPrice } from './price-table.js';

export interface LimitUsed {
  value: number;
  source: 'given' | 'default';
}

export interface JobEstimate {
  rows: number;
  /** Rows with a result in the job directory already. */
  done: number;
  /** Rows whose estimated prompt is over --max-input-tokens (they would end `skipped`). */
  tooLong: number;
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
  headroom: number;
  /** Minutes the requests need under RPM, and the input tokens under TPM; days under RPD. */
  minutesUnderRpm: number;
  minutesUnderTpm: number;
  daysUnderRpd: number | undefined;
  price: ModelPrice | undefined;
  costUsd: number | undefined;
}

export interface EstimateOptions {
  prepared: PreparedJob;
  /** Rows already finished (journal of a matching job), to leave out. */
  isDone(row: number): boolean;
  projects: number;
  /** Tokens of the given prompts, counted by the API in one countTokens call; undefined to use the estimator alone. */
  countTokens?: (prompts: string[]) => Promise<number>;
  /** Limits the endpoint is known to have (the generous simulator), used where no --rpm/--tpm/--rpd is given. */
  knownLimits?: { rpm?: number; tpm?: number; rpd?: number };
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
  const sample = new EvenSample<string>(COUNT_TOKENS_SAMPLE);
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
    promptTokens += promptPart;
    fixedTokens += full - promptPart;
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
  const requests = rows - done - tooLong;
  const { perRow, basis } = outputPerRow(o.prepared);
  const thinking = thinkingPerRow(o.prepared);
  const profile = modelProfile(config.model);
  const known = o.knownLimits ?? {};
  const given = (value: number | undefined): LimitUsed | undefined => (value === undefined ? undefined : { value, source: 'given' });
  const limits = {
    rpm: given(config.rpm ?? known.rpm) ?? { value: profile.defaultLimits.rpm, source: 'default' as const },
    tpm: given(config.tpm ?? known.tpm) ?? { value: profile.defaultLimits.tpm, source: 'default' as const },
    rpd: given(config.rpd ?? known.rpd) ?? (o.knownLimits || profile.defaultLimits.rpd === undefined ? undefined : { value: profile.defaultLimits.rpd, source: 'default' as const }),
  };
  const usable = 1 - config.headroom;
  const outputTokens = perRow * requests;
  const thinkingTokens = thinking.perRow === undefined ? undefined : thinking.perRow * requests;
  const price = priceOf(config.model, config.price);
  return {
    rows,
    done,
    tooLong,
    requests,
    inputTokens,
    outputTokens,
    outputBasis: basis,
    thinkingTokens,
    thinkingBasis: thinking.basis,
    countTokensScale: scale,
    projects: o.projects,
    limits,
    headroom: config.headroom,
    minutesUnderRpm: requests / (o.projects * limits.rpm.value * usable),
    minutesUnderTpm: inputTokens / (o.projects * limits.tpm.value * usable),
    daysUnderRpd: limits.rpd ? requests / (o.projects * limits.rpd.value) : undefined,
    price,
    costUsd: price ? requestCost(price, inputTokens, outputTokens + (thinkingTokens ?? 0)) : undefined,
  };
}

/** Answer tokens per row: the longest label; the JSON of a schema's answer; for free text an assumed length. */
function outputPerRow(p: PreparedJob): { perRow: number; basis: string } {
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
  if (config.maxOutputTokens !== undefined) return { perRow: config.maxOutputTokens, basis: 'at most --max-output-tokens per row' };
  return { perRow: 100, basis: 'free text: 100 tokens per row, assumed (set --max-output-tokens to bound it)' };
}

function thinkingPerRow(p: PreparedJob): { perRow: number | undefined; basis: string } {
  const budget = p.config.thinkingBudget ?? thinkingBudgetOf(p.config.model);
  if (budget === 0) return { perRow: 0, basis: 'thinking off (thinkingBudget 0)' };
  if (budget !== undefined && budget > 0) return { perRow: budget, basis: `at most the thinking budget, ${budget} per row` };
  const profileThinking = modelProfile(p.config.model).thinking;
  const max = p.config.maxOutputTokens ?? (p.config.labels ? enumMaxOutputTokens(profileThinking) : undefined);
  return max !== undefined
    ? { perRow: max, basis: `thinking on: at most maxOutputTokens, ${max} per row` }
    : { perRow: undefined, basis: 'thinking on and unbounded: set --thinking-budget or --max-output-tokens' };
}

function thinkingBudgetOf(model: string): number | undefined {
  const thinking = modelProfile(model).thinking;
  if (thinking === undefined) return 0;
  return 'thinkingBudget' in thinking ? thinking.thinkingBudget : undefined;
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
