/**
 * Checks the output target before any request is sent: a wrong extension, a missing or unwritable folder, or the
 * input itself as the output must stop the job with exit 2 before a single row is paid for.
 */
import { open, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { outputFormatFor } from '../output/output-format.js';

/**
 * @throws UsageError `OUTPUT_UNSUPPORTED_FORMAT`, `OUTPUT_IS_INPUT`, `OUTPUT_UNWRITABLE`.
 */
export async function checkOutputTarget(target: string, input: string): Promise<void> {
  if (target === '-') return;
  outputFormatFor(target);
  const [outputReal, inputReal] = await Promise.all([realpath(target).catch(() => path.resolve(target)), realpath(input).catch(() => path.resolve(input))]);
  if (outputReal === inputReal) {
    throw new UsageError('OUTPUT_IS_INPUT', `-o ${target} is the input file itself; writing the results there would destroy the input. Choose another output file.`);
  }
  const existing = await stat(target).catch(() => null);
  if (existing?.isDirectory()) throw new UsageError('OUTPUT_UNWRITABLE', `cannot write the output ${target}: it is a directory`);
  const folder = path.dirname(path.resolve(target));
  const folderStat = await stat(folder).catch(() => null);
  if (!folderStat?.isDirectory()) throw new UsageError('OUTPUT_UNWRITABLE', `cannot write the output ${target}: the folder ${path.dirname(target)} does not exist`);
  // Create and remove a file there: permission bits do not tell (root passes access(W_OK) on /proc and /sys).
  const probe = path.join(folder, `.gemini-batch-probe-${process.pid}`);
  try {
    await (await open(probe, 'wx')).close();
    await rm(probe, { force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError('OUTPUT_UNWRITABLE', `cannot write the output ${target}: files cannot be created in ${path.dirname(target) || '.'} (${code})`);
  }
}
