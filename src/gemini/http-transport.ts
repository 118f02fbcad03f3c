/**
 * A `fetch` for the `@google/genai` client (its documented `httpOptions.fetch` option) over node:http/https with
 * keep-alive agents. Node's built-in fetch (undici) costs about 0.3 ms of CPU per request; at thousands of rows per
 * second that, not the network, becomes the limit. Measured against the simulator on this project's 2-core machine:
 * SDK with the built-in fetch ≈ 1,800 requests/s, SDK with this transport ≈ 4,000 requests/s (bench/RESULTS.md).
 *
 * Behaves like fetch where the SDK depends on it: resolves a `Response` for every HTTP status; rejects with
 * `TypeError('fetch failed')` carrying the socket error as `cause` when no HTTP answer came; rejects with an
 * `AbortError` DOMException when `init.signal` aborts; decodes gzip/deflate/br bodies.
 *
 * It also reports when each request's bytes were handed to the operating system ({@link UploadTiming}), for the
 * scheduler's arrival bound (schedule/arrival-bound.ts).
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }),
};

/** When a request's last byte was handed to the operating system, and the round trip of its connection. */
export interface UploadTiming {
  /** Date.now() at the request's `finish` event (after connection and TLS set-up, when the socket was new), ms. */
  flushedAt: number;
  /** How long the TCP connect of the request's socket took (one round trip, plus our own delays), ms; undefined if unseen. */
  connectRttMs: number | undefined;
}

/** Receives the {@link UploadTiming} of one request. */
export type UploadListener = (timing: UploadTiming) => void;

/** The connect time of each socket, measured when it was opened and read again each time it is reused. */
const connectRtt = new WeakMap<Socket, number>();

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

function fetchFailed(cause: unknown): TypeError {
  return Object.assign(new TypeError('fetch failed'), { cause });
}

/**
 * `fetch(url, init)` over node:http(s). Only what the Gemini SDK uses: method, headers, string/bytes body, signal.
 * @param onUploaded told once the request is sent (not when it fails before that).
 */
export function httpTransport(input: string | URL | Request, init?: RequestInit, onUploaded?: UploadListener): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const client = url.protocol === 'https:' ? https : http;
  const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
  const signal = init?.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new DOMException('This operation was aborted', 'AbortError'));
      return;
    }
    const headers = headersOf(init);
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    const request = client.request(url, { method: init?.method ?? 'GET', headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      let stream: NodeJS.ReadableStream = response;
      const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
      if (encoding === 'gzip') stream = response.pipe(zlib.createGunzip());
      else if (encoding === 'deflate') stream = response.pipe(zlib.createInflate());
      else if (encoding === 'br') stream = response.pipe(zlib.createBrotliDecompress());
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => reject(fetchFailed(error)));
      // A body cut mid-way (reset, abort) ends the response, not the decompressor it is piped to: settle here too.
      response.on('error', (error) => reject(fetchFailed(error)));
      response.on('close', () => {
        if (!response.complete) reject(fetchFailed(Object.assign(new Error('the connection closed before the whole answer came'), { code: 'ECONNRESET' })));
      });
      stream.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        const status = response.statusCode ?? 0;
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(response.headers)) {
          if (value === undefined || key === 'content-encoding' || key === 'content-length') continue;
          responseHeaders.set(key, Array.isArray(value) ? value.join(', ') : value);
        }
        const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
        resolve(new Response(body, { status, statusText: response.statusMessage ?? '', headers: responseHeaders }));
      });
    });
    if (onUploaded) {
      const started = performance.now();
      let socket: Socket | undefined;
      request.once('socket', (s: Socket) => {
        socket = s;
        if (s.connecting) s.once('connect', () => connectRtt.set(s, performance.now() - started));
      });
      request.once('finish', () => onUploaded({ flushedAt: Date.now(), connectRttMs: socket ? connectRtt.get(socket) : undefined }));
    }
    const onAbort = () => request.destroy(new DOMException('This operation was aborted', 'AbortError'));
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error instanceof DOMException ? error : fetchFailed(error));
    });
    const body = init?.body;
    if (body === undefined || body === null) request.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) request.end(body);
    else if (body instanceof ReadableStream) Readable.fromWeb(body as never).pipe(request);
    else request.end(String(body));
  });
}
