/**
 * The job directory: where a job keeps its manifest, journal, quota usage and lock, beside the input by default.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { syncDirectory } from '../files/sync-directory.js';

/** Suffix of a default job directory's name. */
export const JOB_DIR_SUFFIX = '.gemini-batch';

/** The files of a job directory. */
export interface JobFiles {
  /** manifest.json: what the results were computed from (./manifest.ts). */
  manifest: string;
  /** journal.jsonl: one line per finished row (./journal.ts). */
  journal: string;
  /** quota-usage.json: requests and tokens spent per quota project and day, written by the scheduler. */
  quotaUsage: string;
  /** lock: the pid of the gemini-batch running the job (./job-lock.ts). */
  lock: string;
  /** runs.jsonl: one line per run (requests, 429s, retries, exit code), summed by `status`. */
  runs: string;
}

/**
 * `<input dir>/<input name>.gemini-batch` (../shared/DESIGN.md), the input's name without its extension as in the
 * default output `<input name>.classified.csv`: `data/topics.csv` → `data/topics.gemini-batch`. Should `topics.csv`
 * and `topics.xlsx` in one folder both be classified, the second finds the first's manifest, stops with exit 2 naming
 * the difference, and takes `--job-dir`.
 */
export function defaultJobDir(input: string): string {
  const { dir, name } = path.parse(input);
  return path.join(dir, `${name}${JOB_DIR_SUFFIX}`);
}

/** Paths of the job's files inside `jobDir`. */
export function jobFiles(jobDir: string): JobFiles {
  return {
    manifest: path.join(jobDir, 'manifest.json'),
    journal: path.join(jobDir, 'journal.jsonl'),
    quotaUsage: path.join(jobDir, 'quota-usage.json'),
    lock: path.join(jobDir, 'lock'),
    runs: path.join(jobDir, 'runs.jsonl'),
  };
}

/** Names gemini-batch writes in a job directory: its files and their temporaries (`.<name>.tmp-<pid>[-<n>]`). */
const OUR_NAMES = new Set(['manifest.json', 'journal.jsonl', 'quota-usage.json', 'runs.jsonl', 'lock']);
const OUR_TEMPORARY = /^\.(manifest\.json|quota-usage\.json|lock)\.tmp-\d+(-\d+)?$/;

/** The names in a job directory listing that gemini-batch does not write, sorted. */
export function foreignNames(names: readonly string[]): string[] {
  return names.filter((n) => !OUR_NAMES.has(n) && !OUR_TEMPORARY.test(n)).sort();
}

/**
 * `--restart`: removes the job's results (journal, quota usage, manifest, leftover temporaries) so the job starts
 * over. Leaves the lock, which the caller must hold ({@link acquireJobLock} first). The journal goes first, so a
 * reset cut short leaves a manifest with fewer results, never results without their manifest. A missing directory
 * is nothing to reset.
 * @throws UsageError code `JOB_DIR_FOREIGN_FILES` (exit 2), before removing anything, when the directory holds files
 *   gemini-batch does not write: --job-dir probably names the wrong directory.
 * @throws UsageError code `JOB_DIR_NOT_A_DIRECTORY` (exit 2) when `jobDir` is a file.
 */
export async function resetJobDir(jobDir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(jobDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new UsageError('JOB_DIR_NOT_A_DIRECTORY', `the job directory ${jobDir} is a file; choose another --job-dir`);
    throw error;
  }
  const foreign = foreignNames(names);
  if (foreign.length > 0) {
    const shown = foreign.slice(0, 5).join(', ') + (foreign.length > 5 ? ` and ${foreign.length - 5} more` : '');
    throw new UsageError(
      'JOB_DIR_FOREIGN_FILES',
      `${jobDir} holds files gemini-batch did not write (${shown}), so --restart will not empty it. ` +
        'Check --job-dir, or move those files away.',
    );
  }
  const files = jobFiles(jobDir);
  const temporaries = names.filter((n) => OUR_TEMPORARY.test(n) && !n.startsWith('.lock.')).map((n) => path.join(jobDir, n));
  for (const file of [files.journal, files.quotaUsage, files.runs, ...temporaries, files.manifest]) await fs.rm(file, { force: true });
  syncDirectory(jobDir);
}
