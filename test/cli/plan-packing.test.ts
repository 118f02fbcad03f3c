/**
 * Issue 15, `plan` with several rows per request: the requests, quota days, time and input tokens at the chosen K beside
 * K = 1; the request count classify really sends (through the same packer: packs closed early by --max-input-tokens, a
 * row that cannot be packed sent alone, an empty row skipped); and the K plan suggests when requests bind (RPD or RPM),
 * and not when nothing or only TPM binds. The CLI in-process (test/support/run-main.ts); classify against the
 * in-process simulator (--simulate).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

let dir: string;
const TOPICS = ['cats', 'dogs', 'bonds', 'tennis', 'rain'];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-plan-packing-'));
  const rows = Array.from({ length: 10_000 }, (_, i) => `${i},ticket ${i} is about ${TOPICS[i % TOPICS.length]} and a late parcel`);
  writeFileSync(path.join(dir, 'tickets.csv'), `id,text\n${rows.join('\n')}\n`);
  // Its first 1,000 rows, for the suggestions, which depend only on the rows planned: plan streams its input three times,
  // and a read parses whole chunks of up to 256 KiB (~5,000 of these rows) even under --limit 1000.
  writeFileSync(path.join(dir, 'tickets-1000.csv'), `id,text\n${rows.slice(0, 1_000).join('\n')}\n`);
  // 120 rows, every 5th long (480 words), the others 8 words: under --max-input-tokens 1050 a pack holds one long row, so
  // packs of 7 close early at the next long one — with a margin of about 20 % either way (plan gives the same 25 requests
  // for any limit from 850 to 1,300), so that classify's estimator, which learns from the answers as they come, closes
  // them where plan's prior does. Row 31 holds an item marker (sent alone), row 62 is empty (skipped
  // without a request).
  const words = (i: number, n: number) => Array.from({ length: n }, (_, w) => `${TOPICS[(i + w) % TOPICS.length]}${w % 3 === 0 ? '.' : ''}`).join(' ');
  const mixed = Array.from({ length: 120 }, (_, i) => {
    if (i === 31) return `${i},"a note that quotes </item> in its text"`;
    if (i === 62) return ',';
    return `${i},"${words(i, i % 5 === 0 ? 480 : 8)}"`;
  });
  writeFileSync(path.join(dir, 'mixed.csv'), `id,text\n${mixed.join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plan = (...args: string[]) => runMain(['plan', ...args], { cwd: dir });
const number = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1]?.replace(/,/g, ''));
/** The cells of a line of plan's K-beside-K table: `  requests   500   10,000` → ['500', '10,000']. */
const tableRow = (text: string, name: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`  ${name} `));
  return line ? line.slice(name.length + 2).trim().split(/\s{3,}/) : undefined;
};

describe('plan --rows-per-request', () => {
  it('10,000 rows at --rpd 250: the days fall from 40 to 2 at K = 20, with requests, time and input tokens beside K = 1', async () => {
    const result = await plan('tickets.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--rpd', '250', '--rows-per-request', '20');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('requests: 500 for 10,000 rows, packs of up to 20');
    expect(result.stdout).toMatch(/^rows per request\s+K = 20\s+K = 1$/m);
    expect(tableRow(result.stdout, 'requests')).toEqual(['500', '10,000']);
    expect(tableRow(result.stdout, 'Pacific days under RPD')).toEqual(['2', '40']);
    expect(result.stdout).toContain('binding: RPD → the job spans 2 Pacific days');
    const [rpmK, rpmOne] = tableRow(result.stdout, 'time under RPM') ?? [];
    expect(rpmK).not.toBe(rpmOne);
    // Input tokens at K: the pack's whole request, estimated once (the shared schema once a pack, each row in an item).
    const [inK, inOne] = (tableRow(result.stdout, 'input tokens') ?? []).map((c) => Number(c.replace(/[≈ ,]/g, '')));
    expect(inK).toBe(number(result.stdout, /^input tokens: ≈ ([\d,]+)/m));
    expect(inK).toBeGreaterThan(0);
    expect(inOne).toBeGreaterThan(0);
    expect(inK).not.toBe(inOne);
    expect(tableRow(result.stdout, 'cost (standard)')).toHaveLength(2);
    // Asked for K, plan suggests no other.
    expect(result.stdout).not.toContain('suggestion:');
  });

  it("counts the requests classify --simulate sends for the same file and K (early closes, a row alone, an empty row), and input tokens near the simulator's", async () => {
    const args = ['mixed.csv', '--prompt', 'Topic of: {{text}}', '--labels', 'animals,money,sport,weather', '--rows-per-request', '7', '--max-input-tokens', '1050', '--simulate'];
    const planned = await plan(...args);
    expect(planned.code).toBe(0);
    const requests = number(planned.stdout, /^requests: ([\d,]+) for 119 rows, packs of up to 7/m);
    expect(planned.stdout).toContain('rows: 120 · 1 empty (would be skipped)');
    // The packs really close early: more requests than 119 rows at 7 a pack would need.
    expect(requests).toBeGreaterThan(Math.ceil(119 / 7) + 3);
    const run = await runMain(['classify', ...args], { cwd: dir });
    expect(run.code).toBe(1); // the empty row ends skipped
    expect(number(run.stdout + run.stderr, /^requests: ([\d,]+)/m)).toBe(requests);
    expect(run.stdout + run.stderr).toMatch(/retries: 0/);
    // The journal agrees: one request per pack id, one per row answered alone.
    const journal = readFileSync(path.join(dir, 'mixed.gemini-batch', 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; pack?: { id: string } });
    const packs = new Set(journal.flatMap((e) => (e.pack ? [e.pack.id] : [])));
    const alone = journal.filter((e) => !e.pack && e.status === 'ok').length;
    expect(packs.size + alone).toBe(requests);
    expect(alone).toBeGreaterThanOrEqual(1); // the row with an item marker
    // Input tokens: plan's estimate (the estimator's prior) within 15 % of the simulator's count (o200k_base).
    const estimate = number(planned.stdout, /^input tokens: ≈ ([\d,]+)/m);
    const billed = number(run.stdout + run.stderr, /tokens: input ([\d,]+)/);
    expect(Math.abs(estimate / billed - 1)).toBeLessThan(0.15);
  });

  it('suggests a K when RPD binds one row a request, with the figures and the accuracy caveat', async () => {
    const result = await plan('tickets-1000.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--rpd', '250');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('binding: RPD → the job spans 4 Pacific days');
    // 1,000 rows at 250 a day: K = 5 (200 requests) is the smallest candidate that fits one quota day.
    expect(result.stdout).toMatch(/^suggestion: --rows-per-request 5 \(requests, not tokens, bind: 1,000 requests need 4 quota days at the RPD; at 5 rows a request: 200 requests, 0\.8 quota day\)/m);
    expect(tableRow(result.stdout, 'requests')).toEqual(['200', '1,000']);
    expect(result.stdout).toContain('caveat: the model reads 5 rows at once');
    // 600 rows (--limit) at 25 a day, more than K = 20 fits in a day (500): even K = 20 needs 2 days; it is suggested,
    // saying a larger K would cut more. (The rows and the RPD a tenth of 6,000 at 250: the same days, a tenth of the
    // rows to plan at five K.)
    const big = await plan('tickets-1000.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--rpd', '25', '--limit', '600');
    expect(big.stdout).toMatch(/^suggestion: --rows-per-request 20 \(.*at 20 rows a request: 30 requests, 2 quota days; a larger K cuts more/m);
  });

  it('suggests a K when RPM paces the job, none when nothing binds or TPM does', async () => {
    const rpm = await plan('tickets-1000.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--rpm', '100', '--tpm', '1000000', '--rpd', '100000');
    expect(rpm.stdout).toMatch(/binding: RPM → about 10m/);
    expect(rpm.stdout).toMatch(/^suggestion: --rows-per-request \d+ \(requests, not tokens, pace the job/m);
    const generous = await plan('tickets-1000.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--simulate');
    expect(generous.code).toBe(0);
    expect(generous.stdout).not.toContain('suggestion:');
    const roomy = await plan('tickets-1000.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--rpm', '10000', '--tpm', '10000000', '--rpd', '100000');
    expect(roomy.stdout).not.toContain('suggestion:');
    const tpm = await plan('tickets-1000.csv', '--prompt', '{{text}}', '--labels', 'late,other', '--rpm', '1000', '--tpm', '5000', '--rpd', '100000');
    expect(tpm.stdout).toMatch(/binding: TPM/);
    expect(tpm.stdout).not.toContain('suggestion:');
  });
});
