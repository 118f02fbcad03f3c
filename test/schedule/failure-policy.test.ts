import { describe, expect, it } from 'vitest';
import { BillingFailure, CancelledFailure, ConnectionFailure, TimeoutFailure } from '../../src/providers/failures.js';
import { failureForStatus } from '../../src/providers/gemini/classify-failure.js';
import { parseRpcStatus } from '../../src/providers/google-rpc-status.js';
import { BACKOFF_CAP_MS } from '../../src/schedule/backoff.js';
import { EndpointHealth, SAME_REFUSAL_LIMIT, SHED_OUTAGE_AFTER_MS, UNREACHABLE_AFTER, refusalOf } from '../../src/schedule/endpoint-health.js';
import { failureAction, SHED_BACKOFF_BASE_MS, SHED_BACKOFF_CAP_MS, type FailureContext } from '../../src/schedule/failure-policy.js';
import { ShedFailure } from '../../src/providers/failures.js';
import { fixtureText } from '../support/fixtures.js';

function failure(name: string, status: number) {
  const text = fixtureText(name);
  return failureForStatus(status, parseRpcStatus(text), text);
}

const ctx = (over: Partial<FailureContext> = {}): FailureContext => ({ attempts: 0, maxAttempts: 8, sent: 1, endpointHealthy: true, random: () => 0.5, ...over });

describe('failureAction: what a failure means for its row', () => {
  it('our own cancellation abandons the request: nothing counts, the row stays pending', () => {
    expect(failureAction(new CancelledFailure(), ctx())).toEqual({ kind: 'abandon' });
  });

  it('404 for the model stops the run without touching the row', () => {
    expect(failureAction(failure('404-model-not-found.json', 404), ctx())).toEqual({ kind: 'stop' });
  });

  it('a 429 of shared capacity backs the row alone off: at least 1 s (Vertex), doubling, or the server\'s wait', () => {
    const f = failure('429-vertex-capacity-inferred.json', 429);
    const slowed = { hold: 'slowed' as const, until: undefined, countsAsAttempt: true };
    const first = failureAction(f, ctx({ rateLimit: slowed, random: () => 0 }));
    expect(first).toEqual({ kind: 'retry', delayMs: 1_000, countsAsAttempt: true });
    expect(failureAction(f, ctx({ sent: 3, rateLimit: slowed, random: () => 0.999 }))).toMatchObject({ delayMs: 7_996 });
    expect(failureAction(f, ctx({ rateLimit: { ...slowed, waitMs: 30_000 } }))).toMatchObject({ delayMs: 30_000 });
  });

  it('billing exhausted (insufficient_quota) stops the run without touching the row: nothing passes until billing changes', () => {
    expect(failureAction(new BillingFailure('HTTP 429: You exceeded your current quota', 429), ctx({ attempts: 7 }))).toEqual({ kind: 'stop' });
  });

  it('a refused key moves the row at once without costing an attempt', () => {
    expect(failureAction(failure('403-leaked-key.json', 403), ctx({ attempts: 7 }))).toEqual({ kind: 'retry', delayMs: 0, countsAsAttempt: false });
  });

  it('any other 4xx is the row\'s own fault: failed with the message', () => {
    const f = failure('400-context-too-long.json', 400);
    expect(failureAction(f, ctx())).toEqual({ kind: 'fail', error: f.message });
  });

  it('a 429 counts as the policy says and waits for the project\'s pause (delay 0)', () => {
    const f = failure('429-h-bare-capacity.json', 429);
    expect(failureAction(f, ctx({ rateLimit: { hold: 'paused', until: 1, countsAsAttempt: true } }))).toEqual({ kind: 'retry', delayMs: 0, countsAsAttempt: true });
    expect(failureAction(f, ctx({ attempts: 7, rateLimit: { hold: 'parked', until: 1, countsAsAttempt: false } }))).toEqual({ kind: 'retry', delayMs: 0, countsAsAttempt: false });
    expect(failureAction(f, ctx({ attempts: 7, rateLimit: { hold: 'paused', until: 1, countsAsAttempt: true } })).kind).toBe('fail');
  });

  it('a transient failure while the endpoint serves other rows counts, with full-jitter backoff, and fails the row at --max-attempts', () => {
    const f = failure('503-overloaded.json', 503);
    expect(failureAction(f, ctx({ sent: 3 }))).toEqual({ kind: 'retry', delayMs: 2_000, countsAsAttempt: true });
    expect(failureAction(f, ctx({ attempts: 7 }))).toEqual({ kind: 'fail', error: `${f.message} (after 8 attempts)` });
  });

  it('a transient failure while the endpoint fails for other rows too never counts and never fails the row', () => {
    for (const f of [failure('503-overloaded.json', 503), new TimeoutFailure(60_000), new ConnectionFailure('connection failed: ECONNRESET')]) {
      const action = failureAction(f, ctx({ attempts: 7, sent: 40, endpointHealthy: false }));
      expect(action).toEqual({ kind: 'retry', delayMs: BACKOFF_CAP_MS / 2, countsAsAttempt: false });
    }
  });

  it('a first Flex shed waits 0.5–1 s, a second 1–2 s, as documented (not only relative to the constants it reads)', () => {
    const text = fixtureText('503-overloaded.json');
    const shed = failureForStatus(503, parseRpcStatus(text), text, false, true);
    const delay = (sent: number, r: number) => (failureAction(shed, ctx({ sent, random: () => r })) as { delayMs: number }).delayMs;
    expect(delay(1, 0)).toBe(500);
    expect(delay(1, 0.999)).toBeGreaterThanOrEqual(990);
    expect(delay(1, 0.999)).toBeLessThanOrEqual(1_000);
    expect(delay(2, 0)).toBe(1_000);
    expect(delay(2, 0.999)).toBeGreaterThanOrEqual(1_990);
    expect(delay(2, 0.999)).toBeLessThanOrEqual(2_000);
  });

  it('a Flex shed (503 to a Flex request) never counts, whatever the attempts, and backs off with equal jitter up to its cap', () => {
    const text = fixtureText('503-overloaded.json');
    const shed = failureForStatus(503, parseRpcStatus(text), text, false, true);
    expect(shed).toBeInstanceOf(ShedFailure);
    expect(failureForStatus(503, parseRpcStatus(text), text)).not.toBeInstanceOf(ShedFailure);
    for (let sent = 1; sent <= 40; sent++) {
      for (const random of [() => 0, () => 0.999]) {
        const action = failureAction(shed, ctx({ attempts: 7, sent, random, endpointHealthy: sent % 2 === 0 }));
        expect(action).toMatchObject({ kind: 'retry', countsAsAttempt: false });
        const ceiling = Math.min(SHED_BACKOFF_CAP_MS, SHED_BACKOFF_BASE_MS * 2 ** (sent - 1));
        const delay = (action as { delayMs: number }).delayMs;
        expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('our own sockets running out never counts and retries soon', () => {
    const action = failureAction(new ConnectionFailure('connection failed: EMFILE', { local: true }), ctx({ attempts: 7, sent: 2 }));
    expect(action).toEqual({ kind: 'retry', delayMs: 100, countsAsAttempt: false });
  });
});

describe('EndpointHealth', () => {
  it('is healthy for a row when other rows pass, whatever that row\'s own failures', () => {
    const h = new EndpointHealth(0);
    expect(h.healthyFor(3)).toBe(true); // nothing known yet: a row may be blamed
    for (let row = 0; row < 9; row++) h.onAnswer(row === 3 ? 100 : row, 10);
    for (let i = 0; i < 20; i++) h.onFailure(failure('500-internal.json', 500), 3, 20, 8);
    expect(h.healthyFor(3)).toBe(true);
    expect(h.healthyFor(4)).toBe(false);
    const down = new EndpointHealth(0);
    for (let row = 0; row < 8; row++) down.onFailure(failure('503-overloaded.json', 503), row, 0, 8);
    expect(down.healthyFor(99)).toBe(false);
  });

  it('compares refusals by status and reason, not by message text', () => {
    const tooLong = failure('400-context-too-long.json', 400);
    const other = failureForStatus(400, parseRpcStatus(JSON.stringify({ error: { code: 400, message: 'quoting row 17 here', status: 'INVALID_ARGUMENT' } })), '');
    expect(refusalOf(tooLong)).toBe(refusalOf(other));
    const keyInvalid = failure('400-api-key-invalid.json', 400);
    expect(refusalOf(keyInvalid)).not.toBe(refusalOf(tooLong));
    const h = new EndpointHealth(0);
    let stop;
    for (let i = 0; i < SAME_REFUSAL_LIMIT; i++) {
      const f = failureForStatus(400, parseRpcStatus(JSON.stringify({ error: { code: 400, message: `row ${i} is wrong`, status: 'INVALID_ARGUMENT' } })), '');
      stop = h.onFailure(f, i, 0, 8);
    }
    expect(stop?.kind).toBe('fatal');
  });

  it('Flex sheds are no outage and do not make other rows\' failures the endpoint\'s; the run stops only after sheds alone for 30 min', () => {
    const text = fixtureText('503-overloaded.json');
    const shed = () => failureForStatus(503, parseRpcStatus(text), text, false, true);
    const h = new EndpointHealth(0);
    for (let row = 0; row < 8; row++) h.onAnswer(row, 10);
    // Sheds of every row for 29 minutes: no stop, and a row's own 500s still count against it.
    for (let i = 0; i < 1_000; i++) expect(h.onFailure(shed(), i, 10 + i * 1_700, 8)).toBeUndefined();
    expect(h.healthyFor(5)).toBe(true);
    // Past 30 minutes without an answer, sheds alone stop the run (rows pending, resumable).
    const stop = h.onFailure(shed(), 1_000, 10 + SHED_OUTAGE_AFTER_MS, 8);
    expect(stop).toMatchObject({ kind: 'outage' });
    expect((stop as { reason: string }).reason).toMatch(/Flex tier shed every request for 30 min.*--service-tier standard/);
    // An answer starts the count again; a few sheds long after it are not enough either.
    h.onAnswer(1, 2 * SHED_OUTAGE_AFTER_MS);
    for (let i = 0; i < UNREACHABLE_AFTER - 1; i++) expect(h.onFailure(shed(), i, 4 * SHED_OUTAGE_AFTER_MS, 8)).toBeUndefined();
  });

  it('our own sockets running out says nothing about the endpoint', () => {
    const h = new EndpointHealth(0);
    for (let i = 0; i < 100; i++) expect(h.onFailure(new ConnectionFailure('connection failed: EMFILE', { local: true }), i, 0, 8)).toBeUndefined();
  });
});
