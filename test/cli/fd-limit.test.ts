/**
 * `--workers-per-key 100000` under a low file-descriptor limit (issue 10): every request in flight holds a socket, two
 * with --simulate (both ends are in this process), so without the process ceiling (src/schedule/fd-budget.ts) such a
 * job opens sockets until EMFILE and rows fail (before it: 36 of 30,000 rows failed with EMFILE/ECONNRESET). Spawned
 * through a shell because the limit (`ulimit -n 256`) is the point, and a test process cannot lower its own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cliEnv } from '../support/cli.js';

const ROWS = 400;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-fd-limit-'));
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: ROWS }, (_, i) => `${i},ticket ${i} about a refund`).join('\n')}\n`);
  // Answers take 50-150 ms, so that an unbounded dispatcher would hold about all 400 rows in flight at once: 800
  // sockets (both ends in this process) against a limit of 256 descriptors.
  writeFileSync(
    path.join(dir, 'scenario.json'),
    JSON.stringify({ acceptAnyKey: true, defaultProject: 'p', projects: [{ id: 'p', keys: [], limits: { '*': { rpm: 1_000_000_000, tpm: 1_000_000_000_000 } } }], latency: { medianMs: 80, p99Ms: 150, minMs: 50 } }),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('file-descriptor limit', () => {
  it('with ulimit -n 256 and --workers-per-key 100000, every row of a --simulate job is ok and nothing says EMFILE', async () => {
    const command = [binPath, 'classify', 'rows.csv', '--simulate', '--simulate-config', 'scenario.json', '--prompt', 'Ticket: {{text}}', '--labels', 'billing,shipping,other']
      .concat(['--workers-per-key', '100000', '--rpm', '1000000000', '--tpm', '1000000000000', '--json'])
      .map((a) => `'${a}'`)
      .join(' ');
    const child = spawn('/bin/sh', ['-c', `ulimit -n 256 && exec '${process.execPath}' ${command}`], { cwd: dir, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EMFILE|ECONNRESET/);
    const summary = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; byStatus?: Record<string, number> })
      .find((e) => e.event === 'summary');
    expect(summary?.byStatus).toMatchObject({ ok: ROWS, pending: 0 });
    expect(code).toBe(0);
    const journal = readFileSync(path.join(dir, 'rows.gemini-batch', 'journal.jsonl'), 'utf8');
    expect(journal).not.toMatch(/EMFILE|ECONNRESET/);
  }, 60_000);
});
