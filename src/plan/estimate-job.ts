/**
 * What a job will take, before anything is sent: rows, input and output tokens, requests, the time each quota
 * dimension needs, and the cost at list price. Input tokens come from the local estimator (schedule/token-estimator.ts)
 * with its prior, or scaled by one countTokens call on a sample of the job's prompts (`--count-tokens`).
 */
import type { PreparedJob } from '../job/prepare-job.js';
import { modelProfile } from '../prompt/model-profile.js';
import { ENUM_MAX_OUTPUT_TOKENS } from '../prompt/build-request.js';
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
}

/** Prompts sent in the one countTokens call of `--count-tokens`. */
export const COUNT_TOKENS_SAMPLE = 20;

/** Reads the whole input once and adds up the estimates. @throws InputError from reading the input. */
export async function estimateJob(o: EstimateOptions): Promise<JobEstimate> {
  const { config, source, template } = o.prepared;
  const estimator = new TokenEstimator();
  const limit = config.limit ?? Infinity;
  let scale: number | undefined;
  if (o.countTokens) {
    const sample: string[] = [];
    for await (const record of source.records()) {
      if (record.index >= limit || sample.length >= COUNT_TOKENS_SAMPLE) break;
      sample.push(template.render(record.cells));
    }
    const estimated = sample.reduce((n, text) => n + estimator.estimate(tokenFeatures(text)), 0);
    if (estimated > 0) scale = (await o.countTokens(sample)) / estimated;
  }
  let rows = 0;
  let done = 0;
  let tooLong = 0;
  let inputTokens = 0;
  for await (const record of source.records()) {
    if (record.index >= limit) break;
    rows++;
    if (o.isDone(record.index)) {
      done++;
      continue;
    }
    const estimate = Math.max(1, Math.round(estimator.estimate(o.prepared.features(record.cells)) * (scale ?? 1)));
    if (estimate > config.maxInputTokens) {
      tooLong++;
      continue;
    }
    inputTokens += estimate;
  }
  const requests = rows - done - tooLong;
  const { perRow, basis } = outputPerRow(o.prepared);
  const thinking = thinkingPerRow(o.prepared);
  const profile = modelProfile(config.model);
  const limits = {
    rpm: config.rpm !== undefined ? { value: config.rpm, source: 'given' as const } : { value: profile.defaultLimits.rpm, source: 'default' as const },
    tpm: config.tpm !== undefined ? { value: config.tpm, source: 'given' as const } : { value: profile.defaultLimits.tpm, source: 'default' as const },
    rpd: config.rpd !== undefined ? { value: config.rpd, source: 'given' as const } : profile.defaultLimits.rpd !== undefined ? { value: profile.defaultLimits.rpd, source: 'default' as const } : undefined,
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
  const max = p.config.maxOutputTokens ?? (p.config.labels ? ENUM_MAX_OUTPUT_TOKENS : undefined);
  return max !== undefined
    ? { perRow: max, basis: `thinking on: at most maxOutputTokens, ${max} per row` }
    : { perRow: undefined, basis: 'thinking on and unbounded: set --thinking-budget or --max-output-tokens' };
}

function thinkingBudgetOf(model: string): number | undefined {
  const thinking = modelProfile(model).thinking;
  if (thinking === undefined) return 0;
  return 'thinkingBudget' in thinking ? thinking.thinkingBudget : undefined;
}
