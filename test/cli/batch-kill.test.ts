/**
 * Issue 14, "Done when": a torture test SIGKILLs `classify --batch` runs at chosen moments and resumes them. The CLI is
 * spawned (bin/gemini-batch.js, as a user runs it) against the simulator in this process over real HTTP on 127.0.0.1,
 * and killed from inside the simulator's own event handler (`sim.onBatchEvent`), synchronously, while the CLI waits on
 * an answer the simulator has decided and not written yet: the moment is the simulator's state, never a clock's guess.
 *
 * Moments, each in its own job of 60 rows in 3 batches of 20 with a simulator of its own (the second batch is the one
 * hit): before upload (the upload's start has made a session, its answer is held), during upload (the file exists,
 * the final chunk's answer is held), between the create and the journaling of the batch's name (the batch exists, the
 * create's answer is held), while RUNNING (the log says RUNNING), while downloading (half the results file read and
 * partly journaled, the rest stalled), and seeded random moments (4 in `npm run test:torture`, 1 in `npm test`: the m-th answer of one kind of Files/Batch API
 * request, drawn from those every run reaches). The simulator's clock moves only with the CLI's gets, so a batch's
 * states are a count of polls, not of milliseconds on a loaded machine. Each job is then resumed (in-process) to the
 * end, and: the output is byte-identical to an uninterrupted run's (the answers are a function of the prompt), every
 * row is journaled exactly once, no row key went into two batches (`keysInSeveralBatches` 0, every key set once) and
 * as many batches were created as without the kill.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchLog } from '../../src/batch/batch-log.js';
import type { BatchRecord } from '../../src/batch/batch-records.js';
import { parseScenario, startSimulator, type BatchEvent, type SimulatorHandle } from '../../src/simulator/index.js';
import { spawnCli } from '../support/cli.js';
import { journalLineCount } from '../support/journal-rows.js';
import { runMain } from '../support/run-main.js';
import { testSize } from '../support/test-size.js';

const KEY = 'AIzaSyBatchKillTestKey00000000000000003';
const ROWS = 60;
const BATCH_ROWS = 20;
/** The seed of the random moments (change it to draw others; the test names show what was drawn). */
const SEED = 20261201;
/** How many: issue 14's 4 in `npm run test:torture` (GB_BATCH_KILL_RANDOM=4), 1 in `npm test` (each is a spawned run). */
const RANDOM_MOMENTS = testSize('GB_BATCH_KILL_RANDOM', 1);

const ARGS = ['classify', 'rows.csv', '--prompt', 'Is this about money? {{text}}', '--labels', 'yes,no', '--keys-file', 'keys.txt', '--batch', '--batch-size', String(BATCH_ROWS), '--batch-poll', '0.02'];

let root: string;
const sims: SimulatorHandle[] = [];
/** The uninterrupted run: its output and how many batches it created. */
let reference: Promise<{ output: Buffer; created: number }>;

function rowText(i: number): string {
  return `item ${i} about ${['invoices', 'shipping', 'hiring', 'taxes', 'weather', 'refunds'][i % 6]} ${i % 7 === 3 ? 'and its price' : ''}`.trim();
}

/** Simulated ms a batch stays PENDING, then RUNNING. */
const PENDING_MS = 100;
const RUNNING_MS = 300;
/** Simulated ms each `batches.get` moves the simulator's clock. */
const STEP_MS = 25;
/** Gets every run makes before its batches end: the simulator's time moves only with them. */
const CERTAIN_GETS = (PENDING_MS + RUNNING_MS) / STEP_MS;

/**
 * A simulator plus `batch`, whose clock moves only with the CLI's polls: STEP_MS per `batches.get` answered. Every
 * batch's life is then a number of gets, whatever the load on the machine (PENDING for the first 4, RUNNING for the
 * next 12), and stands still while the CLI is dead.
 */
async function simulator(batch: Record<string, unknown> = {}): Promise<SimulatorHandle> {
  const start = Date.now();
  let gets = 0;
  const clock = { now: () => start + gets * STEP_MS };
  const sim = await startSimulator(parseScenario({ projects: [{ id: 'acme', keys: [KEY] }], batch: { pendingMs: PENDING_MS, runningMs: RUNNING_MS, ...batch } }, 'batch-kill'), { clock });
  sim.onBatchEvent((e) => {
    if (e.type === 'answered' && e.endpoint === 'batches.get') gets++;
  });
  sims.push(sim);
  return sim;
}

/** A fresh job: the same rows and keys file in a directory of its own. */
function jobDir(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: ROWS }, (_, i) => `${i + 1},${rowText(i)}`).join('\n')}\n`);
  writeFileSync(path.join(dir, 'keys.txt'), `acme ${KEY}\n`);
  return dir;
}

const logOf = (dir: string): BatchRecord[] => BatchLog.read(path.join(dir, 'rows.gemini-batch', 'batches.jsonl'));
const journalOf = (dir: string): string => path.join(dir, 'rows.gemini-batch', 'journal.jsonl');
/** The record kinds the log holds for chunk `id`, in order. */
const stepsOf = (records: BatchRecord[], id: string): string[] => records.filter((r) => 'id' in r && r.id === id).map((r) => r.t);

/** mulberry32: a small seeded generator, so the random moments are the same on every run (and in the test names). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a case sees at the kill: the simulator's batch counters then, and anything the case noted. */
interface AtKill {
  created: number;
  filesUploaded: number;
  running: number;
  note?: Record<string, number>;
}

interface KillCase {
  name: string;
  /** Scenario `batch` fields that hold the case's window open (reply delays, a stalled download). */
  batch?: Record<string, unknown>;
  /**
   * Watches the simulator's events and calls `kill` at the moment (synchronously in the handler, or once the job
   * directory shows what the moment needs); `kill` takes what the case wants to remember.
   */
  arm(sim: SimulatorHandle, dir: string, kill: (note?: Record<string, number>) => void): void;
  /** What the job directory and the simulator must show after the kill: proof that the moment was hit. */
  check?(records: BatchRecord[], at: AtKill, dir: string): void;
  /** What the resumed run must have done besides the common checks. */
  after?(records: BatchRecord[]): void;
}

/** Kills at the `n`-th event of `type` (1-based). */
function atNth(type: BatchEvent['type'], n: number): KillCase['arm'] {
  return (sim, _dir, kill) => {
    let seen = 0;
    sim.onBatchEvent((e) => {
      if (e.type === type && ++seen === n) kill();
    });
  };
}

const named: KillCase[] = [
  {
    name: 'before upload: the second chunk written, its upload started and not answered',
    batch: { uploadStartReplyDelayMs: 100 },
    arm: atNth('upload-started', 2),
    check(records, at) {
      expect(stepsOf(records, 'b0002')).toEqual(['chunk']);
      expect(at.filesUploaded).toBe(1); // the session exists, no file
    },
  },
  {
    name: 'during upload: the second file exists at the API, its answer held',
    batch: { uploadReplyDelayMs: 100 },
    arm: atNth('file-created', 2),
    check(records, at) {
      expect(stepsOf(records, 'b0002')).toEqual(['chunk']);
      expect(at.filesUploaded).toBe(2);
    },
  },
  {
    name: 'between create and journaling the name: the second batch exists, its answer held',
    batch: { createReplyDelayMs: 100 },
    arm: atNth('batch-created', 2),
    check(records, at) {
      expect(stepsOf(records, 'b0002')).toEqual(['chunk', 'upload', 'intent']);
      expect(at.created).toBe(2);
    },
    after(records) {
      // The resumed run found the batch by its display name instead of creating another.
      expect(records.find((r) => r.t === 'created' && r.id === 'b0002')).toMatchObject({ found: true });
    },
  },
  {
    name: 'while RUNNING: a get answered while the second batch is RUNNING and journaled so',
    arm(sim, dir, kill) {
      sim.onBatchEvent((e) => {
        if (e.type !== 'answered' || e.endpoint !== 'batches.get' || sim.stats().batches.byState.BATCH_STATE_RUNNING !== 3) return;
        const states = logOf(dir).flatMap((r) => (r.t === 'state' && r.id === 'b0002' ? [r.state] : []));
        if (states.at(-1) === 'running') kill();
      });
    },
    check(records, at) {
      expect(at.running).toBe(3);
      expect(stepsOf(records, 'b0002').slice(0, 5)).toEqual(['chunk', 'upload', 'intent', 'created', 'state']);
      expect(stepsOf(records, 'b0002')).not.toContain('end');
      expect(records.flatMap((r) => (r.t === 'state' && r.id === 'b0002' ? [r.state] : [])).at(-1)).toBe('running');
    },
  },
  {
    name: 'while downloading: the second results file half read and journaled, the rest stalled',
    batch: { downloadStallMs: 1000 },
    arm(sim, dir, kill) {
      let seen = 0;
      sim.onBatchEvent((e) => {
        if (e.type !== 'download-started' || ++seen !== 2) return;
        const ends = logOf(dir).filter((r) => r.t === 'end').length;
        const lines = journalOf(dir);
        const before = journalLineCount(lines);
        // The first half reaches the CLI now, the rest after the stall: kill once some of it is journaled.
        const since = Date.now();
        const watch = setInterval(() => {
          if (Date.now() - since > 30_000) clearInterval(watch); // a bound for a broken build: the check then fails
          else if (journalLineCount(lines) > before) {
            clearInterval(watch);
            kill({ ends, before, after: journalLineCount(lines) });
          }
        }, 2);
      });
    },
    check(records, at) {
      const note = at.note as Record<string, number>;
      expect(records.filter((r) => r.t === 'end')).toHaveLength(note.ends as number); // no chunk finished since
      expect(note.after).toBeGreaterThan(note.before as number);
      expect(note.after).toBeLessThan((note.before as number) + BATCH_ROWS);
    },
  },
];

/**
 * The moments a run certainly reaches, as (endpoint, m): the m-th answer of that Files/Batch API request. Each of the 3
 * chunks is uploaded (a start and a final chunk), created and downloaded once; the simulator's time moves only with the
 * gets, so the first CERTAIN_GETS gets come before any batch ends, whatever the order the CLI polls its batches in.
 */
const CANDIDATES: Array<[string, number]> = [
  ...Array.from({ length: 6 }, (_, i) => ['files.upload', i + 1] as [string, number]),
  ...Array.from({ length: 3 }, (_, i) => ['batches.create', i + 1] as [string, number]),
  ...Array.from({ length: CERTAIN_GETS }, (_, i) => ['batches.get', i + 1] as [string, number]),
  ...Array.from({ length: 3 }, (_, i) => ['files.download', i + 1] as [string, number]),
];

/** RANDOM_MOMENTS distinct candidates drawn with SEED. */
function randomCases(): KillCase[] {
  const next = seeded(SEED);
  const pool = [...CANDIDATES];
  return Array.from({ length: RANDOM_MOMENTS }, () => {
    const [endpoint, m] = pool.splice(Math.floor(next() * pool.length), 1)[0] as [string, number];
    return {
      name: `random moment (seed ${SEED}): answer ${m} of ${endpoint} not yet received`,
      arm(sim, _dir, kill) {
        let seen = 0;
        sim.onBatchEvent((e) => {
          if (e.type === 'answered' && e.endpoint === endpoint && ++seen === m) kill();
        });
      },
    } satisfies KillCase;
  });
}

/** The same job run without a kill, on a simulator of its own. */
async function uninterrupted(): Promise<{ output: Buffer; created: number }> {
  const sim = await simulator();
  const dir = jobDir('reference');
  const run = await runMain([...ARGS, '--base-url', sim.url], { cwd: dir });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const created = sim.stats().batches.created;
  expect(created).toBe(ROWS / BATCH_ROWS);
  return { output: readFileSync(path.join(dir, 'rows.classified.csv')), created };
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gb-batch-kill-'));
  reference = uninterrupted(); // runs beside the kill runs; each case awaits it before comparing
  reference.catch(() => undefined); // a failure is reported by the cases that await it
});

afterAll(async () => {
  for (const sim of sims) await sim.close();
  rmSync(root, { recursive: true, force: true });
});

/** Runs case `c` in a job directory named `name`; failures name the case (a random one: what was drawn). */
async function killAndResume(c: KillCase, name: string): Promise<void> {
  try {
    await killAndResumeCase(c, name);
  } catch (error) {
    if (error instanceof Error) error.message = `${c.name}: ${error.message}`;
    throw error;
  }
}

async function killAndResumeCase(c: KillCase, name: string): Promise<void> {
  const sim = await simulator(c.batch);
  const dir = jobDir(name);
  const args = [...ARGS, '--base-url', sim.url];
  let at: AtKill | undefined;
  const run = spawnCli(args, { cwd: dir });
  c.arm(sim, dir, (note) => {
    if (at) return;
    run.child.kill('SIGKILL');
    const b = sim.stats().batches;
    at = { created: b.created, filesUploaded: b.filesUploaded, running: b.byState.BATCH_STATE_RUNNING ?? 0, ...(note ? { note } : {}) };
  });
  const killed = await run.done;
  expect(killed.signal, `the moment never came: exit ${killed.code}\n${killed.stdout}\n${killed.stderr}`).toBe('SIGKILL');
  c.check?.(logOf(dir), at as AtKill, dir);

  const resumed = await runMain(args, { cwd: dir });
  const { output: expected, created } = await reference;
  expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);

  // No row lost or duplicated: the output is the uninterrupted run's, byte for byte; one journal line per row.
  const output = readFileSync(path.join(dir, 'rows.classified.csv'));
  expect(createHash('sha256').update(output).digest('hex')).toBe(createHash('sha256').update(expected).digest('hex'));
  const rows = readFileSync(journalOf(dir), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { row: number }).row);
  expect(rows).toHaveLength(ROWS);
  expect(new Set(rows).size).toBe(ROWS);
  // No second batch for the same rows, and no more batches than without the kill.
  const b = sim.stats().batches;
  expect(b.keysInSeveralBatches).toBe(0);
  expect(Object.values(b.byKeySet).every((n) => n === 1)).toBe(true);
  expect(b.created).toBe(created);
  const records = logOf(dir);
  expect(records.filter((r) => r.t === 'created')).toHaveLength(created);
  c.after?.(records);
}

describe('classify --batch killed (SIGKILL) at any moment resumes with no row lost, duplicated or sent in a second batch', () => {
  it.concurrent.each(named.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    await killAndResume(c, `named-${i}`);
  });

  it.concurrent.each(randomCases().map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    await killAndResume(c, `random-${i}`);
  });
});
