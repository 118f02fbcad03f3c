/**
 * The progress bar's line, fitted to the terminal: fields are dropped whole, least useful first, and the bar shrinks,
 * so that no number is ever cut in the middle (a 120-column terminal used to show `$0.01` as `$0.0`).
 *
 * `████░░░░ 1,234/5,000 rows · 3 failed | 12.3 rows/s | ETA 4m05s | binds: RPM | 429s 2 | in 12,345 out 678 | $0.0123`
 * (with --rows-per-request, `62 requests` after the rows/s: rows and requests no longer match)
 *
 * What binds is the quota (RPM, TPM, RPD), concurrency, a 429 pause (with the time left), retries waiting out their
 * backoff, the input, or the last answers (schedule/binding.ts).
 */
import { countOf, formatCount, formatDuration, type ProgressSnapshot } from './progress-snapshot.js';

/** Statuses of rows that finished without a valid answer, `failed` first. */
const NOT_OK = ['failed', 'blocked', 'invalid_label', 'invalid_output', 'skipped'] as const;

const BAR_MAX = 30;
const BAR_MIN = 10;

/**
 * The rows done that are not ok: `3 failed`, `3 failed · 2 other not ok`, `1 blocked`; empty when there are none.
 */
export function notOkCounts(s: Pick<ProgressSnapshot, 'byStatus'>): string {
  const failed = s.byStatus.failed;
  const others = NOT_OK.filter((st) => st !== 'failed' && s.byStatus[st] > 0);
  const otherCount = others.reduce((n, st) => n + s.byStatus[st], 0);
  const parts: string[] = [];
  if (failed > 0) parts.push(`${formatCount(failed)} failed`);
  if (otherCount > 0) {
    parts.push(failed === 0 && others.length === 1 ? `${formatCount(otherCount)} ${(others[0] as string).replace('_', ' ')}` : `${formatCount(otherCount)} ${failed > 0 ? 'other ' : ''}not ok`);
  }
  return parts.join(' · ');
}

/** `binds: RPM`, `429 pause 45s`; empty before anything is known. */
export function bindingField(s: Pick<ProgressSnapshot, 'binding' | 'bindingLeftMs'>): string {
  if (s.binding === undefined) return '';
  if (s.bindingLeftMs !== undefined && s.bindingLeftMs >= 1_000) return `${s.binding} ${formatDuration(s.bindingLeftMs)}`;
  return `binds: ${s.binding}`;
}

/**
 * The whole line for a terminal `columns` wide: never longer than columns − 1 (the last column would wrap).
 * Fields go in this order when room runs out: tokens, cost, 429s, rows/s, what binds; then the bar, then the ETA.
 */
export function progressLine(s: ProgressSnapshot, columns: number): string {
  const width = Math.max(10, columns - 1);
  const notOk = notOkCounts(s);
  const counts = `${formatCount(s.done)}/${formatCount(s.total)} rows${notOk ? ` · ${notOk}` : ''}`;
  // [text, drop order (higher goes first)]
  const fields: Array<[string, number]> = [
    [`${s.rowsPerSecond.toFixed(1)} rows/s`, 3],
    [s.rowsPerRequest !== undefined ? countOf(s.requests, 'request') : '', 3.5],
    [`ETA ${formatDuration(s.etaMs)}`, 1],
    [bindingField(s), 2],
    [s.batches ?? '', 2],
    [`429s ${formatCount(s.rateLimited)}`, 4],
    [`in ${formatCount(s.tokens.input)} out ${formatCount(s.tokens.output + s.tokens.thoughts)}`, 6],
    [s.costUsd !== undefined ? `$${s.costUsd.toFixed(s.costUsd < 1 ? 4 : 2)}` : '', 5],
  ];
  let kept = fields.filter(([text]) => text !== '');
  const compose = (bar: number) => {
    const tail = [counts, ...kept.map(([text]) => text)].join(' | ');
    return bar > 0 ? `${barOf(s.done, s.total, bar)} ${tail}` : tail;
  };
  for (;;) {
    const bare = compose(0);
    const bar = Math.min(BAR_MAX, width - bare.length - 1);
    if (bar >= BAR_MIN) return compose(bar);
    // Below the bar in importance: everything but the ETA. The bar goes before the ETA does.
    if (kept.every(([, order]) => order <= 1) && bare.length <= width) return bare;
    if (kept.length === 0) {
      const total = s.byStatus.failed + NOT_OK.reduce((n, st) => n + (st === 'failed' ? 0 : s.byStatus[st]), 0);
      const short = `${formatCount(s.done)}/${formatCount(s.total)}${total > 0 ? ` · ${formatCount(total)} not ok` : ''}`;
      return (bare.length <= width ? bare : short).slice(0, width);
    }
    const drop = Math.max(...kept.map(([, order]) => order));
    kept = kept.filter(([, order]) => order !== drop);
  }
}

function barOf(done: number, total: number, size: number): string {
  const filled = total > 0 ? Math.min(size, Math.round((size * done) / total)) : size;
  return '\u2588'.repeat(filled) + '\u2591'.repeat(size - filled);
}
