/**
 * The report as one self-contained HTML page: inline CSS (with print rules: no backgrounds, no chart or table cut
 * across pages), the charts as inline SVG, no script and nothing fetched, so that it opens from disk anywhere and
 * prints well. Every text from the job (labels, errors, names) is HTML-escaped.
 */
import type { CountedRun } from '../../journal/run-counts.js';
import type { BillingTier } from '../../plan/price.js';
import { ROW_STATUSES } from '../../row-status.js';
import { formatCount } from '../progress-snapshot.js';
import type { Stretch } from './bound-stretches.js';
import { clock, span, utc } from './format-time.js';
import type { JobTables } from './job-tables.js';

/** A chart with its caption. `series` names what it draws (its legend); `data-*` attributes carry id, project and series. */
export interface ChartFigure {
  id: string;
  project?: string;
  title: string;
  note: string;
  series: string[];
  svg: string;
}

export interface RunSection {
  run: string;
  startedAt: number;
  endedAt: number;
  /** The run closed its event log (not killed). */
  closed: boolean;
  exitCode: number | null;
  stretches: Stretch[];
  stretchSvg: string | undefined;
  projects: Array<{ name: string; requests: number; rateLimited: number; charts: ChartFigure[] }>;
}

export interface ReportModel {
  jobDir: string;
  input: string;
  model: string;
  provider: string;
  endpoint: string | undefined;
  generatedAt: number;
  tables: JobTables;
  /** The runs as counted (../../journal/run-counts.ts): killed runs lifted to what the journal and event log show. */
  runs: CountedRun[];
  /** Online requests of the job: the runs' sum, never below what the journal proves. */
  requests: number;
  /** Rows answered through the Batch API and the batches created (batches.jsonl); absent when none. */
  batches?: { rows: number; batches: number };
  price: { input: number; output: number; source: string } | undefined;
  eventLog: { found: boolean; skipped: number; bytes: number; runs: number; charted: number };
  sections: RunSection[];
  dayCharts: ChartFigure[];
}

/** What each exit code means (the CLI contract). */
const EXIT_MEANINGS: Readonly<Record<number, string>> = {
  0: 'every row ok',
  1: 'finished, some rows not ok',
  2: 'usage, input or configuration error',
  3: 'stopped early, resumable',
  4: 'internal error',
};

const CSS = `
:root { color-scheme: light; }
body { font: 14px/1.45 Helvetica, Arial, sans-serif; color: #111; max-width: 1000px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 2px solid #111; }
h3 { font-size: 15px; margin: 18px 0 6px; } .meta { color: #444; margin: 0 0 12px; }
table { border-collapse: collapse; margin: 6px 0 14px; font-size: 13px; }
th, td { border: 1px solid #bbb; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 8px 0 18px; } figcaption { font-weight: bold; } figcaption span { font-weight: normal; color: #444; }
figure svg { max-width: 100%; height: auto; display: block; }
.panel { border: 1px solid #888; padding: 6px 12px; margin: 8px 0 16px; }
code { font-size: 12px; } .none { color: #555; font-style: italic; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  th { background: none; }
  figure, table, .panel { break-inside: avoid; page-break-inside: avoid; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  section.run { break-before: page; page-break-before: always; }
}`;

/** The page's HTML. */
export function reportPage(m: ReportModel): string {
  const t = m.tables;
  const statuses = ROW_STATUSES.filter((s) => t.byStatus[s] > 0).map((s) => `${s} ${formatCount(t.byStatus[s])}`);
  const requests = m.requests;
  const batched = m.batches ? ` · ${formatCount(m.batches.rows)} row${m.batches.rows === 1 ? '' : 's'} answered through ${formatCount(m.batches.batches)} batch${m.batches.batches === 1 ? '' : 'es'}` : '';
  const rateLimited = m.runs.reduce((n, r) => n + r.rateLimited, 0);
  const cost = t.tiers.every((x) => x.costUsd !== undefined) ? t.tiers.reduce((n, x) => n + (x.costUsd ?? 0), 0) : undefined;
  const body = [
    `<h1>gemini-batch run report</h1>`,
    `<p class="meta">job <code>${esc(m.jobDir)}</code> · input <code>${esc(m.input)}</code> · model ${esc(m.model)} · provider ${esc(m.provider)}${m.endpoint ? ` (${esc(m.endpoint)})` : ''} · made ${esc(utc(m.generatedAt))}</p>`,
    `<p><strong>${formatCount(t.total)} rows</strong>: ${esc(statuses.join(', ') || 'none')} · ${formatCount(requests)} online requests in ${m.runs.length} run${m.runs.length === 1 ? '' : 's'}${batched} · ${formatCount(rateLimited)} 429s${cost !== undefined ? ` · cost ≈ ${usd(cost)} at list price` : ''}</p>`,
    runsTable(m.runs),
    ...runSections(m),
    m.dayCharts.length > 0 ? `<h2>Requests per quota day</h2>${m.dayCharts.map(figure).join('')}` : '',
    rowsTables(t),
    costTable(m),
    `<p class="meta">Colours: the Okabe–Ito palette (colour-blind safe); every series also has its own dash pattern or point shape, and limits are black dashed lines, so the charts read in grey print. Times are UTC.</p>`,
  ];
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>gemini-batch report — ${esc(m.input)}</title>\n<style>${CSS}\n</style>\n</head>\n<body>\n${body.filter((b) => b !== '').join('\n')}\n</body>\n</html>\n`;
}

function runsTable(runs: CountedRun[]): string {
  if (runs.length === 0) return `<h2>Runs</h2><p class="none">no run recorded (runs.jsonl is empty)</p>`;
  const rows = runs.map(
    (r, i) =>
      `<tr><td class="n">${i + 1}</td><td>${esc(r.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</td><td>${esc(r.updatedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</td><td>${r.exitCode === null ? (r.fromJournal ? 'none (killed, or still running): counts from the journal and event log' : 'none (killed, or still running)') : `${r.exitCode} — ${esc(EXIT_MEANINGS[r.exitCode] ?? 'unknown')}`}</td><td class="n">${formatCount(r.requests)}</td><td class="n">${formatCount(r.rateLimited)}</td><td class="n">${formatCount(r.retries ?? 0)}</td><td class="n">${formatCount(r.finished ?? 0)}</td></tr>`,
  );
  return `<h2>Runs</h2><table class="runs"><thead><tr><th>#</th><th>started</th><th>last update</th><th>exit code</th><th>requests</th><th>429s</th><th>retries</th><th>rows finished</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function runSections(m: ReportModel): string[] {
  if (!m.eventLog.found) return [`<h2>Charts</h2><p class="none">no event log in the job directory (events.log): runs of gemini-batch before the run report recorded none, so there is nothing to chart.</p>`];
  const out: string[] = [];
  if (m.eventLog.charted === 0 && m.eventLog.runs > 0) {
    out.push(`<p class="meta">No run sent online requests: nothing to chart${m.batches ? ' (the rows were answered through the Batch API)' : ''}.</p>`);
  } else if (m.eventLog.charted < m.eventLog.runs) {
    out.push(`<p class="meta">Charts for the last ${m.eventLog.charted} run${m.eventLog.charted === 1 ? '' : 's'} that sent requests, of ${m.eventLog.runs} in the event log.</p>`);
  }
  for (const s of m.sections) {
    const exit = s.exitCode === null ? (s.closed ? 'no exit code recorded' : 'killed, or still running') : `exit ${s.exitCode} — ${EXIT_MEANINGS[s.exitCode] ?? 'unknown'}`;
    out.push(`<section class="run" data-run="${esc(s.run)}"><h2>Run of ${esc(utc(s.startedAt))} (${esc(span(s.endedAt - s.startedAt))}, ${esc(exit)})</h2>`);
    out.push(boundPanel(s));
    for (const p of s.projects) {
      out.push(`<h3>Project ${esc(p.name)} — ${formatCount(p.requests)} requests, ${formatCount(p.rateLimited)} 429s</h3>`);
      for (const c of p.charts) out.push(figure({ ...c, project: p.name }));
    }
    out.push(`</section>`);
  }
  if (m.eventLog.skipped > 0) out.push(`<p class="meta">${formatCount(m.eventLog.skipped)} damaged or torn lines of the event log were skipped.</p>`);
  return out;
}

function boundPanel(s: RunSection): string {
  if (s.stretches.length === 0) return `<div class="panel bound"><h3>What bound the rate</h3><p class="none">nothing recorded</p></div>`;
  const rows = s.stretches.map(
    (x) =>
      `<tr data-cause="${esc(x.cause)}"><td>${esc(clock(x.from))}</td><td>${esc(clock(x.to))}</td><td class="n">${esc(span(x.to - x.from))}</td><td><strong>${esc(x.name)}</strong></td><td>${esc(x.words)}</td></tr>`,
  );
  return `<div class="panel bound"><h3>What bound the rate</h3>${s.stretchSvg ? `<figure class="chart" data-chart="bound" data-series="${esc(s.stretches.map((x) => x.name).join('|'))}">${s.stretchSvg}</figure>` : ''}<table><thead><tr><th>from</th><th>to</th><th>for</th><th>bound by</th><th>in words</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function figure(c: ChartFigure): string {
  return `<figure class="chart" data-chart="${esc(c.id)}"${c.project !== undefined ? ` data-project="${esc(c.project)}"` : ''} data-series="${esc(c.series.join('|'))}"><figcaption>${esc(c.title)} <span>— ${esc(c.note)}</span></figcaption>${c.svg}</figure>`;
}

function rowsTables(t: JobTables): string {
  const status = ROW_STATUSES.map((s) => `<tr><td>${s}</td><td class="n">${formatCount(t.byStatus[s])}</td><td class="n">${t.total > 0 ? ((100 * t.byStatus[s]) / t.total).toFixed(1) : '0.0'} %</td></tr>`);
  const errors =
    t.errors.length === 0
      ? `<p class="none">no row ended in an error</p>`
      : `<table class="errors"><thead><tr><th>status</th><th>rows</th><th>error (first such row's)</th><th>example rows</th></tr></thead><tbody>${t.errors
          .map((g) => `<tr><td>${g.status}</td><td class="n">${formatCount(g.count)}</td><td>${esc(g.example)}</td><td>${g.rows.join(', ')}${g.count > g.rows.length ? ', …' : ''}</td></tr>`)
          .join('')}</tbody></table>${t.moreErrorGroups > 0 ? `<p class="meta">and ${formatCount(t.moreErrorGroups)} rarer kinds of error</p>` : ''}`;
  const okRows = t.byStatus.ok;
  const labels =
    t.labels.length === 0
      ? `<p class="none">no row ended ok</p>`
      : `<table class="labels"><thead><tr><th>label</th><th>rows</th><th>share of ok rows</th></tr></thead><tbody>${t.labels
          .map((l) => `<tr><td>${l.label === '' ? '<span class="none">(empty)</span>' : esc(l.label)}</td><td class="n">${formatCount(l.count)}</td><td class="n">${((100 * l.count) / Math.max(1, okRows)).toFixed(1)} %</td></tr>`)
          .join('')}${t.otherLabels.rows > 0 ? `<tr><td><span class="none">${formatCount(t.otherLabels.distinct)} other labels</span></td><td class="n">${formatCount(t.otherLabels.rows)}</td><td class="n">${((100 * t.otherLabels.rows) / Math.max(1, okRows)).toFixed(1)} %</td></tr>` : ''}</tbody></table>`;
  return [
    `<h2>Rows</h2><table class="statuses"><thead><tr><th>status</th><th>rows</th><th>share</th></tr></thead><tbody>${status.join('')}</tbody></table>`,
    `<h3>Most frequent errors</h3>${errors}<p class="meta">Row numbers count the input's data rows from 1 (the output file has the same rows in the same order, below its header).</p>`,
    `<h3>Labels by count</h3>${labels}`,
  ].join('\n');
}

function costTable(m: ReportModel): string {
  const tiers = m.tables.tiers;
  if (tiers.length === 0) return `<h2>Tokens and cost</h2><p class="none">no row finished yet</p>`;
  const names: Record<BillingTier, string> = { standard: 'online (standard)', flex: 'online (Flex)', priority: 'online (Priority)', batch: 'Batch API' };
  const rows = tiers.map(
    (x) =>
      `<tr data-tier="${x.tier}"><td>${names[x.tier]}</td><td class="n">${formatCount(x.rows)}</td><td class="n">${formatCount(x.input)}</td><td class="n">${formatCount(x.output)}</td><td class="n">${formatCount(x.thoughts)}</td><td class="n">${x.costUsd !== undefined ? usd(x.costUsd) : '–'}</td></tr>`,
  );
  const total = tiers.every((x) => x.costUsd !== undefined) ? usd(tiers.reduce((n, x) => n + (x.costUsd ?? 0), 0)) : '–';
  const sum = (k: 'rows' | 'input' | 'output' | 'thoughts') => formatCount(tiers.reduce((n, x) => n + x[k], 0));
  return `<h2>Tokens and cost</h2><table class="cost"><thead><tr><th>billed as</th><th>rows</th><th>input tokens</th><th>output tokens</th><th>thinking tokens</th><th>cost (USD)</th></tr></thead><tbody>${rows.join('')}<tr><th>total</th><td class="n">${sum('rows')}</td><td class="n">${sum('input')}</td><td class="n">${sum('output')}</td><td class="n">${sum('thoughts')}</td><td class="n">${total}</td></tr></tbody></table><p class="meta">${m.price ? `At list price: ${esc(m.price.source)}; input $${m.price.input} and output $${m.price.output} per 1,000,000 tokens (standard), each row at the tier the journal records it was served at.` : 'The model has no known price (give --price-input and --price-output).'}</p>`;
}

/** HTML-escapes text for element content and attribute values. */
export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function usd(v: number): string {
  return `$${v.toFixed(v < 1 ? 4 : 2)}`;
}
