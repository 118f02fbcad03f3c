/**
 * `classify --batch`: wires the batch runner (../batch/batch-runner.ts) into the job — the job's rows become Batch API
 * lines through the same request building as online rows (../prompt/build-request.ts → the adapter's REST mapping),
 * results are judged by the same judge and journaled through the same journal and tally (billed at tier `batch`); the
 * rows a batch gives to the online path (--batch-fallback online, --batch-deadline) are handed to the online
 * dispatcher afterwards with what they have been through.
 */
import type { AnswerMode } from '../answers/judge-answer.js';
import { answerJudge } from '../answers/judge-answer.js';
import { BatchBook } from '../batch/batch-book.js';
import { BatchLog } from '../batch/batch-log.js';
import type { CarriedRow } from '../batch/batch-records.js';
import { BatchRunner } from '../batch/batch-runner.js';
import { batchTiming } from '../batch/batch-timing.js';
import type { ChunkLine } from '../batch/chunk-writer.js';
import { resultKey } from '../batch/result-key.js';
import type { BatchConfig } from '../config/batch-options.js';
import { UsageError } from '../errors.js';
import type { JournalEntry, RowTokens } from '../journal/journal-entry.js';
import type { Journal } from '../journal/journal.js';
import type { BatchService, Credential, ModelRequest, Provider } from '../providers/contract.js';
import type { RequestVariant } from '../prompt/build-request.js';
import type { TokenEstimator } from '../schedule/token-estimator.js';
import type { WorkItem } from '../schedule/work-item.js';
import type { JobTally } from './job-tally.js';
import { countOf, formatCount } from '../report/progress-snapshot.js';

/** Unfinished batches at once, per job: the Batch API's concurrent-batch limit per project (docs/batch-runner.md). */
export const MAX_OPEN_BATCHES = 100;
/** Enqueued tokens assumed for a model the limits table does not know: its smallest Tier 1 figure. */
const UNKNOWN_MODEL_QUEUE = 3_000_000;

export interface BatchPhaseOptions {
  batch: BatchConfig;
  provider: Provider;
  credentials: readonly Credential[];
  model: string;
  /** --tier, when given: picks the enqueued-token limit (Tier 1 otherwise). */
  tier: string | undefined;
  jobDir: string;
  /** The job's batch log file (`batches.jsonl`). */
  logFile: string;
  journal: () => Journal;
  /** The job's rows still to answer, in input order, admitted by `select` (../job/row-source.ts). */
  rows(select: (row: number) => boolean): AsyncIterable<WorkItem>;
  build(cells: readonly string[], variant?: RequestVariant): ModelRequest;
  estimator: TokenEstimator;
  mode: AnswerMode;
  maxAttempts: number;
  tally(): JobTally;
  notice: (key: string, text: string) => void;
  signal: AbortSignal;
  /** --simulate: the batches live in this process's simulator and end with it (batch-runner.ts `ephemeral`). */
  simulated: boolean;
}

/** The runner, its book, and the rows it gives to the online path. */
export interface BatchPhase {
  runner: BatchRunner;
  book: BatchBook;
  /** The rows given to the online path that still need an answer, with their history applied. */
  onlineRows(rows: AsyncIterable<WorkItem>): AsyncGenerator<WorkItem>;
  /** A line for the progress display: `batches 2 running · 1 pending · 3 done`. */
  describe(): string;
  /** The run header's lines on the Batch API's limits. */
  headerLines(): string[];
  /** The summary's line: `4 (656 lines): 3 collected, 1 running at Google`. */
  summary(): string;
  close(): void;
}

/**
 * @throws UsageError `BATCH_UNSUPPORTED` when the provider has no batch service (config refuses that first).
 */
export function openBatchPhase(o: BatchPhaseOptions): BatchPhase {
  const batches = o.provider.batches?.bind(o.provider);
  if (!batches) throw new UsageError('BATCH_UNSUPPORTED', `--batch: the ${o.provider.name} provider has no Batch API that gemini-batch drives.`);
  const log = BatchLog.open(o.logFile);
  const book = new BatchBook(log.records);
  const lineService: BatchService = batches(o.credentials[0] as Credential);
  const info = o.provider.model(o.model);
  const queueTokens = info.batchQueue?.tokens[o.tier ?? '1'] ?? info.batchQueue?.tokens['1'] ?? UNKNOWN_MODEL_QUEUE;

  async function* lines(select: (row: number) => boolean): AsyncGenerator<ChunkLine> {
    for await (const item of o.rows(select)) {
      const carry = book.waiting.get(item.row) ?? historyOf(item);
      // A batch line is billed at the Batch API's price: --service-tier is for the rows sent online.
      const request = { ...o.build(item.cells, carry?.moreOutput ? { moreOutput: true } : undefined), serviceTier: undefined };
      yield {
        row: item.row,
        text: lineService.requestLine(resultKey(item.row, item.fingerprint), request),
        tokens: o.estimator.estimate(item.features),
        hadEntry: o.journal().has(item.row),
        carry,
      };
    }
  }

  const finish = (entry: JournalEntry) => {
    const journal = o.journal();
    const previous = journal.has(entry.row) ? journal.get(entry.row) : undefined;
    journal.append(entry);
    o.tally().finish(previous?.status, entry.status, minus(entry.tokens, previous?.tokens), entry.tier ?? 'standard', previous ? (previous.tier ?? 'standard') : undefined, previous?.tokens);
  };

  const runner = new BatchRunner({
    book,
    log,
    jobDir: o.jobDir,
    credentials: o.credentials,
    service: batches,
    model: o.model,
    journal: o.journal,
    lines,
    judge: answerJudge(o.mode),
    finish,
    maxAttempts: o.maxAttempts,
    batchSize: o.batch.size,
    queueTokens,
    maxOpen: MAX_OPEN_BATCHES,
    timing: batchTiming(o.batch.pollMs),
    deadlineMs: o.batch.deadlineMs,
    fallbackOnline: o.batch.fallbackOnline,
    notice: o.notice,
    signal: o.signal,
    ephemeral: o.simulated,
  });

  return {
    runner,
    book,
    async *onlineRows(rows) {
      for await (const item of rows) {
        const carried = book.online.get(item.row);
        if (carried) {
          item.earlierAttempts = carried.attempts;
          item.earlierUsage = { ...carried.tokens };
          if (carried.moreOutput) item.variant = { moreOutput: true };
          for (const kind of carried.retried ?? []) item.retriedFor.add(kind);
          if (carried.error) item.lastError = carried.error;
        }
        yield item;
      }
    },
    describe: () => describeBatches(book),
    headerLines: () => [
      `Batch API: at most ${formatCount(queueTokens)} input tokens enqueued at once (${info.batchQueue ? `${o.model} at Tier ${o.tier && o.tier !== 'free' ? o.tier : '1'}, ${info.batchQueue.source}` : 'a guess: no published figure for this model'}), ${MAX_OPEN_BATCHES} batches at once; a batch is polled after 5 s, then less often, up to every ${Math.round(batchTiming(o.batch.pollMs).pollCapMs / 1000)} s`,
    ],
    summary: () => summarizeBatches(book, o.simulated ? 'in the simulator' : 'at Google'),
    close: () => log.close(),
  };
}

/** What a row brings into its first batch: the requests and tokens of an earlier result (--retry-errors). */
function historyOf(item: WorkItem): CarriedRow | undefined {
  if (item.earlierAttempts === 0) return undefined;
  return { row: item.row, attempts: item.earlierAttempts, tokens: { ...item.earlierUsage } };
}

/** `a − b` token by token (b undefined: a). */
function minus(a: RowTokens, b: RowTokens | undefined): RowTokens {
  if (!b) return { ...a };
  return { input: Math.max(0, a.input - b.input), output: Math.max(0, a.output - b.output), thoughts: Math.max(0, a.thoughts - b.thoughts) };
}

/** `batches 2 running · 1 pending · 3 done · 120 rows waiting`: the book's chunks by their last known state. */
export function describeBatches(book: BatchBook): string {
  const counts = new Map<string, number>();
  for (const c of book.chunks.values()) {
    const label = c.end ? 'done' : c.created ? (c.last?.state ?? 'pending') : 'preparing';
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const order = ['preparing', 'pending', 'running', 'succeeded', 'failed', 'cancelled', 'expired', 'unknown', 'done'];
  const parts = order.filter((k) => counts.has(k)).map((k) => `${counts.get(k)} ${k}`);
  if (book.waiting.size > 0) parts.push(`${book.waiting.size} rows for a later batch`);
  if (book.online.size > 0) parts.push(`${book.online.size} rows for online`);
  return parts.length > 0 ? `batches ${parts.join(' · ')}` : 'batches: none yet';
}

/**
 * The notice of a run that stops with batches created and unfinished: they keep running at Google and the resume
 * collects them; with --simulate they end with this process (its simulator) and the resume puts their rows into new
 * batches (batch-runner.ts `ephemeral`). `names`: the batches' names, the first 5 shown.
 */
export function batchesLeft(names: readonly string[], simulated: boolean, resume: string): string {
  const n = names.length;
  if (simulated) {
    return `${n === 1 ? 'a simulated batch ends' : `${n} simulated batches end`} with this process (--simulate: its simulator stops with it); the resume creates new batches for ${n === 1 ? 'its' : 'their'} rows: ${resume}`;
  }
  const shown = `${names.slice(0, 5).join(', ')}${n > 5 ? ', …' : ''}`;
  return `${n === 1 ? 'a batch keeps' : `${n} batches keep`} running at Google (${shown}); to collect the results, run: ${resume}`;
}

/** `4 (656 lines): 3 collected, 1 running at Google`; `where` names the service (`in the simulator` with --simulate). */
export function summarizeBatches(book: BatchBook, where = 'at Google'): string {
  const chunks = [...book.chunks.values()];
  if (chunks.length === 0) return 'none';
  const lines = chunks.reduce((n, c) => n + c.chunk.lines, 0);
  const by = new Map<string, number>();
  for (const c of chunks) {
    const label = c.end ? (c.end.how === 'collected' ? 'collected' : `given up (${c.end.reason ?? 'no batch'})`) : c.created ? `${c.last?.state ?? 'pending'} ${where}` : 'not created yet';
    by.set(label, (by.get(label) ?? 0) + 1);
  }
  return `${chunks.length} (${countOf(lines, 'line')}): ${[...by].map(([label, n]) => `${n} ${label}`).join(', ')}`;
}
