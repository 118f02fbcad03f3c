/**
 * The job directory: where a job keeps its manifest, journal, quota usage and lock, beside the input by default.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { isTemporaryName } from '../files/atomic-file.js';
import { syncDirectory } from '../files/sync-directory.js';

/** Suffix of a default job directory's name. */
export const JOB_DIR_SUFFIX = '.gemini-batch';

/** The files of a job directory. */
export interface JobFiles {
  /** manifest.json: what the results were computed from (./manifest.ts). */
  manifest: string;
  /** journal.jsonl: one line per finished row (./journal.ts). */
  journal: string;
  /** quota-usage.json: what the job learned about its quotas: parks, limits, refused keys (./quota-state-file.ts). */
  quotaUsage: string;
  /** requests.log: one record per request sent, written before it leaves: the durable RPD count (./request-log.ts). */
  requests: string;
  /** lock: the pid of the gemini-batch running the job (./job-lock.ts). */
  lock: string;
  /** runs.jsonl: one line per run (requests, 429s, retries, exit code), summed by `status`. */
  runs: string;
  /** batches.jsonl: the batch log of `--batch` (../batch/batch-log.ts). */
  batches: string;
  /** batches/: our copy of every Batch API input file (`b0001.jsonl`…). */
  batchFiles: string;
  /** events.log: each request and the scheduler's state over time, for the HTML run report (./event-log.ts). */
  events: string;
}

/**
 * `<input dir>/<input name>.gemini-batch` (docs/design.md), the input's name without its extension as in the
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
    requests: path.join(jobDir, 'requests.log'),
    lock: path.join(jobDir, 'lock'),
    runs: path.join(jobDir, 'runs.jsonl'),
    batches: path.join(jobDir, 'batches.jsonl'),
    batchFiles: path.join(jobDir, 'batches'),
    events: path.join(jobDir, 'events.log'),
  };
}

/** Names gemini-batch writes in a job directory: its files, their temporaries (../files/atomic-file.ts), lock takeovers. */
const OUR_NAMES = new Set(['manifest.json', 'journal.jsonl', 'quota-usage.json', 'requests.log', 'runs.jsonl', 'lock', 'batches.jsonl', 'batches', 'events.log']);
const TEMPORARY_OF = new Set(['manifest.json', 'quota-usage.json', 'requests.log', 'journal.jsonl', 'lock']);
/** The lock's takeover gates and the files a takeover moves aside (./job-lock.ts). */
const LOCK_TAKEOVER = /^\.lock\.(takeover|aside)-[0-9a-f]+$/;

function isOurTemporary(name: string): boolean {
  return [...TEMPORARY_OF].some((of) => isTemporaryName(name, of)) || /^\.lock\.tmp-\d+-\d+$/.test(name);
}

/** The names in a job directory listing that gemini-batch does not write, sorted. */
export function foreignNames(names: readonly string[]): string[] {
  return names.filter((n) => !OUR_NAMES.has(n) && !isOurTemporary(n) && !LOCK_TAKEOVER.test(n)).sort();
}

/**
 * Refuses a job directory whose files are symbolic links: gemini-batch would write through them into files elsewhere
 * (a planted `journal.jsonl → ~/.bashrc` would be appended to). The directory itself may be a link.
 * @throws UsageError code `JOB_DIR_SYMLINK` (exit 2) naming the first such file.
 */
export async function refuseSymlinks(jobDir: string): Promise<void> {
  const files = jobFiles(jobDir);
  for (const file of [files.manifest, files.journal, files.quotaUsage, files.requests, files.runs, files.lock, files.batches, files.batchFiles, files.events]) {
    const stat = await fs.lstat(file).catch(() => null);
    if (stat?.isSymbolicLink()) {
      throw new UsageError(
        'JOB_DIR_SYMLINK',
        `${file} is a symbolic link; gemini-batch writes the job directory's files itself and will not write through a link. Remove it, or choose another --job-dir.`,
      );
    }
  }
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
  const temporaries = names.filter((n) => isOurTemporary(n) && !n.startsWith('.lock.')).map((n) => path.join(jobDir, n));
  for (const file of [files.journal, files.quotaUsage, files.requests, files.runs, files.batches, files.batchFiles, files.events, ...temporaries, files.manifest]) await fs.rm(file, { force: true, recursive: true });
  syncDirectory(jobDir);
}
