/**
 * promptTokenCount of a request: the tokens of every text part of `contents` and `systemInstruction`, one
 * role token per Content (fixture 200-count-tokens.json: 10 part tokens + 1 role token = 11), 258 tokens per
 * image/file part (the documented per-image cost), plus the JSON of responseSchema / responseJsonSchema
 * ("the size of the response schema counts towards the input token limit",
 * https://firebase.google.com/docs/ai-logic/generate-structured-output).
 */
import type { ContentView, RequestView } from './request-view.js';
import { countTokens } from './tokenizer.js';

/** Tokens per Content for its role. */
export const ROLE_TOKENS = 1;
/** Tokens per inline image or file part (https://ai.google.dev/gemini-api/docs/tokens). */
export const MEDIA_PART_TOKENS = 258;

/** Token counts of one Content, in the countTokens response's shape. */
export interface ContentTokens {
  partTokens: number[];
  roleTokens: number;
}

/** The breakdown of promptTokenCount. */
export interface PromptTokens {
  total: number;
  contents: ContentTokens[];
  system?: ContentTokens;
  schemaTokens: number;
}

function contentTokens(c: ContentView): ContentTokens {
  const partTokens = c.texts.map(countTokens);
  for (let i = 0; i < c.mediaParts; i++) partTokens.push(MEDIA_PART_TOKENS);
  return { partTokens, roleTokens: ROLE_TOKENS };
}

function sum(ct: ContentTokens): number {
  let n = ct.roleTokens;
  for (const p of ct.partTokens) n += p;
  return n;
}

/** Counts the input tokens of `view`. */
export function promptTokens(view: RequestView): PromptTokens {
  const contents = view.contents.map(contentTokens);
  let total = 0;
  for (const c of contents) total += sum(c);
  const result: PromptTokens = { total, contents, schemaTokens: 0 };
  if (view.system) {
    result.system = contentTokens(view.system);
    result.total += sum(result.system);
  }
  if (view.schema !== undefined) result.schemaTokens += countTokens(JSON.stringify(view.schema));
  if (view.jsonSchema !== undefined) result.schemaTokens += countTokens(JSON.stringify(view.jsonSchema));
  result.total += result.schemaTokens;
  return result;
}

/** The body of a countTokens answer (fixture 200-count-tokens.json). */
export function countTokensBody(pt: PromptTokens): Record<string, unknown> {
  return {
    contentTokens: pt.contents,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: pt.total }],
    systemInstructionsTokens: pt.system ?? {},
    totalTokens: pt.total,
  };
}
