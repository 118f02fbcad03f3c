/**
 * Packs through the Dispatcher (issue 15), with a provider written here that reads the item blocks of a packed request
 * and answers by id — dropping, duplicating or mislabelling the items of some rows, failing some packs with a 503 or a
 * 400 — and the job's own packer, pack request builder and judges around it (fake timers). Every row must end exactly
 * once, with its own label or its own failure; rows sent again go in packs at most half as large, down to one row; the
 * rows' shares of the usage add up to what the answers reported.
 */
import { describe, expect, it } from 'vitest';
import { answerJudge } from '../../src/answers/judge-answer.js';
import { packJudge } from '../../src/answers/judge-pack.js';
import { Packer } from '../../src/job/pack-rows.js';
import { requestBuilder } from '../../src/prompt/build-request.js';
import { packRequestBuilder } from '../../src/prompt/pack-request.js';
import { compileTemplate } from '../../src/prompt/template.js';
import type { ModelAnswer, ModelCaller, ModelRequest } from '../../src/providers/contract.js';
import { RequestFailure, ServerFailure } from '../../src/providers/failures.js';
import { Dispatcher } from '../../src/schedule/dispatcher.js';
import { ProjectLimiter } from '../../src/schedule/project-limiter.js';
import { RateLimitPolicy } from '../../src/schedule/rate-limit-policy.js';
import { TokenEstimator, tokenFeatures } from '../../src/schedule/token-estimator.js';
import { freshWorkItem, type ItemVerdict, type RowOutcome, type WorkItem } from '../../src/schedule/work-item.js';
import { answerAfter, settle, useFakeClock, utcDay } from '../support/dispatch-world.js';

/** How far the fake clock moves at a time while a run settles (ms). */
const STEP_MS = 250;

const LABELS = ['yes', 'no'];
const template = compileTemplate('Is row {{n}} urgent?', ['n']);

/** What the fake model does with a row inside a pack (alone, every row is answered, row 45 off-label). */
const dropped = (row: number) => row % 10 === 3;
const duplicated = (row: number) => row % 10 === 7;
const failsTransiently = (row: number) => row % 17 === 0;
const refused = (row: number) => row % 23 === 11;
const labelOf = (row: number) => (row % 3 === 0 ? 'yes' : 'no');

interface Seen {
  rows: number[];
  usage: ModelAnswer['usage'];
}

function fakeCaller(): ModelCaller & { seen: Seen[]; sent: number[][] } {
  const seen: Seen[] = [];
  const sent: number[][] = [];
  const tries = new Map<string, number>();
  return {
    seen,
    sent,
    generate(request: ModelRequest) {
      const n = (tries.get(request.prompt) ?? 0) + 1;
      tries.set(request.prompt, n);
      const blocks = [...request.prompt.matchAll(/<item id="([a-z]+)">\nIs row (\d+) urgent\?\n<\/item>/g)].map((m) => ({ id: m[1] as string, row: Number(m[2]) }));
      const outcome = (): ModelAnswer => {
        if (blocks.length === 0) {
          const row = Number(/row (\d+)/.exec(request.prompt)?.[1]);
          const usage = { inputTokens: 9, outputTokens: 1, reasoningTokens: 0 };
          sent.push([row]);
          seen.push({ rows: [row], usage });
          return { text: row === 45 ? 'maybe' : labelOf(row), finish: 'stop', finishDetail: 'STOP', blocked: undefined, usage };
        }
        const rows = blocks.map((b) => b.row);
        sent.push(rows);
        if (rows.some(failsTransiently) && n === 1) throw new ServerFailure('HTTP 503: overloaded', 503);
        if (rows.some(refused)) throw new RequestFailure('HTTP 400: request too large', 400);
        const items = blocks.flatMap((b) => {
          if (dropped(b.row)) return [];
          const item = { id: b.id, label: b.row === 45 ? 'maybe' : labelOf(b.row) };
          return duplicated(b.row) ? [item, { ...item, label: item.label === 'yes' ? 'no' : 'yes' }] : [item];
        });
        const usage = { inputTokens: 10 * blocks.length + 5, outputTokens: 3 * items.length, reasoningTokens: blocks.length };
        seen.push({ rows, usage });
        // Shuffled: the join must go by id.
        return { text: JSON.stringify({ items: items.reverse() }), finish: 'stop', finishDetail: 'STOP', blocked: undefined, usage };
      };
      return answerAfter(50, outcome);
    },
  };
}

async function* rows(n: number): AsyncGenerator<WorkItem> {
  for (let row = 0; row < n; row++) {
    yield freshWorkItem(row, [String(row)], `fp${row}`, tokenFeatures(`Is row ${row} urgent?`));
  }
}

function run(n: number, k: number, client: ModelCaller, tpm = 10_000_000) {
  const limiter = new ProjectLimiter({
    project: 'p',
    model: 'fake-model',
    limits: { rpm: { value: 6_000, source: 'given' }, tpm: { value: tpm, source: 'given' }, rpd: undefined },
    quotaDay: utcDay,
    now: Date.now(),
  });
  const policy = new RateLimitPolicy(limiter, () => undefined, Date.now(), () => 0.5);
  const settings = { model: 'fake-model', system: 'Answer yes or no.', labels: LABELS, schema: undefined, temperature: 0, maxOutputTokens: undefined, thinkingBudget: undefined };
  const estimator = new TokenEstimator();
  const packer = new Packer({ rowsPerRequest: k, template, build: packRequestBuilder(settings), estimator, maxInputTokens: 1_000_000, outputPerRow: 12, outputRoom: 65_535, runTag: 't' });
  const judge = answerJudge({ kind: 'labels', labels: LABELS });
  const judgePack = packJudge({ kind: 'labels', labels: LABELS });
  const finished = new Map<number, RowOutcome & { attempts: number; usage: WorkItem['usage'] }>();
  let duplicates = 0;
  const dispatcher = new Dispatcher({
    pools: [{ alias: 'fake-1', project: 'p', client, maxInFlight: 8 }],
    gates: new Map([['p', { limiter, policy }]]),
    rows: packer.stream(rows(n)),
    repack: (again, size) => packer.pack(again, size),
    estimator,
    buildRequest: requestBuilder({ ...settings, template }),
    judge: (item, a): ItemVerdict => (item.pack ? { kind: 'pack', rows: judgePack(a, item.pack.ids) } : judge(a)),
    onFinished: (item, outcome) => {
      if (finished.has(item.row)) duplicates++;
      finished.set(item.row, { ...outcome, attempts: item.attempts + (item.packAttempts ?? 0), usage: { ...item.usage } });
    },
    onNotice: () => undefined,
    maxAttempts: 4,
    processCeiling: 1_000,
    loadGuard: null,
    random: () => 0.5,
  });
  return { done: dispatcher.run(), finished, duplicates: () => duplicates, stats: dispatcher.stats };
}

describe('packs through the Dispatcher', () => {
  useFakeClock();

  it('every row ends once with its own label; rows sent again go in packs at most half as large, down to one', async () => {
    const client = fakeCaller();
    const r = run(200, 20, client);
    expect(await settle(r.done, STEP_MS)).toEqual({ kind: 'done' });
    expect(r.duplicates()).toBe(0);
    expect(r.finished.size).toBe(200);
    for (const [row, outcome] of r.finished) {
      if (row === 45) expect(outcome, 'row 45').toMatchObject({ status: 'invalid_label', raw: 'maybe' });
      else expect(outcome, `row ${row}`).toMatchObject({ status: 'ok', label: labelOf(row), error: null });
    }
    // A row's requests (answered ones) shrink: each later one carried at most half the rows of the one before.
    for (let row = 0; row < 200; row++) {
      const sizes = client.seen.filter((s) => s.rows.includes(row)).map((s) => s.rows.length);
      for (let i = 1; i < sizes.length; i++) expect(sizes[i], `row ${row}: ${sizes.join(' → ')}`).toBeLessThanOrEqual(Math.floor((sizes[i - 1] as number) / 2) || 1);
      if (dropped(row) || duplicated(row)) expect(sizes.at(-1), `row ${row}`).toBe(1);
    }
    const first = client.seen.filter((s) => s.rows.length > 1);
    expect(Math.max(...first.map((s) => s.rows.length))).toBe(20);
    // The refused packs were split: their rows were answered alone in the end.
    for (let row = 0; row < 200; row++) if (refused(row)) expect(client.seen.some((s) => s.rows.length === 1 && s.rows[0] === row)).toBe(true);
    // Usage: the rows' shares add up to the answers' usage, token for token.
    const rowsSum = [...r.finished.values()].reduce((a, o) => ({ input: a.input + o.usage.input, output: a.output + o.usage.output, thoughts: a.thoughts + o.usage.thoughts }), { input: 0, output: 0, thoughts: 0 });
    const served = client.seen.reduce((a, s) => ({ input: a.input + s.usage.inputTokens, output: a.output + s.usage.outputTokens, thoughts: a.thoughts + s.usage.reasoningTokens }), { input: 0, output: 0, thoughts: 0 });
    expect(rowsSum).toEqual(served);
    // A dropped row's attempts count the requests that carried it: every answered one, and the failed ones that count
    // (./failure-policy.ts: not a transient failure while the endpoint fails for others too).
    const answered = client.seen.filter((s) => s.rows.includes(3)).length;
    const carried = client.sent.filter((rows) => rows.includes(3)).length;
    expect(carried).toBeGreaterThan(answered);
    expect(r.finished.get(3)?.attempts).toBeGreaterThan(answered);
    expect(r.finished.get(3)?.attempts).toBeLessThanOrEqual(carried);
    expect(r.stats.requests).toBeLessThan(200);
  });

  it('a pack larger than every TPM limit is split, not skipped', async () => {
    const client = fakeCaller();
    // A pack of 20 is estimated at about 570 input tokens, above the 400 TPM ceiling; a pack of 10 at about 360.
    const r = run(40, 20, client, 400);
    expect(await settle(r.done, STEP_MS)).toEqual({ kind: 'done' });
    expect([...r.finished.values()].filter((o) => o.status === 'skipped')).toEqual([]);
    expect(r.finished.size).toBe(40);
    const sizes = client.sent.map((rows) => rows.length);
    expect(Math.max(...sizes)).toBeLessThan(20);
    expect(sizes.some((n) => n > 1)).toBe(true);
  });
});
