/**
 * The batches resource and the Files API behind it, independent of HTTP: create (from an uploaded JSONL file or inline
 * requests), get, list, cancel, delete; the resumable upload, files.get/list/delete and the download of result files.
 * Every answer is a {@link ApiReply} the HTTP layer (batch-http.ts) writes. Resources belong to the caller's quota
 * project: another project's key sees a 404 (batches) or a 403 (files). Facts and sources: docs/batch-api.md.
 */
import { createHash, randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { BatchAnswerer, readLine, type LineResult, type ReadLine } from './batch-answers.js';
import { BatchJob, responsesJsonl } from './batch-job.js';
import { readInlineLines, readJsonlLines, type BatchLine, type LinesResult } from './batch-lines.js';
import type { BatchEnd, BatchEvent, BatchRecord, BatchScenario, BatchStats } from './batch-types.js';
import { NAMED_ERROR_BODIES, rpcError } from './error-bodies.js';
import { FileStore, MAX_FILE_BYTES, fileResource, resourceId, type UploadSession } from './file-store.js';
import { mix32, seededRandom } from './random.js';
import type { ScriptBook } from './script-book.js';
import type { ModelSpec, SimClock } from './types.js';

/** A reply to write: status, JSON body (undefined: empty), headers, and a delay before writing it (ms). */
export interface ApiReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** A download: these bytes as the body instead of JSON, with `stallMs` between its halves. */
  download?: { bytes: Buffer; mimeType: string; stallMs: number };
}

/** The headers of a resumable upload's start request that matter. */
export interface UploadStart {
  protocol: string | undefined;
  command: string | undefined;
  contentLength: string | undefined;
  contentType: string | undefined;
}

const json = (status: number, body: unknown, extra: Partial<ApiReply> = {}): ApiReply => ({ status, body, ...extra });
const ok = (body: unknown = {}, extra: Partial<ApiReply> = {}): ApiReply => json(200, body, extra);
const bad = (message: string): ApiReply => json(400, rpcError(400, message));
const batchNotFound = (): ApiReply => json(404, rpcError(404, 'Requested entity was not found.'));
/** files.get of a file that is gone or another project's (wording as reported by users: docs/batch-api.md). */
const fileNotFound = (id: string): ApiReply => json(403, rpcError(403, `You do not have permission to access the File ${id} or it may not exist.`));

/** A valid file id: up to 40 lowercase alphanumerics or dashes, not starting or ending with a dash. */
const FILE_ID = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pick(o: Record<string, unknown>, camel: string, snake: string): unknown {
  return o[camel] !== undefined ? o[camel] : o[snake];
}

/** The Batch API state of one simulator. */
export class BatchService {
  readonly files: FileStore;
  private readonly jobs = new Map<string, BatchJob>();
  private readonly order: BatchJob[] = [];
  private readonly answerer: BatchAnswerer;
  private readonly events = new EventEmitter();
  private readonly keyBatches = new Map<string, number>();
  private readonly jobRuleUses: number[];
  private createsSeen = 0;
  private created = 0;
  private createRejected = 0;
  private filesUploaded = 0;
  private downloads = 0;
  private answers = 0;
  /** Seeds batch names (and, through {@link files}, file and upload names): {@link BatchScenario.nameSeed} or fresh. */
  private readonly nameSeed: number;

  constructor(
    private readonly config: BatchScenario,
    private readonly seed: number,
    private readonly models: Record<string, ModelSpec>,
    private readonly clock: SimClock,
    scripts: ScriptBook,
  ) {
    this.nameSeed = config.nameSeed ?? freshNameSeed();
    this.files = new FileStore(this.nameSeed, config.fileTtlMs);
    this.answerer = new BatchAnswerer(seed, config, scripts);
    this.jobRuleUses = config.jobs.map(() => 0);
  }

  /** Calls `listener` with every {@link BatchEvent}; returns the function that stops it. */
  onEvent(listener: (e: BatchEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  /** Announces a Files or Batch API request's answer before it is written (batch-http.ts): the `answered` event. */
  answered(endpoint: string, status: number): void {
    this.emit({ type: 'answered', endpoint, status });
  }

  private emit(e: BatchEvent): void {
    this.events.emit('event', e);
  }

  // ---- Files API ----

  /**
   * The start of a resumable upload (`POST /upload/v1beta/files`, `X-Goog-Upload-Protocol: resumable`,
   * `-Command: start`): answers the session URL in `x-goog-upload-url`. `origin` is `http(s)://host:port`.
   */
  startUpload(project: string, origin: string, h: UploadStart, body: unknown): ApiReply {
    if (h.protocol?.toLowerCase() !== 'resumable' || h.command?.toLowerCase() !== 'start') {
      return bad('The simulator serves resumable uploads only: X-Goog-Upload-Protocol: resumable, X-Goog-Upload-Command: start.');
    }
    const size = Number(h.contentLength);
    if (h.contentLength === undefined || !Number.isInteger(size) || size < 0) return bad('X-Goog-Upload-Header-Content-Length must be the file size in bytes.');
    if (size > MAX_FILE_BYTES) return bad(`The file is ${size} bytes; the limit is ${MAX_FILE_BYTES} bytes (2 GB).`);
    const file = isObj(body) && isObj(body.file) ? body.file : {};
    const mimeType = h.contentType ?? (typeof file.mimeType === 'string' ? file.mimeType : undefined);
    if (mimeType === undefined || mimeType === '') return bad('The upload has no MIME type (X-Goog-Upload-Header-Content-Type).');
    let name: string | undefined;
    if (typeof file.name === 'string' && file.name !== '') {
      const id = file.name.replace(/^files\//, '');
      if (!FILE_ID.test(id)) return bad(`Invalid file name ${JSON.stringify(file.name)}: up to 40 lowercase letters, digits or dashes, not starting or ending with a dash.`);
      if (this.files.has(id, this.clock.now())) return json(409, rpcError(409, `File files/${id} already exists.`, 'ALREADY_EXISTS'));
      name = `files/${id}`;
    }
    const displayName = typeof file.displayName === 'string' ? file.displayName : undefined;
    const session = this.files.startUpload(project, size, mimeType, displayName, name);
    this.emit({ type: 'upload-started', uploadId: session.id, project, sizeBytes: size });
    return ok(undefined, {
      headers: {
        'x-goog-upload-url': `${origin}/upload/v1beta/files?upload_id=${session.id}&upload_protocol=resumable`,
        'x-goog-upload-status': 'active',
        'x-goog-upload-chunk-granularity': String(8 * 1024 * 1024),
      },
      delayMs: this.config.uploadStartReplyDelayMs,
    });
  }

  /** A request to an upload session's URL: `upload`, `upload, finalize`, `query` or `cancel`. */
  uploadChunk(uploadId: string, origin: string, command: string | undefined, offset: string | undefined, bytes: Buffer): ApiReply {
    const session = this.files.session(uploadId);
    if (!session) return json(404, rpcError(404, 'The upload session does not exist or has ended.'));
    const words = new Set((command ?? '').split(',').map((w) => w.trim().toLowerCase()));
    const active = (extra: Record<string, string> = {}): ApiReply => ok(undefined, { headers: { 'x-goog-upload-status': 'active', ...extra } });
    if (words.has('query')) return active({ 'x-goog-upload-size-received': String(session.received) });
    if (words.has('cancel')) return this.cancelUpload(session);
    if (!words.has('upload')) return bad('X-Goog-Upload-Command must be upload, "upload, finalize", query or cancel.');
    if (Number(offset) !== session.received) {
      return json(400, rpcError(400, `X-Goog-Upload-Offset is ${offset ?? 'missing'}; the session has received ${session.received} bytes.`), { headers: { 'x-goog-upload-status': 'active' } });
    }
    if (session.received + bytes.length > session.declaredBytes) {
      return bad(`The upload is longer than the ${session.declaredBytes} bytes declared in X-Goog-Upload-Header-Content-Length.`);
    }
    if (bytes.length > 0) session.chunks.push(bytes);
    session.received += bytes.length;
    if (!words.has('finalize')) return active();
    if (session.received !== session.declaredBytes) {
      return bad(`The upload was finalized after ${session.received} of the ${session.declaredBytes} bytes declared.`);
    }
    const file = this.files.finalize(session, this.clock.now());
    this.filesUploaded++;
    this.emit({ type: 'file-created', name: `files/${file.id}`, project: file.project, sizeBytes: file.bytes.length });
    return ok({ file: fileResource(file, origin) }, { headers: { 'x-goog-upload-status': 'final' }, delayMs: this.config.uploadReplyDelayMs });
  }

  private cancelUpload(session: UploadSession): ApiReply {
    this.files.endSession(session.id);
    return ok(undefined, { headers: { 'x-goog-upload-status': 'cancelled' } });
  }

  /** files.get. */
  getFile(project: string, id: string, origin: string): ApiReply {
    const now = this.clock.now();
    this.settleAll(now);
    const f = this.files.get(id, now);
    return f && f.project === project ? ok(fileResource(f, origin)) : fileNotFound(id);
  }

  /** files.delete. */
  deleteFile(project: string, id: string): ApiReply {
    const now = this.clock.now();
    const f = this.files.get(id, now);
    if (!f || f.project !== project) return fileNotFound(id);
    this.files.delete(id, now);
    return ok({});
  }

  /** files.list: the project's files, newest first. */
  listFiles(project: string, origin: string, pageSize: number, pageToken: string | undefined): ApiReply {
    const now = this.clock.now();
    this.settleAll(now);
    return ok(page('files', this.files.list(project, now).map((f) => fileResource(f, origin)), pageSize, pageToken));
  }

  /** The bytes of a generated file (`GET …/files/{id}:download?alt=media`); uploaded files cannot be downloaded. */
  download(project: string, id: string): ApiReply {
    const now = this.clock.now();
    this.settleAll(now);
    const f = this.files.get(id, now);
    if (!f || f.project !== project) return fileNotFound(id);
    if (f.source !== 'GENERATED') return bad(`Only generated files can be downloaded; files/${id} was uploaded.`);
    this.downloads++;
    this.emit({ type: 'download-started', name: `files/${id}` });
    return { status: 200, download: { bytes: f.bytes, mimeType: f.mimeType, stallMs: this.config.downloadStallMs } };
  }

  // ---- batches ----

  /** `POST /v1beta/models/{model}:batchGenerateContent`: a new batch, or a 400/403/429. */
  create(project: string, model: string, body: unknown): ApiReply {
    const now = this.clock.now();
    const spec = this.models[model]!;
    const batch = isObj(body) ? body.batch : undefined;
    if (!isObj(batch)) return bad('* BatchGenerateContentRequest.batch: batch is not specified');
    const input = pick(batch, 'inputConfig', 'input_config');
    if (!isObj(input)) return bad('* BatchGenerateContentRequest.batch.input_config: input_config is not specified');
    const fileName = pick(input, 'fileName', 'file_name');
    const requests = input.requests;
    if ((fileName === undefined) === (requests === undefined)) return bad('input_config must set exactly one of file_name and requests.');
    const displayNameRaw = pick(batch, 'displayName', 'display_name');
    const displayName = typeof displayNameRaw === 'string' ? displayNameRaw : undefined;

    let read: LinesResult;
    let file: string | undefined;
    if (fileName !== undefined) {
      if (typeof fileName !== 'string') return bad('input_config.file_name must be a string (files/…).');
      const id = fileName.replace(/^files\//, '');
      const f = this.files.get(id, now);
      if (!f || f.project !== project || f.source !== 'UPLOADED') return fileNotFound(id);
      file = `files/${id}`;
      read = readJsonlLines(f.bytes.toString('utf8'));
    } else {
      read = readInlineLines(isObj(requests) ? requests.requests : undefined);
    }
    if (!read.ok) return bad(read.message);
    const lines = read.lines;
    const reads = lines.map(readLine);
    let inputTokens = 0;
    for (const r of reads) if ('tokens' in r) inputTokens += r.tokens;

    const rejected = this.rejection(project, model, inputTokens, now);
    if (rejected) {
      this.createRejected++;
      this.emit({ type: 'create-rejected', project, reason: rejected });
      return json(429, NAMED_ERROR_BODIES['429-g-help-only']!());
    }

    const id = resourceId(this.nameSeed, ++this.created, 0xba7c, 22);
    const keys = lines.flatMap((l) => (l.key !== undefined ? [l.key] : [])).sort();
    const end = this.endOf(this.created, keys, displayName);
    const init: ConstructorParameters<typeof BatchJob>[0] = {
      id,
      project,
      model,
      createTime: now,
      lineCount: lines.length,
      keys,
      inputTokens,
      end,
      pendingMs: this.config.pendingMs,
      runningMs: this.config.runningMs,
      expireMs: this.config.expireMs,
      outputDelayMs: this.config.outputDelayMs,
      resultsForm: this.config.resultsForm === 'auto' ? (file !== undefined ? 'file' : 'inline') : this.config.resultsForm,
    };
    if (displayName !== undefined) init.displayName = displayName;
    if (file !== undefined) init.fileName = file;
    if (end === 'SUCCEEDED') init.results = this.results(lines, reads, spec, this.created);
    const job = new BatchJob(init);
    this.jobs.set(id, job);
    this.order.push(job);
    for (const k of new Set(keys)) this.keyBatches.set(k, (this.keyBatches.get(k) ?? 0) + 1);
    this.emit({ type: 'batch-created', name: job.name, project, lines: lines.length, ...(displayName !== undefined ? { displayName } : {}) });
    return ok(job.operation(now), { delayMs: this.config.createReplyDelayMs });
  }

  /** Why a create is refused with a 429, if it is: scripted, too many unfinished batches, too many enqueued tokens. */
  private rejection(project: string, model: string, tokens: number, now: number): Extract<BatchEvent, { type: 'create-rejected' }>['reason'] | undefined {
    if (++this.createsSeen <= this.config.rejectCreates) return 'scripted';
    let running = 0;
    let enqueued = 0;
    for (const job of this.jobs.values()) {
      if (job.init.project !== project || !job.unfinished(now)) continue;
      running++;
      if (job.init.model === model) enqueued += job.init.inputTokens;
    }
    if (running >= this.config.concurrentBatches) return 'concurrent-batches';
    if (this.config.enqueuedTokens !== undefined && enqueued + tokens > this.config.enqueuedTokens) return 'enqueued-tokens';
    return undefined;
  }

  /** How the `nth` batch created ends: the first matching `jobs` rule with uses left, else SUCCEEDED. */
  private endOf(nth: number, keys: readonly string[], displayName: string | undefined): BatchEnd {
    for (let i = 0; i < this.config.jobs.length; i++) {
      const rule = this.config.jobs[i]!;
      if (rule.times !== undefined && this.jobRuleUses[i]! >= rule.times) continue;
      if (rule.nth !== undefined && !rule.nth.includes(nth)) continue;
      if (rule.containsKey !== undefined && !keys.includes(rule.containsKey)) continue;
      if (rule.displayNameIncludes !== undefined && !(displayName ?? '').includes(rule.displayNameIncludes)) continue;
      this.jobRuleUses[i]!++;
      return rule.end;
    }
    return 'SUCCEEDED';
  }

  /** Every line's result, in a shuffled order seeded by (seed, `nth` batch created) unless `shuffle` is off. */
  private results(lines: readonly BatchLine[], reads: readonly ReadLine[], spec: ModelSpec, nth: number): LineResult[] {
    const results = lines.map((line, i) => this.answerer.answer(line, reads[i]!, spec, ++this.answers));
    const drop = this.config.dropInlineMetadata;
    if (drop > 0) {
      for (let i = 0; i < results.length; i++) if (mix32(this.seed, this.answers, i, 0xd20b) / 2 ** 32 < drop) results[i]!.dropMetadata = true;
    }
    if (!this.config.shuffle || results.length < 2) return results;
    const inOrder = [...results];
    const random = seededRandom(mix32(this.seed, nth, 0x5b0f));
    for (let i = results.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [results[i], results[j]] = [results[j]!, results[i]!];
    }
    // A shuffle may leave the order as it was (always, for a single line); results of 2+ lines never come back in order.
    if (results.every((r, i) => r === inOrder[i])) results.reverse();
    return results;
  }

  /** Writes the responses file of every batch that has SUCCEEDED in file form (results exist from then on). */
  private settleAll(now: number): void {
    for (const job of this.order) this.settle(job, now);
  }

  private settle(job: BatchJob, now: number): void {
    if (job.responsesFile !== undefined || job.init.resultsForm !== 'file' || !job.outputReady(now)) return;
    const id = `batch-${job.init.id}`;
    this.files.putGenerated(id, job.init.project, Buffer.from(responsesJsonl(job.init.results ?? []), 'utf8'), job.endAt + job.init.outputDelayMs);
    job.responsesFile = `files/${id}`;
  }

  private visible(project: string, id: string): BatchJob | undefined {
    const job = this.jobs.get(id);
    return job && !job.deleted && job.init.project === project ? job : undefined;
  }

  /** batches.get. */
  get(project: string, id: string): ApiReply {
    const now = this.clock.now();
    const job = this.visible(project, id);
    if (!job) return batchNotFound();
    this.settle(job, now);
    return ok(job.operation(now));
  }

  /** batches.list: the project's batches, newest first, without inline responses. */
  list(project: string, pageSize: number, pageToken: string | undefined): ApiReply {
    const now = this.clock.now();
    const mine = this.order.filter((j) => !j.deleted && j.init.project === project).reverse();
    for (const j of mine) this.settle(j, now);
    return ok(page('operations', mine.map((j) => j.operation(now, false)), pageSize, pageToken));
  }

  /** batches.cancel: an unfinished batch becomes CANCELLED; an ended one is a 400 FAILED_PRECONDITION. */
  cancel(project: string, id: string): ApiReply {
    const now = this.clock.now();
    const job = this.visible(project, id);
    if (!job) return batchNotFound();
    if (!job.unfinished(now)) return json(400, rpcError(400, `Batch ${job.name} has already ended (${job.state(now)}).`, 'FAILED_PRECONDITION'));
    job.cancelledAt = now;
    this.emit({ type: 'batch-cancelled', name: job.name });
    return ok({});
  }

  /** batches.delete: the batch is gone for get and list (it is not cancelled first). */
  delete(project: string, id: string): ApiReply {
    const job = this.visible(project, id);
    if (!job) return batchNotFound();
    job.deleted = true;
    this.emit({ type: 'batch-deleted', name: job.name });
    return ok({});
  }

  /** Every batch created, oldest first, as tests see it. */
  records(): BatchRecord[] {
    const now = this.clock.now();
    return this.order.map((j) => {
      const r: BatchRecord = {
        name: j.name,
        project: j.init.project,
        model: j.init.model,
        state: j.state(now),
        input: j.init.fileName !== undefined ? 'file' : 'inline',
        lines: j.init.lineCount,
        keySetSha256: keySetDigest(j.init.keys),
        inputTokens: j.init.inputTokens,
        createTime: j.init.createTime,
        deleted: j.deleted,
      };
      if (j.init.displayName !== undefined) r.displayName = j.init.displayName;
      return r;
    });
  }

  /** The Batch API counters of `GET /__sim/stats`. */
  stats(): BatchStats {
    const byState: BatchStats['byState'] = {};
    const byKeySet: Record<string, number> = {};
    let lines = 0;
    for (const r of this.records()) {
      byState[r.state] = (byState[r.state] ?? 0) + 1;
      byKeySet[r.keySetSha256] = (byKeySet[r.keySetSha256] ?? 0) + 1;
      lines += r.lines;
    }
    let several = 0;
    for (const n of this.keyBatches.values()) if (n > 1) several++;
    return {
      created: this.created,
      createRejected: this.createRejected,
      byState,
      lines,
      byKeySet,
      keysInSeveralBatches: several,
      filesUploaded: this.filesUploaded,
      downloads: this.downloads,
    };
  }
}

/**
 * A name seed for one simulator start: the clock's ms and 32 random bits mixed, so two starts (even in the same ms)
 * give different batch and file names.
 */
function freshNameSeed(): number {
  const now = Date.now();
  return mix32(now % 2 ** 32, Math.floor(now / 2 ** 32), randomInt(2 ** 32 - 1), randomInt(2 ** 32 - 1));
}

/** sha256 hex of sorted keys joined by "\n". */
export function keySetDigest(sortedKeys: readonly string[]): string {
  return createHash('sha256').update(sortedKeys.join('\n')).digest('hex');
}

/** One page of `items` as `{[field]: [...], nextPageToken?}`; the token is the next offset, base64. */
function page(field: string, items: unknown[], pageSize: number, pageToken: string | undefined): Record<string, unknown> {
  const start = pageToken ? Number(Buffer.from(pageToken, 'base64').toString('utf8')) || 0 : 0;
  const size = pageSize > 0 ? Math.min(pageSize, 1000) : 50;
  const out: Record<string, unknown> = {};
  const slice = items.slice(start, start + size);
  if (slice.length > 0) out[field] = slice;
  if (start + size < items.length) out.nextPageToken = Buffer.from(String(start + size)).toString('base64');
  return out;
}
