/**
 * The rows part of a run's header: how many rows, and on a resume which results stay and what is sent, worded so the
 * numbers add up (`656 rows: 504 kept from earlier runs, 152 to send`).
 */
import { countOf, formatCount } from './progress-snapshot.js';
import type { JobHeader } from './reporter.js';

/** `656 rows`, or on a resume `656 rows: 504 kept from earlier runs, 152 to send (…)`, kept + to send = rows. */
export function describeRows(h: Pick<JobHeader, 'total' | 'resumed' | 'kept' | 'toSend' | 'again' | 'keptNotOk'>): string {
  const rows = countOf(h.total, 'row');
  if (h.resumed === 0) return rows;
  const again = [
    h.again.skipped > 0 ? `${formatCount(h.again.skipped)} skipped before` : undefined,
    h.again.errors > 0 ? `${formatCount(h.again.errors)} that ended in an error, --retry-errors` : undefined,
  ].filter((part) => part !== undefined);
  const notOk = h.keptNotOk > 0 ? `; ${formatCount(h.keptNotOk)} of the kept are not ok (--retry-errors sends them again)` : '';
  return `${rows}: ${formatCount(h.kept)} kept from earlier runs, ${formatCount(h.toSend)} to send${again.length > 0 ? ` (${again.join(', ')})` : ''}${notOk}`;
}
