/**
 * A Batch API input line holds the REST body of generateContent (docs/batch-runner.md "Input lines"): the request mapping
 * must produce exactly what @google/genai sends on the wire for the same call — generationConfig nested, serviceTier
 * and systemInstruction at the root — for every kind of request the job builds. The SDK's body is captured through a
 * fetch of the test's own (nothing leaves the process).
 */
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/providers/contract.js';
import { geminiCall } from '../../../src/providers/gemini/gemini-request.js';
import { restRequest } from '../../../src/providers/gemini/rest-request.js';
import { createGeminiProvider } from '../../../src/providers/gemini/provider.js';

/** The JSON body @google/genai 2.32 sends for `call`. */
async function sdkWireBody(request: ModelRequest): Promise<unknown> {
  let body: unknown;
  const fetch = async (_url: unknown, init?: RequestInit): Promise<Response> => {
    body = JSON.parse(init?.body as string); // the SDK sends its JSON as a string
    return new Response(JSON.stringify({ candidates: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: 'http://127.0.0.1:9', fetch } });
  await ai.models.generateContent(geminiCall(request));
  return body;
}

const base: ModelRequest = { model: 'gemini-2.5-flash', prompt: 'Is "it" late?\nSay.', output: { kind: 'labels', labels: ['yes', 'no'] }, temperature: 0, reasoning: 'least' };
const schema = { type: 'object', properties: { label: { type: 'string', enum: ['a', 'b'] }, note: { type: 'string' } }, required: ['label'] };

const CASES: Array<[string, ModelRequest]> = [
  ['labels (enum output, thinking off, room for a label)', base],
  ['labels with a system instruction and few-shot turns', { ...base, system: 'Answer with one word.', examples: [{ prompt: 'Early?', answer: 'no' }] }],
  ['a retry with more room', { ...base, moreRoom: true, reasoning: { budgetTokens: 1024 } }],
  ['a thinking level (Gemini 3)', { ...base, model: 'gemini-3-flash-preview' }],
  ['structured output', { ...base, output: { kind: 'json', schema, name: 'answer' }, maxOutputTokens: 300 }],
  ['free text at the default temperature', { model: 'gemini-2.5-flash', prompt: 'Summarise: ü ✓ 漢字', output: { kind: 'text' }, reasoning: { budgetTokens: -1 } }],
  ['a service tier', { ...base, serviceTier: 'flex' }],
];

describe('restRequest', () => {
  it.each(CASES)('%s: the same body as the SDK sends', async (_name, request) => {
    const ours = restRequest(geminiCall(request));
    expect(ours).toEqual(await sdkWireBody(request));
    // REST nesting, not the SDK's flattened config.
    expect(ours).not.toHaveProperty('config');
    expect(ours).not.toHaveProperty('thinkingConfig');
  });

  it('refuses a config field it has no mapping for, instead of dropping it', () => {
    const call = geminiCall(base);
    (call.config as Record<string, unknown>).topK = 3;
    expect(() => restRequest(call)).toThrow(/topK/);
  });

  it('the provider writes one JSONL line: the key, then the REST request, nothing else', () => {
    const service = createGeminiProvider({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000, env: {} }).batches?.({ alias: 'key-1', project: 'p', secret: 'k' });
    const line = service?.requestLine('r7:abc', base) ?? '';
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ key: 'r7:abc', request: restRequest(geminiCall(base)) });
  });
});
