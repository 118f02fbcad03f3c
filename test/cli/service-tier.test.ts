/**
 * `classify --service-tier` as a user runs it (in-process, test/support/run-main.ts) against the simulator's Flex mode
 * over real HTTP (issue 14): rows of the sample with 10 % of Flex requests shed end with every row ok, each row journaled
 * at the tier that served it and costed at half price; and the usage errors that come before any request.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceAt, requestCost } from '../../src/plan/price.js';
import { geminiPrice } from '../../src/providers/gemini/prices.js';
import { repoRoot } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

let dir: string;
const scenario = path.join(repoRoot, 'samples', 'scenarios', 'flex.json');

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-tier-'));
  copyFileSync(path.join(repoRoot, 'samples', 'topics.csv'), path.join(dir, 'topics.csv'));
  copyFileSync(path.join(repoRoot, 'samples', 'prompt.txt'), path.join(dir, 'prompt.txt'));
  // flex.json with its Flex answers at 1/10,000 of real time (6–90 ms) instead of 1/1,000 (60–900 ms): its seed, shed
  // rate and limits as they are (a request's shed is drawn before its latency, so the same requests are shed); only the
  // wait for each answer, which no assertion reads, is shorter.
  const flex = JSON.parse(readFileSync(scenario, 'utf8')) as { description: string; flex: { timeScale: number } };
  const fast = { ...flex, description: `${flex.description} Answers 10 times faster, for a test.`, flex: { ...flex.flex, timeScale: flex.flex.timeScale / 10 } };
  writeFileSync(path.join(dir, 'flex-fast.json'), JSON.stringify(fast));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Rows of the Flex run: the sample's first 100. The scenario's sheds are drawn per prompt and attempt (seeded), so these
 * rows always take 112 requests, 12 of them shed (10.7 %), and no row is shed twice: the run waits one 0.5–1 s shed
 * backoff, not the 1–2 s more of a second shed that some rows of the whole sample meet. The whole sample (656 rows)
 * tested the same paths at 6.5 times the requests.
 */
const FLEX_ROWS = 100;

const base = ['classify', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no'];

interface Summary {
  event: 'summary';
  exitCode: number;
  byStatus: Record<string, number>;
  requests: number;
  retries: number;
  served?: Record<string, number>;
  costUsd: number;
}

describe('--service-tier', () => {
  it(`flex: ${FLEX_ROWS} rows of the sample with 10 % of requests shed (503) end ok, journaled and costed at the Flex tier`, async () => {
    const args = [...base, '--simulate', '--simulate-config', 'flex-fast.json', '--service-tier', 'flex', '--limit', String(FLEX_ROWS), '--rpm', '10000', '--tpm', '10000000', '--json', '--job-dir', 'flex.gemini-batch', '-o', 'flex.csv'];
    const result = await runMain(args, { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string });
    const summary = events.find((e) => e.event === 'summary') as Summary;
    expect(summary.byStatus.ok).toBe(FLEX_ROWS);
    // Sheds happened and were sent again: about 10 % of the requests (seeded), none of them failing a row.
    const sheds = summary.requests - FLEX_ROWS;
    expect(summary.retries).toBe(sheds);
    expect(sheds).toBeGreaterThan(0.05 * summary.requests);
    expect(sheds).toBeLessThan(0.15 * summary.requests);
    expect(summary.served).toMatchObject({ flex: FLEX_ROWS, standard: 0, priority: 0 });

    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'flex.csv')), { columns: true });
    expect(rows).toHaveLength(FLEX_ROWS);
    expect(rows.every((r) => r.status === 'ok' && (r.label === 'yes' || r.label === 'no'))).toBe(true);

    // Every journal line says flex; a shed is no attempt.
    const lines = readFileSync(path.join(dir, 'flex.gemini-batch', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { tier?: string; attempts: number; tokens: { input: number; output: number; thoughts: number } });
    expect(lines).toHaveLength(FLEX_ROWS);
    expect(lines.every((l) => l.tier === 'flex' && l.attempts === 1)).toBe(true);
    // The cost is the journal's tokens at the Flex price: half the standard one.
    const price = geminiPrice('gemini-2.5-flash')!;
    const input = lines.reduce((n, l) => n + l.tokens.input, 0);
    const output = lines.reduce((n, l) => n + l.tokens.output + l.tokens.thoughts, 0);
    expect(summary.costUsd).toBeCloseTo(requestCost(priceAt(price, 'flex')!, input, output), 10);
    expect(summary.costUsd).toBeCloseTo(requestCost(price, input, output) / 2, 10);
    const status = JSON.parse((await runMain(['status', 'topics.csv', '--job-dir', 'flex.gemini-batch', '--json'], { cwd: dir })).stdout) as { costUsd: number; byTier: unknown };
    expect(status.costUsd).toBeCloseTo(summary.costUsd, 10);
    expect(status.byTier).toEqual({ standard: 0, flex: FLEX_ROWS, priority: 0, batch: 0 });
    expect((await runMain(['status', 'topics.csv', '--job-dir', 'flex.gemini-batch'], { cwd: dir })).stdout).toContain(`rows billed at ${FLEX_ROWS} flex`);
  });

  it('the text summary counts the answers by the tier that served them', async () => {
    const args = [...base, '--simulate', '--simulate-config', scenario, '--service-tier', 'priority', '--limit', '70', '--rpm', '10000', '--tpm', '10000000', '--job-dir', 'priority.gemini-batch', '-o', 'priority.csv'];
    const result = await runMain(args, { cwd: dir });
    expect(result.code).toBe(0);
    // flex.json serves 60 Priority requests a minute; the rest are downgraded to standard (70 rows: 10 over, was 100).
    expect(result.stdout).toContain('served: 60 priority, 10 standard');
    expect(result.stdout).toContain('service tier: priority');
    const tiers = readFileSync(path.join(dir, 'priority.gemini-batch', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { tier?: string }).tier ?? 'standard');
    expect(tiers.filter((t) => t === 'priority')).toHaveLength(60);
    expect(tiers.filter((t) => t === 'standard')).toHaveLength(10);
  });

  it('usage errors before any request: an unknown tier, --provider openai, a Flex timeout under 10 minutes', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--service-tier', 'cheap'], /--service-tier must be flex .*, standard or priority/],
      [['--service-tier', 'flex', '--provider', 'openai'], /--service-tier names a service tier of Gemini and Vertex AI; --provider openai does not send one/],
      [['--service-tier', 'flex', '--timeout', '60'], /at least 600 s; --timeout 60 would cut them off/],
    ];
    for (const [extra, message] of cases) {
      const result = await runMain([...base, '--base-url', 'http://127.0.0.1:9', ...extra], { cwd: dir, env: { GEMINI_API_KEY: 'k', OPENAI_API_KEY: 'k' } });
      expect(result.code, extra.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const ok = await runMain([...base, '--simulate', '--service-tier', 'FLEX', '--timeout', '600', '--limit', '3', '--job-dir', 'upper.gemini-batch', '-o', 'upper.csv'], { cwd: dir });
    expect(ok.code).toBe(0);
  });
});
