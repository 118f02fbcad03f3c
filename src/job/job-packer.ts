/**
 * The packer of a job (--rows-per-request K, ./pack-rows.ts), built the same way for `classify` and for `plan`, so that
 * plan counts the requests classify will send: at most K rows a pack, within --max-input-tokens and the model's output
 * limit less a thinking budget (ModelInfo.outputTokenLimit, docs/rows-per-request.md "Output limits"), each row's item
 * of the answer estimated by ../prompt/pack-request.ts packItemTokens.
 */
import { packItemTokens } from '../prompt/pack-request.js';
import type { ModelInfo } from '../providers/contract.js';
import { TokenEstimator, tokenFeatures } from '../schedule/token-estimator.js';
import { Packer } from './pack-rows.js';
import type { PreparedJob } from './prepare-job.js';

/** Output tokens one row's item of a packed answer takes, about (the prior estimator's count of its JSON). */
export function packOutputPerRow(prepared: PreparedJob): number {
  const { config } = prepared;
  const prior = new TokenEstimator();
  const empty = prior.estimate(tokenFeatures(''));
  return packItemTokens({ labels: config.labels, schema: config.schema?.json, maxOutputTokens: config.maxOutputTokens }, (text) => Math.max(1, prior.estimate(tokenFeatures(text)) - empty));
}

/**
 * A packer for `prepared`'s job.
 * @param info the model's limits (its provider's catalog entry).
 * @param estimator the estimator the scheduler reserves TPM with (plan: a fresh one, its prior).
 * @param runTag starts every pack id (`<run tag>.<n>`).
 * @param rowsPerRequest K (default --rows-per-request; plan asks for other Ks to suggest one).
 */
export function jobPacker(prepared: PreparedJob, info: ModelInfo, estimator: TokenEstimator, runTag: string, rowsPerRequest = prepared.config.rowsPerRequest): Packer {
  const { config } = prepared;
  const thinking = config.thinkingBudget ?? info.leastReasoningTokens ?? 0;
  return new Packer({
    rowsPerRequest,
    template: prepared.template,
    build: prepared.buildPack,
    estimator,
    maxInputTokens: config.maxInputTokens,
    outputPerRow: packOutputPerRow(prepared),
    outputRoom: Math.max(1, info.outputTokenLimit - Math.max(0, thinking)),
    runTag,
  });
}
