/**
 * Helpers of the Batch API tests: JSONL request lines in the REST shape, a temporary directory, the official SDK
 * client for a simulator, reading a downloaded responses file, the raw REST operation of a batch, and a simulator on a
 * fake clock with its temporary directory, closed and removed after each test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GoogleGenAI } from '@google/genai';
import { afterEach } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { FakeClock, scenario } from './helpers.js';

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

/** When the batch tests' fake clock starts (ms). */
export const BATCH_START = Date.parse('2026-12-01T00:00:00Z');

/** The simulator and temporary directory of the test running now (undefined before it starts one). */
export interface BatchWorld {
  sim: SimulatorHandle | undefined;
  tmp: TempDir | undefined;
  /** Those a test started before its latest (a test that restarts the simulator), closed and removed after it too. */
  earlier: Array<{ sim: SimulatorHandle | undefined; tmp: TempDir | undefined }>;
}

/** A {@link BatchWorld}, with an afterEach (in the enclosing scope) that closes its simulator and removes its directory. */
export function batchWorld(): BatchWorld {
  const world: BatchWorld = { sim: undefined, tmp: undefined, earlier: [] };
  afterEach(async () => {
    for (const { sim, tmp } of world.earlier.splice(0)) {
      await sim?.close();
      tmp?.remove();
    }
    await world.sim?.close();
    world.sim = undefined;
    world.tmp?.remove();
    world.tmp = undefined;
  });
  return world;
}

/**
 * Starts `world`'s simulator on a fake clock at {@link BATCH_START}: the test scenario (./helpers.ts) with batches
 * PENDING for 1 s and RUNNING for 2 s unless `batch` says otherwise, and `over`'s top-level fields; and a fresh
 * temporary directory.
 */
export async function startBatchSim(world: BatchWorld, batch: Record<string, unknown> = {}, over: Record<string, unknown> = {}): Promise<{ sim: SimulatorHandle; clock: FakeClock }> {
  const clock = new FakeClock(BATCH_START);
  const sim = await startSimulator(scenario({ batch: { pendingMs: 1000, runningMs: 2000, ...batch }, ...over }), { clock });
  if (world.sim || world.tmp) world.earlier.push({ sim: world.sim, tmp: world.tmp });
  world.sim = sim;
  world.tmp = tempDir();
  return { sim, clock };
}

/** A temporary directory: its path, a file in it (written when `text` is given), and removing it. */
export interface TempDir {
  dir: string;
  file(name: string, text?: string): string;
  remove(): void;
}

/** A temporary directory, removed by the returned function. */
export function tempDir(): TempDir {
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
