/**
 * The `key` of a batch line: the row id and the fingerprint of its prompt inputs (../job/answer-fingerprint.ts),
 * `r<row>:<fp>`. Results come back in any order and are joined to rows by this key only, never by position
 * (docs/batch-runner.md "Results"); the fingerprint is journaled with the answer, so an answer to a row whose prompt
 * inputs changed meanwhile is told apart from the row's own, as online answers are.
 */

/** The key of a row. */
export function resultKey(row: number, fingerprint: string): string {
  return `r${row}:${fingerprint}`;
}

/** The row and fingerprint of a key, or undefined when it is not one of ours. */
export function parseResultKey(key: string | undefined): { row: number; fingerprint: string } | undefined {
  const match = key === undefined ? null : /^r(\d{1,15}):([A-Za-z0-9_-]{1,64})$/.exec(key);
  if (!match) return undefined;
  return { row: Number(match[1]), fingerprint: match[2] as string };
}
