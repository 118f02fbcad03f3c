/**
 * The batch runner (`classify --batch`): rows → chunks (our JSONL copy) → upload → intent → create → poll → results
 * journaled, until every row has a result, waits for the online path, or the run is stopped. Every step is written to
 * the batch log before (intent) or right after (everything else) it happens, so a run killed at any moment resumes
 * where it was: it re-attaches to its batches by their names (`get`, never the list), and a create whose answer was
 * lost is looked for by its unique display name before any second create (docs/batch-runner.md "Create is not
 * idempotent").
 *
 * One thing at a time: the oldest chunk not created yet is advanced (upload, intent, create) before a new one is
 * formed; created batches are polled when due. A chunk takes at most --batch-size rows, the provider's file limit, and
 * the input tokens the enqueued-token quota has room for beside our own unfinished batches.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { JournalEntry } from '../journal/journal-entry.js';
import type { Journal } from '../journal/journal.js';
import type { BatchInfo, BatchService, Credential, ModelAnswer } from '../providers/contract.js';
import { ApiFailure, BillingFailure, CancelledFailure, KeyFailure, ModelFailure, RateLimitFailure, RequestFailure } from '../providers/failures.js';
import type { DispatchEnd } from '../schedule/dispatcher.js';
import { capServerWait } from '../schedule/server-wait.js';
import { timerDelay } from '../schedule/timer-delay.js';
import type { Verdict } from '../schedule/work-item.js';
import { stageOf, type BatchBook, type ChunkState } from './batch-book.js';
import type { BatchLog } from './batch-log.js';
import { rowsOf, toRanges, type BatchRecord, type CarriedRow } from './batch-records.js';
import { backoffMs, nextPollInterval, type BatchTiming } from './batch-timing.js';
import { writeChunk, fileSha256, type ChunkLine } from './chunk-writer.js';
import { collectResults } from './collect-results.js';
import { credentialByAlias } from './credential-alias.js';
import { Peekable } from './peekable.js';

export interface BatchRunnerOptions {
  book: BatchBook;
  log: BatchLog;
  /** The job directory (chunk files are `batches/<id>.jsonl` in it). */
  jobDir: string;
  /** Keys the batches may be created with; a chunk's key is kept in its log records. */
  credentials: readonly Credential[];
  service(credential: Credential): BatchService;
  model: string;
  /** The job's journal now. */
  journal(): Journal;
  /** The lines of the rows `select` admits that still need an answer, in input order (../job wires rows to lines). */
  lines(select: (row: number) => boolean): AsyncIterable<ChunkLine>;
  judge: (answer: ModelAnswer) => Verdict;
  /** Journals one row (and counts it). */
  finish: (entry: JournalEntry) => void;
  maxAttempts: number;
  /** Rows per chunk at most (--batch-size). */
  batchSize: number;
  /** Input tokens our unfinished batches may hold at once (the enqueued-token quota). */
  queueTokens: number;
  /** Unfinished batches at once, at most. */
  maxOpen: number;
  timing: BatchTiming;
  /** A batch still PENDING this long after its create is cancelled and its rows sent online (--batch-deadline), ms. */
  deadlineMs: number | undefined;
  /** Rows of FAILED or EXPIRED batches go online instead of into a later batch (--batch-fallback online). */
  fallbackOnline: boolean;
  /** Tells the user something once per `key`. */
  notice(key: string, text: string): void;
  /** Aborts when the run is stopped (Ctrl-C): batches keep running at the provider. */
  signal: AbortSignal;
  /**
   * The batch service ends with this process (the in-process simulator of --simulate, docs/batch-runner.md "Resume"):
   * an earlier run's uploads and batches are gone, so at the start its uploaded, intended and created chunks end
   * (`dropped`, no attempt counted: they answered nothing) and their rows go into new batches, without a poll.
   * @default false
   */
  ephemeral?: boolean;
  /** Clock, ms. @default Date.now */
  now?: () => number;
}

/** What stops a step: the run's end, or a wait before going on. */
type Step = { end: DispatchEnd } | 'progress' | 'wait';

/** Unfinished-batch states. */
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'expired']);
/** How long a SUCCEEDED batch may show no output before its rows are taken as unanswered (ellmer PR #926), ms. */
const NO_OUTPUT_WAIT_MS = 15 * 60_000;
/** An upload expiring sooner than this is not used for a create: the file is uploaded again. */
const UPLOAD_MARGIN_MS = 2 * 3600_000;

export class BatchRunner {
  readonly #o: BatchRunnerOptions;
  readonly #now: () => number;
  /** Next poll of each created chunk: when, and the interval that led there. */
  readonly #polls = new Map<string, { at: number; interval: number | undefined }>();
  /** Chunks whose create may have happened without our knowing its name. */
  readonly #uncertain = new Set<string>();
  readonly #noOutput = new Map<string, number>();
  readonly #services = new Map<string, BatchService>();
  #createBlocked: { until: number; level: number } | undefined;
  #retryAt = 0;
  #failuresInARow = 0;
  #fresh: Peekable<ChunkLine> | undefined;
  #second: { source: Peekable<ChunkLine>; start: Set<number>; taken: Set<number> } | undefined;

  constructor(options: BatchRunnerOptions) {
    if (options.credentials.length === 0) throw new RangeError('the batch runner needs at least one credential');
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Runs until every row is answered or waits for the online path (`done`), or the run stops. */
  async run(): Promise<DispatchEnd> {
    const { book } = this.#o;
    if (book.tag === undefined) this.#record({ t: 'job', tag: randomBytes(6).toString('hex'), at: iso() });
    await this.#removeStrayFiles();
    if (this.#o.ephemeral) this.#dropEarlierRuns();
    for (const c of book.open()) {
      // Created in an earlier run: poll at once. An intent without a name: its create may have happened.
      if (c.created) this.#polls.set(c.chunk.id, { at: 0, interval: undefined });
      else if (c.intent) this.#uncertain.add(c.chunk.id);
    }
    try {
      for (;;) {
        if (this.#o.signal.aborted) return { kind: 'interrupted' };
        const advanced = await this.#advanceOpen();
        if (typeof advanced === 'object') return advanced.end;
        if (advanced === 'progress') continue;
        const formed = await this.#formChunk();
        if (typeof formed === 'object') return formed.end;
        if (formed === 'progress') continue;
        const polled = await this.#pollDue();
        if (typeof polled === 'object') return polled.end;
        if (polled === 'progress') continue;
        if (book.open().length === 0 && !(await this.#hasRows())) return { kind: 'done' };
        await this.#sleep(this.#nextWake() - this.#now());
      }
    } finally {
      await this.#fresh?.close();
      await this.#second?.source.close();
    }
  }

  /** {@link BatchRunnerOptions.ephemeral}: ends the chunks an earlier run uploaded or created; their rows wait for new batches. */
  #dropEarlierRuns(): void {
    const gone = this.#o.book.open().filter((c) => stageOf(c) !== 'written');
    for (const c of gone) {
      this.#end(c, { how: 'dropped', reason: 'the simulator of the run that made it has ended', requeue: this.#carried(c, 0), online: [] });
    }
    if (gone.length > 0) {
      const n = gone.length;
      this.#o.notice('ephemeral-batches', `${n === 1 ? 'a batch' : `${n} batches`} of an earlier run ended with its simulator (--simulate): ${n === 1 ? 'its' : 'their'} rows go into new batches`);
    }
  }

  // ---- chunks not created yet --------------------------------------------------------------------------------------

  /** Advances the oldest open chunk that is not created yet by one step. */
  async #advanceOpen(): Promise<Step> {
    const c = this.#o.book.open().find((o) => !o.created);
    if (!c) return 'wait';
    if (this.#now() < this.#retryAt) return 'wait';
    switch (stageOf(c)) {
      case 'written':
        return this.#upload(c);
      case 'uploaded': {
        const upload = c.upload as NonNullable<ChunkState['upload']>;
        if (upload.expiresAt !== undefined && upload.expiresAt - this.#now() < UPLOAD_MARGIN_MS) return this.#upload(c);
        const tag = this.#o.book.tag as string;
        this.#record({ t: 'intent', id: c.chunk.id, displayName: `gemini-batch ${tag} ${c.chunk.id}`, key: upload.key ?? this.#credentialFor(c).alias, at: iso() });
        return 'progress';
      }
      case 'intent':
        return this.#create(c);
      case 'created':
        return 'wait';
    }
  }

  async #upload(c: ChunkState): Promise<Step> {
    const file = path.join(this.#o.jobDir, c.chunk.file);
    if ((await fileSha256(file)) !== c.chunk.sha256) {
      this.#end(c, { how: 'dropped', reason: `our copy ${c.chunk.file} is missing or changed (sha256)`, requeue: this.#carried(c, 0), online: [] });
      return 'progress';
    }
    const credential = this.#credentialFor(c);
    try {
      const uploaded = await this.#service(credential).upload(file, `gemini-batch ${this.#o.book.tag} ${c.chunk.id}`, this.#o.signal);
      this.#succeeded();
      this.#record({ t: 'upload', id: c.chunk.id, file: uploaded.file, ...(uploaded.expiresAt !== undefined ? { expiresAt: uploaded.expiresAt } : {}), key: credential.alias, at: iso() });
      return 'progress';
    } catch (error) {
      return this.#failed(error, `upload of ${c.chunk.file}`, credential.alias);
    }
  }

  async #create(c: ChunkState): Promise<Step> {
    const intent = c.intent as NonNullable<ChunkState['intent']>;
    const upload = c.upload as NonNullable<ChunkState['upload']>;
    const credential = credentialByAlias(this.#o.credentials, intent.key);
    if (!credential) return { end: { kind: 'unavailable', reasons: [`batch ${c.chunk.id} belongs to ${intent.key}, which this run has no key for`] } };
    const service = this.#service(credential);
    if (this.#uncertain.has(c.chunk.id)) {
      // The create may have been made: find it by its display name before making another (docs/batch-runner.md).
      try {
        const found = await service.find(intent.displayName, Date.parse(intent.at), this.#o.signal);
        this.#succeeded();
        this.#uncertain.delete(c.chunk.id);
        if (found) {
          this.#created(c, found, true);
          return 'progress';
        }
      } catch (error) {
        return this.#failed(error, `looking for ${intent.displayName}`, credential.alias);
      }
    }
    if (this.#createBlocked && this.#now() < this.#createBlocked.until) return 'wait';
    try {
      // No stop signal: a create aborted on our side may still be made on the provider's.
      const info = await service.create(this.#o.model, upload.file, intent.displayName);
      this.#succeeded();
      this.#createBlocked = undefined;
      this.#created(c, info, false);
      return 'progress';
    } catch (error) {
      if (error instanceof RateLimitFailure) {
        // The enqueued-token or concurrent-batch limit (no quota named, no retryDelay): wait for our own batches, or minutes.
        const level = (this.#createBlocked?.level ?? 0) + 1;
        const waitMs = backoffMs(level, this.#o.timing.createBackoffMs, this.#o.timing.createBackoffMaxMs);
        this.#createBlocked = { level, until: this.#now() + waitMs };
        const running = this.#o.book.open().filter((o) => o.created).length;
        this.#o.notice(
          `batch-create-429:${level}`,
          `the Batch API refused to create batch ${c.chunk.id} (429: too many tokens or batches enqueued); ${running > 0 ? `waiting for ${running === 1 ? 'our running batch' : `our ${running} running batches`} to finish, or ` : 'waiting '}${Math.round(waitMs / 1000)} s before trying again; no row fails for it`,
        );
        return 'wait';
      }
      if (!(error instanceof KeyFailure || error instanceof ModelFailure || error instanceof RequestFailure || error instanceof BillingFailure || error instanceof CancelledFailure)) {
        this.#uncertain.add(c.chunk.id); // no answer, or a 5xx: the batch may exist
      }
      return this.#failed(error, `create of batch ${c.chunk.id}`, credential.alias);
    }
  }

  #created(c: ChunkState, info: BatchInfo, found: boolean): void {
    this.#record({ t: 'created', id: c.chunk.id, name: info.name, ...(info.createTime ? { createTime: info.createTime } : {}), ...(found ? { found: true } : {}), at: iso() });
    this.#polls.set(c.chunk.id, { at: this.#now() + nextPollInterval(undefined, this.#o.timing), interval: nextPollInterval(undefined, this.#o.timing) });
    this.#o.notice(`batch-created:${c.chunk.id}`, `batch ${c.chunk.id} ${found ? 'found again' : 'created'}: ${info.name} (${c.chunk.lines} rows)`);
  }

  // ---- forming chunks ----------------------------------------------------------------------------------------------

  /** Writes the next chunk when the limits leave room for it. */
  async #formChunk(): Promise<Step> {
    const { book } = this.#o;
    const now = this.#now();
    if (now < this.#retryAt || (this.#createBlocked && now < this.#createBlocked.until)) return 'wait';
    const open = book.open();
    if (open.some((c) => !c.created) || open.length >= this.#o.maxOpen) return 'wait';
    const room = this.#o.queueTokens - book.heldTokens();
    const source = await this.#source();
    if (!source) return 'wait';
    const next = await source.peek();
    if (open.length > 0 && (room <= 0 || (next !== undefined && next.tokens > room))) return 'wait';
    const id = book.nextId();
    const file = path.posix.join('batches', `${id}.jsonl`);
    const target = path.join(this.#o.jobDir, file);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const service = this.#service(this.#o.credentials[0] as Credential);
    const written = await writeChunk(target, source, {
      maxRows: this.#o.batchSize,
      maxBytes: service.maxFileBytes,
      maxTokens: open.length > 0 ? room : this.#o.queueTokens,
    });
    if (!written) return 'wait';
    for (const row of written.rows) this.#second?.taken.add(row);
    const journalEnd = this.#o.journal().byteLength;
    this.#record({
      t: 'chunk',
      id,
      file,
      sha256: written.sha256,
      bytes: written.bytes,
      lines: written.lines,
      tokens: written.tokens,
      rows: toRanges(written.rows),
      again: toRanges(written.again),
      journalEnd,
      carry: written.carry,
      at: iso(),
    });
    return 'progress';
  }

  /** Where the next chunk's lines come from: rows not sent yet, then rows given back by batches. */
  async #source(): Promise<Peekable<ChunkLine> | undefined> {
    const { book } = this.#o;
    this.#fresh ??= new Peekable(this.#o.lines((row) => !book.isHeld(row) && !book.online.has(row)));
    if ((await this.#fresh.peek()) !== undefined) return this.#fresh;
    for (;;) {
      if (this.#second) {
        if ((await this.#second.source.peek()) !== undefined) return this.#second.source;
        // Rows the pass did not yield are not wanted any more (answered since, now skipped, past --limit).
        for (const row of this.#second.start) if (!this.#second.taken.has(row) && !book.isHeld(row)) book.waiting.delete(row);
        await this.#second.source.close();
        const yielded = this.#second.taken.size > 0;
        this.#second = undefined;
        if (!yielded) return undefined;
      }
      const waiting = [...book.waiting.keys()].filter((row) => !book.isHeld(row));
      if (waiting.length === 0) return undefined;
      this.#second = { source: new Peekable(this.#o.lines((row) => book.waiting.has(row) && !book.isHeld(row))), start: new Set(waiting), taken: new Set() };
    }
  }

  /** True while rows remain to put into batches. */
  async #hasRows(): Promise<boolean> {
    return (await this.#source()) !== undefined;
  }

  // ---- polling and results -----------------------------------------------------------------------------------------

  /** Polls the created batches that are due, oldest first. */
  async #pollDue(): Promise<Step> {
    const now = this.#now();
    if (now < this.#retryAt) return 'wait';
    for (const c of this.#o.book.open()) {
      const poll = this.#polls.get(c.chunk.id);
      if (!c.created || !poll || poll.at > now) continue;
      const step = await this.#poll(c, poll.interval);
      if (step !== 'wait') return step;
    }
    return 'wait';
  }

  async #poll(c: ChunkState, interval: number | undefined): Promise<Step> {
    const intent = c.intent as NonNullable<ChunkState['intent']>;
    const created = c.created as NonNullable<ChunkState['created']>;
    const credential = credentialByAlias(this.#o.credentials, intent.key);
    if (!credential) return { end: { kind: 'unavailable', reasons: [`batch ${created.name} belongs to ${intent.key}, which this run has no key for`] } };
    const service = this.#service(credential);
    const schedule = () => {
      const next = nextPollInterval(interval, this.#o.timing);
      this.#polls.set(c.chunk.id, { at: this.#now() + next, interval: next });
    };
    let info: BatchInfo;
    try {
      info = await service.get(created.name, this.#o.signal);
      this.#succeeded();
    } catch (error) {
      if (error instanceof ModelFailure) {
        this.#end(c, { how: 'dropped', reason: `${created.name} no longer exists (404 on get)`, requeue: this.#carried(c, 1), online: [] });
        return 'progress';
      }
      schedule();
      return this.#failed(error, `get ${created.name}`, credential.alias);
    }
    const last = c.last;
    const changed = !last || last.state !== info.state || JSON.stringify(last.counts) !== JSON.stringify(info.counts);
    if (changed) {
      this.#record({ t: 'state', id: c.chunk.id, state: info.state, ...(info.stateDetail ? { detail: info.stateDetail } : {}), ...(info.counts ? { counts: info.counts } : {}), ...(info.error ? { error: info.error } : {}), at: iso() });
      if (last?.state !== info.state) this.#o.notice(`batch-state:${c.chunk.id}:${info.state}`, `batch ${c.chunk.id} (${created.name}): ${info.stateDetail ?? info.state}${info.error ? ` — ${info.error}` : ''}`);
    }
    if (TERMINAL.has(info.state)) return this.#collect(c, info, credential, schedule);
    const createdAt = Date.parse(created.createTime ?? created.at);
    if (info.state === 'pending' && this.#o.deadlineMs !== undefined && Number.isFinite(createdAt) && this.#now() - createdAt > this.#o.deadlineMs) {
      return this.#deadline(c, service);
    }
    schedule();
    return 'progress';
  }

  async #collect(c: ChunkState, info: BatchInfo, credential: Credential, schedule: () => void): Promise<Step> {
    if (info.state === 'succeeded' && !info.output) {
      const since = this.#noOutput.get(c.chunk.id) ?? this.#now();
      this.#noOutput.set(c.chunk.id, since);
      if (this.#now() - since < NO_OUTPUT_WAIT_MS) {
        schedule();
        return 'progress';
      }
    }
    const service = this.#service(credential);
    const name = (c.created as NonNullable<ChunkState['created']>).name;
    let collected;
    try {
      collected = await collectResults({
        chunk: c.chunk,
        copy: path.join(this.#o.jobDir, c.chunk.file),
        results: info.output ? service.results(info, this.#o.signal) : empty(),
        journal: this.#o.journal(),
        judge: this.#o.judge,
        maxAttempts: this.#o.maxAttempts,
        keyAlias: credential.alias,
        finish: this.#o.finish,
        missingReason: `no result for the row from ${name} (${info.stateDetail ?? info.state})`,
      });
      this.#succeeded();
    } catch (error) {
      schedule();
      return this.#failed(error, `results of ${name}`, credential.alias);
    }
    const toOnline = this.#o.fallbackOnline && (info.state === 'failed' || info.state === 'expired');
    const missing = new Set(collected.missing);
    const online = toOnline ? collected.requeue.filter((r) => missing.has(r.row)) : [];
    const requeue = toOnline ? collected.requeue.filter((r) => !missing.has(r.row)) : collected.requeue;
    this.#end(c, { how: 'collected', state: info.state, journaled: collected.journaled, ok: collected.ok, requeue, online });
    const parts = [`${collected.journaled} rows journaled (${collected.ok} ok)`];
    if (requeue.length > 0) parts.push(`${requeue.length} for a later batch`);
    if (online.length > 0) parts.push(`${online.length} to send online`);
    if (collected.strays > 0) parts.push(`${collected.strays} lines with a key of no row of it, ignored`);
    this.#o.notice(`batch-end:${c.chunk.id}`, `batch ${c.chunk.id} (${name}) ${info.stateDetail ?? info.state}: ${parts.join(', ')}`);
    return 'progress';
  }

  /** --batch-deadline: the batch is still PENDING; cancel it and send its rows online. */
  async #deadline(c: ChunkState, service: BatchService): Promise<Step> {
    const name = (c.created as NonNullable<ChunkState['created']>).name;
    this.#record({ t: 'cancel', id: c.chunk.id, by: 'deadline', at: iso() });
    let note = '';
    try {
      await service.cancel(name, this.#o.signal);
    } catch (error) {
      if (error instanceof CancelledFailure) return { end: { kind: 'interrupted' } };
      note = ` (the cancel failed: ${(error as Error).message}; cancel it with gemini-batch cancel)`;
    }
    this.#end(c, { how: 'dropped', state: 'pending', reason: 'still PENDING at --batch-deadline', requeue: [], online: this.#carried(c, 0) });
    this.#o.notice(`batch-deadline:${c.chunk.id}`, `batch ${c.chunk.id} (${name}) was still PENDING at --batch-deadline: cancelled${note}; its ${c.chunk.lines} rows go online`);
    return 'progress';
  }

  // ---- helpers -----------------------------------------------------------------------------------------------------

  /** The rows of `c` with what they carried in, `extra` attempts more (a batch that took them and gave nothing). */
  #carried(c: ChunkState, extra: number): CarriedRow[] {
    const carried = new Map(c.chunk.carry.map((r) => [r.row, r]));
    const journal = this.#o.journal();
    const out: CarriedRow[] = [];
    for (const row of rowsOf(c.chunk.rows)) {
      const before = carried.get(row) ?? { row, attempts: 0, tokens: { input: 0, output: 0, thoughts: 0 } };
      if (journal.has(row) && (journal.entryOffset(row) ?? -1) >= c.chunk.journalEnd) continue; // answered meanwhile
      out.push({ ...before, attempts: before.attempts + extra });
    }
    return out;
  }

  #end(c: ChunkState, e: { how: 'collected' | 'dropped'; state?: BatchInfo['state']; reason?: string; journaled?: number; ok?: number; requeue: CarriedRow[]; online: CarriedRow[] }): void {
    this.#record({
      t: 'end',
      id: c.chunk.id,
      how: e.how,
      ...(e.state ? { state: e.state } : {}),
      ...(e.reason ? { reason: e.reason } : {}),
      journaled: e.journaled ?? 0,
      ok: e.ok ?? 0,
      requeue: e.requeue,
      online: e.online,
      at: iso(),
    });
    this.#polls.delete(c.chunk.id);
    // A batch of ours ended: the enqueued tokens it held are free, so a refused create may go now.
    if (this.#createBlocked) this.#createBlocked.until = Math.min(this.#createBlocked.until, this.#now());
  }

  /**
   * A call failed: the run ends (a refused key, a refused request, billing), or waits and tries again (5xx, connection,
   * timeout, 429 on a call other than create) until failures in a row say the API is out of reach.
   */
  #failed(error: unknown, what: string, alias: string): Step {
    if (error instanceof CancelledFailure || this.#o.signal.aborted) return { end: { kind: 'interrupted' } };
    if (!(error instanceof ApiFailure)) throw error;
    if (error instanceof KeyFailure) return { end: { kind: 'unavailable', reasons: [`${alias}: ${error.message}`] } };
    if (error instanceof BillingFailure) return { end: { kind: 'billing', failure: error } };
    if (error instanceof ModelFailure || error instanceof RequestFailure) return { end: { kind: 'fatal', failure: error } };
    const n = ++this.#failuresInARow;
    if (n >= this.#o.timing.outageAfter) return { end: { kind: 'outage', reason: `${what} failed ${n} times in a row (${error.message}); the batches keep running` } };
    // A server's wait is honoured up to SERVER_WAIT_CAP_MS (../schedule/server-wait.ts), then the call is tried again.
    const asked = error instanceof RateLimitFailure ? capServerWait(error.details.waitMs) : undefined;
    const wait = asked !== undefined ? asked : backoffMs(n, this.#o.timing.retryMs, this.#o.timing.retryMaxMs);
    this.#retryAt = this.#now() + wait;
    this.#o.notice(`batch-retry:${what}:${n}`, `${what} failed (${error.message}); trying again in ${Math.max(1, Math.round(wait / 1000))} s`);
    return 'wait';
  }

  #succeeded(): void {
    this.#failuresInARow = 0;
    this.#retryAt = 0;
  }

  #record(record: BatchRecord): void {
    this.#o.log.append(record);
    this.#o.book.apply(record);
  }

  /** The key a new chunk goes out with: the quota projects in turn (one key of each). */
  #credentialFor(c: ChunkState): Credential {
    const projects = [...new Map(this.#o.credentials.map((k) => [k.project, k])).values()];
    const seq = Number(c.chunk.id.replace(/\D/g, '')) || 1;
    return projects[(seq - 1) % projects.length] as Credential;
  }

  #service(credential: Credential): BatchService {
    let service = this.#services.get(credential.alias);
    if (!service) {
      service = this.#o.service(credential);
      this.#services.set(credential.alias, service);
    }
    return service;
  }

  /** When something is next due: a poll, the end of a wait after a failure or a refused create. */
  #nextWake(): number {
    const times = [...this.#polls.values()].map((p) => p.at);
    if (this.#retryAt > 0) times.push(this.#retryAt);
    if (this.#createBlocked) times.push(this.#createBlocked.until);
    return times.length > 0 ? Math.min(...times) : this.#now() + this.#o.timing.pollCapMs;
  }

  #sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.#o.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#o.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timerDelay(ms));
      this.#o.signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Removes files in `batches/` that no chunk record names (a chunk written but not logged before a kill). */
  async #removeStrayFiles(): Promise<void> {
    const dir = path.join(this.#o.jobDir, 'batches');
    const known = new Set([...this.#o.book.chunks.values()].map((c) => path.posix.basename(c.chunk.file)));
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) if (!known.has(name)) await fs.rm(path.join(dir, name), { force: true });
  }
}

function iso(): string {
  return new Date().toISOString();
}

async function* empty(): AsyncGenerator<never> {}
