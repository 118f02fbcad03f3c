/**
 * Batch and file names across simulator starts: each start names its batches and files from a fresh seed, so a name
 * kept from an earlier start (a --simulate job resumed by a new process) is a 404, never another start's batch; a
 * scenario that sets `batch.nameSeed` gets the same names every start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { restRequest, rowText } from './batch-support.js';
import { scenario } from './helpers.js';

const started: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function start(batch: Record<string, unknown> = {}): Promise<SimulatorHandle> {
  const sim = await startSimulator(scenario({ seed: 7, batch }));
  started.push(sim);
  return sim;
}

/** Creates an inline batch of 2 lines; answers its name. */
async function createBatch(sim: SimulatorHandle): Promise<string> {
  const requests = [1, 2].map((i) => ({ request: restRequest(rowText(i)), metadata: { key: `row-${i}` } }));
  const res = await fetch(`${sim.url}/v1beta/models/gemini-2.5-flash:batchGenerateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': 'key-a', 'content-type': 'application/json' },
    body: JSON.stringify({ batch: { displayName: 'names', inputConfig: { requests: { requests } } } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { name: string }).name;
}

/** Uploads a small JSONL file (resumable, one request); answers its name. */
async function uploadFile(sim: SimulatorHandle): Promise<string> {
  const bytes = Buffer.from(`${JSON.stringify({ key: 'row-1', request: restRequest(rowText(1)) })}\n`);
  const started = await fetch(`${sim.url}/upload/v1beta/files`, {
    method: 'POST',
    headers: {
      'x-goog-api-key': 'key-a',
      'x-goog-upload-protocol': 'resumable',
      'x-goog-upload-command': 'start',
      'x-goog-upload-header-content-length': String(bytes.length),
      'x-goog-upload-header-content-type': 'application/jsonl',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ file: { displayName: 'names' } }),
  });
  const url = started.headers.get('x-goog-upload-url');
  expect(url).not.toBeNull();
  const done = await fetch(url as string, {
    method: 'POST',
    headers: { 'x-goog-api-key': 'key-a', 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' },
    body: bytes,
  });
  expect(done.status).toBe(200);
  return ((await done.json()) as { file: { name: string } }).file.name;
}

describe('batch and file names across simulator starts', () => {
  it('two starts of the same scenario (same seed) give different batch and file names; an old name is a 404 on the new one', async () => {
    const first = await start();
    const second = await start();
    const [a, b] = [await createBatch(first), await createBatch(second)];
    expect(a).toMatch(/^batches\/[a-z0-9]{22}$/);
    expect(b).toMatch(/^batches\/[a-z0-9]{22}$/);
    expect(a).not.toBe(b);
    expect(await uploadFile(first)).not.toBe(await uploadFile(second));
    // The second start's batch b0001 under the first start's name: nothing there.
    const old = await fetch(`${second.url}/v1beta/${a}`, { headers: { 'x-goog-api-key': 'key-a' } });
    expect(old.status).toBe(404);
  });

  it('batch.nameSeed gives the same names at every start', async () => {
    const first = await start({ nameSeed: 42 });
    const second = await start({ nameSeed: 42 });
    expect(await createBatch(first)).toBe(await createBatch(second));
    expect(await uploadFile(first)).toBe(await uploadFile(second));
    const other = await start({ nameSeed: 43 });
    expect(await createBatch(other)).not.toBe(await createBatch(await start({ nameSeed: 42 })));
  });
});
