/**
 * What the batch log says, replayed: each chunk's progress (written → uploaded → intent → created → states → ended),
 * the rows held by chunks not ended, and the rows waiting for a later batch or for the online path with what they have
 * been through. Pure bookkeeping: no file, no network. Records are applied in log order, by the run as it appends them
 * and by the next run as it reads them back, so both see the same book.
 */
import { rowsOf, type BatchRecord, type CancelRecord, type CarriedRow, type ChunkRecord, type CreatedRecord, type EndRecord, type IntentRecord, type StateRecord, type UploadRecord } from './batch-records.js';
import { RowSet } from './row-set.js';

/** A chunk and what happened to it so far. */
export interface ChunkState {
  chunk: ChunkRecord;
  upload?: UploadRecord;
  intent?: IntentRecord;
  created?: CreatedRecord;
  /** The last state `get` reported. */
  last?: StateRecord;
  cancel?: CancelRecord;
  end?: EndRecord;
}

/** The stage of a chunk not ended, in order. */
export type ChunkStage = 'written' | 'uploaded' | 'intent' | 'created';

/** The furthest step a chunk reached. */
export function stageOf(c: ChunkState): ChunkStage {
  if (c.created) return 'created';
  if (c.intent) return 'intent';
  if (c.upload) return 'uploaded';
  return 'written';
}

export class BatchBook {
  /** The job's tag (the `job` record), once written. */
  tag: string | undefined;
  /** Every chunk by id, in the order they were made. */
  readonly chunks = new Map<string, ChunkState>();
  /** Rows a batch gave back for a later batch (per-line errors, answer retries, failed or expired batches). */
  readonly waiting = new Map<number, CarriedRow>();
  /** Rows to send online (--batch-fallback online, --batch-deadline). */
  readonly online = new Map<number, CarriedRow>();
  readonly #held = new RowSet();

  constructor(records: Iterable<BatchRecord> = []) {
    for (const record of records) this.apply(record);
  }

  /** Takes one record into account. */
  apply(record: BatchRecord): void {
    if (record.t === 'job') {
      this.tag ??= record.tag;
      return;
    }
    if (record.t === 'chunk') {
      this.chunks.set(record.id, { chunk: record });
      for (const row of rowsOf(record.rows)) {
        this.#held.add(row);
        this.waiting.delete(row);
      }
      return;
    }
    const state = this.chunks.get(record.id);
    if (!state) return; // a record of a chunk whose own record was lost cannot be: ignore it
    switch (record.t) {
      case 'upload':
        state.upload = record;
        break;
      case 'intent':
        state.intent ??= record;
        break;
      case 'created':
        state.created = record;
        break;
      case 'state':
        state.last = record;
        break;
      case 'cancel':
        state.cancel ??= record;
        break;
      case 'end':
        if (state.end) break;
        state.end = record;
        for (const row of rowsOf(state.chunk.rows)) this.#held.delete(row);
        for (const r of record.requeue) this.waiting.set(r.row, r);
        for (const r of record.online) this.online.set(r.row, r);
        break;
    }
  }

  /** True while a chunk that has not ended holds the row. */
  isHeld(row: number): boolean {
    return this.#held.has(row);
  }

  /** Rows held by chunks that have not ended. */
  get heldRows(): number {
    return this.#held.size;
  }

  /** Chunks that have not ended, in the order they were made. */
  open(): ChunkState[] {
    return [...this.chunks.values()].filter((c) => !c.end);
  }

  /** The id of the next chunk: `b0001`, `b0002`… */
  nextId(): string {
    return `b${String(this.chunks.size + 1).padStart(4, '0')}`;
  }

  /** Input tokens held by chunks not ended (what they hold of the enqueued-token quota, estimated). */
  heldTokens(): number {
    return this.open().reduce((sum, c) => sum + c.chunk.tokens, 0);
  }
}
