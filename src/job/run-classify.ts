/**
 * `gemini-batch classify <input>`: the pipeline. Data flows one way:
 * rows in (input/) → prompts (prompt/) → scheduler (schedule/) → provider (providers/) → answers judged (answers/) →
 * journal (journal/) → output (output/).
 *
 * Order of work, so that every usage or input error stops the job before any API call (exit 2):
 * options → keys → input header and template → job directory (manifest, lock, journal) → whole-input scan (first run)
 * → endpoint (simulator) → send → output → summary.
 */
import type { RawClassifyOptions, ServiceTier } from '../config/classify-config.js';
import { redactSecrets } from '../config/known-secrets.js';
import { stat } from 'node:fs/promises';
import { ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { formatCommand, type Invocation } from '../invocation.js';
import { answerJudge } from '../answers/judge-answer.js';
import { packJudge } from '../answers/judge-pack.js';
import type { ModelPrice, QuotaDay } from '../providers/contract.js';
import { ModelFailure } from '../providers/failures.js';
import type { JournalEntry } from '../journal/journal-entry.js';
import { defaultOutputPath } from '../output/output-format.js';
import { BILLING_TIERS, billedTier, dearerTier, priceOf, type BillingTier } from '../plan/price.js';
import { FLEX_TIMEOUT_BOUNDS } from '../schedule/request-timeout.js';
import { countOf, estimateEta, formatCount, RateMeter, type ProgressSnapshot } from '../report/progress-snapshot.js';
import type { Reporter } from '../report/reporter.js';
import type { JobSummary } from '../report/summary.js';
import type { RowStatus } from '../row-status.js';
import { BINDING_LABELS } from '../schedule/binding.js';
import { Dispatcher, type DispatchEnd } from '../schedule/dispatcher.js';
import type { ProjectLimits, QuotaLimit } from '../schedule/quota-limits.js';
import { TokenEstimator } from '../schedule/token-estimator.js';
import { outcomeEntryFields, type ItemVerdict, type RowOutcome, type WorkItem } from '../schedule/work-item.js';
import { buildPools } from './build-pools.js';
import { checkOutputTarget } from './check-output.js';
import { chooseReporter } from './choose-reporter.js';
import { QuotaStateFile } from '../journal/quota-state-file.js';
import { answerSourceOf, resolveEndpoint, type Endpoint } from './endpoint.js';
import { installInterrupts } from './interrupts.js';
import { JobTally } from './job-tally.js';
import { journalSpend, SpendBudget, usd } from './spend-budget.js';
import { describeLimitsChoice } from './limits-choice.js';
import { answerFingerprint } from './answer-fingerprint.js';
import { openJob, type OpenJob } from './open-job.js';
import { jobPacker } from './job-packer.js';
import { prepareJob, type PreparedJob } from './prepare-job.js';
import { rowsToSend, type RowSourceOptions } from './row-source.js';
import { batchesLeft, openBatchPhase, type BatchPhase } from './batch-phase.js';
import { appendRunLog, appendRunLogSync, type RunRecord } from '../journal/run-log.js';
import { EventRecorder } from './event-recorder.js';
import { checkReportTarget, writeReport } from './run-report.js';
import { EventLog } from '../journal/event-log.js';
import { outputDialect, writeResults } from './write-results.js';


/**
 * Runs `classify`. Returns the exit code of the CLI contract: 0 every row ok · 1 some rows not ok · 2 usage or input
 * error · 3 stopped early and resumable.
 * @throws GeminiBatchError subclasses for usage and input errors (exit 2), before any API call.
 */
export async function runClassify(input: string, raw: RawClassifyOptions, io: Io, invocation: Invocation): Promise<number> {
  const started = Date.now();
  const prepared = await prepareJob(input, raw, io.env);
  await checkOutputTarget(prepared.config.output ?? defaultOutputPath(prepared.config.input), prepared.config.input);
  if (prepared.config.report !== undefined) await checkReportTarget(prepared.config.report);
  const endpoint = await resolveEndpoint(prepared.config, io.env);
  let job: OpenJob | undefined;
  try {
    job = await openJob(prepared.config, prepared.source, {
      examples: prepared.examples,
      source: answerSourceOf(prepared.config, endpoint.provider.identity()),
      fingerprint: answerFingerprint(prepared.template),
    });
    return await classifyRows(prepared, { endpoint, job, io, invocation, started });
  } finally {
    await job?.close();
    await endpoint.close();
  }
}

interface Run {
  endpoint: Endpoint;
  job: OpenJob;
  io: Io;
  /** The command line as typed (for the resume hint). */
  invocation: Invocation;
  started: number;
}

async function classifyRows(prepared: PreparedJob, p: Run): Promise<number> {
  const { config, source } = prepared;
  const { job, io, endpoint } = p;
  const journal = job.journal;
  const fingerprint = answerFingerprint(prepared.template);
  let total = config.limit !== undefined ? Math.min(config.limit, job.records) : job.records;
  const outputTarget = config.output ?? defaultOutputPath(config.input);
  const reporter: Reporter = chooseReporter(config, io, outputTarget === '-');

  const price = priceOf(endpoint.provider.model(config.model).price, config.price);
  let tally = new JobTally(journal, total, price);
  const daily = new QuotaStateFile(job.files.quotaUsage);
  const notices = new Set<string>();
  const notify = (notice: { key: string; text: string }) => {
    if (notices.has(notice.key)) return;
    notices.add(notice.key);
    reporter.notice(redactSecrets(notice.text));
  };
  endpoint.onNotice((text) => notify({ key: `provider:${text}`, text }));
  const { gates, pools, onKeyRefused } = buildPools(config, endpoint, daily, notify);
  const estimator = new TokenEstimator();
  // --max-cost: the journal's spend so far, this run's answers, and the requests in flight, under the cap.
  const budget =
    config.maxCostUsd !== undefined && price
      ? new SpendBudget({
          capUsd: config.maxCostUsd,
          earlierUsd: journalSpend(journal, price),
          price,
          estimate: (item) => ({ tokens: estimator.estimate(item.features), relativeError: estimator.relativeError }),
          outputRoom: (request) => endpoint.provider.outputRoom?.(request),
        })
      : undefined;
  const judge = answerJudge(prepared.mode);
  /** Answers of this run by the tier that served them. */
  const served = Object.fromEntries(BILLING_TIERS.map((t) => [t, 0])) as Record<BillingTier, number>;
  const judgePack = packJudge(prepared.mode);
  const packer = config.rowsPerRequest > 1 ? jobPacker(prepared, endpoint.provider.model(config.model), estimator, p.started.toString(36)) : undefined;
  const judgeItem = (item: WorkItem, answer: Parameters<typeof judge>[0]): ItemVerdict => {
    const pack = item.pack;
    if (!pack) return judge(answer);
    const rows = judgePack(answer, pack.ids).map((v, i) =>
      v.kind === 'done' ? { kind: 'done' as const, outcome: { ...v.outcome, pack: { id: pack.id, item: pack.ids[i] as string, rows: pack.ids.length } } } : v,
    );
    return { kind: 'pack', rows };
  };
  const record = (item: WorkItem, outcome: RowOutcome) => {
    const previous = journal.status(item.row);
    const tier = rowTier(item, price);
    journal.append(journalEntry(item, outcome, tier));
    tally.finish(previous, outcome.status, item.usage, tier ?? 'standard', previous !== undefined ? (item.earlierTier ?? 'standard') : undefined, item.earlierUsage);
  };

  const runId = `${new Date(p.started).toISOString()}#${process.pid}`;
  const events = new EventRecorder(
    new EventLog(job.files.events, { run: runId, t0: p.started, model: config.model, zone: endpoint.provider.quotaDay.zone, provider: config.provider }),
  );
  const rowOptions: RowSourceOptions = {
    input: source,
    total,
    journal,
    retryErrors: config.retryErrors,
    features: prepared.features,
    estimator,
    maxInputTokens: config.maxInputTokens,
    onSkipped: record,
    checkpoints: job.checkpoints,
    fingerprint,
  };
  // --batch: rows go through the Batch API first; the online path takes only the rows a batch gives to it.
  const stopBatches = new AbortController();
  const batch: BatchPhase | undefined = config.batch
    ? openBatchPhase({
        batch: config.batch,
        provider: endpoint.provider,
        credentials: endpoint.credentials,
        model: config.model,
        tier: config.tier,
        jobDir: job.dir,
        logFile: job.files.batches,
        journal: () => job.journal,
        rows: (select) => rowsToSend({ ...rowOptions, journal: job.journal, select }),
        build: prepared.build,
        estimator,
        mode: prepared.mode,
        maxAttempts: config.maxAttempts,
        tally: () => tally,
        notice: (key, text) => notify({ key, text }),
        signal: stopBatches.signal,
        simulated: config.simulate,
      })
    : undefined;
  // With --batch, the rows a batch gives to the online path; with --rows-per-request, packed for the online requests.
  const onlineRows = batch ? batch.onlineRows(rowsToSend({ ...rowOptions, select: (row) => batch.book.online.has(row) })) : rowsToSend(rowOptions);
  const dispatcher = new Dispatcher({
    pools: events.wrap(pools),
    gates,
    rows: packer ? packer.stream(onlineRows) : onlineRows,
    // Packed jobs (--rows-per-request) send in order: no row passes a pack waiting for TPM room (schedule/look-ahead.ts).
    ...(packer ? { repack: (again: WorkItem[], size: number) => packer.pack(again, size), lookAhead: { rows: 0 } } : {}),
    estimator,
    buildRequest: prepared.build,
    ...(endpoint.provider.quotaTokens ? { extraQuotaTokens: endpoint.provider.quotaTokens.bind(endpoint.provider) } : {}),
    judge: judgeItem,
    onAnswer: (item, request, answer) => {
      const tier = billedTier(request, answer);
      served[tier]++;
      item.tier = dearerTier(price, item.tier, tier);
      // A pack's rows are billed at the tier that served it.
      if (item.pack) for (const row of item.pack.rows) row.tier = dearerTier(price, row.tier, tier);
    },
    onFinished: record,
    onNotice: notify,
    onKeyRefused,
    maxAttempts: config.maxAttempts,
    ...(budget ? { budget } : {}),
    timeoutMs: config.timeoutMs,
    ...(config.serviceTier === 'flex' ? { timeoutBounds: FLEX_TIMEOUT_BOUNDS } : {}),
    // The in-process simulator holds the server's end of every connection in this process too.
    fdsPerRequest: config.simulate ? 2 : 1,
  });

  events.watch(dispatcher, gates);
  const limitsChoice = await describeLimitsChoice(config, endpoint.limits !== undefined);
  reporter.start({
    input: config.input,
    inputDescription: source.describe(),
    headerNotes: source.headerNotes,
    model: config.model,
    total,
    resumed: tally.resumed,
    ...tally.sendPlan(config.retryErrors),
    pools: endpoint.credentials.map((k) =>
      batch ? `${k.alias} → project ${k.project}` : `${k.alias} → project ${k.project} (${config.workersPerKey !== undefined ? `at most ${config.workersPerKey} in flight` : 'in flight: what the quota needs'})`,
    ),
    limits: [
      ...(batch ? batch.headerLines() : []),
      // With --batch, the online limits matter only for the rows a batch gives to the online path.
      ...(!batch || config.batch?.fallbackOnline || config.batch?.deadlineMs !== undefined
        ? [
            ...[...gates.values()].map(({ limiter }) => `${batch ? 'online: ' : ''}project ${limiter.project}: ${describeLimits(limiter.limits)}`),
            limitsChoice.line,
            ...(config.serviceTier !== undefined ? [`service tier: ${SERVICE_TIER_NOTES[config.serviceTier]}`] : []),
          ]
        : []),
      ...(budget
        ? [`--max-cost ${usd(budget.capUsd)}: the job has spent ${usd(budget.earlierUsd)}; sending stops before spend plus the requests in flight (at their most) would pass the cap`]
        : []),
    ],
    jobDir: job.dir,
    output: outputTarget === '-' ? 'stdout' : outputTarget,
    endpoint: config.batch ? `${endpoint.description} through the Batch API (at most ${formatCount(config.batch.size)} rows a batch)` : endpoint.description,
  });
  if (limitsChoice.warning) notify({ key: 'tier-no-quota', text: limitsChoice.warning });
  if (job.repaired) notify({ key: 'journal-repair', text: `the journal's last line was torn (line ${job.repaired.line}, ${job.repaired.bytes} bytes) and was dropped; that row will be sent again` });
  for (const note of job.notes) notify({ key: `job-note:${note}`, text: note });

  const meter = new RateMeter(30_000, { at: Date.now(), done: tally.done });
  const snapshot = (): ProgressSnapshot => {
    const at = Date.now();
    const rate = meter.sample(at, tally.done);
    const { binding: held, until } = dispatcher.binding;
    const leftMs = until !== undefined && until > at ? until - at : undefined;
    return {
      done: tally.done,
      total,
      byStatus: { ...tally.byStatus },
      requests: dispatcher.stats.requests,
      rateLimited: dispatcher.stats.rateLimited,
      retries: dispatcher.stats.retries,
      inFlight: dispatcher.stats.inFlight,
      tokens: { ...tally.tokens },
      elapsedMs: at - p.started,
      rowsPerSecond: rate,
      etaMs: estimateEta(total - tally.done, rate, held === 'pause' || held === 'rpd' ? leftMs : undefined),
      binding: held !== undefined ? BINDING_LABELS[held] : undefined,
      bindingLeftMs: leftMs,
      costUsd: tally.costUsd,
      ...(batch ? { batches: batch.describe() } : {}),
      ...(config.rowsPerRequest > 1 ? { rowsPerRequest: config.rowsPerRequest } : {}),
    };
  };
  const runRecord = (exitCode: number | null): RunRecord => ({
    run: runId,
    startedAt: new Date(p.started).toISOString(),
    updatedAt: new Date().toISOString(),
    exitCode,
    requests: dispatcher.stats.requests,
    rateLimited: dispatcher.stats.rateLimited,
    retries: dispatcher.stats.retries,
    finished: tally.finishedThisRun,
  });
  const logRun = (exitCode: number | null) => appendRunLog(job.files.runs, runRecord(exitCode));
  const summaryOf = (exitCode: number, ending: string, output: string | undefined): JobSummary => ({
    exitCode,
    ending,
    total,
    byStatus: { ...tally.byStatus },
    requests: dispatcher.stats.requests,
    rateLimited: dispatcher.stats.rateLimited,
    retries: dispatcher.stats.retries,
    tokens: { ...tally.tokens },
    costUsd: tally.costUsd,
    wallMs: Date.now() - p.started,
    finishedThisRun: tally.finishedThisRun,
    output,
    jobDir: job.dir,
    resumeCommand: exitCode === ExitCode.Stopped ? resumeCommand(p.invocation) : undefined,
    bound: dispatcher.stats.requests === 0 ? [] : dispatcher.bindingShares().map((b) => ({ binding: BINDING_LABELS[b.binding], share: b.share })),
    ...(batch ? { batches: batch.summary() } : {}),
    ...(config.serviceTier !== undefined || served.standard < BILLING_TIERS.reduce((n, t) => n + served[t], 0) ? { served: { ...served } } : {}),
    ...(config.rowsPerRequest > 1 ? { rowsPerRequest: config.rowsPerRequest } : {}),
  });
  await logRun(null);
  let ticks = 0;
  const ticker = setInterval(() => {
    reporter.tick(snapshot());
    if (++ticks % 8 === 0) void logRun(null); // every 2 s
  }, 250);
  // Where a second Ctrl-C finds the run: it quits at once in every phase, saying what was and was not written.
  let finishing: { phase: 'output' } | { phase: 'written'; exitCode: number; ending: string; outputNote: string | undefined; escapedCells: number | undefined } | undefined;
  const interrupts = installInterrupts({
    onFirst: () => {
      notify({
        key: 'interrupt',
        text:
          finishing !== undefined
            ? `stopping: no request left to wait for; ${finishing.phase === 'output' ? 'writing the output' : config.report !== undefined ? 'writing the run report' : 'finishing'} (Ctrl-C again to quit at once)`
            : `stopping: ${batch ? (config.simulate ? 'the simulated batches end with this process; ' : 'the batches keep running at Google; ') : ''}no new requests; waiting for the ones in flight (Ctrl-C again to quit at once)`,
      });
      stopBatches.abort();
      dispatcher.stop();
    },
    onSecond: () => {
      // The process exits right after this (synchronously): the journal is on disk line by line; say where things stand
      // and how to resume, as the first Ctrl-C does, and release the job's lock. The run report is not written: building
      // it reads the whole job directory, which is what a quit at once must not wait for; `report` writes it later.
      clearInterval(ticker);
      events.close();
      void daily.flush();
      const pending = countOf(tally.byStatus.pending, 'row');
      let summary: JobSummary;
      if (finishing?.phase === 'written') {
        // The output is in place: the run ended as it did; only the report (if asked for) is missing.
        summary = {
          ...summaryOf(finishing.exitCode, finishing.ending, finishing.outputNote),
          ...(finishing.escapedCells !== undefined ? { escapedCells: finishing.escapedCells } : {}),
        };
      } else {
        const what = finishing === undefined ? 'requests in flight abandoned; ' : '';
        summary = summaryOf(ExitCode.Stopped, `quit at once (second Ctrl-C): ${pending} pending, ${what}the output file was not written`, undefined);
      }
      if (config.report !== undefined) summary.reportCommand = reportCommand(p.invocation.prefix, job.dir, config.report, config.price);
      appendRunLogSync(job.files.runs, runRecord(summary.exitCode));
      job.closeSync();
      reporter.finish(summary);
      return summary.exitCode;
    },
  });
  try {
    return await finishRun();
  } finally {
    interrupts.remove();
  }

  /** Sends, writes the output and the report, prints the summary; the Ctrl-C handlers above are installed throughout. */
  async function finishRun(): Promise<number> {
    let end: DispatchEnd;
    try {
      const batchEnd = batch ? await batch.runner.run() : undefined;
      end = batchEnd && batchEnd.kind !== 'done' ? batchEnd : stopBatches.signal.aborted ? { kind: 'interrupted' } : await dispatcher.run();
    } finally {
      finishing = { phase: 'output' };
      clearInterval(ticker);
      events.close();
      batch?.close();
      journal.flush();
      await daily.close();
      await logRun(null);
    }
    if (batch) {
      const running = batch.book.open().filter((c) => c.created);
      if (running.length > 0 && end.kind !== 'done') notify({ key: 'batches-running', text: batchesLeft(running.map((c) => c.created?.name ?? ''), config.simulate, resumeCommand(p.invocation)) });
    }
    // The input edited while the run read it: its rows are matched to their answers again before the output is written.
    const change = await job.recheckInput();
    if (change) {
      notify({ key: 'input-changed', text: job.notes.at(-1) as string });
      total = config.limit !== undefined ? Math.min(config.limit, job.records) : job.records;
      const finished = tally.finishedThisRun;
      tally = new JobTally(job.journal, total, price);
      tally.finishedThisRun = finished;
    }
    reporter.tick(snapshot());

    const day = endpoint.provider.quotaDay;
    let { exitCode, ending } = exitFor(end, tally.byStatus, total, endpoint.description, day);
    let pending = pendingReason(end, day);
    if (change && end.kind === 'done' && tally.byStatus.pending > 0) {
      exitCode = ExitCode.Stopped;
      ending = `the input changed during the run: ${countOf(tally.byStatus.pending, 'row')} new or edited ${tally.byStatus.pending === 1 ? 'is' : 'are'} pending; run the same command again to send ${tally.byStatus.pending === 1 ? 'it' : 'them'}`;
      pending = 'not sent: the input changed during the run; run the same command again to send this row';
    }
    let outputNote: string | undefined = outputTarget === '-' ? undefined : outputTarget;
    let escapedCells: number | undefined;
    if (await keepEarlierOutput(outputTarget, end, tally.finishedThisRun)) {
      // A run that stopped before finishing any row has nothing to add: the file there (an earlier run's results, or
      // another job's) is not replaced by one of pending rows.
      outputNote = `${outputTarget} not replaced: this run finished no row (the file is left as it was)`;
    } else {
      const written = await writeResults({
        input: source,
        total,
        journal: job.journal,
        fingerprint,
        layout: prepared.layout,
        pendingError: pending,
        spec: {
          target: outputTarget,
          stdout: io.stdout,
          ...outputDialect(source),
          escapeFormulas: config.escapeFormulas,
          onWarning: (text) => reporter.notice(text),
        },
      });
      escapedCells = written.escapedCells;
      if (written.rows !== total) outputNote = `${outputNote ?? 'stdout'} (${written.rows} rows; expected ${total})`;
      if (written.stale > 0) {
        // The input changed between the check above and the writing: those rows are written pending, not mislabelled.
        notify({ key: 'stale-answers', text: `${countOf(written.stale, 'row')} changed while the output was written; written pending` });
        exitCode = ExitCode.Stopped;
        ending = `the input changed while the output was written: ${countOf(written.stale, 'row')} written pending; run the same command again`;
      }
    }

    finishing = { phase: 'written', exitCode, ending, outputNote, escapedCells };
    await logRun(exitCode);
    const report = config.report !== undefined ? await writeRunReport(job.dir, config.report, config.price, notify) : undefined;
    reporter.finish({ ...summaryOf(exitCode, ending, outputNote), ...(escapedCells !== undefined ? { escapedCells } : {}), ...(report ? { report } : {}) });
    return exitCode;
  }
}

function exitFor(end: DispatchEnd, byStatus: Record<RowStatus, number>, total: number, endpoint: string, day: QuotaDay): { exitCode: number; ending: string } {
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
        ending: `stopped: every project is parked (${end.reasons.join('; ')}); capacity returns at ${day.clock(end.until)}; ${countOf(byStatus.pending, 'row')} pending`,
      };
    case 'unavailable':
      // Keys refused or no quota for the model (limit: 0): running again the same way cannot help.
      return { exitCode: ExitCode.Usage, ending: `stopped: no key can send (${end.reasons.join('; ')}); ${countOf(byStatus.pending, 'row')} pending — fix the keys or the model, then run again` };
    case 'outage':
      return { exitCode: ExitCode.Stopped, ending: `stopped: ${end.reason} (${endpoint}); ${countOf(byStatus.pending, 'row')} pending` };
    case 'fatal':
      // Exit 2 after requests: running again the same way cannot help. The summary says why (and runs.jsonl logs it).
      return {
        exitCode: ExitCode.Usage,
        ending:
          end.failure instanceof ModelFailure
            ? `stopped: the model cannot be used (${end.failure.message}); check --model (e.g. gemini-2.5-flash); ${countOf(byStatus.pending, 'row')} pending, rows already done are kept`
            : `stopped: every request so far was refused the same way (${end.failure.message}); check the options that shape the request (--model, --thinking-budget, --schema, --max-output-tokens); ${countOf(byStatus.pending, 'row')} pending, rows already done are kept`,
      };
    case 'budget':
      return {
        exitCode: ExitCode.Stopped,
        ending: `stopped before passing --max-cost ${usd(end.capUsd)}: the job has spent ${usd(end.spentUsd)}, and the next request may cost up to ${usd(end.requestUsd)}; ${countOf(byStatus.pending, 'row')} pending — run again with a higher --max-cost to go on (rows done are not paid for again)`,
      };
    case 'billing':
      return {
        exitCode: ExitCode.Stopped,
        ending: `stopped: the account cannot pay for more requests (${end.failure.message}); add credit or raise the spend limit, then run the same command again; ${countOf(byStatus.pending, 'row')} pending`,
      };
  }
}

/**
 * The `error` of the rows a stopped run leaves `pending` (they have no journal entry), saying why they were not
 * answered. Empty for a run that finished.
 */
function pendingReason(end: DispatchEnd, day: QuotaDay): string {
  switch (end.kind) {
    case 'done':
      return '';
    case 'interrupted':
      return 'not answered: the run was interrupted; run the same command again to resume';
    case 'parked':
      return `not sent: every project is parked by its daily quota until ${day.clock(end.until)}; run again then`;
    case 'unavailable':
      return `not sent: no key can send (${end.reasons.join('; ')})`;
    case 'outage':
      return `not answered: the run stopped for an outage (${end.reason}); run again to resume`;
    case 'fatal':
      return `not sent: ${end.failure.message}`;
    case 'budget':
      return `not sent: --max-cost ${usd(end.capUsd)} reached (spent ${usd(end.spentUsd)}); run again with a higher --max-cost`;
    case 'billing':
      return `not sent: the account cannot pay for more requests (${end.failure.message}); run again once billing allows`;
  }
}

/**
 * True when the output should be left as it is: the run stopped (not finished) without finishing any row, and a file
 * is already there. Issue 12: a run stopped with exit 2 after some requests replaced an earlier output with pending rows.
 */
async function keepEarlierOutput(target: string, end: DispatchEnd, finishedThisRun: number): Promise<boolean> {
  if (target === '-' || end.kind === 'done' || finishedThisRun > 0) return false;
  return stat(target).then(
    () => true,
    () => false,
  );
}


/** `--report`: writes the run report; a report that cannot be written is a notice, never the run's failure. */
async function writeRunReport(jobDir: string, file: string, price: { input?: number; output?: number }, notify: (n: { key: string; text: string }) => void): Promise<string | undefined> {
  try {
    await writeReport(jobDir, file, price);
    return file;
  } catch (error) {
    notify({ key: 'report', text: `the run report was not written: ${error instanceof Error ? error.message : String(error)}` });
    return undefined;
  }
}

/** What the run's header says of each --service-tier. */
const SERVICE_TIER_NOTES: Readonly<Record<ServiceTier, string>> = {
  flex: `flex — half price; answers take minutes (each request may wait ${FLEX_TIMEOUT_BOUNDS.floorMs / 60_000}–${FLEX_TIMEOUT_BOUNDS.capMs / 60_000} min); requests the server sheds (503) are sent again, never failing a row`,
  standard: 'standard',
  priority: 'priority — up to twice the price (counted at 2×); a request over the Priority limit is served, and billed, at standard',
};

/**
 * The billing tier of a finished row's journal line: the tier of this run's answers, and of the earlier result's
 * tokens when it had any — the dearer when they differ; undefined (standard) when neither.
 */
function rowTier(item: WorkItem, price: ModelPrice | undefined): BillingTier | undefined {
  const e = item.earlierUsage;
  const earlier = e.input + e.output + e.thoughts > 0 ? item.earlierTier : undefined;
  if (earlier === undefined) return item.tier;
  return item.tier === undefined ? earlier : dearerTier(price, earlier, item.tier);
}

/** The journal line of a finished row, its tokens billed at `tier`. */
function journalEntry(item: WorkItem, outcome: RowOutcome, tier: BillingTier | undefined): JournalEntry {
  return {
    row: item.row,
    fp: item.fingerprint,
    ...outcomeEntryFields(outcome),
    tokens: {
      input: item.earlierUsage.input + item.usage.input,
      output: item.earlierUsage.output + item.usage.output,
      thoughts: item.earlierUsage.thoughts + item.usage.thoughts,
    },
    attempts: item.earlierAttempts + item.attempts + (item.packAttempts ?? 0),
    key: item.key,
    ...(tier !== undefined && tier !== 'standard' ? { tier } : {}),
    ...(outcome.pack ? { pack: outcome.pack } : {}),
    time: new Date().toISOString(),
  };
}

function describeLimits(limits: ProjectLimits): string {
  const one = (name: string, l: QuotaLimit | undefined) => (l ? `${name} ${formatCount(l.value)} (${l.source})` : `${name} –`);
  return [one('RPM', limits.rpm), one('TPM', limits.tpm), one('RPD', limits.rpd)].join(' · ');
}

/** The `report` command that writes the run's report as `--report` would have (same file, same prices). */
function reportCommand(prefix: string, jobDir: string, file: string, price: { input?: number; output?: number }): string {
  const prices = [...(price.input !== undefined ? ['--price-input', String(price.input)] : []), ...(price.output !== undefined ? ['--price-output', String(price.output)] : [])];
  return formatCommand(prefix, ['report', jobDir, '-o', file, ...prices]);
}

/** The command that resumes the job: the one typed, without --restart (which would discard what is done). */
function resumeCommand(invocation: Invocation): string {
  return formatCommand(invocation.prefix, invocation.args.filter((a) => a !== '--restart'));
}
