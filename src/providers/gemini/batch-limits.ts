/**
 * The Batch API's enqueued-token limits: the input tokens a quota project's unfinished batches of one model may hold,
 * by usage tier. Source: docs/batch-runner.md "Limits" — https://ai.google.dev/gemini-api/docs/rate-limits#batch-api
 * (late-2026 copy, as transcribed in docs/reference/batch-openai-vertex-facts.md §a.7). The figures drift: they are where a job
 * starts, and a create refused with 429 is waited out (src/batch/batch-runner.ts).
 */

/** Longest prefix wins: `gemini-2.5-flash-lite` before `gemini-2.5-flash`. Tokens by tier `1`, `2`, `3`. */
const ENQUEUED_TOKENS: ReadonlyArray<{ prefix: string; tokens: Readonly<Record<'1' | '2' | '3', number>> }> = [
  { prefix: 'gemini-3-pro', tokens: { '1': 50_000_000, '2': 500_000_000, '3': 1_000_000_000 } },
  { prefix: 'gemini-3-flash', tokens: { '1': 3_000_000, '2': 400_000_000, '3': 500_000_000 } },
  { prefix: 'gemini-2.5-pro', tokens: { '1': 5_000_000, '2': 500_000_000, '3': 1_000_000_000 } },
  { prefix: 'gemini-2.5-flash-lite', tokens: { '1': 10_000_000, '2': 500_000_000, '3': 1_000_000_000 } },
  { prefix: 'gemini-2.5-flash', tokens: { '1': 3_000_000, '2': 400_000_000, '3': 1_000_000_000 } },
  { prefix: 'gemini-2.0-flash', tokens: { '1': 10_000_000, '2': 1_000_000_000, '3': 5_000_000_000 } },
];

const SOURCE = 'https://ai.google.dev/gemini-api/docs/rate-limits#batch-api (late-2026 copy; docs/batch-runner.md "Limits")';

/** The enqueued-token limits of a model id by tier, or undefined when the table has no row for it. */
export function batchQueueOf(model: string): { tokens: Readonly<Record<string, number>>; source: string } | undefined {
  const id = model.replace(/^models\//, '');
  const row = [...ENQUEUED_TOKENS].sort((a, b) => b.prefix.length - a.prefix.length).find((r) => id.startsWith(r.prefix));
  return row ? { tokens: row.tokens, source: SOURCE } : undefined;
}
