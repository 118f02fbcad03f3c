/**
 * `gemini-batch plan <input> [classify options]`: what the job will take, before spending anything. Sends nothing,
 * apart from one countTokens call for the fixed part of the request with `--count-tokens`.
 */
import { existsSync } from 'node:fs';
import type { RawClassifyOptions } from '../config/classify-config.js';
import { loadApiKeys } from '../config/api-keys.js';
import { defaultJobDir, jobFiles } from '../journal/job-dir.js';
import { Journal } from '../journal/journal.js';
import { readManifest, sha256File, type Manifest } from '../journal/manifest.js';
import { diffManifest } from '../journal/manifest-diff.js';
import { UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { RETRYABLE_STATUSES } from '../row-status.js';
import { ROW_FINGERPRINT, answerFingerprint } from './answer-fingerprint.js';
import { jobSettings } from './open-job.js';
import { estimateJob, type KnownLimits } from '../plan/estimate-job.js';
import { plannedScenarioLimits, scenarioLimits } from '../plan/scenario-limits.js';
import { positiveInt } from '../config/option-values.js';
import { matchInput } from './reconcile-input.js';
import { formatPlan } from '../plan/format-plan.js';
import { ApiFailure } from '../providers/failures.js';
import { answerSourceOf, connectProvider, resolveEndpoint, type Endpoint } from './endpoint.js';
import { prepareJob } from './prepare-job.js';
import { journalSpend } from './spend-budget.js';
import { priceOf } from '../plan/price.js';
import { providerCatalog } from '../providers/create-provider.js';

export interface PlanOptions extends RawClassifyOptions {
  countTokens?: boolean;
  /** Answer tokens per row in free-text mode. */
  outputTokens?: string;
}

/** @returns exit code 0. @throws UsageError / InputError (exit 2). */
export async function runPlan(input: string, raw: PlanOptions, io: Pick<Io, 'stdout' | 'env'>): Promise<number> {
  const prepared = await prepareJob(input, raw, io.env);
  const { config } = prepared;

  // Rows an earlier run finished are not planned again — if classify would resume that job: same input and settings,
  // no --restart; with --retry-errors the rows that ended in an error count as to send. Read only: nothing is written.
  const jobDir = config.jobDir ?? defaultJobDir(config.input);
  const notes: string[] = [];
  let journal: Journal | undefined;
  /** The journal row holding a row's answer (another one when the input changed). */
  let rowOf = (row: number): number => row;
  const manifest = await readManifest(jobDir);
  if (manifest && existsSync(jobFiles(jobDir).journal)) {
    const { sha256, size } = await sha256File(config.input);
    const current: Manifest = {
      ...manifest,
      input: { ...manifest.input, path: config.input, sha256, size, rowFingerprint: ROW_FINGERPRINT },
      source: answerSourceOf(config, (await connectProvider(config, io.env, config.baseUrl)).identity()),
      settings: jobSettings(config, prepared.examples),
    };
    const diff = diffManifest(manifest, current);
    if (config.restart) notes.push(`--restart: the ${jobDir} results would be discarded; every row is planned`);
    else if (diff.blocking.length > 0) notes.push(`${jobDir} holds another job (${diff.blocking[0]}); classify would stop with exit 2 unless --restart, so every row is planned`);
    else journal = await Journal.open(jobFiles(jobDir).journal);
    if (journal && (sha256 !== manifest.input.sha256 || size !== manifest.input.size)) {
      // The input changed: classify will match its rows to their answers by prompt inputs; so does the plan.
      const match = await matchInput(prepared.source, journal, answerFingerprint(prepared.template));
      rowOf = (row) => (row < match.records ? (match.from[row] ?? -1) : -1);
      notes.push(`the input changed since the last run: ${match.kept} rows keep their answers, ${match.unanswered} have none yet`);
    }
  }
  const isDone = (row: number) => {
    const status = rowOf(row) < 0 ? undefined : journal?.status(rowOf(row));
    return status !== undefined && status !== 'skipped' && !(config.retryErrors && RETRYABLE_STATUSES.has(status));
  };

  let projects = 1;
  if (config.keysFile !== undefined || io.env.GEMINI_API_KEYS) {
    projects = new Set((await loadApiKeys(config.keysFile, io.env)).map((k) => k.project)).size;
  }
  // Under --simulate the simulator's limits are the account's: the scenario's (--simulate-config) or the generous ones.
  let knownLimits: KnownLimits | undefined;
  if (config.simulate) {
    const planned = plannedScenarioLimits(await scenarioLimits(config.simulateConfig, config.model), config.simulateConfig !== undefined ? 'scenario' : 'generous');
    knownLimits = { ...planned.limits, ...(planned.billed ? {} : { billed: false }) };
    projects = planned.projects;
  }

  const price = priceOf(providerCatalog(config.provider).model(config.model).price, config.price);
  let endpoint: Endpoint | undefined;
  try {
    // --count-tokens needs a key and an endpoint (the simulator's under --simulate).
    if (raw.countTokens) endpoint = await resolveEndpoint(config, io.env);
    const estimate = await estimateJob({
      prepared,
      isDone,
      projects,
      ...(knownLimits ? { knownLimits } : {}),
      ...(endpoint && raw.countTokens ? { countTokens: countWith(endpoint, config.model) } : {}),
      ...(raw.outputTokens !== undefined ? { outputTokensPerRow: positiveInt('--output-tokens', raw.outputTokens) } : {}),
      maxInputTokensGiven: raw.maxInputTokens !== undefined,
      ...(journal && price ? { spentUsd: journalSpend(journal, price) } : {}),
    });
    const mode = config.labels ? `enum output (${config.labels.length} labels)` : config.schema ? `structured output (${config.schema.properties.join(', ')})` : 'free text';
    const lines = formatPlan(estimate, { input: config.input, description: prepared.source.describe(), model: config.model, mode });
    io.stdout.write(`${[...lines, ...notes.map((n) => `note: ${n}`)].join('\n')}\n`);
    return 0;
  } finally {
    await journal?.close();
    await endpoint?.close();
  }
}

/** One countTokens call with each prompt as its own user turn. @throws UsageError COUNT_TOKENS_FAILED. */
function countWith(endpoint: Endpoint, model: string): (prompts: string[]) => Promise<number> {
  return async (prompts) => {
    const credential = endpoint.credentials[0];
    if (!credential) return 0;
    if (!endpoint.provider.countTokens) {
      throw new UsageError('COUNT_TOKENS_UNAVAILABLE', `--count-tokens: --provider ${endpoint.provider.name} cannot count tokens; plan without --count-tokens.`);
    }
    try {
      return await endpoint.provider.countTokens(credential, model, prompts);
    } catch (error) {
      const message = error instanceof ApiFailure ? error.message : String(error);
      throw new UsageError('COUNT_TOKENS_FAILED', `--count-tokens: the countTokens call failed: ${message}. Plan without --count-tokens, or check the key, --model and --base-url.`, { cause: error });
    }
  };
}
