/**
 * Splits the usage of a packed request among its rows, so that every row's journaled tokens are its share and the
 * job's totals stay exact: the shares of each count add up to the request's usageMetadata, whatever became of the rows
 * (a row sent again later keeps its share of this request, as it was part of it).
 *
 * - Input tokens in proportion to each row's weight (its item's estimated tokens): the part every row shares (system
 *   instruction, examples, schema, the pack's own words) goes with it in the same proportion.
 * - Output and thinking tokens evenly: the items of an answer are alike (an id and a label).
 * Integers by the largest-remainder method (Hamilton's), remainders tied to the earlier row.
 */
import type { RowTokens } from '../journal/journal-entry.js';
import type { AnswerUsage } from '../providers/contract.js';

/**
 * Integer parts of `total` (≥ 0) proportional to `weights` (> 0 each; all 1 when none is positive) that add up to
 * `total` exactly.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const n = weights.length;
  if (n === 0) return [];
  const w = weights.every((x) => !(x > 0)) ? weights.map(() => 1) : weights.map((x) => (x > 0 ? x : 0));
  const sum = w.reduce((a, b) => a + b, 0);
  const exact = w.map((x) => (total * x) / sum);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % n, left--) parts[order[k]!.i]!++;
  return parts;
}

/** Each row's share of a packed request's usage, by position (see the file comment). */
export function shareUsage(usage: AnswerUsage, weights: readonly number[]): RowTokens[] {
  const even = weights.map(() => 1);
  const input = apportion(usage.inputTokens, weights);
  const output = apportion(usage.outputTokens, even);
  const thoughts = apportion(usage.reasoningTokens, even);
  return weights.map((_, i) => ({ input: input[i] ?? 0, output: output[i] ?? 0, thoughts: thoughts[i] ?? 0 }));
}
