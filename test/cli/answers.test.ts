/**
 * Issue 7 against scripted simulator answers over real HTTP, the CLI in-process (test/support/run-main.ts): every row
 * gets a valid label or a reason, and plan's estimate matches what the run reports.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimLogEntry, SimulatorHandle } from '../../src/simulator/index.js';
import { repoRoot } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';
import { startAnyKeySimulator } from '../support/any-key-simulator.js';

let sim: SimulatorHandle;
let dir: string;
const env = { GEMINI_API_KEY: 'answers-test-key' };

beforeAll(async () => {
  sim = await startAnyKeySimulator(
    'answers',
    {
      requestLog: true,
      scripts: [
        { match: '#decorated', responses: [{ kind: 'text', text: 'Label: **Yes**.' }] },
        { match: '#wrong-then-right', responses: [{ kind: 'text', text: 'Probably' }, { kind: 'enum' }] },
        { match: '#always-wrong', responses: [{ kind: 'text', text: 'It depends' }] },
        { match: '#thinks-once', responses: [{ kind: 'max-tokens' }, { kind: 'enum' }] },
        { match: '#thinks-always', responses: [{ kind: 'max-tokens' }] },
        { match: '#unsafe', responses: [{ kind: 'finish', finishReason: 'SAFETY' }] },
        { match: '#blocked-prompt', responses: [{ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' }] },
        { match: '#recites', responses: [{ kind: 'finish', finishReason: 'RECITATION' }] },
        { match: '#other', responses: [{ kind: 'finish', finishReason: 'OTHER' }] },
        { match: '#bad-json', responses: [{ kind: 'text', text: '{"label": "yes", "confid' }] },
      ],
    },
  );
  dir = mkdtempSync(path.join(tmpdir(), 'gb-answers-'));
  const rows = ['plain', '#decorated', '#wrong-then-right', '#always-wrong', '#thinks-once', '#thinks-always', '#unsafe', '#blocked-prompt', '#recites', '#other'];
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${rows.map((r, i) => `${i},${r}`).join('\n')}\n`);
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function log(): Promise<SimLogEntry[]> {
  return (await (await fetch(`${sim.url}/__sim/log?since=0`)).json()) as SimLogEntry[];
}

function output(file: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(path.join(dir, file)), { columns: true });
}

describe('answers users can trust', () => {
  it('labels mode: every row ends with a valid label or a status saying why', async () => {
    const result = await runMain(['classify', 'rows.csv', '--prompt', 'Is this relevant? {{text}}', '--labels', 'yes,no', '--base-url', sim.url, '-o', 'labels.csv'], { cwd: dir, env });
    expect(result.code).toBe(1);
    const byText = Object.fromEntries(output('labels.csv').map((r) => [r.text, r]));
    expect(byText.plain).toMatchObject({ status: 'ok' });
    expect(['yes', 'no']).toContain(byText.plain?.label);
    expect(byText['#decorated']).toMatchObject({ status: 'ok', label: 'yes' });
    expect(byText['#wrong-then-right']?.status).toBe('ok');
    expect(byText['#always-wrong']).toMatchObject({ status: 'invalid_label', label: '' });
    expect(byText['#always-wrong']?.error).toContain('It depends');
    expect(byText['#thinks-once']?.status).toBe('ok');
    expect(byText['#thinks-always']?.status).toBe('failed');
    expect(byText['#thinks-always']?.error).toContain('MAX_TOKENS');
    expect(byText['#unsafe']).toMatchObject({ status: 'blocked' });
    expect(byText['#blocked-prompt']?.error).toContain('PROHIBITED_CONTENT');
    expect(byText['#recites']).toMatchObject({ status: 'blocked' });
    expect(byText['#other']).toMatchObject({ status: 'failed' });

    // Retries: once for the answer-level ones, never for blocked answers.
    const sent = (await log()).filter((e) => e.endpoint === 'generateContent');
    const count = (marker: string) => {
      const sha = createHash('sha256').update(`Is this relevant? ${marker}`).digest('hex');
      return sent.filter((e) => e.promptSha256 === sha).length;
    };
    expect(count('#always-wrong')).toBe(2);
    expect(count('#thinks-always')).toBe(2);
    expect(count('#recites')).toBe(2);
    expect(count('#unsafe')).toBe(1);
    expect(count('#blocked-prompt')).toBe(1);
  });

  it('free-form mode keeps the answer text; --schema turns properties into columns and bad JSON into invalid_output', async () => {
    writeFileSync(path.join(dir, 'two.csv'), 'id,text\n1,plain\n2,#bad-json\n');
    const free = await runMain(['classify', 'two.csv', '--prompt', 'Summarize: {{text}}', '--base-url', sim.url, '-o', 'free.csv'], { cwd: dir, env });
    expect(free.code).toBe(0);
    expect(output('free.csv')[0]?.answer?.length).toBeGreaterThan(0);

    writeFileSync(
      path.join(dir, 'schema.json'),
      JSON.stringify({ type: 'object', properties: { label: { type: 'string', enum: ['yes', 'no'] }, confidence: { type: 'number' }, reason: { type: 'string' } }, required: ['label', 'confidence'] }),
    );
    const structured = await runMain(['classify', 'two.csv', '--prompt', 'Judge: {{text}}', '--schema', 'schema.json', '--base-url', sim.url, '-o', 'structured.csv', '--job-dir', 'structured-job'], { cwd: dir, env });
    expect(structured.code).toBe(1);
    const rows = output('structured.csv');
    expect(Object.keys(rows[0] ?? {})).toEqual(['id', 'text', 'label', 'confidence', 'reason', 'status', 'error']);
    expect(rows[0]).toMatchObject({ status: 'ok' });
    expect(['yes', 'no']).toContain(rows[0]?.label);
    expect(Number.isFinite(Number(rows[0]?.confidence))).toBe(true);
    expect(rows[1]).toMatchObject({ status: 'invalid_output', label: '' });
  });

  it('--examples are sent as earlier turns of every request', async () => {
    writeFileSync(path.join(dir, 'examples.csv'), 'text,label\nrefund for a broken lamp,yes\nweather today,no\n');
    writeFileSync(path.join(dir, 'one.csv'), 'id,text\n1,#decorated\n');
    const result = await runMain(['classify', 'one.csv', '--prompt', 'Support ticket? {{text}}', '--labels', 'yes,no', '--examples', 'examples.csv', '--base-url', sim.url, '-o', 'ex.csv'], { cwd: dir, env });
    expect(result.code).toBe(0);
    const userText = 'Support ticket? refund for a broken lampSupport ticket? weather todaySupport ticket? #decorated';
    const sha = createHash('sha256').update(userText).digest('hex');
    expect((await log()).some((e) => e.promptSha256 === sha)).toBe(true);
    const bad = await runMain(['classify', 'one.csv', '--prompt', 'Support ticket? {{text}}', '--labels', 'yes,no', '--examples', 'one.csv', '--base-url', sim.url], { cwd: dir, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"label" column');
  });

  it("plan's input-token estimate for samples/topics.csv is within 10 % of what the run then reports", async () => {
    copyFileSync(path.join(repoRoot, 'samples', 'topics.csv'), path.join(dir, 'topics.csv'));
    // The sample's first 200 rows (of 656) for both: the estimate is per row, and 200 rows of the sample take its
    // variety (short and long descriptions) at a third of the requests.
    const args = ['topics.csv', '--prompt-file', path.join(repoRoot, 'samples', 'prompt.txt'), '--labels', 'yes,no', '--limit', '200'];
    const plan = await runMain(['plan', ...args], { cwd: dir, env });
    expect(plan.code).toBe(0);
    const planned = Number(/input tokens: ≈ ([\d,]+)/.exec(plan.stdout)?.[1]?.replace(/,/g, ''));
    expect(plan.stdout).toMatch(/cost: ≈ \$[\d.]+ at list price/);
    const run = await runMain(['classify', ...args, '--simulate', '--json'], { cwd: dir, env: {} });
    const summary = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string; tokens?: { input: number } }).find((e) => e.event === 'summary');
    const reported = summary?.tokens?.input ?? 0;
    expect(reported).toBeGreaterThan(0);
    expect(Math.abs(planned - reported) / reported).toBeLessThanOrEqual(0.1);
  });
});
