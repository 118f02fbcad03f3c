/**
 * The simulator's Vertex AI paths driven by @google/genai 2.32 in `vertexai` mode, over real HTTP on 127.0.0.1, with an
 * injected bearer token (Application Default Credentials cannot run here): the path the SDK really calls
 * (`/v1beta1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`, read from its dist), and Dynamic
 * Shared Quota 429s without details (docs/reference/gemini-api-facts.md §2.4, §5.7; docs/reference/batch-openai-vertex-facts.md §c).
 */
import { ApiError, GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { FakeClock, fixture, scenario } from './helpers.js';

const TOKEN = 'ya29.test-access-token-0123456789';
const LABELS = ['positive', 'negative', 'neutral'];
const config = { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: LABELS }, thinkingConfig: { thinkingBudget: 0 } };

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** A Vertex client whose google-auth client hands out `token`, recording the URL and Authorization of each request. */
function vertexClient(token: string, seen: { url: string; authorization: string | null }[] = []): GoogleGenAI {
  const authClient = { getRequestHeaders: async () => new Headers({ authorization: `Bearer ${token}` }) };
  const recording: typeof fetch = async (input, init) => {
    seen.push({ url: input instanceof Request ? input.url : String(input), authorization: new Headers(init?.headers).get('authorization') });
    return fetch(input, init);
  };
  return new GoogleGenAI({
    vertexai: true,
    project: 'my-project',
    location: 'us-central1',
    googleAuthOptions: { authClient: authClient as never },
    httpOptions: { baseUrl: sim!.url, fetch: recording },
  });
}

describe('Vertex AI paths through @google/genai (vertexai: true)', () => {
  it('classifies through /v1beta1/projects/…/publishers/google/models/…:generateContent with the bearer token', async () => {
    sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: [TOKEN], limits: { 'gemini-2.5-flash': { rpm: 100 } } }] }));
    const seen: { url: string; authorization: string | null }[] = [];
    const r = await vertexClient(TOKEN, seen).models.generateContent({ model: 'gemini-2.5-flash', contents: 'The box was crushed.', config });
    expect(LABELS).toContain(r.text);
    expect(r.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(seen).toEqual([
      { url: `${sim.url}/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`, authorization: `Bearer ${TOKEN}` },
    ]);
    expect(sim.stats().keys).toEqual({ 'p1/key-1': expect.objectContaining({ project: 'p1', ok: 1 }) });
  });

  it('a quota 429 is the Dynamic Shared Quota body: no QuotaFailure, no RetryInfo, no Retry-After, whatever the flavour', async () => {
    const clock = new FakeClock(Date.parse('2025-06-01T12:00:00Z'));
    sim = await startSimulator(
      scenario({ quota429: { flavour: 'full-new', retryAfterHeader: true }, projects: [{ id: 'p1', keys: [TOKEN], limits: { 'gemini-2.5-flash': { rpm: 1 } } }] }),
      { clock },
    );
    const ai = vertexClient(TOKEN);
    await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'one', config });
    clock.advance(1_000);
    const err = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'two', config }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    expect(JSON.parse((err as ApiError).message)).toEqual(fixture('429-vertex-capacity-inferred'));
    const raw = await fetch(`${sim.url}/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'three' }] }] }),
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBeNull();
    expect(sim.stats().rateLimited.total).toBe(2);
  });

  it('shared-capacity faults (429-bare) on Vertex paths are the same DSQ body', async () => {
    sim = await startSimulator(scenario({ faults: { '429-bare': 1 }, projects: [{ id: 'p1', keys: [TOKEN] }] }));
    const err = await vertexClient(TOKEN).models.generateContent({ model: 'gemini-2.5-flash', contents: 'x', config }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as ApiError).status).toBe(429);
    expect(JSON.parse((err as ApiError).message)).toEqual(fixture('429-vertex-capacity-inferred'));
  });

  it('401 UNAUTHENTICATED without a token or with an unknown one; 404 names the publisher model', async () => {
    sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: [TOKEN] }] }));
    const url = `${sim.url}/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`;
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
    const none = await fetch(url, { method: 'POST', body });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
    const wrong = await vertexClient('ya29.someone-else').models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((wrong as ApiError).status).toBe(401);
    const missing = await vertexClient(TOKEN).models.generateContent({ model: 'gemini-9', contents: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((missing as ApiError).status).toBe(404);
    expect(JSON.parse((missing as ApiError).message).error.message).toContain('Publisher Model `projects/my-project/locations/us-central1/publishers/google/models/gemini-9` was not found');
  });

  it('express mode: an API key on /v1beta1/publishers/google/models/…', async () => {
    sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: ['express-key'] }] }));
    const seen: string[] = [];
    const ai = new GoogleGenAI({
      vertexai: true,
      apiKey: 'express-key',
      httpOptions: { baseUrl: sim.url, fetch: async (input, init) => (seen.push(String(input)), fetch(input, init)) },
    });
    const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x', config });
    expect(LABELS).toContain(r.text);
    expect(seen).toEqual([`${sim.url}/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent`]);
  });
});
