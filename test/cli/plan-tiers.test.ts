/**
 * `plan` and the billing tiers (issue 14): the job's cost at standard, Flex and Batch side by side and Priority as its
 * range, each checked against the price table and its tier factors (src/providers/gemini/prices.ts), never a figure
 * written here; the tier --service-tier asks for first; and --max-cost's effect: how many rows fit, less what the
 * job's journal has spent. In-process (test/support/run-main.ts).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceAt, requestCost } from '../../src/plan/price.js';
import { geminiPrice, TIER_FACTORS } from '../../src/providers/gemini/prices.js';
import { repoRoot } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-plan-tiers-'));
  copyFileSync(path.join(repoRoot, 'samples', 'topics.csv'), path.join(dir, 'topics.csv'));
  copyFileSync(path.join(repoRoot, 'samples', 'prompt.txt'), path.join(dir, 'prompt.txt'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = ['topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no'];
const plan = (...extra: string[]) => runMain(['plan', ...base, ...extra], { cwd: dir });
let plain: ReturnType<typeof plan> | undefined;
/** `plan` of the sample with no other option, run once for the tests that read it (before any job exists in `dir`). */
const planPlain = () => (plain ??= plan());
const number = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1]?.replace(/,/g, ''));
const dollars = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1]);

/** The planned tokens of the job: what plan prints, to cost at the table's prices. */
function tokens(stdout: string): { input: number; output: number } {
  const input = number(stdout, /input tokens: ≈ ([\d,]+)/);
  const output = number(stdout, /output tokens: ≈ ([\d,]+)/);
  expect(stdout).toContain('thinking tokens: 0');
  return { input, output };
}

describe('plan: billing tiers', () => {
  it('shows the sample at standard, Flex and Batch side by side, and Priority as its range, from the price table', async () => {
    const result = await planPlain();
    expect(result.code).toBe(0);
    const { input, output } = tokens(result.stdout);
    const flash = geminiPrice('gemini-2.5-flash')!;
    const at = (tier: 'standard' | 'flex' | 'batch' | 'priority') => requestCost(priceAt(flash, tier)!, input, output);
    const line = result.stdout.split('\n').find((l) => l.startsWith('cost:'))!;
    // Printed to 4 decimals; the input count printed is rounded to the token.
    const close = (printed: number, expected: number) => expect(Math.abs(printed - expected)).toBeLessThanOrEqual(0.00006);
    close(dollars(line, /cost: ≈ \$([\d.]+) at list price \(standard, online\)/), at('standard'));
    close(dollars(line, / flex ≈ \$([\d.]+)/), at('flex'));
    close(dollars(line, / Batch API ≈ \$([\d.]+)/), at('batch'));
    const priority = /priority ≈ \$([\d.]+)–\$([\d.]+)/.exec(line)!;
    close(Number(priority[1]), at('standard') * TIER_FACTORS.priority!.low!);
    close(Number(priority[2]), at('priority'));
    expect(at('flex')).toBeCloseTo(at('standard') / 2, 12);
  });

  it('puts the tier --service-tier asks for first', async () => {
    const result = await plan('--service-tier', 'flex');
    const { input, output } = tokens(result.stdout);
    const flex = requestCost(priceAt(geminiPrice('gemini-2.5-flash')!, 'flex')!, input, output);
    expect(Math.abs(dollars(result.stdout, /cost: ≈ \$([\d.]+) at list price \(flex, as --service-tier asks\)/) - flex)).toBeLessThanOrEqual(0.00006);
    expect(result.stdout).toMatch(/· standard ≈ \$[\d.]+ ·/);
  });

  it("--max-cost: how many rows fit at each tier; a resumed job's journal spend is taken off", async () => {
    const all = await planPlain();
    const standard = dollars(all.stdout, /cost: ≈ \$([\d.]+) at list price/);
    const cap = standard / 3;
    const result = await plan('--max-cost', String(cap));
    const line = result.stdout.split('\n').find((l) => l.startsWith('--max-cost'))!;
    const fit = (pattern: RegExp) => number(line, pattern);
    const atStandard = fit(/ (\d+) fit at standard/);
    const atFlex = fit(/ (\d+) at flex/);
    expect(fit(/ (\d+) at Batch API/)).toBe(atFlex);
    const [few, more] = /([\d,]+)–([\d,]+) at priority/.exec(line)!.slice(1).map(Number) as [number, number];
    // About a third of the rows at standard (rows differ in length), twice as many at half the price, fewer at priority.
    expect(atStandard / 656).toBeGreaterThan(0.25);
    expect(atStandard / 656).toBeLessThan(0.42);
    expect(atFlex / atStandard).toBeGreaterThan(1.8);
    expect(atFlex / atStandard).toBeLessThan(2.2);
    expect(few).toBeLessThanOrEqual(more);
    expect(more).toBeLessThan(atStandard);

    // A run stopped by the cap: plan plans the rest, and takes the journal's spend off the cap. The run's own cap is a
    // tenth of plan's (~20 rows answered, then exit 3): a journal with some spend and rows still to send is all the
    // resumed plan needs (half the cap sent ~120 rows through the simulator for the same evidence).
    const run = await runMain(['classify', ...base, '--simulate', '--max-cost', String(cap / 10), '--max-output-tokens', '16'], { cwd: dir });
    expect(run.code).toBe(3);
    const status = JSON.parse((await runMain(['status', 'topics.csv', '--json'], { cwd: dir })).stdout) as { costUsd: number; remaining: number };
    expect(status.costUsd).toBeGreaterThan(0);
    expect(status.remaining).toBeGreaterThan(0);
    expect(status.remaining).toBeLessThan(656);
    const resumed = await plan('--simulate', '--max-cost', String(cap), '--max-output-tokens', '16');
    expect(resumed.stdout).toContain(`--max-cost $${cap.toFixed(4)}, less the $${status.costUsd.toFixed(4)} the job has spent: of the ${status.remaining} rows to send`);
  });

  it('without a price: cost unknown and no --max-cost; --price-* prices the standard tier alone for openai', async () => {
    const openai = ['--provider', 'openai', '--base-url', 'http://127.0.0.1:9/v1'];
    const unknown = await plan(...openai);
    expect(unknown.stdout).toContain('cost: unknown for this model (give --price-input and --price-output');
    const priced = await plan(...openai, '--price-input', '1', '--price-output', '2', '--max-cost', '0.01');
    expect(priced.stdout).toMatch(/cost: ≈ \$[\d.]+ at list price \(standard, online\) — \$1 per 1M input/);
    expect(priced.stdout).not.toContain('flex');
    expect(priced.stdout).toMatch(/--max-cost \$0\.0100: of the 656 rows to send, \d+ fit at standard \(estimates/);
    const refused = await plan(...openai, '--max-cost', '1');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('give --price-input and --price-output');
  });
});
