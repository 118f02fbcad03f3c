/**
 * How many batches a job created at the Batch API: the chunks of its batch log (`<job-dir>/batches.jsonl`, see
 * ./batch-records.ts) that reached the `created` record. What `status` and the HTML report say a --batch job's rows
 * were answered through, in place of online requests.
 */
import type { BatchBook } from './batch-book.js';

/** Chunks of `book` with a `created` record (a batch the service accepted). */
export function batchCount(book: BatchBook): number {
  let n = 0;
  for (const c of book.chunks.values()) if (c.created) n += 1;
  return n;
}
