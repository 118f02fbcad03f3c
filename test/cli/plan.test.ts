/**
 * `plan` as a newcomer reads it (issue 12, "plan"): --tier and its published limits, whether it is billed, what binds
 * the job's duration, the limits used under a simulator scenario and why, the free-text output estimate, the input
 * limit per request, and a --help that lists only what plan uses. In-process (test/support/run-main.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

let dir: string;
const freeTier = path.join(repoRoot, 'samples', 'scenarios', 'free-tier.json');

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-plan-'));
  const rows = Array.from({ length: 1_000 }, (_, i) => `${i},ticket number ${i} about a late parcel`);
  writeFileSync(path.join(dir, 'tickets.csv'), `id,text\n${rows.join('\n')}\n`);
  // Its first 20 rows, for what plan and classify say of limits, tiers and providers: no row count changes that, and a
  // plan of the 1,000 rows cost 30–100 ms of CPU against 5–10 ms (plan streams the file three times and, where RPD or
  // RPM can bind, packs every row at K = 1, 2, 5, 10 and 20).
  writeFileSync(path.join(dir, 'few.csv'), `id,text\n${rows.slice(0, 20).join('\n')}\n`);
  // Free text to rewrite: 2,000 to 8,000 characters a row.
  const long = Array.from({ length: 20 }, (_, i) => `${i},"${'The parcel arrived late and the box was damaged. '.repeat(40 + i * 6)}"`);
  writeFileSync(path.join(dir, 'long.csv'), `id,text\n${long.join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plan = (...args: string[]) => runMain(['plan', ...args], { cwd: dir });
let free: ReturnType<typeof plan> | undefined;
/** `plan tickets.csv … --tier free`, run once for the two tests that read it. */
const planFree = () => (free ??= plan('tickets.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--tier', 'free'));
const number = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1]?.replace(/,/g, ''));

describe('plan', () => {
  it('--tier free starts from the published free-tier limits with their source, and says it is not billed', async () => {
    const result = await planFree();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('limits per project (1 project, 1 % headroom): RPM 10 · TPM 250,000 · RPD 250');
    expect(result.stdout).toContain("the free tier's published limits for gemini-2.5-flash (docs/rate-limits.md: ai.google.dev/gemini-api/docs/rate-limits, Nov 2025 copy)");
    expect(result.stdout).toMatch(/cost: \$0 — the free tier is not billed \(the paid tiers would charge ≈ \$[\d.]+ at list price/);
    const paid = await plan('few.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--tier', '2');
    expect(paid.stdout).toContain('RPM 2,000 · TPM 3,000,000 · RPD 100,000');
    expect(paid.stdout).toMatch(/cost: ≈ \$[\d.]+ at list price/);
    const bad = await plan('few.csv', '--prompt', '{{text}}', '--tier', 'gold');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tier must be free, 1, 2 or 3');
  });

  it('names RPD as what binds when the requests need more than a day, in Pacific days', async () => {
    const result = await planFree();
    expect(result.stdout).toContain('binding: RPD → the job spans 4 Pacific days (250 requests a day across the project; the per-minute limits alone would take 1h41m)');
    const perMinute = await plan('tickets.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--rpm', '100', '--tpm', '1000000', '--rpd', '5000');
    expect(perMinute.stdout).toMatch(/binding: RPM → about 10m0?\ds? at the quota's full rate/);
  });

  it("under --simulate-config uses the scenario's limits and says which and why; --simulate the generous ones", async () => {
    const scenario = await plan('few.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--simulate', '--simulate-config', freeTier);
    expect(scenario.code).toBe(0);
    expect(scenario.stdout).toContain('RPM 10 · TPM 250,000 · RPD 250');
    expect(scenario.stdout).toContain("the scenario's limits (free-tier.json, project my-free-project): the simulated account's own");
    expect(scenario.stdout).toContain('the free tier is not billed'); // the scenario's project is a free-tier one
    const lite = await plan('few.csv', '--prompt', '{{text}}', '--simulate', '--simulate-config', freeTier, '--model', 'gemini-2.0-flash');
    expect(lite.stdout).toContain('no quota: free-tier.json gives project my-free-project no quota (limit: 0)');
    const generous = await plan('few.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--simulate');
    expect(generous.stdout).toContain("the built-in simulator's generous quota");
  });

  it('estimates free-text output from the rows, not 100 tokens a row; --output-tokens states it', async () => {
    const rewrite = await plan('long.csv', '--prompt', 'Rewrite in plain words: {{text}}');
    const perRow = number(rewrite.stdout, /about ([\d,]+) per row/);
    const input = number(rewrite.stdout, /input tokens: ≈ ([\d,]+)/);
    expect(perRow).toBeGreaterThan(400); // 2–8k characters a row
    expect(perRow * 20).toBeGreaterThan(0.8 * input);
    expect(perRow * 20).toBeLessThanOrEqual(input);
    expect(rewrite.stdout).toContain('--output-tokens N states yours');
    const stated = await plan('long.csv', '--prompt', 'Rewrite in plain words: {{text}}', '--output-tokens', '50');
    expect(number(stated.stdout, /output tokens: ≈ ([\d,]+)/)).toBe(1_000);
  });

  it("the input limit per request is the model's own by default, and said; --max-input-tokens lowers it", async () => {
    const result = await plan('long.csv', '--prompt', 'Rewrite: {{text}}');
    expect(result.stdout).toContain("input limit per request: 1,048,576 tokens (gemini-2.5-flash's own limit; --max-input-tokens sets a lower one)");
    expect(result.stdout).not.toContain('over the input limit');
    const lowered = await plan('long.csv', '--prompt', 'Rewrite: {{text}}', '--max-input-tokens', '1000');
    expect(lowered.stdout).toContain('input limit per request: 1,000 tokens (--max-input-tokens)');
    expect(lowered.stdout).toMatch(/rows: 20 · \d+ over the input limit \(would be skipped\)/);
  });

  it('--help lists only the options plan uses; a classify command line still plans', async () => {
    const help = await plan('--help');
    for (const hidden of ['--json', '--timeout', '--max-attempts', '--no-escape-formulas', '--output', '--workers-per-key', '--temperature', '--answer-column']) {
      expect(help.stdout).not.toMatch(new RegExp(`(^|[\\s,])${hidden}(?![\\w-])`, 'm'));
    }
    for (const shown of ['--tier', '--count-tokens', '--output-tokens', '--max-input-tokens', '--rpd']) expect(help.stdout).toContain(shown);
    const classifyLine = await plan('few.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--json', '--timeout', '5', '--max-attempts', '2', '--no-escape-formulas', '-o', 'x.csv');
    expect(classifyLine.code).toBe(0);
    const classifyHelp = await runMain(['classify', '--help'], { cwd: dir });
    expect(classifyHelp.stdout).toContain('--no-escape-formulas');
    expect(classifyHelp.stdout).not.toContain('--output-tokens');
  });
});

describe('classify says which limits it starts from and why', () => {
  it('--tier free under a scenario: the published free-tier limits, RPD enforced, not billed; without it, the scenario is learned', async () => {
    const tier = await runMain(['classify', 'few.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--simulate', '--simulate-config', freeTier, '--tier', 'free', '--limit', '1', '--job-dir', 'tier-job', '-o', 'tier.csv'], { cwd: dir });
    expect(tier.code).toBe(0);
    expect(tier.stdout).toContain('project my-free-project: RPM 10 (default) · TPM 250,000 (default) · RPD 250 (default)');
    expect(tier.stdout).toContain("limits: starting from the free tier's published limits for gemini-2.5-flash");
    expect(tier.stdout).toContain('the free tier is not billed');
    const learned = await runMain(['classify', 'few.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--simulate', '--simulate-config', freeTier, '--limit', '1', '--job-dir', 'learn-job', '-o', 'learn.csv'], { cwd: dir });
    expect(learned.code).toBe(0);
    expect(learned.stdout).toContain("gemini-2.5-flash's published Tier 1 limits");
    expect(learned.stdout).toContain("The scenario's own limits (free-tier.json, project my-free-project: RPM 10 · TPM 250,000 · RPD 250) are learned from its 429s");
  });
});

describe('plan speaks each provider’s terms (issue 13: plan works for every provider)', () => {
  it('openai: no --tier, no thinkingBudget, no --count-tokens; the start is called a guess', async () => {
    const result = await runMain(['plan', 'few.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--provider', 'openai', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'gpt-4o-mini'], {
      cwd: dir,
      env: { OPENAI_API_KEY: 'sk-test-plan' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('--tier');
    expect(result.stdout).not.toContain('thinkingBudget');
    expect(result.stdout).not.toContain('--count-tokens');
    expect(result.stdout).toContain('reasoning_effort "none"');
    expect(result.stdout).toContain("gpt-4o-mini's starting rate, a guess");
  });

  it('vertex: no --tier (refused for Vertex), the start named a starting rate', async () => {
    const result = await plan('few.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--provider', 'vertex', '--project', 'my-project-123', '--location', 'us-central1');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('--tier');
    expect(result.stdout).toContain("gemini-2.5-flash's starting rate, raised while no 429 comes");
    expect(result.stdout).toContain('--count-tokens checks it');
  });
});
