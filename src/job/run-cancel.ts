/**
 * `gemini-batch cancel <input|job-dir>`: cancels the job's unfinished Batch API batches (classify --batch), each by its
 * name with the key that created it, and records it in the batch log. A create whose answer was lost (an intent
 * without a name) is looked for by its display name first, as classify would, so that it is cancelled too.
 *
 * Takes the job's lock: a classify running the job is stopped first (Ctrl-C leaves the batches running). The rows of a
 * cancelled batch are not lost: the next `classify --batch` sends them in new batches. A CANCELLED batch carries no
 * output, whatever lines it had done (docs/batch-api.md "Resource": EXPIRED and CANCELLED carry no `response`).
 * Exit 0 when every unfinished batch is cancelled (or none was), 3 when a cancel failed on the way (run it again),
 * 2 for usage errors (no job, no key, a job of the built-in simulator).
 */
import { stat } from 'node:fs/promises';
import { BatchBook } from '../batch/batch-book.js';
import { BatchLog } from '../batch/batch-log.js';
import type { BatchRecord } from '../batch/batch-records.js';
import { ExitCode, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { defaultJobDir, jobFiles } from '../journal/job-dir.js';
import { acquireJobLock } from '../journal/job-lock.js';
import { readManifest } from '../journal/manifest.js';
import { batchAccess, type BatchAccessOptions } from './batch-access.js';

/** Options of `cancel`. */
export interface CancelOptions extends BatchAccessOptions {
  jobDir?: string;
}

/** States a cancel no longer changes. */
const ENDED = new Set(['succeeded', 'failed', 'cancelled', 'expired']);

/**
 * @throws UsageError `CANCEL_NO_JOB`, `JOB_LOCKED` (a classify runs the job), and the errors of ./batch-access.ts.
 */
export async function runCancel(target: string, options: CancelOptions, io: Pick<Io, 'stdout' | 'env'>): Promise<number> {
  const dir = options.jobDir ?? ((await isDirectory(target)) ? target : defaultJobDir(target));
  const manifest = await readManifest(dir);
  if (!manifest) throw new UsageError('CANCEL_NO_JOB', `${dir} holds no gemini-batch job (no manifest.json): nothing to cancel.`);
  const release = await acquireJobLock(dir);
  try {
    const log = BatchLog.open(jobFiles(dir).batches);
    try {
      const book = new BatchBook(log.records);
      const record = (r: BatchRecord) => {
        log.append(r);
        book.apply(r);
      };
      const open = book.open().filter((c) => c.intent && !(c.last && ENDED.has(c.last.state)));
      const lines: string[] = [];
      if (open.length === 0) {
        io.stdout.write(`${dir}: no unfinished batch to cancel${book.chunks.size > 0 ? ` (${book.chunks.size} batches, all ended or not created)` : ''}.\n`);
        return ExitCode.Ok;
      }
      const access = await batchAccess(manifest, options, io.env, 'cancel');
      let failed = 0;
      for (const c of open) {
        const intent = c.intent as NonNullable<typeof c.intent>;
        const service = access.serviceFor(intent.key);
        if (!service) {
          lines.push(`${c.chunk.id}: not cancelled: it belongs to ${intent.key}, and no key given has its last characters`);
          failed++;
          continue;
        }
        try {
          let name = c.created?.name;
          if (!name) {
            const found = await service.find(intent.displayName, Date.parse(intent.at));
            if (!found) {
              lines.push(`${c.chunk.id}: its create was never made (no batch named ${intent.displayName}); nothing to cancel`);
              continue;
            }
            name = found.name;
            record({ t: 'created', id: c.chunk.id, name, ...(found.createTime ? { createTime: found.createTime } : {}), found: true, at: new Date().toISOString() });
          }
          record({ t: 'cancel', id: c.chunk.id, by: 'user', at: new Date().toISOString() });
          await service.cancel(name);
          const now = await service.get(name);
          record({ t: 'state', id: c.chunk.id, state: now.state, ...(now.stateDetail ? { detail: now.stateDetail } : {}), ...(now.counts ? { counts: now.counts } : {}), at: new Date().toISOString() });
          lines.push(`${c.chunk.id} ${name}: cancel asked; now ${now.stateDetail ?? now.state}${now.counts ? ` (${now.counts.succeeded + now.counts.failed}/${now.counts.requests} lines done)` : ''}`);
        } catch (error) {
          failed++;
          lines.push(`${c.chunk.id}${c.created ? ` ${c.created.name}` : ''}: not cancelled: ${(error as Error).message}`);
        }
      }
      lines.push(
        failed > 0
          ? `${failed} of ${open.length} batches not cancelled; run gemini-batch cancel again.`
          : `${open.length} ${open.length === 1 ? 'batch' : 'batches'} cancelled; a cancelled batch gives no results, even for the lines it had done (docs/batch-api.md). Run the same classify --batch command again to send their rows in new batches.`,
      );
      io.stdout.write(`${lines.join('\n')}\n`);
      return failed > 0 ? ExitCode.Stopped : ExitCode.Ok;
    } finally {
      log.close();
    }
  } finally {
    await release();
  }
}

async function isDirectory(target: string): Promise<boolean> {
  try {
    return (await stat(target)).isDirectory();
  } catch {
    return false;
  }
}
