/**
 * Scenario files: the samples load, defaults apply, and every bad field is an InputError naming the file,
 * line:column and JSON path (code SIM_SCENARIO_INVALID).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { generousScenario, loadScenario, parseScenario, withLimitOverrides } from '../../src/simulator/index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = mkdtempSync(path.join(tmpdir(), 'sim-scenario-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

describe('sample scenarios', () => {
  it('free-tier.json: one project, two keys sharing gemini-2.5-flash 10 RPM / 250,000 TPM / 250 RPD', () => {
    const s = loadScenario(path.join(repo, 'samples', 'scenarios', 'free-tier.json'));
    expect(s.projects).toHaveLength(1);
    expect(s.projects[0]!.keys).toHaveLength(2);
    expect(s.projects[0]!.limits['gemini-2.5-flash']).toMatchObject({ rpm: 10, tpm: 250_000, rpd: 250, window: { kind: 'rolling' } });
    expect(s.projects[0]!.limits['gemini-2.0-flash']!.limitZero).toBe(true);
  });

  it('two-projects-faults.json: two projects of two keys, 3% 503s, 1% resets, median latency 200 ms', () => {
    const s = loadScenario(path.join(repo, 'samples', 'scenarios', 'two-projects-faults.json'));
    expect(s.projects.map((p) => [p.id, p.keys.length, p.tier])).toEqual([
      ['project-a', 2, 'paid'],
      ['project-b', 2, 'paid'],
    ]);
    expect(s.faults.rates).toMatchObject({ '503': 0.03, reset: 0.01, '500': 0 });
    expect(s.latency.medianMs).toBe(200);
  });
});

describe('defaults', () => {
  it('fills seed, flavour, window, tier and the model catalogue', () => {
    const s = parseScenario({ projects: [{ id: 'p', keys: ['k'], limits: { 'my-model': { rpm: 1 } } }] }, 'inline');
    expect(s.seed).toBe(1);
    expect(s.quota429).toEqual({ flavour: 'full-new', retryAfterHeader: false });
    expect(s.projects[0]!.tier).toBe('free');
    expect(s.projects[0]!.keys[0]).toEqual({ key: 'k', alias: 'p/key-1', leaked: false });
    expect(s.models['gemini-2.5-flash']!.thinking).toBe('dynamic');
    expect(s.models['gemini-2.5-pro']!.thinking).toBe('always');
    expect(s.models['gemini-2.5-flash-lite']!.thinking).toBe('off');
    expect(s.models['my-model']).toBeDefined(); // named in limits: known
    expect(s.countRejected).toBe(false);
  });

  it('a batch block keeps the defaults it does not set', () => {
    const s = parseScenario({ projects: [{ id: 'p' }], batch: { pendingMs: 5, lineErrors: [{ code: 13, fraction: 0.1 }] } }, 'inline');
    expect(s.batch).toMatchObject({ pendingMs: 5, runningMs: 2000, expireMs: 48 * 3_600_000, concurrentBatches: 100, shuffle: true, lineErrors: [{ code: 13, fraction: 0.1 }] });
    expect(s.batch!.enqueuedTokens).toBeUndefined();
  });

  it('bucket windows default burst to a sixth of the minute limit', () => {
    const s = parseScenario({ window: 'bucket', projects: [{ id: 'p', limits: { '*': { rpm: 60, tpm: 6000 } } }] }, 'inline');
    expect(s.projects[0]!.limits['*']!.window).toEqual({ kind: 'bucket', burst: 10, tokenBurst: 1000 });
  });

  it('generousScenario accepts any key with 100,000 RPM and 100,000,000 TPM, no RPD', () => {
    const s = generousScenario();
    expect(s.acceptAnyKey).toBe(true);
    expect(s.projects[0]!.limits['*']).toMatchObject({ rpm: 100_000, tpm: 100_000_000 });
    expect(s.projects[0]!.limits['*']!.rpd).toBeUndefined();
    expect(s.latency.medianMs).toBe(0);
  });

  it('withLimitOverrides sets every project and model, including limit 0 entries', () => {
    const s = withLimitOverrides(loadScenario(path.join(repo, 'samples', 'scenarios', 'free-tier.json')), { rpm: 3, rpd: 7 });
    for (const l of Object.values(s.projects[0]!.limits)) expect(l).toMatchObject({ rpm: 3, rpd: 7, limitZero: false });
    expect(s.projects[0]!.limits['gemini-2.5-flash']!.tpm).toBe(250_000);
  });
});

describe('validation errors', () => {
  const cases: [string, unknown, RegExp][] = [
    ['wrong type', { projects: [{ id: 'p', limits: { 'gemini-2.5-flash': { rpm: 'ten' } } }] }, /\$\.projects\[0\]\.limits\["gemini-2\.5-flash"\]\.rpm: expected a whole number >= 0, got "ten"/],
    ['unknown field', { projects: [{ id: 'p', limts: {} }] }, /\$\.projects\[0\]\.limts: unknown field; expected one of id, tier, keys, limits/],
    ['bad flavour', { quota429: 'loud', projects: [{ id: 'p' }] }, /\$\.quota429: expected one of "full-new"/],
    ['no projects', { projects: [] }, /\$\.projects: expected at least one project/],
    ['fault rates over 1', { faults: { '503': 0.7, '500': 0.6 }, projects: [{ id: 'p' }] }, /\$\.faults: the fault rates add up to 1\.3/],
    ['duplicate key', { projects: [{ id: 'a', keys: ['k'] }, { id: 'b', keys: ['k'] }] }, /\$\.projects\[1\]\.keys\[0\]: this key appears twice/],
    ['acceptAnyKey without its project', { acceptAnyKey: true, projects: [{ id: 'p' }] }, /\$\.defaultProject: acceptAnyKey charges unknown keys to project "default"/],
    ['limit other than 0', { projects: [{ id: 'p', limits: { m: { limit: 5 } } }] }, /\.limit: expected 0/],
    ['bad script kind', { projects: [{ id: 'p' }], scripts: [{ match: '#x', responses: [{ kind: 'explode' }] }] }, /\$\.scripts\[0\]\.responses\[0\]\.kind: expected one of "enum"/],
    ['p99 below median', { projects: [{ id: 'p' }], latency: { medianMs: 200, p99Ms: 100 } }, /\$\.latency\.p99Ms: expected a number from 200/],
    ['bad openai style', { projects: [{ id: 'p' }], openai: { style: 'azure' } }, /\$\.openai\.style: expected one of "auto", "openai", "gemini-compat"/],
    ['bad response format', { projects: [{ id: 'p' }], openai: { responseFormats: ['text', 'xml'] } }, /\$\.openai\.responseFormats\[1\]: expected one of "json_schema"/],
    ['bad billing code', { projects: [{ id: 'p', insufficientQuota: { code: 'broke' } }] }, /\$\.projects\[0\]\.insufficientQuota\.code: expected one of "insufficient_quota"/],
    ['unknown batch field', { projects: [{ id: 'p' }], batch: { pendingSeconds: 5 } }, /\$\.batch\.pendingSeconds: unknown field; expected one of pendingMs, runningMs/],
    ['batch line error code out of range', { projects: [{ id: 'p' }], batch: { lineErrors: [{ code: 500 }] } }, /\$\.batch\.lineErrors\[0\]\.code: expected a whole number from 1 to 16, got 500/],
    ['batch fraction over 1', { projects: [{ id: 'p' }], batch: { blocked: [{ fraction: 1.5 }] } }, /\$\.batch\.blocked\[0\]\.fraction: expected a number from 0 to 1/],
    ['batch job end', { projects: [{ id: 'p' }], batch: { jobs: [{ end: 'DONE' }] } }, /\$\.batch\.jobs\[0\]\.end: expected one of "SUCCEEDED", "FAILED", "EXPIRED", "PENDING"/],
  ];
  for (const [name, json, message] of cases) {
    it(`${name}: InputError SIM_SCENARIO_INVALID with the JSON path`, () => {
      const e = errorOf(() => parseScenario(json, 'inline.json'));
      expect(e.code).toBe('SIM_SCENARIO_INVALID');
      expect(e.file).toBe('inline.json');
      expect(e.message).toMatch(message);
    });
  }

  it('a file error names file, line and column of the bad field', () => {
    const file = path.join(tmp, 'bad.json');
    writeFileSync(file, '{\n  "projects": [\n    {\n      "id": "p",\n      "limits": { "gemini-2.5-flash": { "rpm": -1 } }\n    }\n  ]\n}\n');
    const e = errorOf(() => loadScenario(file));
    expect([e.line, e.column]).toEqual([5, 41]);
    expect(e.message.startsWith(`${file}:5:41: $.projects[0].limits["gemini-2.5-flash"].rpm: expected a whole number >= 0, got -1.`)).toBe(true);
  });

  it('not JSON: line and column of the syntax error; a missing file: SIM_SCENARIO_UNREADABLE', () => {
    const file = path.join(tmp, 'syntax.json');
    writeFileSync(file, '{\n  "projects": [,]\n}\n');
    const e = errorOf(() => loadScenario(file));
    expect(e.code).toBe('SIM_SCENARIO_INVALID');
    expect([e.line, e.column]).toEqual([2, 16]);
    expect(errorOf(() => loadScenario(path.join(tmp, 'absent.json'))).code).toBe('SIM_SCENARIO_UNREADABLE');
  });
});
