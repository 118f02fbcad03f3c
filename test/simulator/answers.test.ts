/**
 * Successful answers over plain fetch: shapes of the recorded fixtures (200-*.json), enum and JSON answers,
 * thinking and the MAX_TOKENS-without-text pitfall (docs/reference/gemini-api-facts.md §4.5–4.7), countTokens, snake_case
 * requests and streaming.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { enumRequest, fixture, generate, post, scenario, shapeOf, without } from './helpers.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator(scenario());
});
afterAll(() => sim.close());

const LABELS = ['low', 'medium', 'high'];

describe('generateContent answers', () => {
  it('an enum request with thinking has the recorded shape and answers one member, the same each time', async () => {
    const body = {
      contents: [{ parts: [{ text: 'How urgent is: server down?' }], role: 'user' }],
      systemInstruction: { parts: [{ text: 'Rate urgency.' }], role: 'user' },
      generationConfig: { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: LABELS } },
    };
    const a = await generate(sim.url, body);
    expect(a.status).toBe(200);
    expect(shapeOf(a.json)).toEqual(shapeOf(without(fixture('200-enum-answer-system-instruction'), 'turnToken')));
    const text = a.json.candidates[0].content.parts[0].text;
    expect(LABELS).toContain(text);
    const u = a.json.usageMetadata;
    expect(u.totalTokenCount).toBe(u.promptTokenCount + u.candidatesTokenCount + u.thoughtsTokenCount);
    const b = await generate(sim.url, body);
    expect(b.json.candidates[0].content.parts[0].text).toBe(text);
    expect(b.json.responseId).not.toBe(a.json.responseId);
  });

  it('spreads answers over the enum members for different prompts', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) seen.add((await generate(sim.url, enumRequest(`ticket ${i}`, LABELS))).json.candidates[0].content.parts[0].text);
    expect([...seen].sort()).toEqual([...LABELS].sort());
  });

  it('thinkingBudget 0 spends no thought tokens: no thoughtsTokenCount', async () => {
    const r = await generate(sim.url, enumRequest('calm day', LABELS));
    expect(r.json.usageMetadata.thoughtsTokenCount).toBeUndefined();
    expect(r.json.usageMetadata.totalTokenCount).toBe(r.json.usageMetadata.promptTokenCount + r.json.usageMetadata.candidatesTokenCount);
  });

  it('thoughts reaching maxOutputTokens give 200 with no text and MAX_TOKENS, like the recording', async () => {
    const r = await generate(sim.url, { contents: [{ parts: [{ text: 'why is the sky blue?' }], role: 'user' }], generationConfig: { candidateCount: 1, maxOutputTokens: 20 } });
    const recorded = fixture('200-thinking-max-tokens-no-text') as any;
    expect(shapeOf(r.json)).toEqual(shapeOf(without(recorded, 'turnToken')));
    expect(without(r.json, 'responseId')).toEqual(without(recorded, 'turnToken', 'responseId'));
  });

  it('gemini-2.5-flash-lite does not think by default', async () => {
    const r = await generate(sim.url, { contents: [{ parts: [{ text: 'hello' }] }] }, 'key-a', 'gemini-2.5-flash-lite');
    expect(r.status).toBe(200);
    expect(r.json.usageMetadata.thoughtsTokenCount).toBeUndefined();
    expect(typeof r.json.candidates[0].content.parts[0].text).toBe('string');
  });

  it('application/json with a schema answers JSON text valid for the schema', async () => {
    const schema = {
      type: 'OBJECT',
      properties: {
        label: { type: 'STRING', enum: LABELS },
        confidence: { type: 'NUMBER', minimum: 0, maximum: 1 },
        stars: { type: 'INTEGER', minimum: 1, maximum: 5 },
        tags: { type: 'ARRAY', items: { type: 'STRING' } },
        spam: { type: 'BOOLEAN' },
      },
      required: ['label'],
    };
    for (let i = 0; i < 10; i++) {
      const r = await generate(sim.url, { contents: [{ parts: [{ text: `review ${i}` }] }], generationConfig: { responseMimeType: 'application/json', responseSchema: schema, thinkingConfig: { thinkingBudget: 0 } } });
      const value = JSON.parse(r.json.candidates[0].content.parts[0].text);
      expect(LABELS).toContain(value.label);
      expect(value.confidence).toBeGreaterThanOrEqual(0);
      expect(value.confidence).toBeLessThanOrEqual(1);
      expect(Number.isInteger(value.stars) && value.stars >= 1 && value.stars <= 5).toBe(true);
      expect(Array.isArray(value.tags) && value.tags.every((t: unknown) => typeof t === 'string')).toBe(true);
      expect(typeof value.spam).toBe('boolean');
    }
  });

  it('the response schema counts toward promptTokenCount', async () => {
    const plain = await generate(sim.url, { contents: [{ parts: [{ text: 'same prompt' }] }], generationConfig: { thinkingConfig: { thinkingBudget: 0 } } });
    const withSchema = await generate(sim.url, enumRequest('same prompt', LABELS));
    expect(withSchema.json.usageMetadata.promptTokenCount).toBeGreaterThan(plain.json.usageMetadata.promptTokenCount);
  });

  it('accepts snake_case request fields', async () => {
    const r = await generate(sim.url, {
      contents: [{ role: 'user', parts: [{ text: 'snake case' }] }],
      system_instruction: { parts: [{ text: 'Rate urgency.' }] },
      generation_config: { response_mime_type: 'text/x.enum', response_schema: { type: 'STRING', enum: LABELS }, thinking_config: { thinking_budget: 0 } },
    });
    expect(LABELS).toContain(r.json.candidates[0].content.parts[0].text);
    expect(r.json.usageMetadata.thoughtsTokenCount).toBeUndefined();
  });

  it('answers a request shaped like the older @google/generative-ai client (LangChain) sends', async () => {
    const res = await fetch(`${sim.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-goog-api-client': 'genai-js/0.24.1', 'x-goog-api-key': 'key-b' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'Is this spam?' }] }],
        generationConfig: { candidateCount: 1, temperature: 0, maxOutputTokens: 2048, responseMimeType: 'text/x.enum', responseSchema: { type: 'string', enum: ['spam', 'ham'] } },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      }),
    });
    const json = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(['spam', 'ham']).toContain(json.candidates[0].content.parts[0].text);
  });

  it('serves the /v1/ path and streamGenerateContent as one SSE event', async () => {
    expect((await post(sim.url, '/v1/models/gemini-2.5-flash:generateContent', enumRequest('v1'))).status).toBe(200);
    const s = await post(sim.url, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', enumRequest('stream'));
    expect(s.headers.get('content-type')).toBe('text/event-stream');
    const event = JSON.parse(/^data: (.*)\r\n\r\n$/s.exec(s.text)![1]!);
    expect(event.candidates[0].content.role).toBe('model');
  });
});

describe('countTokens', () => {
  it('counts like the recording: 10 part tokens + 1 role token (fixture 200-count-tokens)', async () => {
    const r = await post(sim.url, '/v1beta/models/gemini-2.5-flash:countTokens', {
      contents: [{ parts: [{ text: 'The quick brown fox jumps over the lazy dog.' }], role: 'user' }],
    });
    expect(r.json).toEqual(fixture('200-count-tokens'));
  });

  it('agrees with promptTokenCount of the same request (generateContentRequest form)', async () => {
    const request = enumRequest('count me the same way', LABELS);
    const counted = await post(sim.url, '/v1beta/models/gemini-2.5-flash:countTokens', { generateContentRequest: { model: 'models/gemini-2.5-flash', ...request } });
    const answered = await generate(sim.url, request);
    expect(counted.json.totalTokens).toBe(answered.json.usageMetadata.promptTokenCount);
  });
});
