/**
 * The event log (src/journal/event-log.ts, read by src/journal/event-log-read.ts): what is written is read back; past
 * its detail budget requests are summed per second and project without losing any; a torn last line is skipped and the
 * next run starts on a line of its own; nothing but aliases names a key.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/journal/event-log.js';
import { readEventLog, type RequestEvent } from '../../src/journal/event-log-read.js';
import { bucketLatency, latencyBucket, type RequestOutcome } from '../../src/journal/event-log-format.js';

let dir: string;
let n = 0;
const T0 = Date.UTC(2026, 0, 5, 12);
const fresh = () => path.join(dir, `events-${++n}.log`);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-events-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function readAll(file: string) {
  const requests: RequestEvent[] = [];
  const runs: string[] = [];
  const other: string[] = [];
  const result = readEventLog(file, {
    run: (h) => runs.push(h.run),
    request: (e) => requests.push(e),
    binding: (at, b) => other.push(`b ${at - T0} ${b}`),
    hold: (p, at, kind, until, reason) => other.push(`H ${p} ${at - T0} ${kind} ${until === undefined ? '-' : until - T0} ${reason}`),
    limits: (p, at, l) => other.push(`L ${p} ${at - T0} ${l.rpm} ${l.tpm} ${l.rpd}`),
    inFlight: (p, at, f, b) => other.push(`f ${p} ${at - T0} ${f} ${b}`),
  });
  return { result, requests, runs, other };
}

describe('the event log', () => {
  it('reads back each request and state line as written', () => {
    const file = fresh();
    const log = new EventLog(file, { run: 'r1', t0: T0, model: 'm' });
    const pool = log.pool('key-1 …x7Qa', 'acme');
    log.request(pool, T0 + 100, 250, 512, 3, 200);
    log.request(pool, T0 + 200, 30, 0, 0, 429, ['GenerateRequestsPerMinutePerProjectPerModel']);
    log.request(pool, T0 + 300, 60_000, 0, 0, 't');
    log.limits(0, T0 + 10, 1000, 1_000_000, undefined);
    log.hold(0, T0 + 230, 'pause', T0 + 1230, 'per-minute quota (x "quoted")');
    log.inFlight(0, T0 + 1000, 17, 40);
    log.binding(T0 + 250, 'pause');
    log.close(T0 + 70_000);
    const { result, requests, runs, other } = readAll(file);
    expect(result).toMatchObject({ found: true, skipped: 0 });
    expect(runs).toEqual(['r1']);
    expect(requests.map((r) => [r.project, r.alias, r.sentAt - T0, r.latencyMs, r.inputTokens, r.outputTokens, r.outcomes])).toEqual([
      ['acme', 'key-1 …x7Qa', 100, 250, 512, 3, [{ outcome: 200, quotaIds: [], count: 1 }]],
      ['acme', 'key-1 …x7Qa', 200, 30, 0, 0, [{ outcome: 429, quotaIds: ['GenerateRequestsPerMinutePerProjectPerModel'], count: 1 }]],
      ['acme', 'key-1 …x7Qa', 300, 60_000, 0, 0, [{ outcome: 't', quotaIds: [], count: 1 }]],
    ]);
    expect(other).toEqual(['L acme 10 1000 1000000 undefined', 'H acme 230 pause 1230 per-minute quota (x "quoted")', 'f acme 1000 17 40', 'b 250 pause']);
  });

  it('past its detail budget sums requests per second and project, and loses none', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            sentMs: fc.integer({ min: 0, max: 200_000 }),
            latency: fc.integer({ min: 0, max: 90_000 }),
            input: fc.integer({ min: 0, max: 5000 }),
            pool: fc.integer({ min: 0, max: 2 }),
            outcome: fc.constantFrom<RequestOutcome>(200, 200, 200, 429, 503, 't', 'c'),
          }),
          { minLength: 1, maxLength: 300 },
        ),
        (requests) => {
          const file = fresh();
          const log = new EventLog(file, { run: 'r', t0: T0, model: 'm' }, { detailBudgetBytes: 400 });
          const pools = [log.pool('k1', 'a'), log.pool('k2', 'a'), log.pool('k3', 'b')];
          let now = T0;
          for (const r of requests) {
            now = Math.max(now, T0 + r.sentMs + r.latency);
            log.request(pools[r.pool]!, T0 + r.sentMs, r.latency, r.input, 1, r.outcome, r.outcome === 429 ? ['Q'] : []);
            log.flush(now);
          }
          log.close(now);
          const { requests: read } = readAll(file);
          const sum = (list: Array<{ project: string; count: number; inputTokens: number }>, project: string) =>
            list.filter((r) => r.project === project).reduce((s, r) => [s[0]! + r.count, s[1]! + r.inputTokens], [0, 0]);
          const written = requests.map((r) => ({ project: r.pool === 2 ? 'b' : 'a', count: 1, inputTokens: r.input }));
          expect(sum(read, 'a')).toEqual(sum(written, 'a'));
          expect(sum(read, 'b')).toEqual(sum(written, 'b'));
          const answers = read.reduce((s, r) => s + (r.latencyMs !== undefined ? (r.outcomes[0]!.outcome === 200 ? 1 : 0) : (r.latencyBuckets ?? []).reduce((t, [, c]) => t + c, 0)), 0);
          expect(answers).toBe(requests.filter((r) => r.outcome === 200).length);
          const rateLimited = read.reduce((s, r) => s + r.outcomes.filter((o) => o.outcome === 429 && o.quotaIds[0] === 'Q').reduce((t, o) => t + o.count, 0), 0);
          expect(rateLimited).toBe(requests.filter((r) => r.outcome === 429).length);
          // Each sum is of requests sent in its second.
          for (const r of read) if (r.alias === undefined) expect((r.sentAt - T0) % 1000).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('skips a torn last line, and the next run starts on a line of its own', () => {
    const file = fresh();
    const first = new EventLog(file, { run: 'r1', t0: T0, model: 'm' });
    const pool = first.pool('k', 'p');
    first.request(pool, T0, 10, 1, 1, 200);
    first.close(T0 + 20);
    fs.appendFileSync(file, 'q 30 10 0 1'); // killed mid-line
    expect(readAll(file).result.skipped).toBe(1);
    const second = new EventLog(file, { run: 'r2', t0: T0 + 60_000, model: 'm' });
    second.request(second.pool('k', 'p'), T0 + 60_000, 10, 1, 1, 200);
    second.close(T0 + 60_100);
    const { result, runs, requests } = readAll(file);
    expect(runs).toEqual(['r1', 'r2']);
    expect(requests).toHaveLength(2);
    expect(result.skipped).toBe(1);
  });

  it('a file of another kind is not read', () => {
    const file = fresh();
    fs.writeFileSync(file, 'something else\nq 1 2 0 1 1 200\n');
    expect(readAll(file).result.found).toBe(false);
    expect(readAll(path.join(dir, 'absent.log')).result.found).toBe(false);
  });

  it('latency buckets are within 5 % of the latency', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 600_000 }), (ms) => {
        expect(Math.abs(bucketLatency(latencyBucket(ms)) - ms) / ms).toBeLessThanOrEqual(0.05);
      }),
    );
  });
});
