/**
 * Builds the HTML run report of a job directory: reads the manifest, the journal, runs.jsonl and the event log
 * (../../journal/event-log-read.ts), digests them (./event-digest.ts, ./job-tables.ts, ./bound-stretches.ts), renders
 * every chart to SVG (./render-svg.ts) and lays them out in one self-contained page (./report-page.ts).
 */
import { jobFiles } from '../../journal/job-dir.js';
import { readEventLog } from '../../journal/event-log-read.js';
import { Journal } from '../../journal/journal.js';
import type { Manifest } from '../../journal/manifest.js';
import { priceOf } from '../../plan/price.js';
import { providerCatalog } from '../../providers/create-provider.js';
import type { ProviderName } from '../../providers/contract.js';
import { readRunLog } from '../../journal/run-log.js';
import { countJobRuns, type JobRunCounts } from '../../journal/run-counts.js';
import { BatchBook } from '../../batch/batch-book.js';
import { batchCount } from '../../batch/batch-count.js';
import { BatchLog } from '../../batch/batch-log.js';
import { boundStretches } from './bound-stretches.js';
import { projectSeries, SERIES } from './chart-series.js';
import { failureChart, lineChart, percentileStyle, perDayChart, stretchChart, type LineSeries } from './chart-specs.js';
import { DigestBuilder } from './event-digest.js';
import { jobTables } from './job-tables.js';
import { LIMIT, MEASURED } from './palette.js';
import { renderSvg } from './render-svg.js';
import { reportPage, type ChartFigure, type ReportModel, type RunSection } from './report-page.js';

/** Runs charted at most (the latest ones that sent requests); earlier runs are listed in the runs table. */
export const MAX_CHARTED_RUNS = 5;

export interface BuildReportOptions {
  /** Overrides the list price (USD per 1,000,000 tokens), as `status --price-input/--price-output`. */
  price?: { input?: number; output?: number };
  /** When the report is made, ms (default now). */
  now?: number;
}

/**
 * @returns the report's HTML.
 * @throws InputError (JOURNAL_CORRUPT…) when the journal cannot be read.
 */
export async function buildReport(jobDir: string, manifest: Manifest, options: BuildReportOptions = {}): Promise<string> {
  const files = jobFiles(jobDir);
  const providerName: ProviderName = manifest.source?.provider ?? 'gemini';
  const catalog = providerCatalog(providerName);
  const model = manifest.source?.model ?? String(manifest.settings.model);
  const price = priceOf(catalog.model(model).price, options.price ?? {});
  const total = manifest.input.records ?? 0;

  const logged = await readRunLog(files.runs);
  const digestBuilder = new DigestBuilder(catalog.quotaDay);
  const read = readEventLog(files.events, digestBuilder);
  const digest = digestBuilder.digest;
  const journal = await Journal.open(files.journal);
  let tables;
  let counted: JobRunCounts;
  try {
    tables = jobTables(journal, total, price);
    // Runs that ended without their last record are lifted to what the journal and the event log recorded of them.
    const eventRequests = new Map(digest.runs.map((r) => [r.header.run, [...r.projects.values()].reduce((n, p) => n + p.requests, 0)]));
    counted = countJobRuns(journal, logged, eventRequests);
  } finally {
    await journal.close();
  }
  const { runs } = counted;
  const batches = counted.batchRows > 0 ? { rows: counted.batchRows, batches: batchCount(new BatchBook(BatchLog.read(files.batches))) } : undefined;

  const charted = digest.runs.filter((r) => [...r.projects.values()].some((p) => p.requests > 0)).slice(-MAX_CHARTED_RUNS);
  const sections: RunSection[] = [];
  for (const run of charted) {
    const stretches = boundStretches(run, (ms) => catalog.quotaDay.clock(ms));
    const record = runs.find((r) => r.run === run.header.run);
    const projects = [];
    for (const project of run.projects.values()) {
      if (project.requests === 0 && project.inFlight.length === 0) continue;
      const s = projectSeries(run, project);
      const charts: ChartFigure[] = [
        await againstLimit(
          {
            id: 'rpm',
            title: 'Requests per minute against the RPM limit',
            note: `requests sent in the rolling 60 s window ending at each moment (the server's count)${s.stepSeconds > 1 ? `, the most in any window ending within each ${s.stepSeconds} s` : ''}`,
          },
          'requests / 60 s',
          { name: SERIES.requests, points: s.requests },
          { name: SERIES.rpm, points: s.rpmLimit },
        ),
        await againstLimit(
          {
            id: 'tpm',
            title: 'Input tokens per minute against the TPM limit',
            note: "input tokens (the answers' promptTokenCount) of the requests sent in the rolling 60 s window",
          },
          'input tokens / 60 s',
          { name: SERIES.tokens, points: s.tokens },
          { name: SERIES.tpm, points: s.tpmLimit },
        ),
        {
          id: 'failures',
          title: '429s by quotaId, 5xx and timeouts',
          note: s.failures.length === 0 ? 'no request failed' : `failed requests per ${s.stepSeconds} s, marked when they came back`,
          series: [...new Set(s.failures.map((p) => p.s))],
          svg: s.failures.length > 0 ? await renderSvg(failureChart(s.failures)) : '',
        },
        {
          id: 'in-flight',
          title: 'Requests in flight against the concurrency bound',
          note: s.inFlight.length === 0 ? 'not recorded' : 'the most requests in flight in each second, and how many the pools allowed',
          series: [...(s.inFlight.length > 0 ? [SERIES.inFlight, SERIES.bound] : [])],
          svg: s.inFlight.length === 0 ? '' : await renderSvg(
            lineChart('requests in flight', [
              { name: SERIES.inFlight, points: s.inFlight, style: MEASURED },
              { name: SERIES.bound, points: s.bound, style: LIMIT, step: true },
            ]),
          ),
        },
        {
          id: 'latency',
          title: 'Latency percentiles',
          note: s.latency.length === 0 ? 'no HTTP 200 answer' : `p50, p90 and p99 of the HTTP 200 answers, per ${project.slotSeconds} s (within ±5 %)`,
          series: [...new Set(s.latency.map((p) => p.s))],
          svg: s.latency.length === 0 ? '' : await renderSvg(
            lineChart(
              'latency (ms)',
              [SERIES.p50, SERIES.p90, SERIES.p99].map((name, i) => ({ name, points: s.latency.filter((p) => p.s === name), style: percentileStyle(i) })),
            ),
          ),
        },
      ];
      projects.push({ name: project.name, requests: project.requests, rateLimited: project.rateLimited, charts });
    }
    sections.push({
      run: run.header.run,
      startedAt: run.header.t0,
      endedAt: run.end,
      closed: run.closed,
      exitCode: record?.exitCode ?? null,
      stretches,
      stretchSvg: stretches.length > 0 ? await renderSvg(stretchChart(stretches)) : undefined,
      projects,
    });
  }

  const dayCharts: ChartFigure[] = [];
  for (const [project, days] of digest.days) {
    const list = [...days].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([day, d]) => ({ day, ...d }));
    dayCharts.push({
      id: 'rpd',
      project,
      title: `Requests per quota day against the RPD limit — project ${project}`,
      note: `days end at midnight ${digest.zone}`,
      series: [SERIES.perDay, ...(list.some((d) => d.rpd !== undefined) ? [SERIES.rpd] : [])],
      svg: await renderSvg(perDayChart(list, digest.zone, { requests: SERIES.perDay, rpd: SERIES.rpd })),
    });
  }

  const model_: ReportModel = {
    jobDir,
    input: manifest.input.path,
    model,
    provider: providerName,
    endpoint: manifest.source ? `${manifest.source.kind === 'simulator' ? 'simulator' : manifest.source.endpoint}` : undefined,
    generatedAt: options.now ?? Date.now(),
    tables,
    runs,
    ...(batches ? { batches } : {}),
    requests: counted.requests,
    price: price ? { input: price.input, output: price.output, source: price.source } : undefined,
    eventLog: { found: read.found, skipped: read.skipped, bytes: read.bytes, runs: digest.runs.length, charted: charted.length },
    sections,
    dayCharts,
  };
  return reportPage(model_);
}

/**
 * A chart of a measured series against its limit, drawn as a step line: the figure's `id`, `title` and `note`, the y
 * axis titled `yTitle` (with its unit); the limit is named among the series only where it has points.
 */
async function againstLimit(
  figure: Pick<ChartFigure, 'id' | 'title' | 'note'>,
  yTitle: string,
  measured: Pick<LineSeries, 'name' | 'points'>,
  limit: Pick<LineSeries, 'name' | 'points'>,
): Promise<ChartFigure> {
  return {
    ...figure,
    series: [measured.name, ...(limit.points.length > 0 ? [limit.name] : [])],
    svg: await renderSvg(
      lineChart(yTitle, [
        { ...measured, style: MEASURED },
        { ...limit, style: LIMIT, step: true },
      ]),
    ),
  };
}
