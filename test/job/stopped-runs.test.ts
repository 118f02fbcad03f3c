/**
 * What a run that stops early leaves behind: a fatal run prints its summary and logs its exit code (issue 11 item
 * 11); pending rows say why they are pending (issue 11 item 13); a run stopped before finishing any row leaves an
 * earlier output as it was (issue 12). In-process, against the simulator over real HTTP.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

let dir: string;

function scenario(name: string, body: object): string {
  fs.writeFileSync(path.join(dir, name), JSON.stringify(body));
  return name;
}

const rows = (n: number) => `id,text\n${Array.from({ length: n }, (_, i) => `${i},topic ${i}`).join('\n')}\n`;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-stopped-'));
  fs.writeFileSync(path.join(dir, 'rows.csv'), rows(30));
  scenario('refuse-all.json', {
    projects: [{ id: 'p', keys: ['stopped-runs-key-1'], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }],
    scripts: [{ match: 'topic', responses: [{ kind: 'error', status: 400, fixture: '400-context-too-long' }] }],
  });
  scenario('limit-zero.json', { projects: [{ id: 'p', keys: ['stopped-runs-key-2'], limits: { '*': { limit: 0 } } }] });
  scenario('rpd-5.json', { projects: [{ id: 'p', keys: ['stopped-runs-key-3'], limits: { '*': { rpm: 100_000, tpm: 100_000_000, rpd: 5 } } }] });
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const classify = (args: string[]) =>
  runMain(['classify', 'rows.csv', '--prompt', 'Topic: {{text}}', '--labels', 'x,y', '--simulate', '--workers-per-key', '1', ...args], { cwd: dir });

function lastRun(jobDir: string): { exitCode: number | null } {
  const lines = fs.readFileSync(path.join(dir, jobDir, 'runs.jsonl'), 'utf8').trim().split('\n');
  return JSON.parse(lines.at(-1) as string) as { exitCode: number | null };
}

function outputRows(file: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(fs.readFileSync(path.join(dir, file), 'utf8'), { columns: true, bom: true });
}

describe('a fatal run (issue 11 item 11)', () => {
  it('an unknown model: exit 2 with the summary printed and the exit code in runs.jsonl', async () => {
    const result = await classify(['--model', 'gemini-no-such-model', '--job-dir', 'job-404', '-o', 'out-404.csv']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/stopped: the model cannot be used \(HTTP 404/);
    expect(result.stdout).toContain('rows: 30 — pending 30');
    expect(lastRun('job-404').exitCode).toBe(2);
  });

  it('the same refusal for every request: exit 2 with the summary printed and the exit code in runs.jsonl', async () => {
    const result = await classify(['--simulate-config', 'refuse-all.json', '--job-dir', 'job-400', '-o', 'out-400.csv']);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('stopped: every request so far was refused the same way (HTTP 400');
    expect(result.stdout).toMatch(/requests: \d+/);
    expect(lastRun('job-400').exitCode).toBe(2);
  });
});

describe('pending rows say why (issue 11 item 13)', () => {
  it('rows left by a daily quota carry the park in their error', async () => {
    const result = await classify(['--simulate-config', 'rpd-5.json', '--job-dir', 'job-rpd', '-o', 'out-rpd.csv']);
    expect(result.code).toBe(3);
    const pending = outputRows('out-rpd.csv').filter((r) => r.status === 'pending');
    expect(pending.length).toBeGreaterThan(20);
    for (const row of pending) expect(row.error).toMatch(/^not sent: every project is parked by its daily quota until /);
  });
});

describe('an earlier output is kept when a run finishes no row (issue 12)', () => {
  it('a run stopped with exit 2 after requests leaves the existing output as it was', async () => {
    fs.writeFileSync(path.join(dir, 'kept.csv'), 'earlier results\n');
    const result = await classify(['--simulate-config', 'limit-zero.json', '--job-dir', 'job-limit0', '-o', 'kept.csv']);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('kept.csv not replaced: this run finished no row');
    expect(fs.readFileSync(path.join(dir, 'kept.csv'), 'utf8')).toBe('earlier results\n');
  });

  it('without an earlier file, the output of pending rows is written, each saying why', async () => {
    const result = await classify(['--simulate-config', 'limit-zero.json', '--job-dir', 'job-limit0-new', '-o', 'new.csv']);
    expect(result.code).toBe(2);
    const out = outputRows('new.csv');
    expect(out).toHaveLength(30);
    for (const row of out) expect(row.error).toMatch(/^not sent: no key can send \(project p: .*limit: 0/);
  });
});
