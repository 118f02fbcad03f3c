import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeKey } from '../../src/config/api-keys.js';
import type { ClassifyConfig } from '../../src/config/classify-config.js';
import { buildPools } from '../../src/job/build-pools.js';
import type { Endpoint } from '../../src/job/endpoint.js';
import { createGeminiProvider } from '../../src/providers/gemini/provider.js';
import { QuotaStateFile } from '../../src/journal/quota-state-file.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function stateFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gb-state-'));
  dirs.push(dir);
  return path.join(dir, 'quota-usage.json');
}

const config = (extra: Partial<ClassifyConfig> = {}) =>
  ({ model: 'gemini-2.5-flash', headroom: 0.01, workersPerKey: 2, timeoutMs: 1000, rpm: undefined, tpm: undefined, rpd: undefined, ...extra }) as ClassifyConfig;
const keys = [makeKey('key-value-one', 0, 'p1'), makeKey('key-value-two', 1, 'p1'), makeKey('key-value-three', 2, 'p2')];
const endpoint: Endpoint = {
  provider: createGeminiProvider({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000, env: {} }),
  credentials: keys.map((k) => ({ alias: k.alias, project: k.project, secret: k.value })),
  secretOf: (alias) => keys.find((k) => k.alias === alias)?.value,
  limits: undefined,
  description: 'test',
  onNotice: () => undefined,
  close: async () => undefined,
};

describe('buildPools with what earlier runs learned', () => {
  it('starts from a limit learned from a quotaValue: over a default, and over a given one that is higher', async () => {
    const file = stateFile();
    const first = new QuotaStateFile(file);
    first.learn('p1', 'gemini-2.5-flash', 'rpm', 60);
    first.learn('p1', 'gemini-2.5-flash', 'tpm', 250_000);
    await first.flush();
    const again = new QuotaStateFile(file);
    const { gates } = buildPools(config(), endpoint, again, () => undefined);
    expect(gates.get('p1')?.limiter.limits.rpm).toEqual({ value: 60, source: 'learned' });
    expect(gates.get('p2')?.limiter.limits.rpm.source).toBe('default');
    const given = buildPools(config({ rpm: 1000 }), endpoint, again, () => undefined);
    expect(given.gates.get('p1')?.limiter.limits.rpm.value).toBe(60);
    const lower = buildPools(config({ rpm: 30 }), endpoint, again, () => undefined);
    expect(lower.gates.get('p1')?.limiter.limits.rpm).toEqual({ value: 30, source: 'given' });
  });

  it('leaves out a key refused in an earlier run, says so, and never stores the key itself', async () => {
    const file = stateFile();
    const state = new QuotaStateFile(file);
    const { onKeyRefused } = buildPools(config(), endpoint, state, () => undefined);
    onKeyRefused('key-2 …-two', 'HTTP 403 PERMISSION_DENIED');
    await state.flush();
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(file, 'utf8')).not.toContain('key-value-two');
    const notices: string[] = [];
    const next = buildPools(config(), endpoint, new QuotaStateFile(file), (n) => notices.push(n.text));
    expect(next.pools.map((p) => p.alias)).toEqual(['key-1 …-one', 'key-3 …hree']);
    expect(notices.join('\n')).toContain('key-2 …-two was refused');
  });
});
