/**
 * The official @google/genai SDK, unchanged, against the simulator (httpOptions.baseUrl, SDK retries off as by
 * default, docs/reference/gemini-api-facts.md §5.3–5.4). Errors reach the caller as ApiError whose message is the JSON body (§5.2).
 */
import { ApiError, GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { FakeClock, scenario } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const LABELS = ['positive', 'negative', 'neutral'];
const config = { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: LABELS }, thinkingConfig: { thinkingBudget: 0 } };

function client(key = 'key-a'): GoogleGenAI {
  return new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: sim!.url } });
}

describe('@google/genai against the simulator', () => {
  it('classifies with an enum schema and a system instruction', async () => {
    sim = await startSimulator(scenario());
    const r = await client().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'The delivery was late and the box was crushed.',
      config: { ...config, systemInstruction: 'Label the sentiment.', temperature: 0 },
    });
    expect(LABELS).toContain(r.text);
    expect(r.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(r.candidates?.[0]?.finishReason).toBe('STOP');
    expect(r.modelVersion).toBe('gemini-2.5-flash');
  });

  it('exceeding RPM throws ApiError 429 whose JSON names quotaId, quotaValue and retryDelay', async () => {
    const clock = new FakeClock(Date.parse('2025-06-01T00:00:00Z'));
    sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpm: 2, tpm: 250000 } } }] }), { clock });
    const ai = client();
    const call = (text: string) => ai.models.generateContent({ model: 'gemini-2.5-flash', contents: text, config });
    await call('one');
    clock.advance(15_000);
    await call('two');
    clock.advance(15_000);
    const err = await call('three').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    const apiError = err as ApiError;
    expect(apiError.status).toBe(429);
    const body = JSON.parse(apiError.message);
    const details = body.error.details as any[];
    const violation = details.find((d) => d['@type'].endsWith('QuotaFailure')).violations[0];
    expect(violation.quotaId).toBe('GenerateRequestsPerMinutePerProjectPerModel-FreeTier');
    expect(violation.quotaValue).toBe('2');
    expect(details.find((d) => d['@type'].endsWith('RetryInfo')).retryDelay).toBe('30s');
    expect(sim.stats().requests.byStatus).toEqual({ '200': 2, '429': 1 });
  });

  it('thinking that reaches maxOutputTokens: response.text is undefined, finishReason MAX_TOKENS', async () => {
    sim = await startSimulator(scenario());
    const r = await client().models.generateContent({ model: 'gemini-2.5-flash', contents: 'why is the sky blue?', config: { maxOutputTokens: 20 } });
    expect(r.text).toBeUndefined();
    expect(r.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(r.usageMetadata?.thoughtsTokenCount).toBe(19);
  });

  it('countTokens, a blocked prompt, a 503 and an HTML 502 through the SDK', async () => {
    sim = await startSimulator(
      scenario({
        scripts: [
          { match: '#sim:blocked', responses: [{ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' }] },
          { match: '#sim:503', responses: [{ kind: 'error', fixture: '503-overloaded' }] },
          { match: '#sim:502', responses: [{ kind: 'error', fixture: 'html-502' }] },
        ],
      }),
    );
    const ai = client();
    const counted = await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'The quick brown fox jumps over the lazy dog.' });
    expect(counted.totalTokens).toBe(11);
    const blocked = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x #sim:blocked', config });
    expect(blocked.promptFeedback?.blockReason).toBe('PROHIBITED_CONTENT');
    expect(blocked.text).toBeUndefined();
    const e503 = (await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x #sim:503', config }).catch((e: unknown) => e)) as ApiError;
    expect([e503.status, JSON.parse(e503.message).error.status]).toEqual([503, 'UNAVAILABLE']);
    const e502 = (await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x #sim:502', config }).catch((e: unknown) => e)) as ApiError;
    expect(e502.status).toBe(502);
    expect(JSON.parse(e502.message).error.message).toMatch(/^<!DOCTYPE html>/); // the SDK wraps non-JSON bodies
  });

  it('streams with generateContentStream', async () => {
    sim = await startSimulator(scenario());
    let text = '';
    for await (const chunk of await client().models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'stream this', config })) text += chunk.text ?? '';
    expect(LABELS).toContain(text);
  });

  it('an unknown key is an ApiError 400 API_KEY_INVALID', async () => {
    sim = await startSimulator(scenario());
    const err = (await client('wrong').models.generateContent({ model: 'gemini-2.5-flash', contents: 'x', config }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(400);
    expect(JSON.parse(err.message).error.details[0].reason).toBe('API_KEY_INVALID');
  });
});
