/**
 * The simulator's OpenAI dialect driven by the official `openai` client (retries off) over real HTTP on 127.0.0.1:
 * chat/completions at /v1 and at Gemini's compatibility prefix /v1beta/openai, bearer keys, response_format
 * json_schema (strict, enum inside a root object) / json_object / text, max_completion_tokens, reasoning_effort, usage
 * and finish_reason, and the 400/401/404s a client must handle (docs/reference/batch-openai-vertex-facts.md §b).
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { countTokens } from '../../src/simulator/tokenizer.js';
import { scenario } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const LABELS = ['positive', 'negative', 'neutral'];
const KEY = 'sk-test-0123456789abcdefWXYZ';

/** A label schema as OpenAI's strict mode wants it: a root object, additionalProperties false, every key required. */
const labelFormat = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'label',
    strict: true,
    schema: { type: 'object', properties: { label: { type: 'string', enum: LABELS } }, required: ['label'], additionalProperties: false },
  },
};

function client(prefix = '/v1', key = KEY): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: sim!.url + prefix, maxRetries: 0 });
}

async function start(over: Record<string, unknown> = {}): Promise<void> {
  sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: [KEY], limits: { 'gemini-2.5-flash': { rpm: 1000, tpm: 10_000_000 } } }], ...over }));
}

async function rejection(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

const user = (text: string) => [{ role: 'user' as const, content: text }];

describe('chat/completions through the openai client', () => {
  it.each(['/v1', '/v1beta/openai'])('labels through a strict json_schema enum in a root object (%s)', async (prefix) => {
    await start();
    const r = await client(prefix).chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'system', content: 'Label the sentiment.' }, ...user('The delivery was late and the box was crushed.')],
      response_format: labelFormat,
      reasoning_effort: 'none',
      max_completion_tokens: 50,
    });
    const choice = r.choices[0]!;
    expect(choice.finish_reason).toBe('stop');
    const parsed = JSON.parse(choice.message.content!);
    expect(Object.keys(parsed)).toEqual(['label']);
    expect(LABELS).toContain(parsed.label);
    expect(r.object).toBe('chat.completion');
    expect(r.model).toBe('gemini-2.5-flash');
    expect(r.usage!.completion_tokens).toBe(countTokens(choice.message.content!));
    expect(r.usage!.completion_tokens_details!.reasoning_tokens).toBe(0);
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
    // The prompt counts the system text, the user text, a role token per content and the schema.
    const schemaTokens = countTokens(JSON.stringify(labelFormat.json_schema.schema));
    expect(r.usage!.prompt_tokens).toBe(countTokens('Label the sentiment.') + 1 + countTokens('The delivery was late and the box was crushed.') + 1 + schemaTokens);
    expect(sim!.stats().requests.byEndpoint).toEqual({ chatCompletions: 1 });
  });

  it('the same prompt gets the same label; json_object answers an object; text answers a sentence', async () => {
    await start();
    const ai = client();
    const ask = () => ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('same prompt'), response_format: labelFormat, reasoning_effort: 'none' });
    expect((await ask()).choices[0]!.message.content).toBe((await ask()).choices[0]!.message.content);
    const obj = await ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('Answer in JSON: is water wet?'), response_format: { type: 'json_object' }, reasoning_effort: 'none' });
    expect(typeof JSON.parse(obj.choices[0]!.message.content!)).toBe('object');
    const text = await ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('hello there'), response_format: { type: 'text' }, reasoning_effort: 'none' });
    expect(text.choices[0]!.message.content).toMatch(/^Simulated answer [0-9a-f]{4}: the prompt has 2 words\.$/);
  });

  it('thinking: by default the model reasons; low caps it at 1,024; reasoning that reaches max_completion_tokens gives length and no content', async () => {
    await start({ models: { 'gemini-2.5-flash': { thoughtTokens: [1500, 2000] } } });
    const ai = client();
    const dflt = await ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('why is the sky blue?') });
    const reasoning = dflt.usage!.completion_tokens_details!.reasoning_tokens!;
    expect(reasoning).toBeGreaterThanOrEqual(1500);
    expect(dflt.usage!.completion_tokens).toBe(reasoning + countTokens(dflt.choices[0]!.message.content!));
    const low = await ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('why is the sky blue?'), reasoning_effort: 'low' });
    expect(low.usage!.completion_tokens_details!.reasoning_tokens).toBeLessThanOrEqual(1024);
    const cut = await ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('why is the sky blue?'), max_completion_tokens: 20 });
    expect(cut.choices[0]!.finish_reason).toBe('length');
    expect(cut.choices[0]!.message.content).toBeNull();
    expect(cut.usage!.completion_tokens_details!.reasoning_tokens).toBe(19);
  });

  it('finish_reason content_filter for a blocked prompt and a SAFETY stop; max_tokens (legacy) is honoured', async () => {
    await start({
      scripts: [
        { match: '#blocked', responses: [{ kind: 'blocked' }] },
        { match: '#safety', responses: [{ kind: 'finish', finishReason: 'SAFETY' }] },
      ],
    });
    const ai = client();
    for (const marker of ['#blocked', '#safety']) {
      const r = await ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user(`x ${marker}`) });
      expect(r.choices[0]!.finish_reason).toBe('content_filter');
      expect(r.choices[0]!.message.content).toBeNull();
    }
    const r = await ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('a long answer please'), reasoning_effort: 'none', max_tokens: 3 });
    expect(r.choices[0]!.finish_reason).toBe('length');
    expect(r.usage!.completion_tokens).toBe(3);
  });

  it('strict mode refuses a schema without a root object, additionalProperties false or every key required (openai style)', async () => {
    await start();
    const ai = client();
    const bad = [
      [{ type: 'string', enum: LABELS }, /schema must be a JSON Schema of 'type: "object"', got 'type: "string"'/],
      [{ type: 'object', properties: { label: { type: 'string', enum: LABELS } }, required: ['label'] }, /In context=\(\), 'additionalProperties' is required to be supplied and to be false/],
      [{ type: 'object', properties: { label: { type: 'string' }, why: { type: 'string' } }, required: ['label'], additionalProperties: false }, /Missing 'why'/],
    ] as const;
    for (const [schema, message] of bad) {
      const err = await rejection(ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('x'), response_format: { type: 'json_schema', json_schema: { name: 'label', strict: true, schema } } }));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(message);
      expect(err.param).toBe('response_format');
    }
    // Not strict: accepted as is.
    const r = await ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('x'), response_format: { type: 'json_schema', json_schema: { name: 'label', schema: { type: 'string', enum: LABELS } } } });
    expect(LABELS).toContain(JSON.parse(r.choices[0]!.message.content!));
  });

  it('json_object needs the word "json" in the messages (openai style); a server without structured output refuses json_schema', async () => {
    await start({ openai: { responseFormats: ['json_object', 'text'] } });
    const ai = client();
    const noJson = await rejection(ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('is water wet?'), response_format: { type: 'json_object' } }));
    expect([noJson.status, noJson.param]).toEqual([400, 'messages']);
    const refused = await rejection(ai.chat.completions.create({ model: 'gemini-2.5-flash', messages: user('x'), response_format: labelFormat }));
    expect(refused.status).toBe(400);
    expect(refused.param).toBe('response_format');
    expect(refused.message).toContain("'response_format' of type 'json_schema' is not supported");
  });

  it('401 for a missing or unknown key (the key echoed masked, never whole); 404 model_not_found; 400 reasoning_effort none on a model that always thinks', async () => {
    await start();
    const missing = await fetch(`${sim!.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gemini-2.5-flash', messages: user('x') }) });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/^You didn't provide an API key/);
    const unknownKey = 'sk-unknown-key-abcdefghijkl9876';
    const bad = await rejection(client('/v1', unknownKey).chat.completions.create({ model: 'gemini-2.5-flash', messages: user('x') }));
    expect([bad.status, bad.code]).toEqual([401, 'invalid_api_key']);
    expect(bad.message).not.toContain(unknownKey);
    expect(bad.message).toContain(`sk-${'*'.repeat(unknownKey.length - 7)}9876`);
    const notFound = await rejection(client().chat.completions.create({ model: 'gpt-nonexistent', messages: user('x') }));
    expect([notFound.status, notFound.code]).toEqual([404, 'model_not_found']);
    const pro = await rejection(client().chat.completions.create({ model: 'gemini-2.5-pro', messages: user('x'), reasoning_effort: 'none' }));
    expect([pro.status, pro.code]).toEqual([400, 'unsupported_value']);
  });

  it('at /v1beta/openai errors are Google errors wrapped in a JSON array (no openai-style body)', async () => {
    await start();
    const res = await fetch(`${sim!.url}/v1beta/openai/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: 'gemini-9-nonexistent', messages: user('x') }),
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as Array<{ error: { message: string } }>;
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(1);
    expect(body[0]?.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(body[0]?.error.message).toContain('models/gemini-9-nonexistent is not found');
  });

  it('a scenario may force a style whatever the path', async () => {
    await start({ openai: { style: 'gemini-compat' } });
    const res = await fetch(`${sim!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nobody' },
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: user('x') }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Array<{ error: { details: Array<{ reason: string }> } }>)[0]?.error.details[0]?.reason).toBe('API_KEY_INVALID');
  });
});
