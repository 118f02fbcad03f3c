/**
 * `classify --batch` end to end against the simulator's Files and Batch API over real HTTP (issue 14's "Done when"):
 * a 2,000-row job (`npm run test:torture`; 400 rows in `npm test`) ends with every row ok — per-line errors (gRPC 13) retried in a later batch, a scripted invalid label
 * and a scripted server error retried, blocked prompts `blocked` — and its output is byte-identical to the same job run
 * online against the same scripted answers. No second batch ever carries the same rows.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { BatchLog } from '../../src/batch/batch-log.js';
import { runMain } from '../support/run-main.js';
import { testSize } from '../support/test-size.js';

const KEY = 'AIzaSyBatchRunnerTestKey000000000000001';
/** Issue 14's 2,000 rows in `npm run test:torture` (GB_BATCH_ROWS=2000); 400 in `npm test`. In 4 chunks either way. */
const ROWS = testSize('GB_BATCH_ROWS', 400, 100);
const scenario = {
  projects: [{ id: 'acme', keys: [KEY], limits: { '*': { rpm: 1_000_000, tpm: 1_000_000_000 } } }],
  scripts: [
    { match: 'BLOCKME', responses: [{ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' }] },
    { match: 'FLAKY', responses: [{ kind: 'text', text: 'maybe' }, { kind: 'enum' }] },
    { match: 'FAILONCE', responses: [{ kind: 'error', status: 500 }, { kind: 'enum' }] },
  ],
  batch: { pendingMs: 30, runningMs: 60, lineErrors: [{ code: 13, fraction: 0.1, times: 1 }] },
};

let dir: string;
const sims: SimulatorHandle[] = [];

function rowText(i: number): string {
  const marker = i % 50 === 7 ? ' BLOCKME' : i % 37 === 5 ? ' FLAKY' : i % 41 === 3 ? ' FAILONCE' : '';
  return `item ${i} about ${['invoices', 'shipping', 'hiring', 'taxes', 'weather'][i % 5]}${marker}`;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-batch-cli-'));
  const lines = ['id,text', ...Array.from({ length: ROWS }, (_, i) => `${i + 1},${rowText(i)}`)];
  writeFileSync(path.join(dir, 'rows.csv'), `${lines.join('\n')}\n`);
  writeFileSync(path.join(dir, 'keys.txt'), `acme ${KEY}\n`);
});

afterAll(async () => {
  for (const sim of sims) await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function simulator(): Promise<SimulatorHandle> {
  const sim = await startSimulator(parseScenario(scenario, 'batch-run'));
  sims.push(sim);
  return sim;
}

const common = ['classify', 'rows.csv', '--prompt', 'Is this about money? {{text}}', '--labels', 'yes,no', '--keys-file', 'keys.txt'];
/** The scenario's quota, so that the online run is not held to Tier 1's 1,000 RPM. */
const limits = ['--rpm', '1000000', '--tpm', '1000000000'];

describe('classify --batch', () => {
  it(`a ${ROWS.toLocaleString('en-US')}-row job ends with every row ok or blocked, byte-identical to the same job run online`, async () => {
    const online = await simulator();
    const viaApi = await simulator();
    const first = await runMain([...common, ...limits, '--base-url', online.url, '--job-dir', 'online.job', '-o', 'online.csv'], { cwd: dir });
    expect(first.code, first.stderr + first.stdout).toBe(1); // blocked rows are not ok
    const batched = await runMain([...common, '--base-url', viaApi.url, '--job-dir', 'batch.job', '-o', 'batch.csv', '--batch', '--batch-size', String(Math.ceil(ROWS / 4)), '--batch-poll', '0.05'], { cwd: dir });
    expect(batched.code, batched.stderr + batched.stdout).toBe(1);

    const onlineBytes = readFileSync(path.join(dir, 'online.csv'));
    const batchBytes = readFileSync(path.join(dir, 'batch.csv'));
    expect(createHash('sha256').update(batchBytes).digest('hex')).toBe(createHash('sha256').update(onlineBytes).digest('hex'));

    const rows = parse<Record<string, string>>(batchBytes, { columns: true });
    expect(rows).toHaveLength(ROWS);
    const blocked = rows.filter((r) => r.status === 'blocked');
    expect(blocked.map((r) => Number(r.id) - 1)).toEqual(Array.from({ length: ROWS }, (_, i) => i).filter((i) => i % 50 === 7));
    expect(rows.filter((r) => r.status !== 'blocked').every((r) => r.status === 'ok' && (r.label === 'yes' || r.label === 'no'))).toBe(true);

    // The batches: per-line errors and the scripted retries went into later batches; no set of rows went twice.
    const stats = viaApi.stats().batches;
    expect(stats.created).toBeGreaterThan(4);
    expect(Object.values(stats.byKeySet).every((n) => n === 1)).toBe(true);
    expect(stats.keysInSeveralBatches).toBeGreaterThan(ROWS * 0.05);
    expect(viaApi.stats().requests.byEndpoint['generateContent'] ?? 0).toBe(0);
    // Our copy of every uploaded file, with its sha256 in the batch log.
    const records = BatchLog.read(path.join(dir, 'batch.job', 'batches.jsonl'));
    const chunks = records.filter((r) => r.t === 'chunk');
    expect(chunks).toHaveLength(stats.created);
    for (const c of chunks) {
      const copy = readFileSync(path.join(dir, 'batch.job', c.file));
      expect(createHash('sha256').update(copy).digest('hex')).toBe(c.sha256);
    }
    expect(readdirSync(path.join(dir, 'batch.job', 'batches')).sort()).toEqual(chunks.map((c) => path.basename(c.file)).sort());
    // Every row journaled once: one journal line per row.
    const journal = readFileSync(path.join(dir, 'batch.job', 'journal.jsonl'), 'utf8').trim().split('\n');
    expect(journal).toHaveLength(ROWS);
    expect(journal.every((l) => l.includes('"tier":"batch"'))).toBe(true);
    expect(batched.stdout).toContain('batches: ');
    expect(existsSync(path.join(dir, 'batch.job', 'batches.jsonl'))).toBe(true);
  }, 240_000); // two runs of ROWS rows in-process (online, then --batch): over 60 s at load average 20 on 2 cores
});
