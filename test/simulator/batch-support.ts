/**
 * Helpers of the Batch API tests: JSONL request lines in the REST shape, a temporary directory, the official SDK
 * client for a simulator, reading a downloaded responses file, and the raw REST operation of a batch.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GoogleGenAI } from '@google/genai';

export const LABELS = ['positive', 'negative', 'neutral'];

/** The REST generationConfig of an enum classification, thinking off. */
export const ENUM_CONFIG = { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: LABELS }, thinkingConfig: { thinkingBudget: 0 } };

/** The prompt text of row `i`; `marker` (a script's match) is appended when given. */
export function rowText(i: number, marker = ''): string {
  return `Review ${i}: the parcel came ${i % 3 === 0 ? 'late' : 'on time'}.${marker}`;
}

/** A GenerateContentRequest in REST field names for `text`. */
export function restRequest(text: string): Record<string, unknown> {
  return { contents: [{ role: 'user', parts: [{ text }] }], generationConfig: ENUM_CONFIG, systemInstruction: { parts: [{ text: 'Label the sentiment.' }] } };
}

/** `n` JSONL lines `{"key": "row-i", "request": …}` (i from 1), text from `text(i)`. */
export function jsonlLines(n: number, text: (i: number) => string = (i) => rowText(i)): string {
  let out = '';
  for (let i = 1; i <= n; i++) out += `${JSON.stringify({ key: `row-${i}`, request: restRequest(text(i)) })}\n`;
  return out;
}

/** A temporary directory, removed by the returned function. */
export function tempDir(): { dir: string; file(name: string, text?: string): string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'gb-batch-'));
  return {
    dir,
    file(name, text) {
      const p = path.join(dir, name);
      if (text !== undefined) writeFileSync(p, text);
      return p;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The official SDK against `url` with `key`. */
export function sdk(url: string, key = 'key-a'): GoogleGenAI {
  return new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } });
}

/** One parsed line of a responses file. */
export interface ResponseLine {
  key?: string;
  response?: { candidates?: Array<{ content?: { parts?: Array<{ text?: string }> }; finishReason?: string }>; promptFeedback?: { blockReason?: string } };
  error?: { code: number; message: string };
}

/** The lines of a downloaded responses file (every line must end with "\n"). */
export function readResponses(file: string): ResponseLine[] {
  const text = readFileSync(file, 'utf8');
  if (text !== '' && !text.endsWith('\n')) throw new Error('the responses file does not end with a newline');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ResponseLine);
}

/** The answer text of a response line. */
export function textOf(line: ResponseLine): string | undefined {
  return line.response?.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join('');
}

/** A batch as the REST API answers it: a long-running operation (docs/batch-api.md "Resource"). */
export interface RawOperation {
  name: string;
  done?: boolean;
  error?: { code: number; message: string };
  response?: Record<string, unknown>;
  metadata: {
    state: string;
    batchStats: Record<string, string>;
    inputConfig?: { fileName?: string };
    output?: Record<string, unknown>;
  };
}

/** The raw REST body of `GET /v1beta/{name}` (the SDK drops batchStats: docs/batch-api.md). */
export async function rawGet(url: string, name: string, key = 'key-a'): Promise<{ status: number; json: RawOperation }> {
  const res = await fetch(`${url}/v1beta/${name}`, { headers: { 'x-goog-api-key': key } });
  return { status: res.status, json: (await res.json()) as RawOperation };
}

/** GET `url` and its JSON body as `T` (a simulator control endpoint or a raw REST page). */
export async function getJson<T>(url: string, key?: string): Promise<T> {
  const res = await fetch(url, key !== undefined ? { headers: { 'x-goog-api-key': key } } : {});
  return (await res.json()) as T;
}
