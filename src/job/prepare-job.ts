/**
 * What `classify` and `plan` share: the options validated, the input opened, the template compiled against its columns,
 * the few-shot examples read, and the functions that build a row's request and its token features. Every usage or input
 * error surfaces here, before any API call (exit 2).
 */
import { resolveClassifyConfig, type ClassifyConfig, type RawClassifyOptions } from '../config/classify-config.js';
import type { AnswerMode } from '../gemini/judge-answer.js';
import type { GenerateRequest } from '../gemini/gemini-client.js';
import type { InputSource } from '../input/input-source.js';
import { openInput } from '../input/open-input.js';
import { requestBuilder, type RequestVariant } from '../prompt/build-request.js';
import { loadExamples, type FewShotExample } from '../prompt/examples.js';
import { requestFeatures } from '../prompt/request-features.js';
import { compileTemplate, type CompiledTemplate } from '../prompt/template.js';
import { resultLayout, type ResultLayout } from './write-results.js';

export interface PreparedJob {
  config: ClassifyConfig;
  source: InputSource;
  template: CompiledTemplate;
  examples: FewShotExample[];
  mode: AnswerMode;
  layout: ResultLayout;
  /** The request of a row. */
  build(cells: readonly string[], variant?: RequestVariant): GenerateRequest;
  /** Token features of a row's whole request. */
  features(cells: readonly string[]): Float64Array;
}

/** @throws UsageError / InputError (exit 2). */
export async function prepareJob(input: string, raw: RawClassifyOptions, env: NodeJS.ProcessEnv): Promise<PreparedJob> {
  const config = await resolveClassifyConfig(input, raw, env);
  const source = await openInput(config.input, config.inputOptions);
  const template = compileTemplate(config.prompt, source.columns, new Set(source.ambiguousColumns));
  const examples = config.examplesFile !== undefined ? await loadExamples(config.examplesFile, template, config.labels) : [];
  const mode: AnswerMode = config.labels ? { kind: 'labels', labels: config.labels } : config.schema ? { kind: 'schema', schema: config.schema } : { kind: 'text' };
  const build = requestBuilder({
    model: config.model,
    template,
    system: config.system,
    labels: config.labels,
    schema: config.schema?.json,
    temperature: config.temperature,
    maxOutputTokens: config.maxOutputTokens,
    thinkingBudget: config.thinkingBudget,
    examples,
  });
  const features = requestFeatures({ template, system: config.system, labels: config.labels, schema: config.schema?.json, examples });
  return { config, source, template, examples, mode, layout: resultLayout(source.columns, source.headerCells, config.schema?.properties), build, features };
}
