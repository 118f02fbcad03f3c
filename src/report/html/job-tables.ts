/**
 * The report's tables, read from the job directory in one pass over the journal: rows by status with their most
 * frequent errors (grouped, with example row numbers), labels by count, tokens and cost by billing tier (the journal's
 * per-row tier, ../../plan/price.ts), and the job's runs (runs.jsonl) with their exit codes.
 */
import type { Journal } from '../../journal/journal.js';
import { BILLING_TIERS, tierCost, type BillingTier, type ModelPrice } from '../../plan/price.js';
import { ROW_STATUSES, type RowStatus } from '../../row-status.js';

/** Errors of one kind: rows whose error reads the same once numbers are masked. */
export interface ErrorGroup {
  status: RowStatus;
  /** The error of the first such row, as written. */
  example: string;
  count: number;
  /** Up to {@link EXAMPLE_ROWS} data row numbers (1-based: the n-th data row of the input). */
  rows: number[];
}

export interface JobTables {
  total: number;
  byStatus: Record<RowStatus, number>;
  /** Most frequent first, at most {@link MAX_ERROR_GROUPS}. */
  errors: ErrorGroup[];
  /** Error groups left out. */
  moreErrorGroups: number;
  /** Labels (or answers) of ok rows by count, most frequent first, at most {@link MAX_LABELS}. */
  labels: Array<{ label: string; count: number }>;
  /** Ok rows whose label is not among {@link JobTables.labels}. */
  otherLabels: { distinct: number; rows: number };
  /** Tokens and cost per billing tier that has rows; cost undefined when the price is unknown. */
  tiers: Array<{ tier: BillingTier; rows: number; input: number; output: number; thoughts: number; costUsd: number | undefined }>;
}

export const EXAMPLE_ROWS = 5;
export const MAX_ERROR_GROUPS = 20;
export const MAX_LABELS = 25;

interface Parsed {
  error?: unknown;
}

const LABEL_KEY = Buffer.from('"label":');

/**
 * The label of a journal line, read in place: `"label"` is the first key of that name on a line (../../journal/journal-line.ts
 * writes it before `fields`, and a `"label":` inside a string value would have its quotes escaped). '' for null.
 */
function labelOf(line: Buffer): string {
  const at = line.indexOf(LABEL_KEY);
  if (at < 0 || line[at + LABEL_KEY.length] !== 0x22) return '';
  const start = at + LABEL_KEY.length + 1;
  const end = line.indexOf(0x22, start);
  if (end < 0) return '';
  const backslash = line.indexOf(0x5c, start);
  if (backslash < 0 || backslash > end) return line.toString('utf8', start, end);
  const label = (JSON.parse(line.toString('utf8')) as { label?: unknown }).label;
  return typeof label === 'string' ? label : '';
}

/**
 * @param total rows of the job (the manifest's records); journal rows past it (an earlier, longer --limit) are left out.
 * @param price the model's price, or undefined when unknown (costs are then undefined).
 */
export function jobTables(journal: Journal, total: number, price: ModelPrice | undefined): JobTables {
  const byStatus = Object.fromEntries(ROW_STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>;
  const groups = new Map<string, ErrorGroup>();
  const labels = new Map<string, number>();
  const tiers = new Map<BillingTier, { rows: number; input: number; output: number; thoughts: number }>();
  let done = 0;
  // One pass; only the lines of rows that are not ok are parsed whole (an ok row's label is read in place).
  journal.forEachLatest((row, line) => {
    if (row >= total) return;
    const status = journal.status(row) ?? 'failed';
    byStatus[status]++;
    done++;
    if (status === 'ok') {
      const label = labelOf(line);
      labels.set(label, (labels.get(label) ?? 0) + 1);
      return;
    }
    const entry = JSON.parse(line.toString('utf8')) as Parsed;
    const error = typeof entry.error === 'string' && entry.error !== '' ? entry.error : `(${status}, no error text)`;
    const key = `${status}\u0000${error.replace(/\d+(\.\d+)?/g, '#')}`;
    let g = groups.get(key);
    if (!g) {
      g = { status, example: error, count: 0, rows: [] };
      groups.set(key, g);
    }
    g.count++;
    if (g.rows.length < EXAMPLE_ROWS) g.rows.push(row + 1);
  });
  // Tokens by tier: the journal's sums, less the rows past `total` (an earlier, longer --limit).
  const sums = journal.tierTotals();
  for (const tier of BILLING_TIERS) tiers.set(tier, { rows: sums[tier].rows, input: sums[tier].input, output: sums[tier].output, thoughts: sums[tier].thoughts });
  if (journal.size > done) {
    for (const row of journal.rows()) {
      if (row < total) continue;
      const entry = journal.get(row);
      if (!entry) continue;
      const t = tiers.get(entry.tier ?? 'standard')!;
      t.rows--;
      t.input -= entry.tokens.input;
      t.output -= entry.tokens.output;
      t.thoughts -= entry.tokens.thoughts;
    }
  }
  byStatus.pending = Math.max(0, total - done);
  const sortedGroups = [...groups.values()].sort((a, b) => b.count - a.count || a.rows[0]! - b.rows[0]!);
  for (const g of sortedGroups) g.rows.sort((a, b) => a - b);
  const sortedLabels = [...labels].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([label, count]) => ({ label, count }));
  const kept = sortedLabels.slice(0, MAX_LABELS);
  const rest = sortedLabels.slice(MAX_LABELS);
  return {
    total,
    byStatus,
    errors: sortedGroups.slice(0, MAX_ERROR_GROUPS),
    moreErrorGroups: Math.max(0, sortedGroups.length - MAX_ERROR_GROUPS),
    labels: kept,
    otherLabels: { distinct: rest.length, rows: rest.reduce((n, l) => n + l.count, 0) },
    tiers: BILLING_TIERS.filter((tier) => (tiers.get(tier)?.rows ?? 0) > 0).map((tier) => {
      const t = tiers.get(tier)!;
      return { tier, ...t, costUsd: price ? tierCost(price, tier, t.input, t.output + t.thoughts) : undefined };
    }),
  };
}
