/**
 * `status --refresh`: one `get` per unfinished batch of the job, by its name, with the key it was created with. Writes
 * nothing (the run that collects a batch records what it sees); a batch that cannot be read says why.
 */
import type { BatchBook } from '../batch/batch-book.js';
import type { Manifest } from '../journal/manifest.js';
import type { BatchInfo } from '../providers/contract.js';
import { batchAccess, type BatchAccessOptions } from './batch-access.js';

/**
 * The state now of each unfinished batch with a name, by chunk id: a BatchInfo, or why it could not be read.
 * @throws the errors of {@link batchAccess} (no key, a job of the built-in simulator), only when there is a batch to read.
 */
export async function refreshBatches(book: BatchBook, manifest: Manifest, options: BatchAccessOptions, env: NodeJS.ProcessEnv): Promise<Map<string, BatchInfo | string>> {
  const out = new Map<string, BatchInfo | string>();
  const open = book.open().filter((c) => c.created && c.intent);
  if (open.length === 0) return out;
  const access = await batchAccess(manifest, options, env, 'status --refresh');
  for (const c of open) {
    const alias = c.intent?.key as string;
    const service = access.serviceFor(alias);
    if (!service) {
      out.set(c.chunk.id, `no key ${alias} among the keys given`);
      continue;
    }
    try {
      out.set(c.chunk.id, await service.get(c.created?.name as string));
    } catch (error) {
      out.set(c.chunk.id, (error as Error).message);
    }
  }
  return out;
}
