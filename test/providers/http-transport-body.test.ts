/** httpTransport sends every fetch body form as fetch would: the server receives the bytes, not `[object Blob]`. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTransport } from '../../src/providers/http-transport.js';

describe('httpTransport: request bodies', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // Answers with the body it received.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.end(Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const text = '{"line":"é 😀"}\n';
  const bytes = new TextEncoder().encode(text);
  const forms: Array<[string, () => RequestInit['body']]> = [
    ['a string', () => text],
    ['a Uint8Array', () => bytes],
    ['a Buffer', () => Buffer.from(text)],
    ['a Blob', () => new Blob([text], { type: 'application/jsonl' })],
    ['an ArrayBuffer', () => bytes.slice().buffer],
    ['a DataView', () => new DataView(bytes.slice().buffer)],
    ['a ReadableStream', () => new Blob([text]).stream()],
  ];
  it.each(forms)('sends %s as its bytes', async (_form, body) => {
    const answer = await httpTransport(url, { method: 'POST', body: body() });
    expect(await answer.text()).toBe(text);
  });

  it('sends URLSearchParams in their encoded form', async () => {
    const answer = await httpTransport(url, { method: 'POST', body: new URLSearchParams({ a: 'b c', d: 'é' }) });
    expect(await answer.text()).toBe('a=b+c&d=%C3%A9');
  });
});
