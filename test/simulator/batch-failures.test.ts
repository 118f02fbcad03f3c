/**
 * The Batch API's failure modes and scripted cases, through the official @google/genai SDK over real HTTP on
 * 127.0.0.1 (raw REST where the SDK hides a field): per-line gRPC errors, blocked lines, batches that end FAILED or
 * EXPIRED or stay PENDING, cancel, delete, create-time 429s with the help-only body, list and projects, the counter
 * of batches per set of rows, create-time validation, the reply delays and events that give tests kill windows.
 */
import { ApiError, GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { type BatchEvent, type BatchRecord, type SimulatorHandle } from '../../src/simulator/index.js';
import { batchWorld, LABELS, getJson, jsonlLines, rawGet, type RawOperation, readResponses, restRequest, rowText, sdk, startBatchSim, textOf, type ResponseLine } from './batch-support.js';
import { type FakeClock, fixture } from './helpers.js';

const world = batchWorld();

async function start(batch: Record<string, unknown> = {}, over: Record<string, unknown> = {}): Promise<{ sim: SimulatorHandle; clock: FakeClock; ai: GoogleGenAI }> {
  const { sim, clock } = await startBatchSim(world, batch, over);
  return { sim, clock, ai: sdk(sim.url) };
}

/** Uploads `text` as JSONL and creates a batch from it. */
async function fileBatch(ai: GoogleGenAI, text: string, displayName?: string): Promise<string> {
  const file = await ai.files.upload({ file: world.tmp!.file(`in-${Math.random().toString(36).slice(2)}.jsonl`, text), config: { mimeType: 'jsonl' } });
  const job = await ai.batches.create({ model: 'gemini-2.5-flash', src: file.name!, ...(displayName ? { config: { displayName } } : {}) });
  return job.name!;
}

/** The lines of a SUCCEEDED batch's responses file, by key. */
async function results(ai: GoogleGenAI, name: string): Promise<Map<string, ResponseLine>> {
  const job = await ai.batches.get({ name });
  expect(job.state).toBe('JOB_STATE_SUCCEEDED');
  const out = world.tmp!.file(`out-${Math.random().toString(36).slice(2)}.jsonl`);
  await ai.files.download({ file: job.dest!.fileName!, downloadPath: out });
  return new Map(readResponses(out).map((l) => [l.key!, l]));
}

/** The ApiError a call rejects with, and its JSON body. */
interface ErrorBody {
  error: { code: number; message: string; status: string; details?: unknown[] };
}

async function apiError(call: Promise<unknown>): Promise<{ status: number; body: ErrorBody }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  const e = err as ApiError;
  return { status: e.status, body: JSON.parse(e.message) as ErrorBody };
}

describe('per-line errors and blocked lines', () => {
  it('lineErrors give {"error": {code, message}} lines with gRPC codes: 13 once for row-2 (a retry succeeds), 3 for row-5 every time', async () => {
    const { ai, clock, sim } = await start({
      lineErrors: [
        { code: 13, keys: ['row-2'], times: 1 },
        { code: 3, keys: ['row-5'], message: 'Request contains an invalid argument.' },
      ],
    });
    const first = await fileBatch(ai, jsonlLines(6));
    clock.advance(3000);
    const r1 = await results(ai, first);
    expect(r1.get('row-2')!.error).toEqual({ code: 13, message: expect.stringContaining('An internal error has occurred') });
    expect(r1.get('row-2')!.response).toBeUndefined();
    expect(r1.get('row-5')!.error).toEqual({ code: 3, message: 'Request contains an invalid argument.' });
    for (const k of ['row-1', 'row-3', 'row-4', 'row-6']) expect(LABELS).toContain(textOf(r1.get(k)!));
    const raw = (await rawGet(sim.url, first)).json;
    expect(raw.metadata.batchStats).toEqual({ requestCount: '6', successfulRequestCount: '4', failedRequestCount: '2' });
    expect(raw.metadata.state).toBe('BATCH_STATE_SUCCEEDED');

    // The failed rows again, in a later batch: row-2 succeeds (times: 1), row-5 fails again.
    const retry = jsonlLines(6)
      .split('\n')
      .filter((l) => l.includes('"row-2"') || l.includes('"row-5"'))
      .join('\n');
    const second = await fileBatch(ai, `${retry}\n`);
    clock.advance(3000);
    const r2 = await results(ai, second);
    expect(LABELS).toContain(textOf(r2.get('row-2')!));
    expect(r2.get('row-5')!.error?.code).toBe(3);
  });

  it('a fraction of lines fails on each attempt independently, seeded: the same scenario fails the same lines', async () => {
    const run = async (): Promise<string[]> => {
      const { ai, clock } = await start({ lineErrors: [{ code: 13, fraction: 0.3 }] });
      const name = await fileBatch(ai, jsonlLines(200));
      clock.advance(3000);
      const failed = [...(await results(ai, name)).values()].filter((l) => l.error).map((l) => l.key!);
      await world.sim!.close();
      world.sim = undefined;
      return failed.sort();
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThan(200 * 0.3 - 25);
    expect(a.length).toBeLessThan(200 * 0.3 + 25);
  });

  it('blocked lines (a blocked rule, and the online script marker) have promptFeedback.blockReason and no candidates; a scripted 503 is code 14', async () => {
    const { ai, clock } = await start(
      { blocked: [{ keys: ['row-3'], blockReason: 'SAFETY' }] },
      {
        scripts: [
          { match: '#sim:blocked', responses: [{ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' }] },
          { match: '#sim:503', responses: [{ kind: 'error', fixture: '503-overloaded' }] },
        ],
      },
    );
    const name = await fileBatch(ai, jsonlLines(5, (i) => rowText(i, i === 4 ? ' #sim:blocked' : i === 5 ? ' #sim:503' : '')));
    clock.advance(3000);
    const r = await results(ai, name);
    expect(r.get('row-3')!.response!.promptFeedback).toEqual({ blockReason: 'SAFETY' });
    expect(r.get('row-3')!.response!.candidates).toBeUndefined();
    expect(r.get('row-4')!.response!.promptFeedback).toEqual({ blockReason: 'PROHIBITED_CONTENT' });
    expect(r.get('row-4')!.response!.candidates).toBeUndefined();
    expect(r.get('row-5')!.error).toEqual({ code: 14, message: (fixture('503-overloaded') as ErrorBody).error.message });
  });

  it('a script advances by the same sequence online and in a batch: the first try online 503s, the batch line gets the second response', async () => {
    const { ai, clock } = await start({}, { scripts: [{ match: '#sim:flaky', responses: [{ kind: 'error', fixture: '503-overloaded' }, { kind: 'text', text: 'neutral' }] }] });
    const text = rowText(1, ' #sim:flaky');
    const online = await apiError(ai.models.generateContent({ model: 'gemini-2.5-flash', contents: text }));
    expect(online.status).toBe(503);
    const name = await fileBatch(ai, `${JSON.stringify({ key: 'row-1', request: restRequest(text) })}\n`);
    clock.advance(3000);
    expect(textOf((await results(ai, name)).get('row-1')!)).toBe('neutral');
  });

  it('a line whose request does not read is a code-3 line, not a refused batch', async () => {
    const { ai, clock } = await start();
    const text = `${JSON.stringify({ key: 'empty', request: { contents: [] } })}\n${jsonlLines(1)}`;
    const name = await fileBatch(ai, text);
    clock.advance(3000);
    const r = await results(ai, name);
    expect(r.get('empty')!.error?.code).toBe(3);
    expect(LABELS).toContain(textOf(r.get('row-1')!));
  });
});

describe('how whole batches end', () => {
  it('jobs nth [1] FAILED: PENDING → RUNNING → FAILED with error code 13 and no output; the next batch SUCCEEDS', async () => {
    const { ai, clock, sim } = await start({ jobs: [{ end: 'FAILED', nth: [1] }] });
    const first = await fileBatch(ai, jsonlLines(4));
    clock.advance(1000);
    expect((await ai.batches.get({ name: first })).state).toBe('JOB_STATE_RUNNING');
    clock.advance(2000);
    const failed = await ai.batches.get({ name: first });
    expect(failed.state).toBe('JOB_STATE_FAILED');
    expect(failed.dest).toBeUndefined();
    const raw = (await rawGet(sim.url, first)).json;
    expect(raw.done).toBe(true);
    expect(raw.error?.code).toBe(13);
    expect(raw.response).toBeUndefined();
    expect(raw.metadata.batchStats).toEqual({ requestCount: '4', failedRequestCount: '4' });
    const second = await fileBatch(ai, jsonlLines(4));
    clock.advance(3000);
    expect((await results(ai, second)).size).toBe(4);
    expect(sim.stats().batches.byState).toEqual({ BATCH_STATE_FAILED: 1, BATCH_STATE_SUCCEEDED: 1 });
  });

  it('EXPIRED: a batch carrying row-1 runs until expireMs and ends EXPIRED with no output; a batch pendingMs + runningMs past expireMs expires too', async () => {
    const { ai, clock, sim } = await start({ expireMs: 10_000, jobs: [{ end: 'EXPIRED', containsKey: 'row-1', times: 1 }] });
    const name = await fileBatch(ai, jsonlLines(3));
    clock.advance(9_999);
    expect((await ai.batches.get({ name })).state).toBe('JOB_STATE_RUNNING');
    clock.advance(1);
    const expired = await ai.batches.get({ name });
    expect(expired.state).toBe('JOB_STATE_EXPIRED');
    expect(expired.dest).toBeUndefined();
    expect((await rawGet(sim.url, name)).json.metadata.batchStats).toEqual({ requestCount: '3', pendingRequestCount: '3' });
    await sim.close();

    const slow = await start({ pendingMs: 6_000, runningMs: 6_000, expireMs: 10_000 });
    const late = await fileBatch(slow.ai, jsonlLines(2));
    slow.clock.advance(10_000);
    expect((await slow.ai.batches.get({ name: late })).state).toBe('JOB_STATE_EXPIRED');
  });

  it('jobs end PENDING: the batch stays PENDING until expireMs, then EXPIRED', async () => {
    const { ai, clock } = await start({ expireMs: 60_000, jobs: [{ end: 'PENDING' }] });
    const name = await fileBatch(ai, jsonlLines(2));
    clock.advance(59_999);
    expect((await ai.batches.get({ name })).state).toBe('JOB_STATE_PENDING');
    clock.advance(1);
    expect((await ai.batches.get({ name })).state).toBe('JOB_STATE_EXPIRED');
  });

  it('a file-input batch can answer inline (resultsForm inline), keyed by metadata like inline input', async () => {
    const { ai, clock } = await start({ resultsForm: 'inline' });
    const name = await fileBatch(ai, jsonlLines(3));
    clock.advance(3000);
    const job = await ai.batches.get({ name });
    expect(job.dest?.fileName).toBeUndefined();
    expect(job.dest?.inlinedResponses?.map((r) => r.metadata?.key).sort()).toEqual(['row-1', 'row-2', 'row-3']);
  });

  it('outputDelayMs: SUCCEEDED with no output and no file for a while, then the responses file', async () => {
    const { ai, clock, sim } = await start({ outputDelayMs: 5000 });
    const name = await fileBatch(ai, jsonlLines(3));
    clock.advance(3000);
    const early = await ai.batches.get({ name });
    expect(early.state).toBe('JOB_STATE_SUCCEEDED');
    expect(early.dest).toBeUndefined();
    const fileName = `files/batch-${name.split('/')[1]}`;
    expect((await apiError(ai.files.get({ name: fileName }))).status).toBe(403);
    expect((await rawGet(sim.url, name)).json).toMatchObject({ done: true, metadata: { batchStats: { successfulRequestCount: '3' } } });
    clock.advance(5000);
    expect((await ai.batches.get({ name })).dest?.fileName).toBe(fileName);
    expect((await results(ai, name)).size).toBe(3);
  });

  it('dropInlineMetadata: a seeded share of inline responses comes back without metadata (so without a key)', async () => {
    const { ai, clock } = await start({ dropInlineMetadata: 0.5 });
    const src = Array.from({ length: 60 }, (_, k) => ({ contents: rowText(k), metadata: { key: `k${k}` } }));
    const job = await ai.batches.create({ model: 'gemini-2.5-flash', src });
    clock.advance(3000);
    const inline = (await ai.batches.get({ name: job.name! })).dest!.inlinedResponses!;
    expect(inline).toHaveLength(60);
    const missing = inline.filter((r) => r.metadata === undefined).length;
    expect(missing).toBeGreaterThan(30 - 15);
    expect(missing).toBeLessThan(30 + 15);
  });
});

describe('cancel, delete, list and projects', () => {
  it('cancel while RUNNING: CANCELLED at once, counters frozen; a second cancel is a 400 FAILED_PRECONDITION', async () => {
    const { ai, clock, sim } = await start();
    const name = await fileBatch(ai, jsonlLines(10));
    clock.advance(2000); // half-way through RUNNING
    await ai.batches.cancel({ name });
    const before = (await rawGet(sim.url, name)).json;
    clock.advance(5000);
    const after = (await rawGet(sim.url, name)).json;
    expect(after.metadata.state).toBe('BATCH_STATE_CANCELLED');
    expect(after.done).toBe(true);
    expect(after.response).toBeUndefined();
    // No output at all, though 5 lines were done (docs/batch-api.md "Resource"): no responses file to download.
    expect(after.metadata.output).toBeUndefined();
    const file = await fetch(`${sim.url}/download/v1beta/files/batch-${name.split('/')[1]}:download?alt=media`, { headers: { 'x-goog-api-key': 'key-a' } });
    expect(file.status).toBe(403);
    expect(after.metadata.batchStats).toEqual(before.metadata.batchStats);
    expect(after.metadata.batchStats).toEqual({ requestCount: '10', pendingRequestCount: '5', successfulRequestCount: '5' });
    expect((await ai.batches.get({ name })).state).toBe('JOB_STATE_CANCELLED');
    const again = await apiError(ai.batches.cancel({ name }));
    expect(again.status).toBe(400);
    expect(again.body.error.status).toBe('FAILED_PRECONDITION');
  });

  it('delete: get answers 404 and list leaves it out; an unknown name is 404 too', async () => {
    const { ai } = await start();
    const keep = await fileBatch(ai, jsonlLines(2), 'keep');
    const gone = await fileBatch(ai, jsonlLines(2), 'gone');
    await ai.batches.delete({ name: gone });
    expect((await apiError(ai.batches.get({ name: gone }))).status).toBe(404);
    expect((await apiError(ai.batches.get({ name: 'batches/nosuchbatch' }))).status).toBe(404);
    const names: string[] = [];
    for await (const job of await ai.batches.list()) names.push(job.name!);
    expect(names).toEqual([keep]);
  });

  it('list is newest first and paged; it carries no inline responses', async () => {
    const { ai, clock, sim } = await start();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await ai.batches.create({ model: 'gemini-2.5-flash', src: [{ contents: rowText(i), metadata: { key: `k${i}` } }] })).name!);
      clock.advance(10);
    }
    clock.advance(3000);
    const page = await getJson<{ operations: RawOperation[]; nextPageToken?: string }>(`${sim.url}/v1beta/batches?pageSize=2`, 'key-a');
    expect(page.operations.map((o) => o.name)).toEqual([made[4], made[3]]);
    expect(page.nextPageToken).toEqual(expect.any(String));
    expect(page.operations[0]!.metadata.state).toBe('BATCH_STATE_SUCCEEDED');
    expect(page.operations[0]!.metadata.output).toBeUndefined();
    expect(page.operations[0]!.response).toBeUndefined();
    const names: string[] = [];
    for await (const job of await ai.batches.list({ config: { pageSize: 2 } })) names.push(job.name!);
    expect(names).toEqual([...made].reverse());
    expect(sim.stats().requests.byEndpoint['batches.list']).toBe(4); // the raw page, then three SDK pages
  });

  it("another project's key cannot see, cancel or delete a batch, nor read its files", async () => {
    const { ai, sim } = await start({}, { projects: [{ id: 'p1', keys: ['key-a'] }, { id: 'p2', keys: ['key-z'] }] });
    const name = await fileBatch(ai, jsonlLines(2));
    const other = sdk(sim.url, 'key-z');
    expect((await apiError(other.batches.get({ name }))).status).toBe(404);
    expect((await apiError(other.batches.cancel({ name }))).status).toBe(404);
    expect((await apiError(other.batches.delete({ name }))).status).toBe(404);
    const inputFile = (await rawGet(sim.url, name)).json.metadata.inputConfig!.fileName!;
    expect((await apiError(other.files.get({ name: inputFile }))).status).toBe(403);
    const names: string[] = [];
    for await (const job of await other.batches.list()) names.push(job.name!);
    expect(names).toEqual([]);
    expect((await apiError(sdk(sim.url, 'not-a-key').batches.get({ name }))).status).toBe(400);
  });
});

describe('create-time 429s', () => {
  it('rejectCreates: the first create is a 429 whose only detail is a google.rpc.Help link (fixture 429-g-help-only); no batch exists; the next create succeeds', async () => {
    const { ai, sim } = await start({ rejectCreates: 1 });
    const file = await ai.files.upload({ file: world.tmp!.file('a.jsonl', jsonlLines(3)), config: { mimeType: 'jsonl' } });
    const err = await apiError(ai.batches.create({ model: 'gemini-2.5-flash', src: file.name! }));
    expect(err.status).toBe(429);
    expect(err.body).toEqual(fixture('429-g-help-only'));
    expect(sim.stats().batches).toMatchObject({ created: 0, createRejected: 1 });
    const job = await ai.batches.create({ model: 'gemini-2.5-flash', src: file.name! });
    expect(job.state).toBe('JOB_STATE_PENDING');
    expect(sim.stats().batches).toMatchObject({ created: 1, createRejected: 1 });
    expect(sim.stats().requests.byStatus['429']).toBe(1);
  });

  it('concurrentBatches 1: a second create while the first is unfinished is a 429; once it has ended, it succeeds', async () => {
    const { ai, clock, sim } = await start({ concurrentBatches: 1 });
    const events: BatchEvent[] = [];
    sim.onBatchEvent((e) => events.push(e));
    await fileBatch(ai, jsonlLines(2));
    expect((await apiError(fileBatch(ai, jsonlLines(2)))).status).toBe(429);
    clock.advance(3000);
    await fileBatch(ai, jsonlLines(2));
    expect(events.filter((e) => e.type === 'create-rejected')).toEqual([{ type: 'create-rejected', project: 'p1', reason: 'concurrent-batches' }]);
  });

  it('enqueuedTokens: creates fit while the unfinished batches of the model hold at most that many input tokens', async () => {
    const { ai, clock, sim } = await start({ enqueuedTokens: 2000 });
    const first = await fileBatch(ai, jsonlLines(40));
    const tokens = (await getJson<BatchRecord[]>(`${sim.url}/__sim/batches`))[0]!.inputTokens;
    expect(tokens).toBeGreaterThan(1000); // so a second batch of the same rows does not fit
    expect(tokens).toBeLessThanOrEqual(2000);
    expect((await apiError(fileBatch(ai, jsonlLines(40)))).status).toBe(429);
    clock.advance(3000);
    expect((await ai.batches.get({ name: first })).state).toBe('JOB_STATE_SUCCEEDED');
    await fileBatch(ai, jsonlLines(40));
  });
});

describe('what tests read back', () => {
  it('byKeySet counts batches per set of rows; keysInSeveralBatches counts rows sent twice', async () => {
    const { ai, sim } = await start();
    await fileBatch(ai, jsonlLines(5));
    expect(Object.values(sim.stats().batches.byKeySet)).toEqual([1]);
    expect(sim.stats().batches.keysInSeveralBatches).toBe(0);
    await fileBatch(ai, jsonlLines(5));
    await fileBatch(ai, jsonlLines(3));
    expect(Object.values(sim.stats().batches.byKeySet).sort()).toEqual([1, 2]);
    expect(sim.stats().batches.keysInSeveralBatches).toBe(5);
    const records = await getJson<BatchRecord[]>(`${sim.url}/__sim/batches`);
    expect(records.map((r) => r.lines)).toEqual([5, 5, 3]);
    expect(records[0]!.keySetSha256).toBe(records[1]!.keySetSha256);
  });

  it('createReplyDelayMs: the batch exists (event, stats) before the create is answered; a client that gives up meanwhile leaves it behind', async () => {
    const { ai, sim } = await start({ createReplyDelayMs: 300 });
    const file = await ai.files.upload({ file: world.tmp!.file('a.jsonl', jsonlLines(2)), config: { mimeType: 'jsonl' } });
    const abort = new AbortController();
    const created = new Promise<BatchEvent>((resolve) => sim.onBatchEvent((e) => e.type === 'batch-created' && resolve(e)));
    const call = ai.batches.create({ model: 'gemini-2.5-flash', src: file.name!, config: { abortSignal: abort.signal } });
    const event = await created;
    expect(event).toMatchObject({ type: 'batch-created', lines: 2 });
    abort.abort();
    await expect(call).rejects.toThrow();
    expect(sim.stats().batches.created).toBe(1);
    expect(sim.stats().batches.byState).toEqual({ BATCH_STATE_PENDING: 1 });
  });

  it('upload reply delays: upload-started before the start is answered, file-created before the final chunk is answered', async () => {
    const { ai, sim } = await start({ uploadStartReplyDelayMs: 150, uploadReplyDelayMs: 150 });
    const seen: { type: string; at: number }[] = [];
    const t0 = performance.now();
    sim.onBatchEvent((e) => e.type !== 'answered' && seen.push({ type: e.type, at: performance.now() - t0 }));
    const file = await ai.files.upload({ file: world.tmp!.file('a.jsonl', jsonlLines(2)), config: { mimeType: 'jsonl' } });
    const total = performance.now() - t0;
    expect(seen.map((e) => e.type)).toEqual(['upload-started', 'file-created']);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(140); // the start's answer waited between them
    expect(total - seen[1]!.at).toBeGreaterThanOrEqual(140); // and so did the final chunk's
    expect(file.state).toBe('ACTIVE');
  });

  it('answered: every Files and Batch API request, in order, with its status, before its answer is written (reply delays included)', async () => {
    const { ai, sim } = await start({ createReplyDelayMs: 150 });
    const seen: { e: BatchEvent; at: number }[] = [];
    const t0 = performance.now();
    sim.onBatchEvent((e) => seen.push({ e, at: performance.now() - t0 }));
    const name = await fileBatch(ai, jsonlLines(2));
    const answeredCreate = performance.now() - t0;
    await ai.batches.get({ name });
    expect(await apiError(ai.batches.get({ name: 'batches/nosuchbatch' }))).toMatchObject({ status: 404 });
    const answered = seen.filter((s) => s.e.type === 'answered');
    expect(answered.map((s) => s.e)).toEqual([
      { type: 'answered', endpoint: 'files.upload', status: 200 },
      { type: 'answered', endpoint: 'files.upload', status: 200 },
      { type: 'answered', endpoint: 'batches.create', status: 200 },
      { type: 'answered', endpoint: 'batches.get', status: 200 },
      { type: 'answered', endpoint: 'batches.get', status: 404 },
    ]);
    // After the batch exists, before the held answer reaches the client.
    const created = seen.findIndex((s) => s.e.type === 'batch-created');
    expect(seen[created + 1]!.e).toMatchObject({ type: 'answered', endpoint: 'batches.create' });
    expect(answeredCreate - seen[created + 1]!.at).toBeGreaterThanOrEqual(140);
  });

  it('downloadStallMs: half the responses file, a stall, then the rest; download-started comes first', async () => {
    const { ai, clock, sim } = await start({ downloadStallMs: 200 });
    const name = await fileBatch(ai, jsonlLines(20));
    clock.advance(3000);
    const file = (await ai.batches.get({ name })).dest!.fileName!;
    const events: BatchEvent[] = [];
    sim.onBatchEvent((e) => events.push(e));
    const res = await fetch(`${sim.url}/v1beta/${file}:download?alt=media`, { headers: { 'x-goog-api-key': 'key-a' } });
    expect(events).toEqual([
      { type: 'download-started', name: file },
      { type: 'answered', endpoint: 'files.download', status: 200 },
    ]);
    const reader = res.body!.getReader();
    const t0 = performance.now();
    let text = '';
    const gaps: number[] = [];
    let last = t0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      text += Buffer.from(value).toString();
    }
    expect(Math.max(...gaps.slice(1))).toBeGreaterThanOrEqual(150);
    expect(text.split('\n').filter(Boolean)).toHaveLength(20);
  });
});

describe('create-time validation', () => {
  it('a JSONL request with an SDK-flattened field (thinking_config at the top) refuses the batch: 400 naming the line and field', async () => {
    const { ai, sim } = await start();
    const flat = { contents: [{ role: 'user', parts: [{ text: 'x' }] }], thinking_config: { thinking_budget: 0 } };
    const text = `${jsonlLines(1)}${JSON.stringify({ key: 'row-2', request: flat })}\nnot json\n`;
    const err = await apiError(fileBatch(ai, text));
    expect(err.status).toBe(400);
    expect(err.body.error.message).toMatch(/^Error on line 2: invalid JSON, near column \d+: no such field: 'thinking_config'\nError on line 3: invalid JSON/);
    expect(sim.stats().batches.created).toBe(0);
  });

  it('an unknown model is a 404; a file that is gone (fileTtlMs passed) or never existed is a 403', async () => {
    const { ai, clock } = await start({ fileTtlMs: 60_000 });
    const file = await ai.files.upload({ file: world.tmp!.file('a.jsonl', jsonlLines(2)), config: { mimeType: 'jsonl' } });
    expect((await apiError(ai.batches.create({ model: 'gemini-0-nope', src: file.name! }))).status).toBe(404);
    clock.advance(60_000);
    expect((await apiError(ai.files.get({ name: file.name! }))).status).toBe(403);
    const gone = await apiError(ai.batches.create({ model: 'gemini-2.5-flash', src: file.name! }));
    expect(gone.status).toBe(403);
    expect(gone.body.error.message).toContain('or it may not exist');
  });

  it('files.delete removes a file; files.list shows the project\'s files, newest first, results included', async () => {
    const { ai, clock } = await start();
    const a = await ai.files.upload({ file: world.tmp!.file('a.jsonl', jsonlLines(1)), config: { mimeType: 'jsonl' } });
    clock.advance(10);
    const b = await ai.files.upload({ file: world.tmp!.file('b.jsonl', jsonlLines(2)), config: { mimeType: 'jsonl' } });
    const job = await ai.batches.create({ model: 'gemini-2.5-flash', src: b.name! });
    await ai.files.delete({ name: a.name! });
    expect((await apiError(ai.files.get({ name: a.name! }))).status).toBe(403);
    clock.advance(3000);
    const names: string[] = [];
    for await (const f of await ai.files.list()) names.push(f.name!);
    expect(names).toEqual([`files/batch-${job.name!.split('/')[1]}`, b.name]);
  });
});

describe('the key is never echoed', () => {
  it('no body, header, file name, stat or record of the whole flow holds the API key', async () => {
    const key = 'AIzaSyD-simulated-secret-key-0123456789';
    const { sim, clock } = await startBatchSim(world, { pendingMs: 0, runningMs: 10 }, { acceptAnyKey: true, defaultProject: 'p1' });
    const tmp = world.tmp!;
    const seen: string[] = [];
    const spy = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const res = await fetch(input, init);
      seen.push(JSON.stringify([...res.headers.entries()]), await res.clone().text());
      return res;
    };
    const spied = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: sim.url, fetch: spy } });
    const file = await spied.files.upload({ file: tmp.file('a.jsonl', jsonlLines(3)), config: { mimeType: 'jsonl' } });
    const job = await spied.batches.create({ model: 'gemini-2.5-flash', src: file.name! });
    clock.advance(10);
    const done = await spied.batches.get({ name: job.name! });
    await spied.files.download({ file: done.dest!.fileName!, downloadPath: tmp.file('out.jsonl') });
    seen.push(JSON.stringify(sim.stats()), await fetch(`${sim.url}/__sim/batches`).then((r) => r.text()), file.name!, done.dest!.fileName!);
    expect(seen.length).toBeGreaterThan(8);
    for (const s of seen) expect(s).not.toContain(key);
    expect(seen.join('\n')).not.toContain(key.slice(-12));
  });
});
