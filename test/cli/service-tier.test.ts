/**
 * `classify --service-tier` as a user runs it (in-process, test/support/run-main.ts) against the simulator's Flex mode
 * over real HTTP (issue 14): the sample with 10 % of Flex requests shed ends with every row ok, each row journaled at
 * the tier that served it and costed at half price; and the usage errors that come before any request.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
  it('flex: the sample with 10 % of requests shed (503) ends with every row ok, journaled and costed at the Flex tier', async () => {
    const args = [...base, '--simulate', '--simulate-config', scenario, '--service-tier', 'flex', '--rpm', '10000', '--tpm', '10000000', '--json', '--job-dir', 'flex.gemini-batch', '-o', 'flex.csv'];
    const result = await runMain(args, { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string });
    const summary = events.find((e) => e.event === 'summary') as Summary;
    expect(summary.byStatus.ok).toBe(656);
    // Sheds happened and were sent again: about 10 % of the requests (seeded), none of them failing a row.
    const sheds = summary.requests - 656;
    expect(summary.retries).toBe(sheds);
    expect(sheds).toBeGreaterThan(0.05 * summary.requests);
    expect(sheds).toBeLessThan(0.15 * summary.requests);
    expect(summary.served).toMatchObject({ flex: 656, standard: 0, priority: 0 });

    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'flex.csv')), { columns: true });
    expect(rows).toHaveLength(656);
    expect(rows.every((r) => r.status === 'ok' && (r.label === 'yes' || r.label === 'no'))).toBe(true);

    // Every journal line says flex; a shed is no attempt.
    const lines = readFileSync(path.join(dir, 'flex.gemini-batch', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { tier?: string; attempts: number; tokens: { input: number; output: number; thoughts: number } });
    expect(lines).toHaveLength(656);
    expect(lines.every((l) => l.tier === 'flex' && l.attempts === 1)).toBe(true);
    // The cost is the journal's tokens at the Flex price: half the standard one.
    const price = geminiPrice('gemini-2.5-flash')!;
    const input = lines.reduce((n, l) => n + l.tokens.input, 0);
    const output = lines.reduce((n, l) => n + l.tokens.output + l.tokens.thoughts, 0);
    expect(summary.costUsd).toBeCloseTo(requestCost(priceAt(price, 'flex')!, input, output), 10);
    expect(summary.costUsd).toBeCloseTo(requestCost(price, input, output) / 2, 10);
    const status = JSON.parse((await runMain(['status', 'topics.csv', '--job-dir', 'flex.gemini-batch', '--json'], { cwd: dir })).stdout) as { costUsd: number; byTier: unknown };
    expect(status.costUsd).toBeCloseTo(summary.costUsd, 10);
    expect(status.byTier).toEqual({ standard: 0, flex: 656, priority: 0, batch: 0 });
    expect((await runMain(['status', 'topics.csv', '--job-dir', 'flex.gemini-batch'], { cwd: dir })).stdout).toContain('rows billed at 656 flex');
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
