/**
 * `gemini-batch classify <input>`: the pipeline. Data flows one way:
 * rows in (input/) → prompts (prompt/) → scheduler (schedule/) → Gemini (gemini/) → journal (journal/) → output (output/).
 *
 * Order of work, so that every usage or input error stops the job before any API call (exit 2):
 * options → keys → input header and template → job directory (manifest, lock, journal) → whole-input scan (first run)
 * → endpoint (simulator) → send → output → summary.
 */
import { defaultOutputPath } from '../output/output-format.js';
import type { ClassifyConfig, RawClassifyOptions } from '../config/classify-config.js';
import { ExitCode, UsageError } from '../errors.js';
import { createGeminiClient } from '../gemini/gemini-client.js';
import { answerJudge } from '../gemini/judge-answer.js';
import type { JournalEntry } from '../journal/journal-entry.js';
import { modelProfile } from '../prompt/model-profile.js';
import { ROW_STATUSES, type RowStatus } from '../row-status.js';
import { Dispatcher, type DispatchEnd, type KeyPool, type ProjectGate } from '../schedule/dispatcher.js';
import { pacificClock } from '../schedule/pacific-day.js';
import { ProjectLimiter } from '../schedule/project-limiter.js';
import type { ProjectLimits, QuotaLimit } from '../schedule/quota-limits.js';
import { RateLimitPolicy } from '../schedule/rate-limit-policy.js';
import { TokenEstimator } from '../schedule/token-estimator.js';
import type { RowOutcome, WorkItem } from '../schedule/work-item.js';
import { countOf, formatCount, RateMeter, type ProgressSnapshot } from '../report/progress-snapshot.js';
import type { Reporter } from '../report/reporter.js';
import type { JobSummary } from '../report/summary.js';
import { DailyUsageFile } from './daily-usage-file.js';
import { installInterrupts } from './interrupts.js';
import { openJob, type OpenJob } from './open-job.js';
import { prepareJob, type PreparedJob } from './prepare-job.js';
import { priceOf, requestCost } from '../plan/price-table.js';
import { chooseReporter } from './choose-reporter.js';
import { resolveEndpoint, type Endpoint } from './endpoint.js';
import { rowsToSend } from './row-source.js';
import { appendRunLog } from './run-log.js';
import { outputDialect, writeResults } from './write-results.js';
import { checkOutputTarget } from './check-output.js';

export interface CommandIo {
  stdout: NodeJS.WriteStream | NodeJS.WritableStream;
  stderr: NodeJS.WriteStream | NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** The command line as typed after `gemini-batch` (for the resume hint). */
  argv: string[];
}

/**
 * Runs `classify`. Returns the exit code of the CLI contract: 0 every row ok · 1 some rows not ok · 2 usage or input
 * error · 3 stopped early and resumable.
 * @throws GeminiBatchError subclasses for usage and input errors (exit 2), before any API call.
 */
export async function runClassify(input: string, raw: RawClassifyOptions, io: CommandIo): Promise<number> {
  const started = Date.now();
  const prepared = await prepareJob(input, raw, io.env);
  await checkOutputTarget(prepared.config.output ?? defaultOutputPath(prepared.config.input), prepared.config.input);
  const endpoint = await resolveEndpoint(prepared.config, io.env);
  let job: OpenJob | undefined;
  try {
    job = await openJob(prepared.config, prepared.source, prepared.examples);
    return await classifyRows(prepared, { endpoint, job, io, started });
  } finally {
    await job?.close();
    await endpoint.close();
  }
}

interface Run {
  endpoint: Endpoint;
  job: OpenJob;
  io: CommandIo;
  started: number;
}

async function classifyRows(prepared: PreparedJob, p: Run): Promise<number> {
  const { config, source } = prepared;
  const { job, io, endpoint } = p;
  const journal = job.journal;
  const total = config.limit !== undefined ? Math.min(config.limit, job.records) : job.records;
  const outputTarget = config.output ?? defaultOutputPath(config.input);
  const reporter: Reporter = chooseReporter(config, io, outputTarget === '-');

  // Per-row counts, kept up to date as rows finish.
  const byStatus = Object.fromEntries(ROW_STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>;
  let done = 0;
  for (const row of journal.rows()) {
    if (row >= total) continue;
    byStatus[journal.status(row) as RowStatus]++;
    done++;
  }
  byStatus.pending = total - done;
  const resumed = done;
  const earlierTotals = journal.totals();
  const tokens = { input: earlierTotals.input, output: earlierTotals.output, thoughts: earlierTotals.thoughts };

  // Limits and gates, one per quota project.
  const profile = modelProfile(config.model);
  const daily = new DailyUsageFile(job.files.quotaUsage);
  const gates = new Map<string, ProjectGate>();
  const notices = new Set<string>();
  const notify = (notice: { key: string; text: string }) => {
    if (notices.has(notice.key)) return;
    notices.add(notice.key);
    reporter.notice(notice.text);
  };
  const now = Date.now();
  for (const key of endpoint.keys) {
    if (gates.has(key.project)) continue;
    const limiter = new ProjectLimiter({
      project: key.project,
      model: config.model,
      limits: startingLimits(config, endpoint.limits, profile.defaultLimits),
      headroom: config.headroom,
      daily,
      now,
    });
    gates.set(key.project, { limiter, policy: new RateLimitPolicy(limiter, notify, now) });
  }
  const pools: KeyPool[] = endpoint.keys.map((key) => ({
    alias: key.alias,
    project: key.project,
    client: createGeminiClient({ apiKey: key.value, ...(endpoint.baseUrl ? { baseUrl: endpoint.baseUrl } : {}), timeoutMs: config.timeoutMs }),
    concurrency: config.workersPerKey,
  }));

  const estimator = new TokenEstimator();
  const judge = answerJudge(prepared.mode);
  const price = priceOf(config.model, config.price);
  let costUsd = price ? requestCost(price, tokens.input, tokens.output + tokens.thoughts) : undefined;

  let finishedThisRun = 0;
  const record = (item: WorkItem, outcome: RowOutcome) => {
    const previous = journal.status(item.row);
    const entry: JournalEntry = {
      row: item.row,
      fp: item.fingerprint,
      status: outcome.status,
      label: outcome.label,
      ...(outcome.fields ? { fields: outcome.fields } : {}),
      raw: outcome.raw,
      finishReason: outcome.finishReason,
      error: outcome.error,
      tokens: { ...item.usage },
      attempts: item.earlierAttempts + item.attempts,
      key: item.key,
      time: new Date().toISOString(),
    };
    journal.append(entry);
    if (previous === undefined) {
      byStatus.pending--;
      done++;
    } else byStatus[previous]--;
    byStatus[outcome.status]++;
    tokens.input += item.usage.input;
    tokens.output += item.usage.output;
    tokens.thoughts += item.usage.thoughts;
    if (price && costUsd !== undefined) costUsd += requestCost(price, item.usage.input, item.usage.output + item.usage.thoughts);
    finishedThisRun++;
  };

  const dispatcher = new Dispatcher({
    pools,
    gates,
    rows: rowsToSend({
      input: source,
      total,
      journal,
      retryErrors: config.retryErrors,
      features: prepared.features,
      estimator,
      maxInputTokens: config.maxInputTokens,
      onSkipped: record,
      checkpoints: job.checkpoints,
    }),
    estimator,
    buildRequest: prepared.build,
    judge: (_item, answer) => judge(answer),
    onFinished: record,
    onNotice: notify,
    maxAttempts: config.maxAttempts,
  });

  reporter.start({
    input: config.input,
    inputDescription: source.describe(),
    headerNotes: source.headerNotes,
    model: config.model,
    total,
    resumed,
    toSend: byStatus.pending + byStatus.skipped + (config.retryErrors ? byStatus.failed + byStatus.blocked + byStatus.invalid_label + byStatus.invalid_output : 0),
    pools: endpoint.keys.map((k) => `${k.alias} → project ${k.project} (${config.workersPerKey} workers)`),
    limits: [...gates.values()].map(({ limiter }) => `project ${limiter.project}: ${describeLimits(limiter.limits)}`),
    jobDir: job.dir,
    output: outputTarget === '-' ? 'stdout' : outputTarget,
    endpoint: endpoint.description,
  });
  if (job.repaired) notify({ key: 'journal-repair', text: `the journal's last line was torn (line ${job.repaired.line}, ${job.repaired.bytes} bytes) and was dropped; that row will be sent again` });
  for (const note of job.notes) notify({ key: `job-note:${note}`, text: note });

  const meter = new RateMeter();
  const snapshot = (): ProgressSnapshot => {
    const at = Date.now();
    const rate = meter.sample(at, done);
    return {
      done,
      total,
      byStatus: { ...byStatus },
      requests: dispatcher.stats.requests,
      rateLimited: dispatcher.stats.rateLimited,
      retries: dispatcher.stats.retries,
      inFlight: dispatcher.stats.inFlight,
      tokens: { ...tokens },
      elapsedMs: at - p.started,
      rowsPerSecond: rate,
      etaMs: rate > 0 ? ((total - done) / rate) * 1000 : undefined,
      costUsd,
    };
  };
  const ticker = setInterval(() => reporter.tick(snapshot()), 250);
  const interrupts = installInterrupts({
    onFirst: () => {
      notify({ key: 'interrupt', text: 'stopping: no new requests; waiting for the ones in flight (Ctrl-C again to quit at once)' });
      dispatcher.stop();
    },
    onSecond: () => {
      journal.flush();
      void daily.flush();
    },
  });

  let end: DispatchEnd;
  try {
    end = await dispatcher.run();
  } finally {
    clearInterval(ticker);
    interrupts.remove();
    journal.flush();
    await daily.flush();
  }
  reporter.tick(snapshot());

  let outputNote: string | undefined = outputTarget === '-' ? undefined : outputTarget;
  const written = await writeResults({
    input: source,
    total,
    journal,
    layout: prepared.layout,
    spec: {
      target: outputTarget,
      ...outputDialect(source),
      escapeFormulas: config.escapeFormulas,
      onWarning: (text) => reporter.notice(text),
    },
  });
  if (written !== total) outputNote = `${outputNote ?? 'stdout'} (${written} rows; expected ${total})`;

  const { exitCode, ending } = exitFor(end, byStatus, total, endpoint.description);
  const summary: JobSummary = {
    exitCode,
    ending,
    total,
    byStatus: { ...byStatus },
    requests: dispatcher.stats.requests,
    rateLimited: dispatcher.stats.rateLimited,
    retries: dispatcher.stats.retries,
    tokens: { ...tokens },
    costUsd,
    wallMs: Date.now() - p.started,
    finishedThisRun,
    output: outputNote,
    jobDir: job.dir,
    resumeCommand: exitCode === ExitCode.Stopped ? resumeCommand(io.argv, io.env) : undefined,
  };
  reporter.finish(summary);
  await appendRunLog(job.files.runs, {
    startedAt: new Date(p.started).toISOString(),
    endedAt: new Date().toISOString(),
    exitCode,
    requests: summary.requests,
    rateLimited: summary.rateLimited,
    retries: summary.retries,
    finished: finishedThisRun,
  });
  return exitCode;
}

function exitFor(end: DispatchEnd, byStatus: Record<RowStatus, number>, total: number, endpoint: string): { exitCode: number; ending: string } {
  switch (end.kind) {
    case 'done': {
      const notOk = total - byStatus.ok;
      return notOk === 0
        ? { exitCode: ExitCode.Ok, ending: 'finished: every row ok' }
        : { exitCode: ExitCode.SomeRowsNotOk, ending: `finished: ${formatCount(notOk)} of ${countOf(total, 'row')} not ok` };
    }
    case 'interrupted':
      return { exitCode: ExitCode.Stopped, ending: `interrupted: ${countOf(byStatus.pending, 'row')} pending` };
    case 'parked':
      return {
        exitCode: ExitCode.Stopped,
        ending: `stopped: every project is parked (${end.reasons.join('; ')}); capacity returns at ${pacificClock(end.until)}; ${countOf(byStatus.pending, 'row')} pending`,
      };
    case 'unavailable':
      // Keys refused or no quota for the model (limit: 0): running again the same way cannot help.
      return { exitCode: ExitCode.Usage, ending: `stopped: no key can send (${end.reasons.join('; ')}); ${countOf(byStatus.pending, 'row')} pending — fix the keys or the model, then run again` };
    case 'outage':
      return { exitCode: ExitCode.Stopped, ending: `stopped: ${end.reason} (${endpoint}); ${countOf(byStatus.pending, 'row')} pending` };
    case 'fatal':
      throw new UsageError('MODEL_UNAVAILABLE', `${end.failure.message}\nCheck --model (e.g. gemini-2.5-flash). Rows already done are kept in the journal.`);
  }
}

function startingLimits(config: ClassifyConfig, endpointLimits: { rpm?: number; tpm?: number; rpd?: number } | undefined, defaults: { rpm: number; tpm: number }): ProjectLimits {
  const pick = (given: number | undefined, fromEndpoint: number | undefined, fallback: number): QuotaLimit =>
    given !== undefined ? { value: given, source: 'given' } : fromEndpoint !== undefined ? { value: fromEndpoint, source: 'given' } : { value: fallback, source: 'default' };
  // A daily limit is enforced only when given or learned from a 429: parking a job on a guessed RPD would stop work
  // the account may well allow.
  const rpd = config.rpd ?? endpointLimits?.rpd;
  return {
    rpm: pick(config.rpm, endpointLimits?.rpm, defaults.rpm),
    tpm: pick(config.tpm, endpointLimits?.tpm, defaults.tpm),
    rpd: rpd === undefined ? undefined : { value: rpd, source: 'given' },
  };
}

function describeLimits(limits: ProjectLimits): string {
  const one = (name: string, l: QuotaLimit | undefined) => (l ? `${name} ${formatCount(l.value)} (${l.source})` : `${name} –`);
  return [one('RPM', limits.rpm), one('TPM', limits.tpm), one('RPD', limits.rpd)].join(' · ');
}

function resumeCommand(argv: string[], env: NodeJS.ProcessEnv): string {
  const quoted = argv.filter((a) => a !== '--restart').map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
  // Run through `npx gemini-batch` (npm sets npm_command=exec), the hint says so too.
  return `${env.npm_command === 'exec' ? 'npx ' : ''}gemini-batch ${quoted.join(' ')}`;
}

