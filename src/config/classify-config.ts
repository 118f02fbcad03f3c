/**
 * Every `classify` option, parsed and validated once, before anything else happens (exit 2 on any problem, before any
 * API call). The names follow the CLI contract of docs/design.md.
 */
import { checkBaseUrl } from './base-url.js';
import { defaultReportPath } from '../report/html/report-path.js';
import { UsageError } from '../errors.js';
import type { InputOptions } from '../input/input-source.js';
import { parseLabelLines, parseLabelList } from '../prompt/labels.js';
import { compileSchema, type StructuredSchema } from '../prompt/structured-output.js';
import { TIERS, type Tier } from '../plan/published-limits.js';
import type { ModelRequest, ProviderName } from '../providers/contract.js';
import { providerCatalog } from '../providers/create-provider.js';
import { providerOptions } from './provider-options.js';
import { batchOptions, type BatchConfig, type RawBatchOptions } from './batch-options.js';
import { priceOf } from '../plan/price.js';
import { MAX_ROWS_PER_REQUEST } from '../prompt/pack-request.js';
import { DEFAULT_HEADROOM } from '../schedule/quota-limits.js';
import { FLEX_TIMEOUT_BOUNDS } from '../schedule/request-timeout.js';
import { fraction, integer, nonNegativeNumber, oneOf, positiveInt, readTextOption } from './option-values.js';

/** Options as commander hands them over (strings, booleans). */
export interface RawClassifyOptions extends RawBatchOptions {
  prompt?: string;
  promptFile?: string;
  labels?: string;
  labelsFile?: string;
  system?: string;
  systemFile?: string;
  schema?: string;
  model?: string;
  output?: string;
  jobDir?: string;
  keysFile?: string;
  workersPerKey?: string;
  rpm?: string;
  tpm?: string;
  rpd?: string;
  headroom?: string;
  limit?: string;
  baseUrl?: string;
  simulate?: boolean;
  simulateConfig?: string;
  timeout?: string;
  maxAttempts?: string;
  retryErrors?: boolean;
  restart?: boolean;
  json?: boolean;
  headerRow?: string;
  encoding?: string;
  delimiter?: string;
  quote?: string;
  sheet?: string;
  relaxColumnCount?: boolean;
  maxInputTokens?: string;
  maxOutputTokens?: string;
  temperature?: string;
  thinkingBudget?: string;
  escapeFormulas?: boolean;
  /** --report: true without a file name. */
  report?: string | boolean;
  examples?: string;
  priceInput?: string;
  priceOutput?: string;
  answerColumn?: string;
  tier?: string;
  provider?: string;
  project?: string;
  location?: string;
  serviceTier?: string;
  maxCost?: string;
  rowsPerRequest?: string;
}

export interface ClassifyConfig {
  input: string;
  inputOptions: InputOptions;
  prompt: string;
  system: string | undefined;
  labels: string[] | undefined;
  schema: StructuredSchema | undefined;
  model: string;
  /** Output path, `-` for stdout, or undefined for the default beside the input. */
  output: string | undefined;
  /** Job directory, or undefined for the default beside the input. */
  jobDir: string | undefined;
  keysFile: string | undefined;
  /** Requests in flight per key at most (--workers-per-key); undefined: what the quota needs (schedule/concurrency.ts). */
  workersPerKey: number | undefined;
  /** Per-project limits given on the command line (requests/min, input tokens/min, requests/day). */
  rpm: number | undefined;
  tpm: number | undefined;
  rpd: number | undefined;
  /** Fraction kept under the per-minute limits. */
  headroom: number;
  /** Only the first n data rows. */
  limit: number | undefined;
  baseUrl: string | undefined;
  simulate: boolean;
  simulateConfig: string | undefined;
  /** Per-request timeout (--timeout), ms; undefined: adaptive (schedule/request-timeout.ts). */
  timeoutMs: number | undefined;
  maxAttempts: number;
  retryErrors: boolean;
  restart: boolean;
  json: boolean;
  /** Rows whose request would exceed this many input tokens are `skipped`. Default: the model's input limit. */
  maxInputTokens: number;
  maxOutputTokens: number | undefined;
  temperature: number;
  thinkingBudget: number | undefined;
  escapeFormulas: boolean;
  /** --report: where to write the HTML run report at the end of the run; undefined: no report. */
  report: string | undefined;
  /** --examples file (few-shot rows with a `label` column), read once the template is known. */
  examplesFile: string | undefined;
  /** --price-input / --price-output: USD per 1,000,000 tokens, over the price table. */
  price: { input?: number; output?: number };
  /** --answer-column: the output column of the answer; undefined for `label` (labels) or `answer` (free form). */
  answerColumn: string | undefined;
  /** --tier: the quota project's usage tier, whose published limits (plan/published-limits.ts) are the start. */
  tier: Tier | undefined;
  /** --provider: who answers (../providers/create-provider.ts). */
  provider: ProviderName;
  /** Vertex AI: the Google Cloud project (--project, else GOOGLE_CLOUD_PROJECT). */
  project: string | undefined;
  /** Vertex AI: the region or `global` (--location, else GOOGLE_CLOUD_LOCATION, else `global`). */
  location: string | undefined;
  /** --service-tier: the online service tier every request asks for (Gemini, Vertex); undefined: none named (standard). */
  serviceTier: ServiceTier | undefined;
  /** --batch and its settings (./batch-options.ts); undefined: rows are sent online. */
  batch: BatchConfig | undefined;
  /** --max-cost: the job's spend cap, USD (job/spend-budget.ts); undefined: none. */
  maxCostUsd: number | undefined;
  /** --rows-per-request: rows one request carries at most (1: each row alone; README "Several rows per request"). */
  rowsPerRequest: number;
}

/** The online service tiers of --service-tier (docs/service-tiers.md). */
export type ServiceTier = NonNullable<ModelRequest['serviceTier']>;

/** The --service-tier values. */
export const SERVICE_TIERS: readonly ServiceTier[] = ['flex', 'standard', 'priority'];

/** The least request timeout of the Flex tier, ms (schedule/request-timeout.ts FLEX_TIMEOUT_BOUNDS). */
export const FLEX_MIN_TIMEOUT_MS = FLEX_TIMEOUT_BOUNDS.floorMs;

/** @default 60 s */
export const DEFAULT_TIMEOUT_S = 60;
/** @default 8 requests per row */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** @default gemini-2.5-flash */
export const DEFAULT_MODEL = 'gemini-2.5-flash';

/**
 * Validates the options of `classify <input>`, reading the prompt, system, labels and schema files.
 * @throws UsageError (`OPTION_INVALID`, `OPTION_CONFLICT`, `OPTION_MISSING`, `LABELS_INVALID`, `SCHEMA_INVALID`) or
 *   InputError (`OPTION_FILE_UNREADABLE`).
 */
export async function resolveClassifyConfig(input: string, raw: RawClassifyOptions, env: NodeJS.ProcessEnv): Promise<ClassifyConfig> {
  oneOf(['--prompt', raw.prompt], ['--prompt-file', raw.promptFile]);
  oneOf(['--labels', raw.labels], ['--labels-file', raw.labelsFile]);
  oneOf(['--system', raw.system], ['--system-file', raw.systemFile]);
  oneOf(['--labels', raw.labels ?? raw.labelsFile], ['--schema', raw.schema]);
  if (raw.simulateConfig !== undefined && !raw.simulate) {
    throw new UsageError('OPTION_CONFLICT', '--simulate-config needs --simulate.');
  }
  if (raw.simulate && raw.baseUrl !== undefined) throw new UsageError('OPTION_CONFLICT', 'Give --simulate or --base-url, not both.');
  if (raw.json && raw.output === '-') throw new UsageError('OPTION_CONFLICT', '--json and -o - both write to stdout; choose one.');
  if (raw.answerColumn !== undefined && raw.schema !== undefined) {
    throw new UsageError('OPTION_CONFLICT', '--answer-column names the single answer column; with --schema each property of the schema is a column of its own.');
  }
  if (raw.answerColumn !== undefined && raw.answerColumn.trim() === '') throw new UsageError('OPTION_INVALID', '--answer-column needs a column name, got an empty one.');
  if (raw.restart && raw.retryErrors) throw new UsageError('OPTION_CONFLICT', '--restart discards every result, so there are no errors to --retry-errors; give one of them.');

  const prompt = raw.prompt ?? (raw.promptFile !== undefined ? await readTextOption('--prompt-file', raw.promptFile) : undefined);
  if (raw.promptFile !== undefined && prompt?.trim() === '') throw new UsageError('OPTION_INVALID', `--prompt-file ${raw.promptFile} is empty.`);
  if (prompt === undefined || prompt.trim() === '') {
    throw new UsageError('OPTION_MISSING', 'Give the prompt with --prompt "…{{Column}}…" or --prompt-file FILE.');
  }
  const system = raw.system ?? (raw.systemFile !== undefined ? await readTextOption('--system-file', raw.systemFile) : undefined);
  if (raw.systemFile !== undefined && system?.trim() === '') throw new UsageError('OPTION_INVALID', `--system-file ${raw.systemFile} is empty.`);
  let labels: string[] | undefined;
  if (raw.labels !== undefined) labels = parseLabelList(raw.labels);
  else if (raw.labelsFile !== undefined) labels = parseLabelLines(await readTextOption('--labels-file', raw.labelsFile), raw.labelsFile);
  let schema: StructuredSchema | undefined;
  if (raw.schema !== undefined) {
    const text = await readTextOption('--schema', raw.schema);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new UsageError('SCHEMA_INVALID', `${raw.schema}: not valid JSON (${(error as Error).message})`);
    }
    schema = compileSchema(json, raw.schema);
  }

  const delimiter = raw.delimiter === 'tab' || raw.delimiter === '\\t' ? '\t' : raw.delimiter;
  if (delimiter !== undefined && [...delimiter].length !== 1) throw new UsageError('OPTION_INVALID', `--delimiter must be one character (or "tab"), got ${JSON.stringify(raw.delimiter)}.`);
  if (raw.quote !== undefined && [...raw.quote].length !== 1) throw new UsageError('OPTION_INVALID', `--quote must be one character, got ${JSON.stringify(raw.quote)}.`);
  const model = (raw.model ?? DEFAULT_MODEL).replace(/^models\//, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(model)) throw new UsageError('OPTION_INVALID', `--model ${JSON.stringify(raw.model)} is not a model id such as gemini-2.5-flash.`);
  const provider = providerOptions(raw, env);
  if (provider.name === 'vertex' && raw.keysFile !== undefined) {
    throw new UsageError('OPTION_CONFLICT', '--provider vertex authenticates with Application Default Credentials (gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS), not API keys: leave out --keys-file.');
  }
  const baseUrl = raw.baseUrl ?? env[provider.baseUrlEnv];
  if (baseUrl !== undefined && !raw.simulate) checkBaseUrl(baseUrl, raw.baseUrl !== undefined ? '--base-url' : provider.baseUrlEnv);
  const tier = tierOption(raw.tier);
  if (tier !== undefined && provider.name !== 'gemini') {
    throw new UsageError('OPTION_CONFLICT', `--tier names a usage tier of the Gemini API; --provider ${provider.name} has none. Give --rpm/--tpm/--rpd instead.`);
  }
  const serviceTier = serviceTierOption(raw.serviceTier, provider.name);
  const timeout = timeoutMs(raw.timeout);
  if (serviceTier === 'flex' && timeout !== undefined && timeout < FLEX_MIN_TIMEOUT_MS) {
    throw new UsageError(
      'OPTION_CONFLICT',
      `--service-tier flex answers take 1–15 minutes, so a request's timeout must be at least ${FLEX_MIN_TIMEOUT_MS / 1000} s; --timeout ${raw.timeout} would cut them off. Leave --timeout out (Flex requests then wait at least ${FLEX_MIN_TIMEOUT_MS / 1000} s) or give ${FLEX_MIN_TIMEOUT_MS / 1000} or more.`,
    );
  }
  const price = {
    ...optionalNumber('input', nonNegativeNumber('--price-input', raw.priceInput)),
    ...optionalNumber('output', nonNegativeNumber('--price-output', raw.priceOutput)),
  };
  const maxCostUsd = maxCostOption(raw.maxCost, provider.name, model, price);
  const batch = batchOptions(raw, provider.name);
  if (maxCostUsd !== undefined && batch !== undefined) {
    // The cap reserves each request's most cost while it is in flight (job/spend-budget.ts); a batch of thousands of
    // rows is one commitment the runner does not reserve yet.
    throw new UsageError('OPTION_CONFLICT', '--max-cost caps the rows sent online; it does not cap the Batch API yet. Leave out --max-cost with --batch (plan shows what the job costs through the Batch API).');
  }
  const rowsPerRequest = positiveInt('--rows-per-request', raw.rowsPerRequest) ?? 1;
  if (rowsPerRequest > MAX_ROWS_PER_REQUEST) {
    throw new UsageError('OPTION_INVALID', `--rows-per-request must be at most ${MAX_ROWS_PER_REQUEST.toLocaleString('en-US')} (one answer holds a few hundred rows at most), got ${rowsPerRequest}.`);
  }
  const temperature = nonNegativeNumber('--temperature', raw.temperature) ?? 0;
  if (temperature > 2) throw new UsageError('OPTION_INVALID', `--temperature must be between 0 and 2, got ${temperature}.`);

  return {
    input,
    inputOptions: {
      ...(raw.encoding !== undefined ? { encoding: raw.encoding } : {}),
      ...(delimiter !== undefined ? { delimiter } : {}),
      ...(raw.quote !== undefined ? { quote: raw.quote } : {}),
      headerRow: positiveInt('--header-row', raw.headerRow) ?? 1,
      ...(raw.sheet !== undefined ? { sheet: raw.sheet } : {}),
      relaxColumnCount: raw.relaxColumnCount ?? false,
    },
    prompt,
    system: system === undefined || system.trim() === '' ? undefined : system,
    labels,
    schema,
    model,
    output: raw.output,
    jobDir: raw.jobDir,
    keysFile: raw.keysFile,
    workersPerKey: positiveInt('--workers-per-key', raw.workersPerKey),
    rpm: positiveInt('--rpm', raw.rpm),
    tpm: positiveInt('--tpm', raw.tpm),
    rpd: positiveInt('--rpd', raw.rpd),
    headroom: fraction('--headroom', raw.headroom) ?? DEFAULT_HEADROOM,
    limit: positiveInt('--limit', raw.limit),
    baseUrl: raw.simulate ? undefined : baseUrl,
    simulate: raw.simulate ?? false,
    simulateConfig: raw.simulateConfig,
    timeoutMs: timeout,
    maxAttempts: positiveInt('--max-attempts', raw.maxAttempts) ?? DEFAULT_MAX_ATTEMPTS,
    retryErrors: raw.retryErrors ?? false,
    restart: raw.restart ?? false,
    json: raw.json ?? false,
    maxInputTokens: positiveInt('--max-input-tokens', raw.maxInputTokens) ?? providerCatalog(provider.name).model(model).inputTokenLimit,
    maxOutputTokens: positiveInt('--max-output-tokens', raw.maxOutputTokens),
    temperature,
    thinkingBudget: integer('--thinking-budget', raw.thinkingBudget, -1),
    escapeFormulas: raw.escapeFormulas ?? true,
    report: raw.report === undefined || raw.report === false ? undefined : raw.report === true ? defaultReportPath(input) : raw.report,
    examplesFile: raw.examples,
    price,
    answerColumn: raw.answerColumn?.trim(),
    tier,
    provider: provider.name,
    project: provider.project,
    location: provider.location,
    serviceTier,
    batch,
    maxCostUsd,
    rowsPerRequest,
  };
}

/**
 * --max-cost in USD (> 0), for a model whose price is known (the provider's list, or --price-input and --price-output).
 * @throws UsageError `OPTION_INVALID` for a value that is not an amount; `PRICE_UNKNOWN` when no price is known.
 */
function maxCostOption(value: string | undefined, provider: ProviderName, model: string, override: { input?: number; output?: number }): number | undefined {
  if (value === undefined) return undefined;
  const usd = Number(value.trim().replace(/^\$/, ''));
  if (value.trim() === '' || !Number.isFinite(usd) || usd <= 0) throw new UsageError('OPTION_INVALID', `--max-cost must be an amount of US dollars above 0 such as 25 or 2.50, got ${JSON.stringify(value)}.`);
  if (!priceOf(providerCatalog(provider).model(model).price, override)) {
    throw new UsageError(
      'PRICE_UNKNOWN',
      `--max-cost needs the price of ${model}, and --provider ${provider} lists none for it: give --price-input and --price-output (USD per 1,000,000 input and output tokens) so that spend can be counted.`,
    );
  }
  return usd;
}

/**
 * --service-tier: `flex`, `standard` or `priority` (any case), for a provider that serves them.
 * @throws UsageError `OPTION_INVALID` for another value; `OPTION_CONFLICT` for a provider without service tiers.
 */
function serviceTierOption(value: string | undefined, provider: ProviderName): ServiceTier | undefined {
  if (value === undefined) return undefined;
  const tier = value.trim().toLowerCase();
  if (!(SERVICE_TIERS as readonly string[]).includes(tier)) {
    throw new UsageError('OPTION_INVALID', `--service-tier must be flex (half price, answers in minutes, may be shed), standard or priority (dearer, faster), got ${JSON.stringify(value)}.`);
  }
  if (!providerCatalog(provider).serviceTiers) {
    throw new UsageError(
      'OPTION_CONFLICT',
      `--service-tier names a service tier of Gemini and Vertex AI; --provider ${provider} does not send one (OpenAI-compatible servers differ in what service_tier means and costs). Leave out --service-tier.`,
    );
  }
  return tier as ServiceTier;
}

/** --tier: `free`, `1`, `2` or `3` (also `tier1`, `Free`…). @throws UsageError `OPTION_INVALID`. */
function tierOption(value: string | undefined): Tier | undefined {
  if (value === undefined) return undefined;
  const tier = value.trim().toLowerCase().replace(/^tier[\s_-]?/, '');
  if ((TIERS as readonly string[]).includes(tier)) return tier as Tier;
  throw new UsageError('OPTION_INVALID', `--tier must be free, 1, 2 or 3 (the usage tier of the quota project, shown in AI Studio), got ${JSON.stringify(value)}.`);
}

/** --timeout in seconds (> 0) → ms; undefined when not given (adaptive, at least {@link DEFAULT_TIMEOUT_S}). */
function timeoutMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = nonNegativeNumber('--timeout', value) ?? DEFAULT_TIMEOUT_S;
  if (seconds <= 0) throw new UsageError('OPTION_INVALID', `--timeout must be a number of seconds above 0, got ${JSON.stringify(value)}.`);
  return Math.round(seconds * 1000);
}

function optionalNumber<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
