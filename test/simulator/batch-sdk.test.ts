/**
 * The Batch API path a runner takes, driven through the official @google/genai SDK over real HTTP on 127.0.0.1:
 * upload a JSONL file (resumable protocol), create a batch from it, poll it through PENDING and RUNNING to SUCCEEDED on
 * the simulator's clock, download the responses file; inline requests with inline responses. Answers are the online
 * ones for the same request, joined by key, in an order that is not the input's.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { BATCH_START, batchWorld, ENUM_CONFIG, LABELS, jsonlLines, rawGet, readResponses, rowText, sdk, startBatchSim, textOf } from './batch-support.js';
import type { FakeClock } from './helpers.js';

const world = batchWorld();

function start(batch: Record<string, unknown> = {}, scripts: unknown[] = []): Promise<{ sim: SimulatorHandle; clock: FakeClock }> {
  return startBatchSim(world, batch, { scripts });
}

describe('Files API upload through the SDK', () => {
  it('uploads a JSONL file resumably and answers the File resource: files/ name, sizeBytes as a string, ACTIVE, expiry 48 h', async () => {
    const { sim } = await start();
    const text = jsonlLines(30);
    const file = await sdk(sim.url).files.upload({ file: world.tmp!.file('rows.jsonl', text), config: { mimeType: 'jsonl', displayName: 'rows' } });
    expect(file.name).toMatch(/^files\/[a-z0-9][a-z0-9-]{0,38}[a-z0-9]$/);
    expect(file.sizeBytes).toBe(String(Buffer.byteLength(text)));
    expect(file.mimeType).toBe('jsonl');
    expect(file.displayName).toBe('rows');
    expect(file.state).toBe('ACTIVE');
    expect(Date.parse(file.expirationTime!) - Date.parse(file.createTime!)).toBe(48 * 3_600_000);
    expect(Buffer.from(file.sha256Hash!, 'base64').toString()).toBe(createHash('sha256').update(text).digest('hex'));
    const again = await sdk(sim.url).files.get({ name: file.name! });
    expect(again).toMatchObject({ name: file.name, sizeBytes: file.sizeBytes, state: 'ACTIVE' });
    expect(sim.stats().batches.filesUploaded).toBe(1);
  });

  it('a file larger than one 8 MiB chunk arrives whole through several upload requests', async () => {
    const { sim } = await start();
    const big = 'x'.repeat(9 * 1024 * 1024 + 123);
    const p = world.tmp!.file('big.jsonl', big);
    const file = await sdk(sim.url).files.upload({ file: p, config: { mimeType: 'jsonl' } });
    expect(file.sizeBytes).toBe(String(statSync(p).size));
    expect(Buffer.from(file.sha256Hash!, 'base64').toString()).toBe(createHash('sha256').update(big).digest('hex'));
    // start + two chunks (8 MiB, then the rest with finalize)
    expect(sim.stats().requests.byEndpoint['files.upload']).toBe(3);
  });
});

describe('a batch from an uploaded file, through the SDK', () => {
  it('create → PENDING → RUNNING → SUCCEEDED on the simulator clock; the responses file holds every key once, out of order, with the online answers', async () => {
    const { sim, clock } = await start();
    const ai = sdk(sim.url);
    const n = 40;
    const file = await ai.files.upload({ file: world.tmp!.file('rows.jsonl', jsonlLines(n)), config: { mimeType: 'jsonl' } });
    const job = await ai.batches.create({ model: 'gemini-2.5-flash', src: file.name!, config: { displayName: 'job-1' } });
    expect(job.name).toMatch(/^batches\/[a-z0-9]+$/);
    expect(job.state).toBe('JOB_STATE_PENDING');
    expect(job.displayName).toBe('job-1');
    expect(job.model).toBe('models/gemini-2.5-flash');

    clock.advance(999);
    expect((await ai.batches.get({ name: job.name! })).state).toBe('JOB_STATE_PENDING');
    clock.advance(1);
    expect((await ai.batches.get({ name: job.name! })).state).toBe('JOB_STATE_RUNNING');
    // Half-way through RUNNING, about half the lines are done; the counters are int64 strings.
    clock.advance(1000);
    const mid = (await rawGet(sim.url, job.name!)).json;
    expect(mid.metadata.state).toBe('BATCH_STATE_RUNNING');
    expect(mid.done).toBeUndefined();
    expect(mid.metadata.batchStats).toEqual({ requestCount: String(n), pendingRequestCount: String(n / 2), successfulRequestCount: String(n / 2) });
    clock.advance(1000);
    const done = await ai.batches.get({ name: job.name! });
    expect(done.state).toBe('JOB_STATE_SUCCEEDED');
    expect(done.endTime).toBe(new Date(BATCH_START + 3000).toISOString());
    const responsesFile = done.dest?.fileName;
    expect(responsesFile).toBe(`files/batch-${job.name!.slice('batches/'.length)}`);

    const raw = (await rawGet(sim.url, job.name!)).json;
    expect(raw.done).toBe(true);
    expect(raw.metadata.batchStats).toEqual({ requestCount: String(n), successfulRequestCount: String(n) });
    expect(raw.response).toEqual({ '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput', responsesFile });

    const out = world.tmp!.file('out.jsonl');
    await ai.files.download({ file: responsesFile!, downloadPath: out });
    const lines = readResponses(out);
    const keys = lines.map((l) => l.key!);
    const expected = Array.from({ length: n }, (_, i) => `row-${i + 1}`);
    expect([...keys].sort()).toEqual([...expected].sort());
    expect(keys).not.toEqual(expected);
    // The same request online gets the same label.
    const byKey = new Map(lines.map((l) => [l.key, textOf(l)]));
    for (const i of [1, 2, 3, 17, 40]) {
      const online = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: rowText(i), config: { ...ENUM_CONFIG, systemInstruction: 'Label the sentiment.' } });
      expect(LABELS).toContain(online.text);
      expect(byKey.get(`row-${i}`)).toBe(online.text);
    }
    expect(sim.stats().batches).toMatchObject({ created: 1, lines: n, byState: { BATCH_STATE_SUCCEEDED: 1 }, keysInSeveralBatches: 0, downloads: 1 });
  });

  it('the documented download path /download/v1beta/files/{id}:download?alt=media serves the same bytes', async () => {
    const { sim, clock } = await start();
    const ai = sdk(sim.url);
    const file = await ai.files.upload({ file: world.tmp!.file('rows.jsonl', jsonlLines(5)), config: { mimeType: 'jsonl' } });
    const job = await ai.batches.create({ model: 'gemini-2.5-flash', src: file.name! });
    clock.advance(3000);
    const name = (await ai.batches.get({ name: job.name! })).dest!.fileName!;
    const out = world.tmp!.file('out.jsonl');
    await ai.files.download({ file: name, downloadPath: out });
    const res = await fetch(`${sim.url}/download/v1beta/${name}:download?alt=media`, { headers: { 'x-goog-api-key': 'key-a' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(readFileSync(out, 'utf8'));
  });

  it('results are not downloadable before the batch has SUCCEEDED, and an uploaded file is never downloadable', async () => {
    const { sim } = await start();
    const ai = sdk(sim.url);
    const file = await ai.files.upload({ file: world.tmp!.file('rows.jsonl', jsonlLines(3)), config: { mimeType: 'jsonl' } });
    const job = await ai.batches.create({ model: 'gemini-2.5-flash', src: file.name! });
    const early = await fetch(`${sim.url}/v1beta/files/batch-${job.name!.split('/')[1]}:download?alt=media`, { headers: { 'x-goog-api-key': 'key-a' } });
    expect(early.status).toBe(403);
    const uploaded = await fetch(`${sim.url}/v1beta/${file.name}:download?alt=media`, { headers: { 'x-goog-api-key': 'key-a' } });
    expect(uploaded.status).toBe(400);
  });
});

describe('a batch of inline requests, through the SDK', () => {
  it('answers inline responses keyed by metadata, out of order, with the online answers', async () => {
    const { sim, clock } = await start();
    const ai = sdk(sim.url);
    const n = 12;
    const src = Array.from({ length: n }, (_, k) => ({
      contents: rowText(k + 1),
      config: { ...ENUM_CONFIG, systemInstruction: 'Label the sentiment.' },
      metadata: { key: `row-${k + 1}` },
    }));
    const job = await ai.batches.create({ model: 'gemini-2.5-flash', src, config: { displayName: 'inline-1' } });
    expect(job.state).toBe('JOB_STATE_PENDING');
    clock.advance(3000);
    const done = await ai.batches.get({ name: job.name! });
    expect(done.state).toBe('JOB_STATE_SUCCEEDED');
    const inline = done.dest?.inlinedResponses ?? [];
    const keys = inline.map((r) => r.metadata?.key);
    expect([...keys].sort()).toEqual(src.map((s) => s.metadata.key).sort());
    expect(keys).not.toEqual(src.map((s) => s.metadata.key));
    for (const r of inline) {
      const i = Number(r.metadata!.key!.slice(4));
      const online = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: rowText(i), config: { ...ENUM_CONFIG, systemInstruction: 'Label the sentiment.' } });
      // The SDK gives inline responses as plain objects (no .text getter).
      expect(r.response?.candidates?.[0]?.content?.parts?.[0]?.text).toBe(online.text);
    }
    expect(sim.stats().batches.byState).toEqual({ BATCH_STATE_SUCCEEDED: 1 });
  });
});
