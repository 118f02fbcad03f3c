import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UploadTiming } from '../../src/providers/contract.js';
import { createGeminiCaller } from '../../src/providers/gemini/gemini-caller.js';
import { httpTransport } from '../../src/providers/http-transport.js';
import { generousScenario, startSimulator } from '../../src/simulator/index.js';

describe('httpTransport: upload timing', () => {
  let server: Server;
  let url: string;
  /** When the server had the whole body of each request, ms. */
  const received: number[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(Date.now());
        // Answer late, so that the upload report cannot be mistaken for the answer.
        setTimeout(() => res.end('{"ok":true}'), 50);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reports the flush before the answer, with the connect round trip of a new socket and again on its reuse', async () => {
    const timings: UploadTiming[] = [];
    const started = Date.now();
    const first = await httpTransport(url, { method: 'POST', body: 'x'.repeat(10_000) }, (t) => timings.push(t));
    const firstAnswered = Date.now();
    await first.text();
    const second = await httpTransport(url, { method: 'POST', body: '{}' }, (t) => timings.push(t));
    await second.text();
    expect(timings).toHaveLength(2);
    const [a, b] = timings as [UploadTiming, UploadTiming];
    expect(a.flushedAt).toBeGreaterThanOrEqual(started);
    expect(a.flushedAt).toBeLessThanOrEqual(firstAnswered - 40);
    expect(a.connectRttMs).toBeGreaterThanOrEqual(0);
    expect(a.connectRttMs).toBeLessThan(1_000);
    // The keep-alive socket is reused and keeps the round trip measured when it connected.
    expect(b.connectRttMs).toBe(a.connectRttMs);
    // The server had the body no later than the flush plus the round trip (and clock granularity).
    expect(received[0]!).toBeLessThanOrEqual(a.flushedAt + a.connectRttMs! + 5);
  });

  it('a request that fails before it is sent reports nothing', async () => {
    const timings: UploadTiming[] = [];
    await expect(httpTransport('http://127.0.0.1:1/x', { method: 'POST', body: '{}' }, (t) => timings.push(t))).rejects.toThrow('fetch failed');
    expect(timings).toEqual([]);
  });

  it('the Gemini client passes the report through the SDK, once per request, before the answer', async () => {
    const sim = await startSimulator(generousScenario(), { port: 0 });
    try {
      const client = createGeminiCaller({ auth: { kind: 'api-key', apiKey: 'test-key-1' }, baseUrl: sim.url, timeoutMs: 5_000 });
      const timings: UploadTiming[] = [];
      let answeredAt = 0;
      const answer = await client.generate({ model: 'gemini-2.5-flash', prompt: 'Say yes.', output: { kind: 'text' }, reasoning: 'least' }, { onUploaded: (t) => timings.push(t) }).then((a) => {
        answeredAt = Date.now();
        return a;
      });
      expect(answer.text).toBeTruthy();
      expect(timings).toHaveLength(1);
      expect(timings[0]!.flushedAt).toBeLessThanOrEqual(answeredAt);
    } finally {
      await sim.close();
    }
  });
});
