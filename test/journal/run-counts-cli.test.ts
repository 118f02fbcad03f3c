/**
 * Requests and rows finished as `status` and the HTML report count them (../../src/journal/run-counts.ts): a packed
 * job's requests are its packs, as the summary said, not its rows; a run that ended without its last runs.jsonl record
 * (SIGKILL before its first 2 s update) is counted from the journal, not as 0. In-process, against the simulator over
 * real HTTP on 127.0.0.1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

let dir: string;
let summary: string;

const ROWS = 30;
const K = 7;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-run-counts-'));
  fs.writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: ROWS }, (_, i) => `${i},topic ${i}`).join('\n')}\n`);
  const run = await runMain(['classify', 'rows.csv', '--prompt', 'Topic: {{text}}', '--labels', 'x,y', '--simulate', '--rows-per-request', String(K), '-o', 'out.csv'], { cwd: dir });
  expect(run.code).toBe(0);
  summary = run.stdout + run.stderr;
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const jobFile = (name: string) => path.join(dir, 'rows.gemini-batch', name);

/** Distinct packs of the journal: the requests that answered its rows. */
function packsInJournal(): number {
  const lines = fs.readFileSync(jobFile('journal.jsonl'), 'utf8').trim().split('\n');
  return new Set(lines.map((l) => (JSON.parse(l) as { pack?: { id: string } }).pack?.id ?? 'alone')).size;
}

describe('requests of a packed job (--rows-per-request)', () => {
  it('status counts packs as requests, as the run summary did', async () => {
    const said = Number(/^requests: ([\d,]+)/m.exec(summary)?.[1]?.replace(/,/g, ''));
    expect(said).toBeGreaterThanOrEqual(Math.ceil(ROWS / K));
    expect(said).toBeLessThan(ROWS);
    const status = await runMain(['status', 'rows.csv'], { cwd: dir });
    expect(status.stdout).toContain(`requests: ${said} in 1 run · `);
    const json = JSON.parse((await runMain(['status', 'rows.csv', '--json'], { cwd: dir })).stdout) as { requests: number };
    expect(json.requests).toBe(said);
  });

  it('a run killed before its first update is counted from the journal: its packs and rows, not 0', async () => {
    // What SIGKILL within 2 s of the start leaves: only the run's first record (exit code null, nothing counted).
    const first = fs.readFileSync(jobFile('runs.jsonl'), 'utf8').split('\n')[0] as string;
    const record = JSON.parse(first) as { exitCode: number | null; requests: number; finished: number };
    expect([record.exitCode, record.requests, record.finished]).toEqual([null, 0, 0]);
    fs.writeFileSync(jobFile('runs.jsonl'), `${first}\n`);
    fs.rmSync(jobFile('events.log'), { force: true }); // the journal alone must do
    const packs = packsInJournal();
    expect(packs).toBeGreaterThanOrEqual(Math.ceil(ROWS / K));

    const status = await runMain(['status', 'rows.csv'], { cwd: dir });
    expect(status.stdout).toContain(`requests: ${packs} in 1 run (1 ended without a summary: counted from the journal) · `);

    const report = await runMain(['report', 'rows.csv', '-o', 'report.html'], { cwd: dir });
    expect(report.code).toBe(0);
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html).toContain(`${packs} online requests in 1 run`);
    const row = /<table class="runs">.*?<tbody><tr>(.*?)<\/tr>/s.exec(html)?.[1] ?? '';
    expect(row).toContain('counts from the journal');
    const cells = [...row.matchAll(/<td class="n">([\d,]+)<\/td>/g)].map((m) => m[1]);
    // #, requests, 429s, retries, rows finished
    expect([cells[1], cells[4]]).toEqual([String(packs), String(ROWS)]);
  });
});
