/**
 * The simulator's HTTP layer on node:http: routes the API paths of each dialect (dialect.ts) and the `/__sim/*` control
 * endpoints, reads the credential, applies delays, resets and hangs:
 * - Gemini: `POST /v1beta/models/{model}:generateContent` (also `/v1/`, `/v1alpha/`, `:streamGenerateContent`,
 *   `:countTokens`), key in `x-goog-api-key` or `?key=` (docs/reference/gemini-api-facts.md §4.1);
 * - Vertex AI: `POST /v1beta1/projects/{p}/locations/{l}/publishers/google/models/{model}:generateContent` (also `/v1/`,
 *   the express-mode path without `projects/…/locations/…`), `Authorization: Bearer TOKEN` or `x-goog-api-key`;
 * - OpenAI: `POST /v1/chat/completions` and Gemini's compatibility path `/v1beta/openai/chat/completions`,
 *   `Authorization: Bearer KEY` (docs/reference/batch-openai-vertex-facts.md §b.1);
 * - the Files API and the batches resource (batch-http.ts).
 * Headers mirror a recorded live response (§2.5): JSON as `application/json; charset=UTF-8`, no Retry-After,
 * no x-ratelimit-*. Streaming answers are one SSE event with `alt=sse`, else a JSON array; streaming errors are
 * served as text/event-stream like the real API (§2.5, §8.4).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { constants as h2, createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import zlib from 'node:zlib';
import { routeBatchApi } from './batch-http.js';
import { notFoundPath, rpcError } from './error-bodies.js';
import { BASE_HEADERS } from './http-headers.js';
import { readCappedBody } from './request-body.js';
import type { DialectName, Endpoint } from './dialect.js';
import type { Outcome, SimEngine, SimRequest } from './sim-engine.js';

const API_PATH = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
const VERTEX_PATH = /^\/(v1|v1beta1)\/(?:(projects\/[^/]+\/locations\/[^/]+)\/)?publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
const CHAT_PATH = /^\/(v1|v1beta\/openai)\/chat\/completions$/;

/** What the path says about a request: its dialect, method, API version and model (when in the path). */
interface Route {
  dialect: DialectName;
  endpoint: Endpoint;
  apiVersion: string;
  model?: string;
  resource?: string;
}

/** The route of an API path, or undefined. */
function routeOf(path: string): Route | undefined {
  let m = API_PATH.exec(path);
  if (m) return { dialect: 'gemini', endpoint: m[3] as Endpoint, apiVersion: m[1]!, model: m[2]! };
  m = VERTEX_PATH.exec(path);
  if (m) return { dialect: 'vertex', endpoint: m[4] as Endpoint, apiVersion: m[1]!, model: m[3]!, ...(m[2] ? { resource: m[2] } : {}) };
  m = CHAT_PATH.exec(path);
  if (m) return { dialect: m[1] === 'v1' ? 'openai' : 'gemini-compat', endpoint: 'chatCompletions', apiVersion: m[1]! };
  return undefined;
}

function header(req: Req, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The token of `Authorization: Bearer TOKEN`, or undefined. */
function bearer(req: Req): string | undefined {
  const m = /^\s*Bearer\s+(.*?)\s*$/i.exec(header(req, 'authorization') ?? '');
  return m ? m[1] : undefined;
}

/** The credential each dialect reads: a key (Gemini), a bearer token or an express-mode key (Vertex), a bearer key (OpenAI). */
function credentialOf(req: Req, route: Route, params: URLSearchParams | undefined): string | undefined {
  if (route.dialect === 'gemini') return header(req, 'x-goog-api-key') ?? params?.get('key') ?? undefined;
  if (route.dialect === 'vertex') return bearer(req) ?? header(req, 'x-goog-api-key') ?? params?.get('key') ?? undefined;
  return bearer(req);
}

/** Largest request body accepted, bytes (the real API's 20 MB request limit). */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** A request and its response, over HTTP/1.1 or (with TLS) HTTP/2 through node's compatibility API. */
type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

/** A certificate and key (PEM) to serve HTTPS with, offering HTTP/2 and HTTP/1.1 (ALPN), like the real endpoint. */
export interface TlsOptions {
  key: string | Buffer;
  cert: string | Buffer;
}

/** A running server and how to stop it. */
export interface RunningServer {
  server: Server | Http2SecureServer;
  port: number;
  /** Stops accepting, cancels pending delayed answers, drops hanging requests and open connections. */
  close(): Promise<void>;
}

type StreamMode = 'none' | 'sse' | 'array';

/** Content codings the simulator can answer with (RFC 9110 §8.4.1). */
export type ContentCoding = 'gzip' | 'br' | 'deflate';

const ENCODERS: Record<ContentCoding, (body: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  deflate: (b) => zlib.deflateSync(b),
};

/** The first of `offered` that the request's Accept-Encoding accepts (a coding listed without `q=0`), or undefined. */
function negotiate(req: Req, offered: readonly ContentCoding[]): ContentCoding | undefined {
  const accepted = new Set(
    String(req.headers['accept-encoding'] ?? '')
      .split(',')
      .map((part) => part.trim().toLowerCase())
      .filter((part) => part !== '' && !/;\s*q=0(\.0*)?$/.test(part))
      .map((part) => part.split(';')[0]!.trim()),
  );
  return offered.find((coding) => accepted.has(coding));
}

function write(res: Res, status: number, contentType: string, payload: string, extra?: Record<string, string>, coding?: ContentCoding): void {
  if (res.destroyed || res.writableEnded) return;
  const body = coding ? ENCODERS[coding](Buffer.from(payload, 'utf8')) : payload;
  res.writeHead(status, {
    ...BASE_HEADERS,
    ...extra,
    'Content-Type': contentType,
    ...(coding ? { 'Content-Encoding': coding } : {}),
    'Content-Length': typeof body === 'string' ? Buffer.byteLength(body) : body.length,
  });
  res.end(body);
}

function writeJson(res: Res, status: number, body: unknown, extra?: Record<string, string>, coding?: ContentCoding): void {
  write(res, status, 'application/json; charset=UTF-8', JSON.stringify(body), extra, coding);
}

/**
 * Starts serving `engine` on host:port (port 0 = any free port): plain HTTP/1.1, or with `tls` HTTPS offering HTTP/2 and
 * HTTP/1.1.
 * @param compress content codings to answer API requests with, in order of preference, when the request's
 *   Accept-Encoding accepts one (as Google's front end gzips for clients that ask). Default none: bodies as is.
 */
export function startHttpServer(engine: SimEngine, host: string, port: number, compress: readonly ContentCoding[] = [], tls?: TlsOptions): Promise<RunningServer> {
  const timers = new Set<NodeJS.Timeout>();
  const hanging = new Set<Res>();
  const sockets = new Set<Socket>();

  const deliver = (req: Req, res: Res, outcome: Outcome, stream: StreamMode): void => {
    const coding = compress.length > 0 ? negotiate(req, compress) : undefined;
    switch (outcome.type) {
      case 'hang':
        hanging.add(res);
        res.once('close', () => hanging.delete(res));
        return;
      case 'reset':
        // HTTP/2: reset this stream only (RST_STREAM), not the connection every other request shares.
        if ('stream' in req) req.stream.close(h2.NGHTTP2_INTERNAL_ERROR);
        else req.socket.destroy();
        return;
      case 'html':
        write(res, outcome.status, 'text/html; charset=UTF-8', outcome.body, undefined, coding);
        return;
      case 'json': {
        const ok = outcome.status === 200;
        if (stream === 'sse') {
          const payload = ok ? `data: ${JSON.stringify(outcome.body)}\r\n\r\n` : JSON.stringify(outcome.body);
          write(res, outcome.status, 'text/event-stream', payload, outcome.headers, coding);
        } else if (stream === 'array') writeJson(res, outcome.status, [outcome.body], outcome.headers, coding);
        else writeJson(res, outcome.status, outcome.body, outcome.headers, coding);
      }
    }
  };

  const later = (delayMs: number, fn: () => void): void => {
    if (delayMs <= 0) return fn();
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, delayMs);
    timers.add(timer);
  };

  const api = (req: Req, res: Res, route: Route, query: string): void => {
    const { endpoint } = route;
    const params = query === '' ? undefined : new URLSearchParams(query);
    const key = credentialOf(req, route, params);
    const stream: StreamMode = endpoint !== 'streamGenerateContent' ? 'none' : params?.get('alt') === 'sse' ? 'sse' : 'array';
    readCappedBody(req, MAX_BODY_BYTES, (tooLarge) => writeJson(res, 400, tooLarge), (chunks) => {
      let body: unknown;
      let bodyError: string | undefined;
      try {
        body = JSON.parse(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        bodyError = (err as Error).message;
      }
      const request: SimRequest = { dialect: route.dialect, endpoint, apiVersion: route.apiVersion, ...(route.resource ? { resource: route.resource } : {}) };
      if (route.model !== undefined) {
        try {
          request.model = decodeURIComponent(route.model);
        } catch {
          request.model = route.model; // keep it raw: the engine answers 404 for it
        }
      }
      if (key !== undefined) request.key = key;
      if (bodyError === undefined) request.body = body;
      else request.bodyError = bodyError;
      // Latency = uplink + generation + downlink: the request arrives (and the quota counts it) after its uplink.
      const { uplinkMs, downlinkMs } = engine.transit();
      later(uplinkMs, () => {
        const outcome = engine.handle(request, { uplinkMs, downlinkMs });
        if (outcome.type === 'hang') deliver(req, res, outcome, stream);
        else later(outcome.delayMs + downlinkMs, () => deliver(req, res, outcome, stream));
      });
    });
  };

  const control = (req: Req, res: Res, path: string, query: string): boolean => {
    if (req.method === 'GET' && path === '/__sim/stats') {
      writeJson(res, 200, engine.snapshot());
    } else if (req.method === 'GET' && path === '/__sim/log') {
      if (!engine.log) {
        writeJson(res, 404, rpcError(404, 'The request log is off; set "requestLog": true in the scenario.'));
      } else {
        const since = Number(new URLSearchParams(query).get('since') ?? 0);
        writeJson(res, 200, engine.log.since(Number.isFinite(since) ? since : 0));
      }
    } else if (req.method === 'POST' && path === '/__sim/reset') {
      engine.stats.reset();
      writeJson(res, 200, { reset: true });
    } else if (req.method === 'GET' && path === '/__sim/batches') {
      writeJson(res, 200, engine.batches.records());
    } else if (req.method === 'GET' && path === '/__sim/health') {
      writeJson(res, 200, { ok: true });
    } else return false;
    req.resume();
    return true;
  };

  const handle = (req: Req, res: Res): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    if (path.startsWith('/__sim/') && control(req, res, path, query)) return;
    if (routeBatchApi(engine, req, res, path, query, tls ? 'https' : 'http', later)) return;
    const route = req.method === 'POST' ? routeOf(path) : undefined;
    if (route) return api(req, res, route, query);
    req.resume();
    writeJson(res, 404, notFoundPath(path));
  };
  let server: Server | Http2SecureServer;
  if (tls) {
    const secure = createSecureServer({ key: tls.key, cert: tls.cert, allowHTTP1: true, settings: { maxConcurrentStreams: 100 } }, handle);
    secure.on('tlsClientError', (_err: Error, socket: TLSSocket) => socket.destroy());
    server = secure;
  } else {
    const plain = createServer(handle);
    plain.keepAliveTimeout = 30_000;
    plain.on('clientError', (_err, socket) => socket.destroy());
    server = plain;
  }
  server.on('connection', (socket: Socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: thousands of connections may open at once (the kernel caps it at net.core.somaxconn).
    server.listen({ port, host, backlog: 4096 }, () => {
      server.off('error', reject);
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      resolve({
        server,
        port: actual,
        close: () =>
          new Promise<void>((done) => {
            for (const t of timers) clearTimeout(t);
            timers.clear();
            for (const res of hanging) res.destroy();
            hanging.clear();
            server.close(() => done());
            for (const s of sockets) s.destroy();
          }),
      });
    });
  });
}
