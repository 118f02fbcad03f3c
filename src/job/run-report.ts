/**
 * `gemini-batch report <input|job-dir> [-o report.html]`: writes the job's HTML run report (../report/html/) and
 * prints its path. No API call. `classify --report` writes the same report at the end of a run ({@link writeReport}).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { nonNegativeNumber } from '../config/option-values.js';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import type { Io } from '../io.js';
import { defaultJobDir } from '../journal/job-dir.js';
import { readManifest } from '../journal/manifest.js';
import { defaultReportPath, defaultReportPathForJobDir } from '../report/html/report-path.js';

export interface ReportOptions {
  jobDir?: string;
  output?: string;
  priceInput?: string;
  priceOutput?: string;
}

/**
 * @throws UsageError `REPORT_NO_JOB` when there is no job to report, `REPORT_UNWRITABLE` when the file cannot be written.
 */
export async function runReport(target: string, options: ReportOptions, io: Pick<Io, 'stdout'>): Promise<number> {
  const price = {
    ...optional('input', nonNegativeNumber('--price-input', options.priceInput)),
    ...optional('output', nonNegativeNumber('--price-output', options.priceOutput)),
  };
  const targetIsDir = await isDirectory(target);
  const dir = options.jobDir ?? (targetIsDir ? target : defaultJobDir(target));
  const out = options.output ?? (targetIsDir ? defaultReportPathForJobDir(target) : defaultReportPath(target));
  const written = await writeReport(dir, out, price);
  if (!written) {
    const missing = !targetIsDir && !(await stat(target).then(() => true, () => false));
    throw new UsageError(
      'REPORT_NO_JOB',
      missing ? `${target}: no such file or job directory.` : `${dir} holds no gemini-batch job (no manifest.json): nothing was classified from ${target} yet, or its job is elsewhere (--job-dir).`,
    );
  }
  io.stdout.write(`report: ${out}\n`);
  return 0;
}

/**
 * Builds the report of the job in `jobDir` and writes it to `file` (atomically: a reader never sees half a page).
 * @returns false when `jobDir` holds no job (no manifest).
 * @throws UsageError `REPORT_UNWRITABLE` (exit 2) when the file cannot be written.
 */
export async function writeReport(jobDir: string, file: string, price: { input?: number; output?: number } = {}): Promise<boolean> {
  const manifest = await readManifest(jobDir);
  if (!manifest) return false;
  const { buildReport } = await import('../report/html/build-report.js');
  const html = await buildReport(jobDir, manifest, { price });
  try {
    await writeFileAtomic(file, html);
  } catch (error) {
    throw new UsageError('REPORT_UNWRITABLE', `cannot write the report to ${file}: ${(error as Error).message}`, { cause: error });
  }
  return true;
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

async function isDirectory(target: string): Promise<boolean> {
  try {
    return (await stat(target)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Checks before any request that `--report`'s file can be written where it is asked for: its folder exists.
 * @throws UsageError `REPORT_UNWRITABLE` (exit 2) naming the folder.
 */
export async function checkReportTarget(file: string): Promise<void> {
  const folder = path.dirname(path.resolve(file));
  if (!(await isDirectory(folder))) throw new UsageError('REPORT_UNWRITABLE', `--report ${file}: the folder ${folder} does not exist.`);
  if (await isDirectory(file)) throw new UsageError('REPORT_UNWRITABLE', `--report ${file} is a folder; name the report's file (e.g. ${path.join(file, 'report.html')}).`);
}
