/**
 * The optional per-request log served at `GET /__sim/log?since=N` (scenario `requestLog: true`). Tests use it
 * to prove, e.g., that a row was not answered twice. Entries are kept in memory for the simulator's life.
 */
import { createHash } from 'node:crypto';
import type { SimLogEntry } from './types.js';

/** sha256 hex of `text` (UTF-8). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** An append-only list of {@link SimLogEntry}, in seq order. */
export class RequestLog {
  private readonly entries: SimLogEntry[] = [];

  add(entry: SimLogEntry): void {
    this.entries.push(entry);
  }

  /** Entries with seq > `since`. */
  since(since: number): SimLogEntry[] {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.seq <= since) lo = mid + 1;
      else hi = mid;
    }
    return this.entries.slice(lo);
  }
}
