/**
 * Shared helpers of the simulator tests: reading the reference fixtures, comparing JSON shapes, building
 * small scenarios, and posting to a running simulator over real HTTP on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenario } from '../../src/simulator/index.js';
import type { Scenario, SimClock, SimulatorHandle } from '../../src/simulator/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A fixture body of test/fixtures/gemini/ by file name (without .json). */
export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(path.join(here, '..', 'fixtures', 'gemini', `${name}.json`), 'utf8'));
}

/**
 * The shape of a JSON value: objects keep their keys (sorted) with the shapes of their values, arrays the
 * sorted set of their elements' distinct shapes (order and count of elements are ignored; compare them
 * separately where they matter), scalars their type name. Two bodies with the same fields and types have
 * the same shape, whatever the values.
 */
export function shapeOf(v: unknown): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    const shapes = new Map<string, unknown>();
    for (const item of v) {
      const s = shapeOf(item);
      shapes.set(JSON.stringify(s), s);
    }
    return [...shapes.keys()].sort().map((k) => shapes.get(k));
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = shapeOf((v as Record<string, unknown>)[k]);
    return out;
  }
  return typeof v;
}

/** Closes `sim` when there is one; resolves to undefined, for `afterEach(async () => (sim = await closeSim(sim)))`. */
export async function closeSim(sim: SimulatorHandle | undefined): Promise<undefined> {
  await sim?.close();
  return undefined;
}

/** A clock the test moves by hand. */
export class FakeClock implements SimClock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A one-project scenario with the given fields merged over a free-tier gemini-2.5-flash default. */
export function scenario(over: Record<string, unknown> = {}): Scenario {
  return parseScenario(
    {
      projects: [{ id: 'p1', keys: ['key-a', 'key-b'], limits: { 'gemini-2.5-flash': { rpm: 1000, tpm: 10_000_000 } } }],
      ...over,
    },
    'test-scenario',
  );
}

/** The body of a minimal classification request (`text/x.enum`, thinking off). */
export function enumRequest(text: string, labels = ['positive', 'negative', 'neutral'], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    contents: [{ role: 'user', parts: [{ text }] }],
    generationConfig: {
      responseMimeType: 'text/x.enum',
      responseSchema: { type: 'STRING', enum: labels },
      thinkingConfig: { thinkingBudget: 0 },
      ...extra,
    },
  };
}

/** POSTs JSON to `url + path` with the key in `x-goog-api-key` (none when `key` is null); returns status, headers and parsed body. */
export async function post(
  url: string,
  pathAndQuery: string,
  body: unknown,
  key: string | null = 'key-a',
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers['x-goog-api-key'] = key;
  const res = await fetch(url + pathAndQuery, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** A copy of a fixture body without the given top-level fields (e.g. the undocumented `turnToken`). */
export function without(body: unknown, ...fields: string[]): unknown {
  const copy = { ...(body as Record<string, unknown>) };
  for (const f of fields) delete copy[f];
  return copy;
}

/** The detail of a google.rpc.Status body whose @type ends with `name`. */
export function detail(json: any, name: string): any {
  return (json?.error?.details as any[] | undefined)?.find((d) => String(d['@type']).endsWith(`.${name}`));
}

/** The @type names (after the last dot) of a body's details, in order. */
export function detailOrder(json: any): string[] {
  return ((json?.error?.details as any[] | undefined) ?? []).map((d) => String(d['@type']).split('.').pop()!);
}

/** POST to generateContent of `model`. */
export function generate(url: string, body: unknown, key: string | null = 'key-a', model = 'gemini-2.5-flash') {
  return post(url, `/v1beta/models/${model}:generateContent`, body, key);
}
