/**
 * What `gemini-batch status` says of a job's batches, from the batch log alone (no API call): each batch's name,
 * state, lines done and failed, and when it was created; with `--refresh`, the state of each unfinished batch as one
 * `get` returns it now (nothing is written: the run that collects the batch writes what it sees).
 */
import type { BatchInfo } from '../providers/contract.js';
import { formatCount } from '../report/progress-snapshot.js';
import { stageOf, type BatchBook, type ChunkState } from './batch-book.js';

/** One batch as status shows it. */
export interface BatchStatusRow {
  /** Our id (`b0001`). */
  id: string;
  /** `batches/…`; null before the create answered. */
  name: string | null;
  /** The last known state (`pending`, `running`, `succeeded`…), `collected`/`given up` once ended, or the stage before create. */
  state: string;
  lines: number;
  /** Lines the batch reports done (succeeded + failed), when it said; for an ended batch the rows journaled. */
  done: number | null;
  /** Lines it reports failed; for an ended batch the rows that went to a later batch or online. */
  failed: number | null;
  /** The create time (the server's, else ours), ISO; null before the create. */
  created: string | null;
  /** Where this row's state comes from: the log, or a `get` just now (--refresh). */
  from: 'log' | 'refresh';
  /** Why it ended without results, or the provider's failure reason. */
  note?: string;
}

/** The rows of every batch in the book, in the order they were made; `fresh` replaces the log's state where given. */
export function batchStatusRows(book: BatchBook, fresh: ReadonlyMap<string, BatchInfo | string> = new Map()): BatchStatusRow[] {
  return [...book.chunks.values()].map((c) => rowOf(c, fresh.get(c.chunk.id)));
}

function rowOf(c: ChunkState, fresh: BatchInfo | string | undefined): BatchStatusRow {
  const base = { id: c.chunk.id, name: c.created?.name ?? null, lines: c.chunk.lines, created: c.created ? (c.created.createTime ?? c.created.at) : null };
  if (c.end) {
    const back = c.end.requeue.length + c.end.online.length;
    return {
      ...base,
      state: c.end.how === 'collected' ? `collected (${c.end.state ?? 'ended'})` : 'given up',
      done: c.end.journaled,
      failed: back,
      from: 'log',
      ...(c.end.reason ? { note: c.end.reason } : {}),
    };
  }
  if (typeof fresh === 'object') {
    const counts = fresh.counts;
    return {
      ...base,
      state: fresh.state,
      done: counts ? counts.succeeded + counts.failed : null,
      failed: counts ? counts.failed : null,
      from: 'refresh',
      ...(fresh.error ? { note: fresh.error } : {}),
    };
  }
  const counts = c.last?.counts;
  const stage = stageOf(c);
  return {
    ...base,
    state: c.created ? (c.last?.state ?? 'pending') : stage === 'written' ? 'not uploaded yet' : stage === 'uploaded' ? 'not created yet' : 'create sent, name not known yet',
    done: counts ? counts.succeeded + counts.failed : null,
    failed: counts ? counts.failed : null,
    from: 'log',
    ...(typeof fresh === 'string' ? { note: `refresh failed: ${fresh}` } : c.last?.error ? { note: c.last.error } : {}),
  };
}

/** Batches listed one by one at most; past it, the ended ones are summed up. */
const LISTED = 20;

/** The status lines of the batches (empty when the job has none). */
export function formatBatchStatus(rows: readonly BatchStatusRow[], refreshed: boolean): string[] {
  if (rows.length === 0) return [];
  const open = rows.filter((r) => !r.state.startsWith('collected') && r.state !== 'given up');
  const shown = rows.length <= LISTED ? rows : [...rows.filter((r) => !open.includes(r)).slice(-Math.max(0, LISTED - open.length)), ...open];
  const lines = [`batches: ${rows.length} — ${open.length} not finished${refreshed ? ' (states as get returned them now)' : ' (states as last seen; --refresh asks the API)'}`];
  if (shown.length < rows.length) lines.push(`  … ${rows.length - shown.length} earlier batches ended and collected`);
  for (const r of shown) {
    const progress =
      r.state.startsWith('collected') || r.state === 'given up'
        ? `${formatCount(r.lines)} lines: ${formatCount(r.done ?? 0)} journaled${r.failed ? `, ${formatCount(r.failed)} to a later batch or online` : ''}`
        : r.done !== null
          ? `${formatCount(r.done)}/${formatCount(r.lines)} lines done${r.failed ? `, ${formatCount(r.failed)} failed` : ''}`
          : `${formatCount(r.lines)} lines`;
    lines.push(`  ${r.id}  ${r.name ?? '-'}  ${r.state.toUpperCase()}  ${progress}${r.created ? ` · created ${r.created}` : ''}${r.note ? ` · ${r.note}` : ''}`);
  }
  return lines;
}
