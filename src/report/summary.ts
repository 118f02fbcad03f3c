/**
 * The final summary of a run: rows by status, requests, 429s, retries, tokens, cost, wall time, and what to do next.
 */
import { ROW_STATUSES, type RowStatus } from '../row-status.js';
import { formatCount, formatDuration, type TokenTotals } from './progress-snapshot.js';

export interface JobSummary {
  exitCode: number;
  /** One line on why the run ended (`finished`, `interrupted`, `daily quota exhausted; capacity returns at …`). */
  ending: string;
  total: number;
  byStatus: Record<RowStatus, number>;
  requests: number;
  rateLimited: number;
  retries: number;
  tokens: TokenTotals;
  costUsd: number | undefined;
  wallMs: number;
  /** Rows finished this run. */
  finishedThisRun: number;
  output: string | undefined;
  jobDir: string;
  /** The command that resumes the job, when it stopped early. */
  resumeCommand: string | undefined;
  /** Output cells prefixed with `'` so that a spreadsheet does not run them as formulas (undefined: not written). */
  escapedCells?: number;
  /** What held the run back, with its share of the run's time, largest first (schedule/binding.ts). */
  bound: Array<{ binding: string; share: number }>;
  /** With --batch: the job's batches (`4 batches (656 lines): 4 collected`). */
  batches?: string;
  /** --rows-per-request when above 1: the requests line then says how many rows a request carried. */
  rowsPerRequest?: number;
  /**
   * This run's answers by the service tier that served them (`x-gemini-service-tier`, Vertex's trafficType, else the
   * tier asked); present when --service-tier was given or an answer came from a tier other than standard.
   */
  served?: Partial<Record<string, number>>;
  /** The HTML run report written (--report). */
  report?: string;
  /** The `report` command that writes the --report a second Ctrl-C skipped (../job/run-classify.ts). */
  reportCommand?: string;
}

/** `180 flex, 20 standard`: the tiers that served answers, most first. */
export function formatServed(served: NonNullable<JobSummary['served']>): string {
  const counts = Object.entries(served).filter((e): e is [string, number] => (e[1] ?? 0) > 0);
  counts.sort((a, b) => b[1] - a[1]);
  return counts.map(([tier, n]) => `${formatCount(n)} ${tier}`).join(', ');
}

/** `RPM 92 % · concurrency 5 % · 429 pause 3 %`: shares under 1 % are left out. */
export function formatBound(bound: JobSummary['bound']): string {
  return bound
    .filter((b) => b.share >= 0.01)
    .map((b) => `${b.binding} ${Math.round(b.share * 100)} %`)
    .join(' · ');
}

/** ` (19.6 rows a request, packs of up to 20)` with --rows-per-request, from the rows finished this run; else empty. */
function packed(s: JobSummary): string {
  if (s.rowsPerRequest === undefined) return '';
  const per = s.requests > 0 ? `${(s.finishedThisRun / s.requests).toFixed(1)} rows a request, ` : '';
  return ` (${per}packs of up to ${formatCount(s.rowsPerRequest)})`;
}

/** The summary as text lines (for the TTY and line reporters). */
export function formatSummary(s: JobSummary): string[] {
  const statuses = ROW_STATUSES.filter((st) => s.byStatus[st] > 0).map((st) => `${st} ${formatCount(s.byStatus[st])}`);
  const rate = s.wallMs > 0 ? (s.finishedThisRun / (s.wallMs / 1000)).toFixed(1) : '0';
  const lines = [
    `${s.ending}.`,
    `rows: ${formatCount(s.total)} — ${statuses.join(', ') || 'none'}`,
    `requests: ${formatCount(s.requests)}${packed(s)} · 429s: ${formatCount(s.rateLimited)} · retries: ${formatCount(s.retries)}` +
      (s.served && formatServed(s.served) !== '' ? ` · served: ${formatServed(s.served)}` : ''),
    `tokens: input ${formatCount(s.tokens.input)} · output ${formatCount(s.tokens.output)} · thinking ${formatCount(s.tokens.thoughts)}` +
      (s.costUsd !== undefined ? ` · cost ≈ $${s.costUsd.toFixed(s.costUsd < 1 ? 4 : 2)} at list price` : ''),
    `time: ${formatDuration(s.wallMs)} (${rate} rows/s this run)`,
  ];
  if (s.batches) lines.push(`batches: ${s.batches}`);
  const bound = formatBound(s.bound);
  if (bound) lines.push(`bound by: ${bound}`);
  if (s.output) lines.push(`output: ${s.output}`);
  if (s.escapedCells !== undefined && s.escapedCells > 0) {
    lines.push(
      `formulas: ${formatCount(s.escapedCells)} ${s.escapedCells === 1 ? 'cell begins' : 'cells begin'} with = + - @ (or TAB, CR) and got a leading ' so that a spreadsheet shows ${s.escapedCells === 1 ? 'it' : 'them'} as text; --no-escape-formulas keeps cells as they are`,
    );
  }
  lines.push(`job: ${s.jobDir}`);
  if (s.report) lines.push(`report: ${s.report}`);
  if (s.reportCommand) lines.push(`report not written (second Ctrl-C); write it with: ${s.reportCommand}`);
  if (s.resumeCommand) lines.push(`resume with: ${s.resumeCommand}`);
  return lines;
}
