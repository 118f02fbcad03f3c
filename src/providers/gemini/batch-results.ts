/**
 * Reads one line of a Gemini batch's results into the neutral {@link BatchResult}, whichever form the results came in
 * (docs/batch-runner.md "Results"; docs/reference/batch-openai-vertex-facts.md §a.5):
 * - a responses file, one JSON object a line: `{"key": "…", "response": {GenerateContentResponse}}` or
 *   `{"key": "…", "error": {"code": 13, "message": "…"}}` (a google.rpc.Status: gRPC codes, not HTTP statuses);
 * - inline responses, items `{"response": {…}, "metadata": {"key": "…"}}` or `{"error": {…}, "metadata": …}`, whose
 *   metadata has been seen missing (python-genai#1886): such an item has no key and can be joined to no row.
 * A response is read as an online answer is (./read-answer.ts): a blocked prompt or a cut answer is judged, never taken
 * for an empty success. Every field is optional.
 */
import type { GenerateContentResponse } from '@google/genai';
import { redactSecrets } from '../../config/known-secrets.js';
import type { BatchResult } from '../contract.js';
import { readAnswer } from './read-answer.js';

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The result of one parsed item; `key` from its top-level `key` (file lines) or `metadata.key` (inline items). */
export function batchResultOf(item: unknown): BatchResult {
  const o = record(item);
  const topKey = o?.key;
  const metaKey = record(o?.metadata)?.key;
  const key = typeof topKey === 'string' ? topKey : typeof metaKey === 'string' ? metaKey : undefined;
  if (!o) return { kind: 'unreadable', key, problem: 'not a JSON object' };
  const error = record(o.error);
  if (error) {
    const code = typeof error.code === 'number' ? error.code : Number(error.code);
    return {
      kind: 'error',
      key,
      code: Number.isFinite(code) ? code : 2,
      status: typeof error.status === 'string' ? error.status : undefined,
      message: redactSecrets(typeof error.message === 'string' ? error.message : 'no message'),
    };
  }
  const response = record(o.response);
  if (response) return { kind: 'answer', key, answer: readAnswer(response as unknown as GenerateContentResponse) };
  return { kind: 'unreadable', key, problem: 'neither a response nor an error' };
}

/** The result of one line of a responses file. */
export function batchResultOfLine(line: string): BatchResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    const key = /"key"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
    return { kind: 'unreadable', key, problem: `not JSON (${(error as Error).message})` };
  }
  return batchResultOf(parsed);
}
