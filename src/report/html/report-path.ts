/**
 * Where a report goes by default: `<input dir>/<input name>.report.html` beside the input (as the output's
 * `<input name>.classified.csv`), or for a job directory `<dir>/<its name without .gemini-batch>.report.html` beside it.
 */
import path from 'node:path';
import { JOB_DIR_SUFFIX } from '../../journal/job-dir.js';

/** `data/topics.csv` → `data/topics.report.html`. */
export function defaultReportPath(input: string): string {
  const { dir, name } = path.parse(input);
  return path.join(dir, `${name}.report.html`);
}

/** `data/topics.gemini-batch` → `data/topics.report.html`; `runs/job7` → `runs/job7.report.html`. */
export function defaultReportPathForJobDir(jobDir: string): string {
  const resolved = jobDir.replace(/[\\/]+$/, '') || jobDir;
  const { dir, base } = path.parse(resolved);
  const name = base.endsWith(JOB_DIR_SUFFIX) ? base.slice(0, -JOB_DIR_SUFFIX.length) : base;
  return path.join(dir, `${name || 'job'}.report.html`);
}
