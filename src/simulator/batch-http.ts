/**
 * The HTTP surface of the Files API and the batches resource, as @google/genai 2.32 calls them (read in its
 * dist/node/index.mjs; docs/batch-api.md "Endpoints"):
 * - `POST /upload/v1beta/files` (resumable start) and `POST /upload/v1beta/files?upload_id=…` (the session URL:
 *   `upload`, `upload, finalize`, `query`, `cancel`);
 * - `GET /v1beta/files`, `GET|DELETE /v1beta/files/{id}`;
 * - `GET /v1beta/files/{id}:download?alt=media` (the SDK's files.download) and
 *   `GET /download/v1beta/files/{id}:download?alt=media` (the documented path);
 * - `POST /v1beta/models/{model}:batchGenerateContent`, `GET /v1beta/batches`, `GET|DELETE /v1beta/batches/{id}`,
 *   `POST /v1beta/batches/{id}:cancel`.
 * The key is read from `x-goog-api-key` or `?key=` (an upload session's URL needs none: its id is the credential).
 * Batch API requests have no simulated latency; the scenario's `batch.*ReplyDelayMs`/`downloadStallMs` hold replies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { ApiReply, BatchService } from './batch-service.js';
import { invalidJson, modelNotFound } from './error-bodies.js';
import { googleFailure } from './gemini-dialect.js';
import { BASE_HEADERS } from './http-headers.js';
import { readCappedBody } from './request-body.js';
import type { SimEngine } from './sim-engine.js';
import type { RequestRecord } from './sim-stats.js';

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

/** Largest request body read: an upload chunk (the SDK sends 8 MiB) or a create with inline requests (20 MB). */
const MAX_BATCH_BODY_BYTES = 64 * 1024 * 1024;

/** What a matched path asks for. */
interface Action {
  /** The stats' endpoint name (`files.upload`, `batches.create`…). */
  endpoint: string;
  /** Needs an API key (every action but an upload session's requests). */
  keyed: boolean;
  /** Reads the body as JSON (else raw bytes). */
  jsonBody: boolean;
  run(ctx: Context): ApiReply;
}

interface Context {
  service: BatchService;
  project: string;
  origin: string;
  params: URLSearchParams;
  header(name: string): string | undefined;
  json: unknown;
  bytes: Buffer;
}

const id = (m: RegExpExecArray): string => decodeURIComponent(m[1]!);

/** The action for a method and path, or undefined (not a Batch or Files API path). */
function actionFor(method: string, path: string, params: URLSearchParams): Action | undefined {
  let m: RegExpExecArray | null;
  if (path === '/upload/v1beta/files' && method === 'POST') {
    const uploadId = params.get('upload_id');
    if (uploadId !== null) {
      return { endpoint: 'files.upload', keyed: false, jsonBody: false, run: (c) => c.service.uploadChunk(uploadId, c.origin, c.header('x-goog-upload-command'), c.header('x-goog-upload-offset'), c.bytes) };
    }
    return {
      endpoint: 'files.upload',
      keyed: true,
      jsonBody: true,
      run: (c) =>
        c.service.startUpload(
          c.project,
          c.origin,
          {
            protocol: c.header('x-goog-upload-protocol'),
            command: c.header('x-goog-upload-command'),
            contentLength: c.header('x-goog-upload-header-content-length'),
            contentType: c.header('x-goog-upload-header-content-type'),
          },
          c.json,
        ),
    };
  }
  if ((m = /^\/(?:download\/)?v1beta\/files\/([^/:]+):download$/.exec(path)) && method === 'GET') {
    const fileId = id(m);
    return { endpoint: 'files.download', keyed: true, jsonBody: false, run: (c) => c.service.download(c.project, fileId) };
  }
  if (path === '/v1beta/files' && method === 'GET') {
    return { endpoint: 'files.list', keyed: true, jsonBody: false, run: (c) => c.service.listFiles(c.project, c.origin, Number(c.params.get('pageSize') ?? 0), c.params.get('pageToken') ?? undefined) };
  }
  if ((m = /^\/v1beta\/files\/([^/:]+)$/.exec(path))) {
    const fileId = id(m);
    if (method === 'GET') return { endpoint: 'files.get', keyed: true, jsonBody: false, run: (c) => c.service.getFile(c.project, fileId, c.origin) };
    if (method === 'DELETE') return { endpoint: 'files.delete', keyed: true, jsonBody: false, run: (c) => c.service.deleteFile(c.project, fileId) };
  }
  if ((m = /^\/v1beta\/models\/([^/:]+):batchGenerateContent$/.exec(path)) && method === 'POST') {
    const model = id(m);
    return { endpoint: 'batches.create', keyed: true, jsonBody: true, run: (c) => c.service.create(c.project, model, c.json) };
  }
  if (path === '/v1beta/batches' && method === 'GET') {
    return { endpoint: 'batches.list', keyed: true, jsonBody: false, run: (c) => c.service.list(c.project, Number(c.params.get('pageSize') ?? 0), c.params.get('pageToken') ?? undefined) };
  }
  if ((m = /^\/v1beta\/batches\/([^/:]+):cancel$/.exec(path)) && method === 'POST') {
    const batchId = id(m);
    return { endpoint: 'batches.cancel', keyed: true, jsonBody: false, run: (c) => c.service.cancel(c.project, batchId) };
  }
  if ((m = /^\/v1beta\/batches\/([^/:]+)$/.exec(path))) {
    const batchId = id(m);
    if (method === 'GET') return { endpoint: 'batches.get', keyed: true, jsonBody: false, run: (c) => c.service.get(c.project, batchId) };
    if (method === 'DELETE') return { endpoint: 'batches.delete', keyed: true, jsonBody: false, run: (c) => c.service.delete(c.project, batchId) };
  }
  return undefined;
}

function headerOf(req: Req, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Writes `reply`: JSON (or no body), or a download's bytes in two halves with a stall between them. */
function writeReply(res: Res, reply: ApiReply, later: (ms: number, fn: () => void) => void): void {
  if (res.destroyed || res.writableEnded) return;
  if (reply.download) {
    const { bytes, mimeType, stallMs } = reply.download;
    res.writeHead(reply.status, { ...BASE_HEADERS, 'Content-Type': mimeType, 'Content-Length': bytes.length });
    if (stallMs <= 0 || bytes.length < 2) {
      res.end(bytes);
      return;
    }
    const half = Math.floor(bytes.length / 2);
    (res as ServerResponse).write(bytes.subarray(0, half)); // the same write(chunk) on HTTP/2's compat response
    later(stallMs, () => {
      if (!res.destroyed && !res.writableEnded) res.end(bytes.subarray(half));
    });
    return;
  }
  const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...BASE_HEADERS,
    ...reply.headers,
    ...(reply.body === undefined ? {} : { 'Content-Type': 'application/json; charset=UTF-8' }),
    'Content-Length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/**
 * Serves a Files or Batch API request; false when `path` is not one (the caller answers it).
 * @param later runs a function after a delay, on the server's timers (cleared when it closes).
 */
export function routeBatchApi(engine: SimEngine, req: Req, res: Res, path: string, query: string, scheme: 'http' | 'https', later: (ms: number, fn: () => void) => void): boolean {
  const params = new URLSearchParams(query);
  const action = actionFor(req.method ?? 'GET', path, params);
  if (!action) return false;
  engine.stats.arrive(action.endpoint);
  const record: Omit<RequestRecord, 'status' | 'kind'> = {};
  const reply = (r: ApiReply): void => {
    engine.stats.finish({ ...record, status: r.status, kind: r.status === 200 ? 'other' : r.status === 429 ? 'rate-limited' : 'error' });
    engine.batches.answered(action.endpoint, r.status);
    later(r.delayMs ?? 0, () => writeReply(res, r, later));
  };

  readCappedBody(req, MAX_BATCH_BODY_BYTES, (tooLarge) => reply({ status: 400, body: tooLarge }), (chunks) => {
    let project = '';
    if (action.keyed) {
      const caller = engine.authenticate(headerOf(req, 'x-goog-api-key') ?? params.get('key') ?? undefined);
      if ('kind' in caller) {
        const failure = googleFailure(caller);
        return reply({ status: failure.status, body: failure.body });
      }
      project = caller.project;
      record.project = caller.project;
      record.keyAlias = caller.alias;
    }
    const bytes = Buffer.concat(chunks);
    let json: unknown;
    if (action.jsonBody && bytes.length > 0) {
      try {
        json = JSON.parse(bytes.toString('utf8'));
      } catch (err) {
        return reply({ status: 400, body: invalidJson((err as Error).message) });
      }
    }
    if (action.endpoint === 'batches.create') {
      const model = /models\/([^/:]+):/.exec(path)![1]!;
      if (!engine.scenario.models[decodeURIComponent(model)]) {
        return reply({ status: 404, body: modelNotFound(decodeURIComponent(model), 'v1beta', 'batchGenerateContent') });
      }
    }
    const host = headerOf(req, 'host') ?? headerOf(req, ':authority') ?? '127.0.0.1';
    reply(action.run({ service: engine.batches, project, origin: `${scheme}://${host}`, params, header: (name) => headerOf(req, name), json, bytes }));
  });
  return true;
}
