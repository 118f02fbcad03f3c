/**
 * `classify --max-cost` as a user runs it (in-process) against the simulator over real HTTP, with answers slow enough
 * that many requests are in flight at once (issue 14): the run stops before the projected spend passes the cap (what
 * the simulator answered, costed at list price, stays under it), exit 3 with the rest pending and the reason in their
 * `error`; the same cap again sends nothing more (the cap counts the job's whole spend, across runs); a higher cap
 * finishes the job without paying for any row twice. Every provider: OpenAI-compatible servers need --price-*.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCost } from '../../src/plan/price.js';
import { geminiPrice } from '../../src/providers/gemini/prices.js';
import { parseScenario, startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { repoRoot } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const KEY = 'max-cost-key-0123456789';
let dir: string;
let sim: SimulatorHandle;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-max-cost-'));
  copyFileSync(path.join(repoRoot, 'samples', 'topics.csv'), path.join(dir, 'topics.csv'));
  copyFileSync(path.join(repoRoot, 'samples', 'prompt.txt'), path.join(dir, 'prompt.txt'));
  sim = await startSimulator(
    parseScenario({ seed: 3, projects: [{ id: 'p', keys: [KEY], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }], latency: { medianMs: 60, p99Ms: 200 } }, 'max-cost'),
  );
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the simulator answered so far, at the list price: what the account was billed. */
function billed(): number {
  const t = sim.stats().tokens;
  return requestCost(geminiPrice('gemini-2.5-flash')!, t.input, t.output + t.thoughts);
}

/** 300 rows, labels with an output cap of 16 tokens: each request reserves little, so that many are in flight near the cap too. */
const run = (...extra: string[]) =>
  runMain(['classify', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no', '--max-output-tokens', '16', '--limit', '300', '--base-url', sim.url, '--rpm', '100000', '--tpm', '100000000', ...extra], {
    cwd: dir,
    env: { GEMINI_API_KEY: KEY },
  });

describe('--max-cost', () => {
  it('stops before the cap (exit 3, rows pending); the same cap sends no more; a higher one finishes without paying twice', async () => {
    const cap = 0.005; // about half the 300 rows
    const first = await run('--max-cost', String(cap));
    expect(first.code).toBe(3);
    expect(first.stdout).toMatch(/stopped before passing --max-cost \$0\.0050: the job has spent \$0\.00\d\d, and the next request may cost up to \$0\.0\d+; \d+ rows pending — run again with a higher --max-cost/);
    expect(billed()).toBeLessThanOrEqual(cap);
    const status = JSON.parse((await runMain(['status', 'topics.csv', '--json'], { cwd: dir })).stdout) as { costUsd: number; byStatus: Record<string, number> };
    expect(status.costUsd).toBeLessThanOrEqual(cap);
    expect(status.costUsd).toBeCloseTo(billed(), 10);
    // Most of the cap is used: what is left is less than a few requests' reservations (≈ $0.0001 each).
    expect(status.costUsd).toBeGreaterThan(cap - 0.0005);
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'topics.classified.csv')), { columns: true });
    expect(rows).toHaveLength(300);
    const waiting = rows.filter((r) => r.status === 'pending');
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting).toHaveLength(300 - status.byStatus.ok!);
    expect(waiting.every((r) => r.error!.startsWith('not sent: --max-cost $0.0050 reached (spent $0.00'))).toBe(true);

    // The cap counts the journal's spend: the same cap again sends nothing (or only what still fits).
    const answeredBefore = sim.stats().answeredOk;
    const again = await run('--max-cost', String(cap));
    expect(again.code).toBe(3);
    expect(billed()).toBeLessThanOrEqual(cap);
    expect(sim.stats().answeredOk - answeredBefore).toBeLessThanOrEqual(2);

    // A higher cap finishes the job; no row is answered twice over the three runs.
    const last = await run('--max-cost', '1');
    expect(last.code).toBe(0);
    expect(sim.stats().answeredOk).toBe(300);
    const journal = readFileSync(path.join(dir, 'topics.gemini-batch', 'journal.jsonl'), 'utf8').trim().split('\n');
    expect(journal).toHaveLength(300);
    expect(billed()).toBeLessThan(1);
  });

  it('works for an OpenAI-compatible server with --price-input/--price-output, and is refused without them', async () => {
    const base = ['classify', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no', '--provider', 'openai', '--base-url', `${sim.url}/v1`, '--job-dir', 'openai.gemini-batch', '-o', 'openai.csv'];
    const refused = await runMain([...base, '--max-cost', '0.02'], { cwd: dir, env: { OPENAI_API_KEY: KEY } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--max-cost needs the price of gemini-2.5-flash, and --provider openai lists none for it: give --price-input and --price-output');
    const before = sim.stats().tokens;
    // $0.005 at these prices: about 30 requests before the cap.
    const priced = await runMain([...base, '--max-cost', '0.005', '--price-input', '1', '--price-output', '4', '--rpm', '100000', '--tpm', '100000000'], { cwd: dir, env: { OPENAI_API_KEY: KEY } });
    expect(priced.code).toBe(3);
    const t = sim.stats().tokens;
    const spent = ((t.input - before.input) * 1 + (t.output - before.output + t.thoughts - before.thoughts) * 4) / 1_000_000;
    expect(spent).toBeLessThanOrEqual(0.005);
    expect(spent).toBeGreaterThan(0.00375);
  });

  it('refuses an amount that is not one, and --batch (whose batches it does not cap)', async () => {
    for (const bad of ['0', '-3', 'ten']) {
      const result = await run('--max-cost', bad);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--max-cost must be an amount of US dollars above 0');
    }
    const batch = await run('--max-cost', '1', '--batch');
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('--max-cost caps the rows sent online; it does not cap the Batch API yet');
  });
});
