/**
 * Token features (schedule/token-estimator.ts) of a row's whole request: its rendered prompt plus everything sent with
 * every request — system instruction, few-shot examples, and the response schema, which counts toward input tokens
 * ("the size of the response schema counts towards the input token limit",
 * https://firebase.google.com/docs/ai-logic/generate-structured-output).
 */
import type { ModelRequest } from '../providers/contract.js';
import { tokenFeatures } from '../schedule/token-estimator.js';
import type { FewShotExample } from './examples.js';
import type { CompiledTemplate } from './template.js';

export interface FeatureSettings {
  template: CompiledTemplate;
  system: string | undefined;
  labels: readonly string[] | undefined;
  schema: Record<string, unknown> | undefined;
  examples: readonly FewShotExample[];
}

/** Returns the feature function of a job's rows. */
export function requestFeatures(s: FeatureSettings): (cells: readonly string[]) => Float64Array {
  const fixedText = [
    s.system ?? '',
    ...s.examples.flatMap((e) => [e.prompt, e.answer]),
    s.labels ? JSON.stringify({ type: 'STRING', enum: s.labels }) : s.schema ? JSON.stringify(s.schema) : '',
  ].join('\n');
  const fixed = tokenFeatures(fixedText);
  return (cells) => {
    const x = tokenFeatures(s.template.render(cells));
    // Index 0 is the constant term: one per request, not one per piece of text.
    for (let i = 1; i < x.length; i++) x[i]! += fixed[i] ?? 0;
    return x;
  };
}

/**
 * Token features of a request as it is sent (a pack's, ../prompt/pack-request.ts): system instruction, examples, the
 * wanted output's schema and the prompt, with one constant term.
 */
export function modelRequestFeatures(request: ModelRequest): Float64Array {
  const out = request.output;
  const schema = out.kind === 'labels' ? JSON.stringify({ type: 'STRING', enum: out.labels }) : out.kind === 'json' ? JSON.stringify(out.schema) : '';
  return tokenFeatures([request.system ?? '', ...(request.examples ?? []).flatMap((e) => [e.prompt, e.answer]), schema, request.prompt].join('\n'));
}
