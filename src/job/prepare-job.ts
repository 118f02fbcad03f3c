/**
 * What `classify` and `plan` share: the options validated, the input opened, the template compiled against its columns,
 * the few-shot examples read, and the functions that build a row's request and its token features. Every usage or input
 * error surfaces here, before any API call (exit 2).
 */
import { resolveClassifyConfig, type ClassifyConfig, type RawClassifyOptions } from '../config/classify-config.js';
import { UsageError } from '../errors.js';
import type { AnswerMode } from '../answers/judge-answer.js';
import type { ModelRequest } from '../providers/contract.js';
import { providerCatalog } from '../providers/create-provider.js';
import type { InputSource } from '../input/input-source.js';
import { openInput } from '../input/open-input.js';
import { requireDataRows } from '../input/require-data-rows.js';
import { requestBuilder, type RequestVariant } from '../prompt/build-request.js';
import { loadExamples, type FewShotExample } from '../prompt/examples.js';
import { packRequestBuilder } from '../prompt/pack-request.js';
import { requestFeatures } from '../prompt/request-features.js';
import { compileTemplate, headerRowHint, UnclosedPlaceholderError, UnknownColumnsError, type CompiledTemplate } from '../prompt/template.js';
import { resultLayout, type ResultLayout } from './write-results.js';

export interface PreparedJob {
  config: ClassifyConfig;
  source: InputSource;
  template: CompiledTemplate;
  examples: FewShotExample[];
  mode: AnswerMode;
  layout: ResultLayout;
  /** The request of a row. */
  build: (cells: readonly string[], variant?: RequestVariant) => ModelRequest;
  /** The request of a pack of rows: their rendered prompts and their ids (--rows-per-request). */
  buildPack: (prompts: readonly string[], ids: readonly string[]) => ModelRequest;
  /** Token features of a row's whole request. */
  features: (cells: readonly string[]) => Float64Array;
}

/** @throws UsageError / InputError (exit 2). */
export async function prepareJob(input: string, raw: RawClassifyOptions, env: NodeJS.ProcessEnv): Promise<PreparedJob> {
  const config = await resolveClassifyConfig(input, raw, env);
  const model = providerCatalog(config.provider).model(config.model);
  if (config.thinkingBudget === 0 && !model.canTurnOffReasoning) {
    throw new UsageError(
      'THINKING_CANNOT_BE_OFF',
      `${config.model} cannot turn thinking off: it answers --thinking-budget 0 with HTTP 400 ("Budget 0 is invalid. This model only works in thinking mode."). Give a budget of at least ${model.minReasoningBudget || 128}, or leave --thinking-budget out.`,
    );
  }
  const source = await openInput(config.input, config.inputOptions);
  const template = await compileAgainst(config.prompt, source, raw.prompt === undefined ? raw.promptFile : undefined);
  await requireDataRows(source);
  const examples = config.examplesFile !== undefined ? await examplesFor(config, template) : [];
  const mode: AnswerMode = config.labels ? { kind: 'labels', labels: config.labels } : config.schema ? { kind: 'schema', schema: config.schema } : { kind: 'text', maxOutputTokens: config.maxOutputTokens };
  const settings = {
    model: config.model,
    system: config.system,
    labels: config.labels,
    schema: config.schema?.json,
    temperature: config.temperature,
    maxOutputTokens: config.maxOutputTokens,
    thinkingBudget: config.thinkingBudget,
    examples,
    ...(config.serviceTier !== undefined ? { serviceTier: config.serviceTier } : {}),
  };
  const build = requestBuilder({ ...settings, template });
  const buildPack = packRequestBuilder(settings);
  const features = requestFeatures({ template, system: config.system, labels: config.labels, schema: config.schema?.json, examples });
  return { config, source, template, examples, mode, layout: resultLayout(source.columns, source.headerCells, config.schema?.properties, answerColumnOf(config)), build, buildPack, features };
}

/** The output column of the answer: --answer-column, else `label` with labels and `answer` in free-form mode. */
export function answerColumnOf(config: ClassifyConfig): string {
  return config.answerColumn ?? (config.labels ? 'label' : 'answer');
}

/**
 * Compiles the prompt against the input's columns. When placeholders are not columns but are cells of a record a few
 * lines down (a title row above the real header), the error says which `--header-row` to pass. With `promptFile`
 * (the --prompt-file the prompt was read from), the error names it with each unknown placeholder's line and column.
 * @throws UnknownColumnsError and the other UsageErrors of `compileTemplate`.
 */
async function compileAgainst(prompt: string, source: InputSource, promptFile: string | undefined): Promise<CompiledTemplate> {
  try {
    return compileTemplate(prompt, source.columns, new Set(source.ambiguousColumns));
  } catch (error) {
    if (error instanceof UnclosedPlaceholderError) throw error.inFile(promptFile);
    if (!(error instanceof UnknownColumnsError)) throw error;
    const sample = await sampleForHint(source).catch(() => []);
    throw error.withHint(headerRowHint(error, sample, source.dialect.format === 'xlsx' ? 'row' : 'line')).inFile(promptFile);
  }
}

/** Records to look for the real header in: the first 20 after the one taken as the header. */
async function sampleForHint(source: InputSource): Promise<Array<{ line: number; cells: string[] }>> {
  const count = 20;
  if (source.sampleRecords) return source.sampleRecords(count);
  const out: Array<{ line: number; cells: string[] }> = [];
  for await (const record of source.records()) {
    out.push({ line: record.line, cells: record.cells });
    if (out.length >= count) break;
  }
  return out;
}

/**
 * Reads --examples. With --schema the model answers JSON, so an example's answer is `{"label": …}`, checked against the
 * schema's `label` enum; a schema without a `label` property cannot take examples.
 */
async function examplesFor(config: ClassifyConfig, template: CompiledTemplate): Promise<FewShotExample[]> {
  const file = config.examplesFile as string;
  if (!config.schema) return loadExamples(file, template, config.labels);
  const label = config.schema.types.get('label');
  if (!label) throw new UsageError('EXAMPLES_INVALID', `--examples with --schema needs a "label" property in the schema: the examples' label column fills it.`);
  const allowed = label.enum?.filter((v): v is string => typeof v === 'string');
  const examples = await loadExamples(file, template, allowed && allowed.length > 0 ? allowed : undefined);
  return examples.map((e) => ({ prompt: e.prompt, answer: JSON.stringify({ label: e.answer }) }));
}
