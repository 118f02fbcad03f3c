/**
 * Issue 15: several rows per request (--rows-per-request K) against the simulator's free-tier scenario
 * (samples/scenarios/free-tier.json: one project, two keys, gemini-2.5-flash 250,000 TPM and 250 RPD), over real HTTP,
 * the CLI in-process. Its 10 RPM is raised to 6,000 (and classify told so with --rpm) so that the tests take seconds: at
 * 10 RPM the 50 packs alone would take 5 minutes of waiting; TPM, RPD, keys and 429 bodies are the scenario's.
 *
 * The label each row should get is the one the simulator gives a request of that row's prompt alone (asked of a
 * separate, generous simulator engine in-process, test/support/sim-answers.ts: same answer function, no quota spent,
 * no HTTP; the 2,000 oracle requests this file sent over fetch cost about 3 s of CPU, a third of the file).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, startSimulator, withLimitOverrides, type SimStats, type SimulatorHandle } from '../../src/simulator/index.js';
import type { Scenario } from '../../src/simulator/index.js';
import { repoRoot } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';
import { SimAnswers } from '../support/sim-answers.js';

const ROWS = 1000;
const LABELS = ['animals', 'money', 'sport', 'weather'];
const TOPICS = ['cats', 'dogs', 'bonds', 'tennis', 'rain', 'parrots', 'loans', 'chess', 'snow', 'horses'];
const keysFile = path.join(repoRoot, 'samples', 'scenarios', 'free-tier.keys.txt');
let dir: string;
const alone = new SimAnswers();

/** The free-tier scenario with its RPM raised (see the file comment) and `scripts` added. */
function freeTier(scripts: Scenario['scripts'] = []): Scenario {
  const scenario = withLimitOverrides(loadScenario(path.join(repoRoot, 'samples', 'scenarios', 'free-tier.json')), { rpm: 6000 });
  return { ...scenario, scripts };
}

function writeRows(file: string, mark: (i: number) => string): string[] {
  const texts = Array.from({ length: ROWS }, (_, i) => `item ${i} is about ${TOPICS[i % TOPICS.length]} (${i % 7} stars)${mark(i)}`);
  writeFileSync(path.join(dir, file), `id,text\n${texts.map((t, i) => `${i},${t}`).join('\n')}\n`);
  return texts;
}

/**
 * The label the simulator gives a request of each prompt alone (text/x.enum, as classify sends one row), in order.
 * Rows whose prompt an earlier test asked about are not asked again.
 */
function labelsAlone(prompts: readonly string[]): string[] {
  return prompts.map((prompt) => alone.text({ prompt, generationConfig: { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: LABELS } } }));
}

function classify(sim: SimulatorHandle, file: string, k: number) {
  return runMain(['classify', file, '--prompt', 'Topic of: {{text}}', '--labels', LABELS.join(','), '--keys-file', keysFile, '--base-url', sim.url, '--rpm', '6000', '--rows-per-request', String(k)], { cwd: dir });
}

function output(file: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(path.join(dir, file.replace('.csv', '.classified.csv'))), { columns: true });
}

function journal(file: string): Array<{ row: number; tokens: { input: number; output: number; thoughts: number }; pack?: { id: string; item: string; rows: number }; raw: string | null; label: string | null }> {
  const text = readFileSync(path.join(dir, file.replace('.csv', '.gemini-batch'), 'journal.jsonl'), 'utf8');
  return text.trim().split('\n').map((line) => JSON.parse(line));
}

async function stats(sim: SimulatorHandle): Promise<SimStats> {
  return (await (await fetch(`${sim.url}/__sim/stats`)).json()) as SimStats;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-pack-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--rows-per-request against the free-tier scenario', () => {
  it('1,000 rows with K = 20: at most 60 requests, every row ok with the label the simulator gives its own id; usage adds up', async () => {
    const sim = await startSimulator(freeTier());
    try {
      const texts = writeRows('rows.csv', () => '');
      const run = await classify(sim, 'rows.csv', 20);
      expect(run.code, run.stderr + run.stdout).toBe(0);
      const served = await stats(sim);
      expect(served.requests.byEndpoint.generateContent).toBeLessThanOrEqual(60);
      expect(served.answeredOk).toBeGreaterThanOrEqual(ROWS / 20);
      const rows = output('rows.csv');
      expect(rows).toHaveLength(ROWS);
      const expected = labelsAlone(texts.map((t) => `Topic of: ${t}`));
      expect(new Set(expected).size).toBe(LABELS.length); // the comparison could fail: labels vary by row
      expect(rows.map((r) => `${r.status} ${r.label}`)).toEqual(expected.map((l) => `ok ${l}`));
      // The journal says which pack and item answered each row, and each row's share of the tokens adds up to what
      // the server counted.
      const entries = journal('rows.csv');
      expect(entries.every((e) => e.pack !== undefined && JSON.parse(e.raw as string).id === e.pack.item && e.pack.rows >= 2)).toBe(true);
      expect(new Set(entries.map((e) => e.pack?.id)).size).toBe(served.answeredOk);
      const sum = (k: 'input' | 'output' | 'thoughts') => entries.reduce((n, e) => n + e.tokens[k], 0);
      expect({ input: sum('input'), output: sum('output'), thoughts: sum('thoughts') }).toEqual(served.tokens);
      expect(run.stdout).toMatch(/requests: \d+ \(\d+\.\d rows a request, packs of up to 20\)/);
    } finally {
      await sim.close();
    }
  });

  it('the same rows one per request stop at the scenario\'s 250 requests a day (exit 3)', async () => {
    const sim = await startSimulator(freeTier());
    try {
      writeRows('single.csv', () => '');
      const run = await classify(sim, 'single.csv', 1);
      expect(run.code).toBe(3);
      const ok = output('single.csv').filter((r) => r.status === 'ok').length;
      expect(ok).toBeLessThanOrEqual(250);
      expect((await stats(sim)).rateLimited.total).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });

  it('packs that drop, duplicate, mislabel or reorder items: no row takes another row\'s label, every row ends ok or with a reason', async () => {
    const marks: Array<[number, string]> = [
      [97, ' #drop'],
      [89, ' #dup'],
      [83, ' #bad'],
      [331, ' #shuffle'],
      [401, ' #blocked'],
    ];
    const sim = await startSimulator(
      freeTier([
        { match: '#blocked', responses: [{ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' }] },
        { match: '#drop', responses: [{ kind: 'pack', fault: 'drop' }] },
        { match: '#dup', responses: [{ kind: 'pack', fault: 'duplicate' }] },
        { match: '#bad', responses: [{ kind: 'pack', fault: 'invalid-label' }] },
        { match: '#shuffle', responses: [{ kind: 'pack', fault: 'shuffle' }] },
      ]),
    );
    try {
      const texts = writeRows('faults.csv', (i) => marks.filter(([every]) => i % every === 5).map(([, m]) => m).join(''));
      const marked = texts.filter((t) => t.includes('#')).length;
      expect(marked).toBeGreaterThanOrEqual(30);
      const run = await classify(sim, 'faults.csv', 20);
      expect(run.code).toBe(1); // the blocked rows are not ok
      const rows = output('faults.csv');
      const expected = labelsAlone(texts.map((t) => `Topic of: ${t}`));
      rows.forEach((r, i) => {
        if (r.status === 'ok') expect(r.label, `row ${i}`).toBe(expected[i]);
        else expect(r.error, `row ${i}`).not.toBe('');
      });
      const notOk = rows.map((r, i) => [r.status, i] as const).filter(([status]) => status !== 'ok');
      expect(notOk.map(([status]) => status).every((s) => s === 'blocked')).toBe(true);
      expect(notOk.map(([, i]) => i)).toEqual(texts.map((t, i) => [t, i] as const).filter(([t]) => t.includes('#blocked')).map(([, i]) => i));
      const served = await stats(sim);
      expect(served.requests.byEndpoint.generateContent).toBeGreaterThan(ROWS / 20 + marked / 2); // rows were sent again
      const entries = journal('faults.csv');
      const sum = (k: 'input' | 'output' | 'thoughts') => entries.reduce((n, e) => n + e.tokens[k], 0);
      expect({ input: sum('input'), output: sum('output'), thoughts: sum('thoughts') }).toEqual(served.tokens);
    } finally {
      await sim.close();
    }
  });
});
