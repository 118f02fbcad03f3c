/**
 * Replacing a small file so a reader (or a crash, or a power failure) sees either the old content or the new,
 * never a mix.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { syncDirectory } from './sync-directory.js';

/**
 * Writes `data` to `.<name>.tmp-<pid>` beside `file`, fsyncs it, renames it over `file` and fsyncs the directory.
 * The temporary file is removed when any step fails.
 * @throws the fs error of the failing step.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}`);
  try {
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  syncDirectory(path.dirname(file));
}
