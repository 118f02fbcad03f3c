/**
 * --timeout end to end (issue 17, "Untested paths"): a request with no answer within --timeout is aborted, counted as a
 * timeout, and sent again after a backoff; a row whose every attempt times out ends `failed` saying so, while the other
 * rows are answered. In-process (test/support/run-main.ts) against the simulator over real HTTP.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimLogEntry, SimulatorHandle } from '../../src/simulator/index.js';
import { runMain } from '../support/run-main.js';
import { startAnyKeySimulator } from '../support/any-key-simulator.js';

let sim: SimulatorHandle;
let dir: string;

beforeAll(async () => {
  sim = await startAnyKeySimulator(
    'timeout',
    {
      requestLog: true,
      scripts: [
        // 20 s: far beyond --timeout, so only the client's abort can end the first attempt.
        { match: '#slow-once', responses: [{ kind: 'delay-ms', ms: 20_000 }, { kind: 'enum' }] },
        { match: '#always-slow', responses: [{ kind: 'delay-ms', ms: 20_000 }] },
      ],
    },
  );
  dir = mkdtempSync(path.join(tmpdir(), 'gb-timeout-'));
  const rows = ['plain a', '#slow-once', 'plain b', '#always-slow', 'plain c', 'plain d', 'plain e', 'plain f'];
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${rows.map((r, i) => `${i},${r}`).join('\n')}\n`);
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--timeout', () => {
  it('aborts a request that does not answer in time and sends it again; a row that always times out fails saying so', async () => {
    const result = await runMain(['classify', 'rows.csv', '--prompt', '{{text}}', '--labels', 'yes,no', '--base-url', sim.url, '--timeout', '1', '--max-attempts', '2', '--json'], {
      cwd: dir,
      env: { GEMINI_API_KEY: 'timeout-test-key' },
    });
    expect(result.code).toBe(1);
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'rows.classified.csv')), { columns: true });
    const byText = Object.fromEntries(rows.map((r) => [r.text, r]));
    expect(byText['#slow-once']).toMatchObject({ status: 'ok' });
    expect(['yes', 'no']).toContain(byText['#slow-once']?.label);
    expect(byText['#always-slow']).toMatchObject({ status: 'failed', label: '' });
    expect(byText['#always-slow']?.error).toBe('no answer within 1 s (--timeout) (after 2 attempts)');
    for (const r of rows.filter((r) => r.text?.startsWith('plain'))) expect(r.status).toBe('ok');

    // Each slow row was sent exactly twice: the timed-out attempt, then one retry (--max-attempts 2).
    const log = (await (await fetch(`${sim.url}/__sim/log?since=0`)).json()) as SimLogEntry[];
    const sent = (text: string) => log.filter((e) => e.promptSha256 === createHash('sha256').update(text).digest('hex')).length;
    expect(sent('#slow-once')).toBe(2);
    expect(sent('#always-slow')).toBe(2);
    expect(sent('plain a')).toBe(1);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { retries: number; byStatus: Record<string, number> };
    expect(summary.retries).toBe(2);
    expect(summary.byStatus).toMatchObject({ ok: 7, failed: 1 });
    // The journal keeps both attempts of the failed row.
    const journal = readFileSync(path.join(dir, 'rows.gemini-batch', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { row: number; attempts: number });
    expect(journal.find((e) => e.row === 3)?.attempts).toBe(2);
  });
});
