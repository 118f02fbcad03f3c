/**
 * What a job remembers across runs (learned limits, refused keys, the requests of a killed run) and what `plan`
 * makes of a job directory — against the simulator over real HTTP. In-process (test/support/run-main.ts), except the
 * run that is SIGKILLed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type SimStats, type SimulatorHandle } from '../../src/simulator/index.js';
import { resultLayout } from '../../src/job/write-results.js';
import { parseLabelList } from '../../src/prompt/labels.js';
import { spawnCli } from '../support/cli.js';
import { journaledRows } from '../support/journal-rows.js';
import { runMain } from '../support/run-main.js';

let sim: SimulatorHandle;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator(
    parseScenario(
      {
        projects: [
          { id: 'a', keys: ['key-a-1', { key: 'key-a-leaked', leaked: true }], limits: { '*': { rpm: 600, tpm: 10_000_000 } } },
          { id: 'b', keys: ['key-b-1'], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } },
        ],
        latency: { medianMs: 20, p99Ms: 40 },
        scripts: [
          { match: '#refused', responses: [{ kind: 'error', status: 400, fixture: '400-context-too-long' }] },
          { match: '#flaky', responses: [{ kind: 'error', status: 400, fixture: '400-context-too-long' }, { kind: 'enum' }] },
        ],
      },
      'memory',
    ),
  );
  dir = mkdtempSync(path.join(tmpdir(), 'gb-memory-'));
  const rows = Array.from({ length: 120 }, (_, i) => `${i},topic ${i}`);
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${rows.join('\n')}\n`);
  writeFileSync(path.join(dir, 'keys.txt'), 'a key-a-1\na key-a-leaked\nb key-b-1\n');
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const stats = async () => (await (await fetch(`${sim.url}/__sim/stats`)).json()) as SimStats;

describe('memory across runs', () => {
  it('a refused key is left out of the next run, said once; the requests of a killed run still count in status', async () => {
    const args = ['classify', 'rows.csv', '--prompt', 'Topic: {{text}}', '--labels', 'x,y', '--keys-file', 'keys.txt', '--base-url', sim.url, '--rpm', '100000'];
    const first = spawnCli(args, { cwd: dir });
    const journal = path.join(dir, 'rows.gemini-batch', 'journal.jsonl');
    await first.waitUntil('20 journaled rows', () => journaledRows(journal).size >= 20);
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const status = JSON.parse((await runMain(['status', 'rows.csv', '--json'], { cwd: dir })).stdout) as { requests: number; runs: number };
    expect(status.runs).toBe(1);
    expect(status.requests).toBeGreaterThan(0);

    const leakedBefore = (await stats()).keys['a/key-2']?.requests ?? 0;
    const second = await runMain(args, { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('was refused by the API in an earlier run');
    expect((await stats()).keys['a/key-2']?.requests ?? 0).toBe(leakedBefore);
  });

  it('the same 4xx for every request stops the run with exit 2 instead of failing every row', async () => {
    const many = Array.from({ length: 60 }, (_, i) => `${i},#refused ${i}`);
    writeFileSync(path.join(dir, 'refused.csv'), `id,text\n${many.join('\n')}\n`);
    const result = await runMain(['classify', 'refused.csv', '--prompt', '{{text}}', '--labels', 'x,y', '--keys-file', 'keys.txt', '--base-url', sim.url, '--workers-per-key', '1'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('every request so far was refused the same way');
  });

  it('--retry-errors keeps the tokens of earlier attempts in the journal', async () => {
    writeFileSync(path.join(dir, 'flaky.csv'), 'id,text\n1,#flaky one\n2,plain\n');
    const args = ['classify', 'flaky.csv', '--prompt', '{{text}}', '--labels', 'x,y', '--keys-file', 'keys.txt', '--base-url', sim.url];
    expect((await runMain(args, { cwd: dir })).code).toBe(1);
    const before = JSON.parse((await runMain(['status', 'flaky.csv', '--json'], { cwd: dir })).stdout) as { tokens: { input: number } };
    expect((await runMain([...args, '--retry-errors'], { cwd: dir })).code).toBe(0);
    const after = JSON.parse((await runMain(['status', 'flaky.csv', '--json'], { cwd: dir })).stdout) as { tokens: { input: number } };
    expect(after.tokens.input).toBeGreaterThan(before.tokens.input);
  });
});

describe('plan and the job directory', () => {
  it('counts done rows only for the job classify would resume; --restart and --retry-errors are honoured', async () => {
    writeFileSync(path.join(dir, 'small.csv'), 'id,text\n1,#refused a\n2,b\n3,c\n');
    const args = ['small.csv', '--prompt', '{{text}}', '--labels', 'x,y', '--keys-file', 'keys.txt', '--base-url', sim.url];
    await runMain(['classify', ...args], { cwd: dir });
    const requests = async (extra: string[], prompt?: string) => {
      const a = prompt ? [...args.slice(0, 1), '--prompt', prompt, ...args.slice(3)] : args;
      const out = (await runMain(['plan', ...a, ...extra], { cwd: dir })).stdout;
      return { n: Number(/requests: ([\d,]+)/.exec(out)?.[1]), out };
    };
    expect((await requests([])).n).toBe(0);
    expect((await requests(['--retry-errors'])).n).toBe(1);
    expect((await requests(['--restart'])).n).toBe(3);
    const other = await requests([], 'Another {{text}}');
    expect(other.n).toBe(3);
    expect(other.out).toContain('holds another job');
  });

  it('--count-tokens reports a failing API call as exit 2 with a message', async () => {
    const result = await runMain(['plan', 'small.csv', '--prompt', '{{text}}', '--labels', 'x,y', '--count-tokens', '--restart', '--base-url', 'http://127.0.0.1:9'], {
      cwd: dir,
      env: { GEMINI_API_KEY: 'k' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--count-tokens');
  });
});

describe('request shape', () => {
  it('gemini-2.5-pro with --thinking-budget 0 is exit 2 before any request', async () => {
    const result = await runMain(['classify', 'rows.csv', '--prompt', '{{text}}', '--labels', 'x,y', '--model', 'gemini-2.5-pro', '--thinking-budget', '0', '--keys-file', 'keys.txt', '--base-url', sim.url], {
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot turn thinking off');
  });

  it('schema properties named status or error do not take the tool\'s own columns', () => {
    const layout = resultLayout(['id', 'status'], ['id', 'status'], ['label', 'status', 'error']);
    expect(layout.header).toEqual(['id', 'status', 'label', 'status_3', 'error_2', 'status_2', 'error']);
  });

  it('an empty label in --labels is refused', () => {
    expect(() => parseLabelList('yes,,no')).toThrow(/empty/);
  });
});

it('the output of a plain job still parses', () => {
  const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'rows.classified.csv')), { columns: true });
  expect(rows).toHaveLength(120);
});
