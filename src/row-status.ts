/**
 * The `status` column of the output (docs/design.md "Output"). Every output row has exactly one.
 * - `ok`: a valid answer (a label in the set, parsed structured output, or free text).
 * - `failed`: attempts ran out on errors (5xx, network, timeouts, 4xx) or finishReason OTHER; `error` says why.
 * - `blocked`: the prompt (promptFeedback.blockReason) or the answer (SAFETY, RECITATION…) was blocked.
 * - `invalid_label`: the answer was not one of `--labels`, also after a retry; the raw answer is kept.
 * - `invalid_output`: structured output that did not parse or validate, also after a retry.
 * - `skipped`: not sent, e.g. the prompt is longer than `--max-input-tokens`.
 * - `pending`: no result yet (the job stopped early; running it again resumes).
 */
export const ROW_STATUSES = ['ok', 'failed', 'blocked', 'invalid_label', 'invalid_output', 'skipped', 'pending'] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

/** Statuses that `--retry-errors` sends again. */
export const RETRYABLE_STATUSES: ReadonlySet<RowStatus> = new Set(['failed', 'blocked', 'invalid_label', 'invalid_output']);

/** True when `value` is one of {@link ROW_STATUSES}. */
export function isRowStatus(value: unknown): value is RowStatus {
  return typeof value === 'string' && (ROW_STATUSES as readonly string[]).includes(value);
}
