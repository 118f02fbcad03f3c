/**
 * Every command gemini-batch prints runs as printed (issue 12, "README and commands"), and the numbers it prints add up
 * ("Progress and status"): the resume line, the simulator's `run:` hint and its keys files, the resume header, and
 * status's retries against the runs' summaries. In-process (test/support/run-main.ts) over real HTTP.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandPrefix, formatCommand } from '../../src/invocation.js';
import { describeRows } from '../../src/report/describe-rows.js';
import { loadScenario, runSimulateCommand, type SimulatorHandle } from '../../src/simulator/index.js';
import { scenarioKeysFile } from '../../src/simulator/run-hint.js';
import { repoRoot } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';
import { shellSplit } from '../support/shell-words.js';
import { startAnyKeySimulator } from '../support/any-key-simulator.js';
import { tempRoot } from '../support/temp-root.js';

/** A folder of this file's temporary folder, made if missing. */
const workdir = tempRoot('gb-printed-').folder;

describe('commandPrefix', () => {
  it('npx gemini-batch under npx; gemini-batch when PATH holds this program; else node <script>', () => {
    const dir = workdir('prefix');
    const script = path.join(dir, 'pkg', 'bin', 'gemini-batch.js');
    mkdirSync(path.dirname(script), { recursive: true });
    writeFileSync(script, '#!/usr/bin/env node\n');
    chmodSync(script, 0o755);
    const binDir = path.join(dir, 'global-bin');
    mkdirSync(binDir);
    symlinkSync(script, path.join(binDir, 'gemini-batch'));

    expect(commandPrefix(script, { npm_command: 'exec', PATH: '' }, dir)).toBe('npx gemini-batch');
    expect(commandPrefix(script, { PATH: `/nonexistent${path.delimiter}${binDir}` }, dir)).toBe('gemini-batch');
    expect(commandPrefix(script, { PATH: '/usr/bin' }, dir)).toBe('node pkg/bin/gemini-batch.js');
    expect(commandPrefix(script, { PATH: '/usr/bin' }, path.join(dir, 'elsewhere'))).toBe(`node ${script}`);
    expect(commandPrefix('gemini-batch', {}, dir)).toBe('gemini-batch');
  });

  it('formatCommand quotes what a shell would split or expand, and shellSplit reads it back', () => {
    const args = ['classify', 'my file.csv', '--prompt', "It's {{Subject}}: $HOME", '--labels', 'a,b'];
    const line = formatCommand('npx gemini-batch', args);
    expect(line).toBe(`npx gemini-batch classify 'my file.csv' --prompt 'It'\\''s {{Subject}}: $HOME' --labels a,b`);
    expect(shellSplit(line).words).toEqual(['npx', 'gemini-batch', ...args]);
  });
});

describe('the simulate banner', () => {
  // 'brk-batch.json': a copy of two-projects-faults.json with no keys file beside it; the hint writes one first.
  for (const config of [undefined, 'two-projects-faults.json', 'brk-batch.json']) {
    it(`its run: hint works when pasted (${config ?? 'generous built-in scenario'})`, async () => {
      const cwd = workdir(`hint-${config ?? 'generous'}`);
      let scenario = config ? path.join(repoRoot, 'samples', 'scenarios', config) : undefined;
      if (config === 'brk-batch.json') {
        scenario = path.join(cwd, 'scenarios', config);
        mkdirSync(path.dirname(scenario));
        copyFileSync(path.join(repoRoot, 'samples', 'scenarios', 'two-projects-faults.json'), scenario);
      }
      const controller = new AbortController();
      let text = '';
      const stdout = { write: (s: string) => ((text += s), true) } as unknown as NodeJS.WritableStream;
      const running = runSimulateCommand({ port: 0, ...(scenario ? { config: scenario } : {}), commandPrefix: 'gemini-batch', cwd, signal: controller.signal }, { stdout, stderr: stdout });
      try {
        for (let i = 0; i < 500 && !text.includes('stats:'); i++) await new Promise((r) => setTimeout(r, 10));
        const run = text.split('\n').find((line) => line.startsWith('run: '));
        expect(run).toBeDefined();
        const { env, words } = shellSplit(run!.slice('run: '.length));
        expect(words[0]).toBe('gemini-batch');
        if (config === 'brk-batch.json') {
          expect(words[words.indexOf('--keys-file') + 1]).toBe(path.join('scenarios', 'brk-batch.keys.txt'));
          expect(text).toContain(`keys: the scenario's keys were written to ${path.join('scenarios', 'brk-batch.keys.txt')}`);
        }
        const result = await runMain(words.slice(1), { cwd, env });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('finished: every row ok');
        expect(parse(readFileSync(path.join(cwd, 'sim-trial.csv')), { columns: true })).toHaveLength(20);
      } finally {
        controller.abort();
        await running;
      }
    });
  }

  it('every sample scenario ships a keys file whose keys are the scenario keys of the same projects', () => {
    const dir = path.join(repoRoot, 'samples', 'scenarios');
    const scenarios = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(scenarios.length).toBeGreaterThan(0);
    for (const name of scenarios) {
      const file = path.join(dir, name);
      const expected = loadScenario(file).projects.flatMap((p) => p.keys.map((k) => `${p.id} ${k.key}`));
      const lines = readFileSync(scenarioKeysFile(file), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
      expect(lines.map((l) => l.split(/\s+/).join(' '))).toEqual(expected);
    }
  });
});

describe('after an early stop', () => {
  it('the resume line runs as printed (npx here), and the resumed header adds up: kept + to send = rows', async () => {
    const dir = workdir('resume-line');
    writeFileSync(path.join(dir, 'rows.csv'), `t\n${['Invoices', 'Parcels', 'Refunds', 'Passwords', 'Tracking', 'Boxes'].join('\n')}\n`);
    const env = { npm_command: 'exec' };
    const first = await runMain(['classify', 'rows.csv', '--prompt', "Topic's {{t}}?", '--labels', 'money,other', '--simulate', '--rpd', '3'], { cwd: dir, env });
    expect(first.code).toBe(3);
    const line = first.stdout.split('\n').find((l) => l.startsWith('resume with: '));
    expect(line).toBe(`resume with: npx gemini-batch classify rows.csv --prompt 'Topic'\\''s {{t}}?' --labels money,other --simulate --rpd 3`);
    const { words } = shellSplit(line!.slice('resume with: '.length));
    expect(words.slice(0, 2)).toEqual(['npx', 'gemini-batch']);
    const again = await runMain(words.slice(2), { cwd: dir, env });
    expect(again.stdout).toContain('6 rows: 3 kept from earlier runs, 3 to send');
  });

  it('describeRows words every resume so that the numbers add up', () => {
    const base = { total: 656, resumed: 504, kept: 504, toSend: 152, again: { skipped: 0, errors: 0 }, keptNotOk: 0 };
    expect(describeRows({ ...base, resumed: 0, kept: 0, toSend: 656 })).toBe('656 rows');
    expect(describeRows(base)).toBe('656 rows: 504 kept from earlier runs, 152 to send');
    expect(describeRows({ ...base, kept: 500, toSend: 156, again: { skipped: 4, errors: 0 }, keptNotOk: 12 })).toBe(
      '656 rows: 500 kept from earlier runs, 156 to send (4 skipped before); 12 of the kept are not ok (--retry-errors sends them again)',
    );
    expect(describeRows({ ...base, kept: 498, toSend: 158, again: { skipped: 0, errors: 6 } })).toBe('656 rows: 498 kept from earlier runs, 158 to send (6 that ended in an error, --retry-errors)');
  });
});

describe('status and the summaries agree', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startAnyKeySimulator(
      'status-retries',
      {
        scripts: [
          { match: '#flaky', responses: [{ kind: 'error', status: 503 }, { kind: 'error', status: 503 }, { kind: 'enum' }] },
          { match: '#shaky', responses: [{ kind: 'error', status: 500 }, { kind: 'enum' }] },
        ],
      },
    );
  });
  afterAll(() => sim.close());

  it('status retries are the sum of what each run summary reported', async () => {
    const dir = workdir('status-retries');
    writeFileSync(path.join(dir, 'rows.csv'), 'id,text\n1,plain\n2,#flaky\n3,#shaky\n4,plain too\n');
    const args = ['classify', 'rows.csv', '--prompt', '{{id}} {{text}}', '--labels', 'a,b', '--base-url', sim.url, '--max-attempts', '2', '--json'];
    const env = { GEMINI_API_KEY: 'status-retries-key' };
    const retriesOf = (stdout: string) => (JSON.parse(stdout.trim().split('\n').at(-1)!) as { retries: number }).retries;
    const first = await runMain(args, { cwd: dir, env });
    expect(first.code).toBe(1); // #flaky fails twice: failed after --max-attempts 2
    const second = await runMain([...args, '--retry-errors'], { cwd: dir, env });
    expect(second.code).toBe(0);
    const summaries = retriesOf(first.stdout) + retriesOf(second.stdout);
    expect(summaries).toBe(2); // one retry of #flaky and one of #shaky in the first run, none in the second
    const status = await runMain(['status', 'rows.csv', '--json'], { cwd: dir });
    expect((JSON.parse(status.stdout) as { retries: number }).retries).toBe(summaries);
    const text = await runMain(['status', 'rows.csv'], { cwd: dir });
    expect(text.stdout).toContain(`retries: ${summaries}`);
  });
});
