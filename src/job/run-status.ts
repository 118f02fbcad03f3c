/**
 * `gemini-batch status <input|job-dir>`: what a job has done and what remains, read from its manifest and journal.
 * No API call.
 */
import { stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { defaultJobDir, jobFiles } from '../journal/job-dir.js';
import { Journal } from '../journal/journal.js';
import { readManifest, sha256File } from '../journal/manifest.js';
import { countOf, formatCount } from '../report/progress-snapshot.js';
import { formatServed } from '../report/summary.js';
import { ROW_STATUSES } from '../row-status.js';
import { readRunLog } from '../journal/run-log.js';
import { countJobRuns, type CountedRun } from '../journal/run-counts.js';
import { batchCount } from '../batch/batch-count.js';
import { priceOf } from '../plan/price.js';
import { providerCatalog } from '../providers/create-provider.js';
import { nonNegativeNumber } from '../config/option-values.js';
import { JobTally } from './job-tally.js';
import { QuotaStateFile } from '../journal/quota-state-file.js';
import { BatchBook } from '../batch/batch-book.js';
import { BatchLog } from '../batch/batch-log.js';
import { batchStatusRows, formatBatchStatus } from '../batch/batch-status.js';
import { refreshBatches } from './refresh-batches.js';
import type { BatchAccessOptions } from './batch-access.js';

/** Options of `status`. */
export interface StatusOptions extends BatchAccessOptions {
  jobDir?: string;
  json?: boolean;
  priceInput?: string;
  priceOutput?: string;
  /** One `get` per unfinished batch of the job (--batch), to show its state now. */
  refresh?: boolean;
}

/**
 * @throws UsageError `STATUS_NO_JOB` when there is no job to report; with --refresh, the errors of
 *   ./batch-access.ts (no key, a job of the built-in simulator).
 */
export async function runStatus(
  target: string,
  options: StatusOptions,
  io: Pick<Io, 'stdout'> & Partial<Pick<Io, 'env'>>,
): Promise<number> {
  const override = {
    ...optional('input', nonNegativeNumber('--price-input', options.priceInput)),
    ...optional('output', nonNegativeNumber('--price-output', options.priceOutput)),
  };
  const dir = options.jobDir ?? ((await isDirectory(target)) ? target : defaultJobDir(target));
  const manifest = await readManifest(dir);
  if (!manifest) {
    const missing = !(await exists(target));
    throw new UsageError(
      'STATUS_NO_JOB',
      missing ? `${target}: no such file or job directory.` : `${dir} holds no gemini-batch job (no manifest.json): nothing was classified from ${target} yet, or its job is elsewhere (--job-dir).`,
    );
  }
  const journal = await Journal.open(jobFiles(dir).journal);
  try {
    const records = manifest.input.records ?? 0;
    const model = manifest.source?.model ?? String(manifest.settings.model);
    // Priced as the provider that answered lists the model (manifests of earlier versions: Gemini), or as --price-* say.
    const catalog = providerCatalog(manifest.source?.provider ?? 'gemini');
    const tally = new JobTally(journal, records, priceOf(catalog.model(model).price, override));
    const { byStatus, costUsd } = tally;
    const totals = journal.totals();
    const logged = await readRunLog(jobFiles(dir).runs);
    // Requests as each run's summary counted them (runs.jsonl holds the figures the summaries printed): one source of
    // truth, so that status and the summaries agree (a pack of --rows-per-request rows is one request). A run that
    // ended without its last record is lifted to what its journal entries prove (../journal/run-counts.ts), and the
    // total never falls below what the journal proves for the whole job.
    const counted = countJobRuns(journal, logged);
    const { runs } = counted;
    const rateLimited = runs.reduce((n, r) => n + r.rateLimited, 0);
    // Retries as each run's summary reported them. A run killed between two of its log records counts up to the last.
    const retries = runs.reduce((n, r) => n + (typeof r.retries === 'number' ? r.retries : 0), 0);
    const { requests } = counted;
    const report = {
      jobDir: dir,
      input: manifest.input.path,
      model,
      rows: records,
      byStatus,
      remaining: byStatus.pending,
      tokens: tally.tokens,
      costUsd: costUsd ?? null,
      /** Rows with a result by the billing tier their tokens are counted at (flex, batch, priority, standard). */
      byTier: tally.byTier,
      attempts: totals.attempts,
      retries,
      runs: runs.length,
      requests,
      rateLimited,
    };
    // What stands between the job and its end: an input that changed since, or projects parked until Pacific midnight.
    const inputFile = (await isDirectory(target)) ? manifest.input.path : target;
    const current = await sha256File(inputFile).catch(() => undefined);
    const inputChanged = current !== undefined && current.sha256 !== manifest.input.sha256;
    const parks = new QuotaStateFile(jobFiles(dir).quotaUsage).activeParks();
    const parkedUntil = parks.length > 0 ? Math.min(...parks.map((p) => p.until)) : undefined;
    // The job's batches (--batch), from its batch log; with --refresh, one get per unfinished batch.
    const book = new BatchBook(BatchLog.read(jobFiles(dir).batches));
    const fresh = options.refresh ? await refreshBatches(book, manifest, options, io.env ?? process.env) : new Map();
    const batches = batchStatusRows(book, fresh);
    const withState = { ...report, inputChanged, parkedUntil: parkedUntil !== undefined ? new Date(parkedUntil).toISOString() : null, batches };
    if (options.json) {
      io.stdout.write(`${JSON.stringify(withState)}\n`);
      return 0;
    }
    const next = inputChanged
      ? ` — and ${inputFile} changed since: classify will match its rows to their answers by their prompt inputs and send the new or edited ones`
      : parkedUntil !== undefined
        ? ` (parked by a daily quota until ${catalog.quotaDay.clock(parkedUntil)})`
        : byStatus.pending > 0
          ? ' (run the same classify command again to resume)'
          : '';
    const statuses = ROW_STATUSES.filter((s) => byStatus[s] > 0).map((s) => `${s} ${formatCount(byStatus[s])}`);
    io.stdout.write(
      [
        `job ${dir} — ${manifest.input.path}, model ${model}${manifest.source ? ` (${manifest.source.provider}, ${manifest.source.kind === 'simulator' ? 'simulated' : manifest.source.endpoint})` : ''}`,
        `rows: ${formatCount(records)} — ${statuses.join(', ') || 'none'}`,
        `remaining: ${countOf(byStatus.pending, 'row')}${next}`,
        `tokens: input ${formatCount(totals.input)} · output ${formatCount(totals.output)} · thinking ${formatCount(totals.thoughts)}` +
          (costUsd !== undefined
            ? ` · cost so far ≈ $${costUsd.toFixed(costUsd < 1 ? 4 : 2)} at ${Object.keys(override).length > 0 ? 'the price given' : 'list price'}`
            : ` · cost unknown: no list price for ${model} (give --price-input and --price-output, USD per 1M tokens)`) +
          (tally.byTier.standard < tally.done ? ` · rows billed at ${formatServed(tally.byTier)}` : ''),
        `requests: ${formatCount(requests)} in ${runs.length} run${runs.length === 1 ? '' : 's'}${killedNote(runs)} · 429s: ${formatCount(rateLimited)} · retries: ${formatCount(retries)}` +
          (counted.batchRows > 0 ? ` · ${countOf(counted.batchRows, 'row')} answered through ${countOf(batchCount(book), 'batch', 'batches')}` : ''),
        ...formatBatchStatus(batches, options.refresh === true),
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    await journal.close();
  }
}

/** ` (N ended without a summary: counted from the journal)` when runs were lifted by the journal, else ''. */
function killedNote(runs: readonly CountedRun[]): string {
  const n = runs.filter((r) => r.fromJournal === true).length;
  return n === 0 ? '' : ` (${n} ended without a summary: counted from the journal)`;
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

async function exists(target: string): Promise<boolean> {
  return stat(target).then(
    () => true,
    () => false,
  );
}

async function isDirectory(target: string): Promise<boolean> {
  try {
    return (await stat(target)).isDirectory();
  } catch {
    return false;
  }
}
