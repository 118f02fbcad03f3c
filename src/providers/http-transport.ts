/**
 * A `fetch` for every adapter's client (@google/genai's documented `httpOptions.fetch` option, openai's `fetch` option) over node:http2 for HTTPS
 * endpoints that offer HTTP/2 (the real one does, by ALPN), and node:http/https keep-alive agents otherwise.
 *
 * Why our own: Node's built-in fetch (undici) costs about 0.3 ms of CPU per request; at thousands of rows per second
 * that, not the network, becomes the limit (SDK with the built-in fetch ≈ 1,800 requests/s against the simulator, with
 * the keep-alive transport ≈ 4,000, bench/RESULTS.md). Why HTTP/2 where offered: measured with bench/transport.mjs
 * (2,000 requests in flight over TLS, answers after 4 s, 40,000 requests), HTTP/1.1 keep-alive needs 2,000 connections
 * and TLS handshakes, 0.354 ms of CPU per request and 316 MB; HTTP/2 needs 20 connections (100 streams each), 0.148 ms
 * and 169 MB — and no file descriptor per request in flight.
 *
 * Behaves like fetch where the SDK depends on it: resolves a `Response` for every HTTP status; rejects with
 * `TypeError('fetch failed')` carrying the socket or stream error as `cause` when no HTTP answer came; rejects with an
 * `AbortError` DOMException when `init.signal` aborts; decodes gzip/deflate/br bodies. It also reports when each
 * request's bytes were handed to the operating system ({@link UploadTiming}), for the scheduler's arrival bound
 * (schedule/arrival-bound.ts).
 *
 * HTTP/2 sessions: one per origin until its streams are all in use (the server's SETTINGS_MAX_CONCURRENT_STREAMS, 100
 * until it says), then another; a session that receives GOAWAY takes no new streams; idle sessions do not keep the
 * process alive and close after {@link H2_IDLE_MS}. An origin whose TLS handshake does not choose `h2` uses HTTP/1.1
 * from then on.
 */
import http from 'node:http';
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import https from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import tls, { type TLSSocket } from 'node:tls';
import zlib from 'node:zlib';
import type { UploadListener } from './contract.js';

/** An idle HTTP/2 session closes after this long, ms. */
export const H2_IDLE_MS = 60_000;
/** Streams per session assumed until the server's SETTINGS say (RFC 9113 recommends at least 100). */
const DEFAULT_MAX_STREAMS = 100;

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }),
};

/** The connect time of each socket, measured when it was opened and read again each time it is reused. */
const connectRtt = new WeakMap<Socket, number>();

/** Headers HTTP/2 forbids (RFC 9113 §8.2.2) and the ones it carries as pseudo-headers. */
const NOT_IN_H2 = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

interface Session {
  session: ClientHttp2Session;
  /** Streams open on it. */
  active: number;
  /** No new streams (GOAWAY, error, close). */
  done: boolean;
  connectRttMs: number | undefined;
}

interface Origin {
  /** `h1` once a handshake did not choose h2. */
  protocol: 'h2' | 'h1' | 'unknown';
  sessions: Session[];
  /** A session being opened, which the requests arriving meanwhile share. */
  opening: Promise<Session | undefined> | undefined;
}

const origins = new Map<string, Origin>();

/** Open HTTP/2 sessions and streams per origin, and the origins served over HTTP/1.1 (for tests and reports). */
export function transportState(): { h2: Record<string, { sessions: number; streams: number }>; h1: string[] } {
  const h2: Record<string, { sessions: number; streams: number }> = {};
  const h1: string[] = [];
  for (const [origin, o] of origins) {
    if (o.protocol === 'h1') h1.push(origin);
    const live = o.sessions.filter((s) => !s.done);
    if (o.protocol === 'h2') h2[origin] = { sessions: live.length, streams: live.reduce((n, s) => n + s.active, 0) };
  }
  return { h2, h1 };
}

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

function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}

/** The body of a response, decoded when the server compressed it. */
function decoded(stream: NodeJS.ReadableStream, encoding: string): NodeJS.ReadableStream {
  if (encoding === 'gzip') return stream.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return stream.pipe(zlib.createInflate());
  if (encoding === 'br') return stream.pipe(zlib.createBrotliDecompress());
  return stream;
}

function responseOf(status: number, statusText: string, headers: IncomingHttpHeaders | http.IncomingHttpHeaders, chunks: Buffer[]): Response {
  const out = new Headers();
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined || key.startsWith(':') || key === 'content-encoding' || key === 'content-length') continue;
    out.set(key, Array.isArray(value) ? value.join(', ') : String(value));
  }
  const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
  return new Response(body, { status, statusText, headers: out });
}

/**
 * `fetch(url, init)`. Only what the Gemini SDK uses: method, headers, string/bytes body, signal.
 * @param onUploaded told once the request is sent (not when it fails before that).
 */
export function httpTransport(input: string | URL | Request, init?: RequestInit, onUploaded?: UploadListener): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (url.protocol !== 'https:' || origins.get(url.origin)?.protocol === 'h1') return http1(url, init, onUploaded);
  return http2Request(url, init, onUploaded);
}

// ---- HTTP/1.1 ---------------------------------------------------------------------------------------------------

function http1(url: URL, init: RequestInit | undefined, onUploaded: UploadListener | undefined): Promise<Response> {
  const client = url.protocol === 'https:' ? https : http;
  const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
  const signal = init?.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const headers = headersOf(init);
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    const request = client.request(url, { method: init?.method ?? 'GET', headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      const stream = decoded(response, String(response.headers['content-encoding'] ?? '').toLowerCase());
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => reject(fetchFailed(error)));
      // A body cut mid-way (reset, abort) ends the response, not the decompressor it is piped to: settle here too.
      response.on('error', (error) => reject(fetchFailed(error)));
      response.on('close', () => {
        if (!response.complete) reject(fetchFailed(Object.assign(new Error('the connection closed before the whole answer came'), { code: 'ECONNRESET' })));
      });
      stream.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(responseOf(response.statusCode ?? 0, response.statusMessage ?? '', response.headers, chunks));
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
    const onAbort = () => request.destroy(abortError());
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error instanceof DOMException ? error : fetchFailed(error));
    });
    writeBody(request, init?.body);
  });
}

/**
 * Sends a fetch body of any form: a string or bytes as they are, a stream piped, and any other form (Blob, ArrayBuffer,
 * a DataView, URLSearchParams) as the bytes `new Response(body)` reads from it, as fetch itself would send them
 * (`String(body)` sent "[object Blob]").
 */
function writeBody(request: NodeJS.WritableStream, body: RequestInit['body'] | undefined): void {
  if (body === undefined || body === null) request.end();
  else if (typeof body === 'string' || body instanceof Uint8Array) request.end(body);
  else if (body instanceof ReadableStream) Readable.fromWeb(body as never).pipe(request);
  else Readable.fromWeb(new Response(body).body as never).pipe(request);
}

// ---- HTTP/2 -----------------------------------------------------------------------------------------------------

async function http2Request(url: URL, init: RequestInit | undefined, onUploaded: UploadListener | undefined): Promise<Response> {
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) throw abortError();
  const session = await sessionFor(url);
  if (!session) return http1(url, init, onUploaded);
  if (signal?.aborted) {
    closed(session);
    throw abortError();
  }
  return new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(headersOf(init))) if (!NOT_IN_H2.has(key)) headers[key] = value;
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    headers[':method'] = init?.method ?? 'GET';
    headers[':path'] = `${url.pathname}${url.search}`;
    let stream: ClientHttp2Stream;
    try {
      stream = session.session.request(headers);
    } catch (error) {
      session.done = true;
      closed(session);
      reject(fetchFailed(error));
      return;
    }
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      closed(session);
      outcome();
    };
    const onAbort = () => {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      finish(() => reject(abortError()));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (onUploaded) stream.once('finish', () => onUploaded({ flushedAt: Date.now(), connectRttMs: session.connectRttMs }));
    let responded = false;
    stream.once('response', (responseHeaders) => {
      responded = true;
      const chunks: Buffer[] = [];
      const body = decoded(stream, String(responseHeaders['content-encoding'] ?? '').toLowerCase());
      body.on('data', (chunk: Buffer) => chunks.push(chunk));
      body.on('error', (error) => finish(() => reject(fetchFailed(error))));
      body.on('end', () => finish(() => resolve(responseOf(Number(responseHeaders[':status'] ?? 0), '', responseHeaders, chunks))));
    });
    stream.on('error', (error) => finish(() => reject(fetchFailed(error))));
    // Closed before the whole answer came (RST_STREAM, GOAWAY below its id, the session gone; a compressed body cut
    // mid-way ends the stream, not the decompressor piped from it): no HTTP answer. A whole body settles by its end.
    let rawEnded = false;
    stream.once('end', () => (rawEnded = true));
    stream.on('close', () => {
      if (!responded || !rawEnded) finish(() => reject(fetchFailed(Object.assign(new Error(`stream closed (code ${stream.rstCode})`), { code: 'ERR_HTTP2_STREAM_CLOSED' }))));
    });
    writeBody(stream, init?.body);
  });
}

function opened(s: Session): void {
  if (s.active++ === 0) s.session.ref();
}

function closed(s: Session): void {
  if (--s.active === 0) s.session.unref();
}

function maxStreams(s: Session): number {
  return s.session.remoteSettings?.maxConcurrentStreams ?? DEFAULT_MAX_STREAMS;
}

/**
 * A session of the origin with a stream reserved on it (release it with {@link closed}), opening a session when none
 * has a free stream; undefined when the origin speaks only HTTP/1.1.
 */
async function sessionFor(url: URL): Promise<Session | undefined> {
  let origin = origins.get(url.origin);
  if (!origin) {
    origin = { protocol: 'unknown', sessions: [], opening: undefined };
    origins.set(url.origin, origin);
  }
  for (;;) {
    origin.sessions = origin.sessions.filter((s) => !s.done);
    const free = origin.sessions.find((s) => s.active < maxStreams(s));
    if (free) {
      opened(free);
      return free;
    }
    if (origin.protocol === 'h1') return undefined;
    if (!origin.opening) {
      const o = origin;
      o.opening = openSession(url, o).finally(() => (o.opening = undefined));
    }
    const session = await origin.opening;
    if (!session) return undefined;
    // Others waiting for the same session may have filled it: look again.
  }
}

/** Connects with ALPN h2 and http/1.1; resolves the new session, or undefined (and the origin becomes `h1`) without h2. */
function openSession(url: URL, origin: Origin): Promise<Session | undefined> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let rtt: number | undefined;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket: TLSSocket = tls.connect({
      host,
      port: Number(url.port || 443),
      ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
      ALPNProtocols: ['h2', 'http/1.1'],
    });
    socket.once('connect', () => (rtt = performance.now() - started));
    socket.once('error', (error) => reject(fetchFailed(error)));
    socket.once('secureConnect', () => {
      if (socket.alpnProtocol !== 'h2') {
        origin.protocol = 'h1';
        socket.destroy();
        resolve(undefined);
        return;
      }
      origin.protocol = 'h2';
      const session = http2.connect(url.origin, { createConnection: () => socket });
      const entry: Session = { session, active: 0, done: false, connectRttMs: rtt };
      const retire = () => {
        entry.done = true;
      };
      session.on('goaway', retire);
      session.on('close', retire);
      session.on('error', retire);
      session.setTimeout(H2_IDLE_MS, () => {
        if (entry.active === 0) session.close();
      });
      session.unref();
      origin.sessions.push(entry);
      resolve(entry);
    });
  });
}
