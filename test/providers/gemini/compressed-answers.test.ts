/**
 * Issue 11 item 14: the real API answers gzip-compressed bodies (and may use br or deflate). The simulator compresses
 * when the client's Accept-Encoding asks and the test starts it so; the keep-alive transport decodes every coding,
 * and a compressed body cut mid-way is a connection failure (retried), never a hang or a half answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/providers/contract.js';
import { ConnectionFailure, RateLimitFailure } from '../../../src/providers/failures.js';
import { createGeminiCaller } from '../../../src/providers/gemini/gemini-caller.js';
import { parseScenario, startSimulator, type ContentCoding, type SimulatorHandle } from '../../../src/simulator/index.js';

const request: ModelRequest = {
  model: 'gemini-2.5-flash',
  prompt: 'Is this about shipping? A parcel arrived late.',
  output: { kind: 'labels', labels: ['yes', 'no'] },
  temperature: 0,
  reasoning: 'least',
};

const handles: SimulatorHandle[] = [];
afterAll(async () => Promise.all(handles.map((h) => h.close())));

async function simulator(compress: ContentCoding[], limits: object = { rpm: 100_000, tpm: 100_000_000 }): Promise<SimulatorHandle> {
  const sim = await startSimulator(parseScenario({ projects: [{ id: 'p', keys: ['compress-key-1'], limits: { '*': limits } }] }, 'compressed'), { compress });
  handles.push(sim);
  return sim;
}

/** The Content-Encoding the simulator answers a generateContent with, for a client accepting `accept`. */
function encodingOf(sim: SimulatorHandle, accept: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${sim.url}/v1beta/models/gemini-2.5-flash:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': 'compress-key-1', 'accept-encoding': accept, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.headers['content-encoding']);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello' }] }] }));
  });
}

describe('compressed answers (issue 11 item 14)', () => {
  it.each([['gzip'], ['br'], ['deflate']] as Array<[ContentCoding]>)('the simulator answers %s when asked, and the client reads the answer', async (coding) => {
    const sim = await simulator([coding]);
    expect(await encodingOf(sim, 'gzip, deflate, br')).toBe(coding);
    expect(await encodingOf(sim, 'identity')).toBeUndefined();
    const client = createGeminiCaller({ auth: { kind: 'api-key', apiKey: 'compress-key-1' }, baseUrl: sim.url, timeoutMs: 10_000 });
    const answer = await client.generate(request);
    expect(['yes', 'no']).toContain(answer.text);
    expect(answer.finishDetail).toBe('STOP');
    expect(answer.finish).toBe('stop');
    expect(answer.usage.inputTokens).toBeGreaterThan(0);
  });

  it('a compressed 429 still yields its quotaId and retryDelay', async () => {
    const sim = await simulator(['gzip'], { rpm: 1, tpm: 100_000_000 });
    const client = createGeminiCaller({ auth: { kind: 'api-key', apiKey: 'compress-key-1' }, baseUrl: sim.url, timeoutMs: 10_000 });
    await client.generate(request);
    const failure = await client.generate(request).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(RateLimitFailure);
    expect((failure as RateLimitFailure).details.hits.map((h) => `${h.dimension}/${h.period}`)).toContain('requests/minute');
    expect((failure as RateLimitFailure).details.waitMs).toBeGreaterThan(0);
  });

  it.each([['gzip'], ['br']] as Array<[ContentCoding]>)('a %s body cut mid-way is a connection failure, not a hang or half an answer', async (coding) => {
    const body = JSON.stringify({
      candidates: [{ content: { parts: [{ text: 'yes '.repeat(2000) }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2000 },
    });
    const compressed = coding === 'gzip' ? zlib.gzipSync(body) : zlib.brotliCompressSync(body);
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-encoding': coding, 'content-length': compressed.length });
        res.write(compressed.subarray(0, Math.floor(compressed.length / 2)), () => res.socket?.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = createGeminiCaller({ auth: { kind: 'api-key', apiKey: 'compress-key-1' }, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 5_000 });
      const failure = await client.generate(request).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(ConnectionFailure);
    } finally {
      server.close();
    }
  });
});
