/**
 * The seam, proved from the scheduler's side (issue 13): the Dispatcher runs with a provider written here — no SDK, no
 * adapter, only the neutral contract — and the job's own request builder and answer judge around it. The fake answers
 * with neutral values only: 429s carrying neutral RateLimitDetails (a per-minute limit with the server's figure, a
 * shared-capacity one), transient 503s, answers cut at the output limit (`finish: 'length'`), a content filter, and
 * billing running out. Every row must end exactly once with the status its story calls for.
 */
import { describe, expect, it } from 'vitest';
import { answerJudge } from '../../src/answers/judge-answer.js';
import { requestBuilder } from '../../src/prompt/build-request.js';
import { compileTemplate } from '../../src/prompt/template.js';
import type { ModelAnswer, ModelCaller, ModelRequest } from '../../src/providers/contract.js';
import { BillingFailure, RateLimitFailure, ServerFailure, type RateLimitDetails } from '../../src/providers/failures.js';
import { Dispatcher } from '../../src/schedule/dispatcher.js';
import { ProjectLimiter } from '../../src/schedule/project-limiter.js';
import { RateLimitPolicy } from '../../src/schedule/rate-limit-policy.js';
import { TokenEstimator, tokenFeatures } from '../../src/schedule/token-estimator.js';
import { freshWorkItem, type RowOutcome, type WorkItem } from '../../src/schedule/work-item.js';
import { answerAfter, settle, useFakeClock, utcDay } from '../support/dispatch-world.js';

/** How far the fake clock moves at a time while a run settles (ms). */
const STEP_MS = 250;

/** What the fake provider does with the n-th request of a row, by the row's story. */
type Story = 'ok' | 'rate-limited' | 'shared-capacity' | 'transient' | 'cut-once' | 'always-cut' | 'filtered' | 'off-label';

const storyOf = (row: number): Story => (['ok', 'rate-limited', 'shared-capacity', 'transient', 'cut-once', 'always-cut', 'filtered', 'off-label'] as const)[row % 8]!;

function answer(text: string | undefined, finish: ModelAnswer['finish'], finishDetail: string): ModelAnswer {
  return { text, finish, finishDetail, blocked: undefined, usage: { inputTokens: 12, outputTokens: text ? 1 : 0, reasoningTokens: text ? 0 : 30 } };
}

const perMinute: RateLimitDetails = { hits: [{ dimension: 'requests', period: 'minute', limit: 300, id: 'requests-per-minute' }], waitMs: 500, noQuota: false, scope: 'project' };
const shared: RateLimitDetails = { hits: [], waitMs: undefined, noQuota: false, scope: 'shared-capacity' };

/** The fake provider's caller: answers after 50 ms (fake timers), records every request it saw. */
function fakeCaller(options: { billingAfter?: number } = {}): ModelCaller & { seen: ModelRequest[] } {
  const nth = new Map<string, number>();
  const seen: ModelRequest[] = [];
  return {
    seen,
    generate(request) {
      seen.push(request);
      const row = Number(/row (\d+)/.exec(request.prompt)?.[1]);
      const n = (nth.get(request.prompt) ?? 0) + 1;
      nth.set(request.prompt, n);
      const outcome = (): ModelAnswer => {
        if (options.billingAfter !== undefined && seen.length > options.billingAfter) {
          throw new BillingFailure('HTTP 429 insufficient_quota: You exceeded your current quota', 429, { code: 'insufficient_quota' }, 'insufficient_quota');
        }
        switch (storyOf(row)) {
          case 'rate-limited':
            if (n === 1) throw new RateLimitFailure('HTTP 429: rate limited', perMinute);
            break;
          case 'shared-capacity':
            if (n === 1) throw new RateLimitFailure('HTTP 429: Resource exhausted', shared);
            break;
          case 'transient':
            if (n === 1) throw new ServerFailure('HTTP 503: overloaded', 503);
            break;
          case 'cut-once':
            if (!request.moreRoom) return answer(undefined, 'length', 'length');
            break;
          case 'always-cut':
            return answer(undefined, 'length', 'length');
          case 'filtered':
            return answer(undefined, 'content-filter', 'content_filter');
          case 'off-label':
            return answer('perhaps', 'stop', 'stop');
          case 'ok':
            break;
        }
        return answer(row % 2 === 0 ? 'Yes' : 'no', 'stop', 'stop');
      };
      return answerAfter(50, outcome);
    },
  };
}

async function* rows(n: number): AsyncGenerator<WorkItem> {
  for (let row = 0; row < n; row++) {
    yield freshWorkItem(row, [String(row)], `fp${row}`, tokenFeatures(`row ${row}`));
  }
}

function run(n: number, client: ModelCaller) {
  const limiter = new ProjectLimiter({
    project: 'p',
    model: 'fake-model',
    limits: { rpm: { value: 6_000, source: 'given' }, tpm: { value: 10_000_000, source: 'given' }, rpd: undefined },
    quotaDay: utcDay,
    now: Date.now(),
  });
  const notices: string[] = [];
  const policy = new RateLimitPolicy(limiter, (x) => notices.push(x.text), Date.now(), () => 0.5);
  const build = requestBuilder({
    model: 'fake-model',
    template: compileTemplate('Is row {{n}} urgent?', ['n']),
    system: undefined,
    labels: ['yes', 'no'],
    schema: undefined,
    temperature: 0,
    maxOutputTokens: undefined,
    thinkingBudget: undefined,
  });
  const judge = answerJudge({ kind: 'labels', labels: ['yes', 'no'] });
  const finished = new Map<number, RowOutcome & { attempts: number }>();
  let duplicates = 0;
  const dispatcher = new Dispatcher({
    pools: [{ alias: 'fake-1', project: 'p', client, maxInFlight: 16 }],
    gates: new Map([['p', { limiter, policy }]]),
    rows: rows(n),
    estimator: new TokenEstimator(),
    buildRequest: build,
    judge: (_item, a) => judge(a),
    onFinished: (item, outcome) => {
      if (finished.has(item.row)) duplicates++;
      finished.set(item.row, { ...outcome, attempts: item.attempts });
    },
    onNotice: (x) => notices.push(x.text),
    maxAttempts: 4,
    processCeiling: 1_000,
    loadGuard: null,
    random: () => 0.5,
  });
  return { dispatcher, done: dispatcher.run(), finished, duplicates: () => duplicates, limiter, notices, stats: dispatcher.stats };
}

describe('the Dispatcher with a provider written in the test', () => {
  useFakeClock();

  it('every row ends once with the status its story calls for', async () => {
    const client = fakeCaller();
    const r = run(80, client);
    expect(await settle(r.done, STEP_MS)).toEqual({ kind: 'done' });
    expect(r.duplicates()).toBe(0);
    expect(r.finished.size).toBe(80);
    for (const [row, outcome] of r.finished) {
      const story = storyOf(row);
      const want = row % 2 === 0 ? 'yes' : 'no';
      switch (story) {
        case 'ok':
        case 'rate-limited':
        case 'shared-capacity':
        case 'transient':
        case 'cut-once':
          expect(outcome, `row ${row} (${story})`).toMatchObject({ status: 'ok', label: want, finishReason: 'stop', error: null });
          break;
        case 'always-cut':
          // Retried once with more room, then failed, quoting the provider's own finish value.
          expect(outcome).toMatchObject({ status: 'failed', label: null, finishReason: 'length', attempts: 2 });
          expect(outcome.error).toBe('no answer text: finishReason length (30 thinking tokens)');
          break;
        case 'filtered':
          expect(outcome).toMatchObject({ status: 'blocked', finishReason: 'content_filter', attempts: 1 });
          break;
        case 'off-label':
          expect(outcome).toMatchObject({ status: 'invalid_label', raw: 'perhaps', attempts: 2 });
          break;
      }
    }
    // The cut rows came back asking for more room; nothing else did.
    const roomy = client.seen.filter((q) => q.moreRoom).map((q) => Number(/row (\d+)/.exec(q.prompt)?.[1]));
    expect(new Set(roomy.map(storyOf))).toEqual(new Set(['cut-once', 'always-cut']));
    // The 429s took the scheduler's paths from their neutral details alone: the server's figure became the limit...
    expect(r.stats.rateLimited).toBe(20);
    expect(r.limiter.limits.rpm).toEqual({ value: 300, source: 'learned' });
    // ...and shared capacity was said as such, never a daily stop.
    expect(r.notices.some((t) => t.includes('shared capacity is busy'))).toBe(true);
    expect(r.notices.some((t) => /daily quota exhausted|parked until/.test(t))).toBe(false);
  });

  it('billing running out stops the run with every unfinished row pending: no row is burnt to failed', async () => {
    const r = run(40, fakeCaller({ billingAfter: 10 }));
    const end = await settle(r.done, STEP_MS);
    expect(end.kind).toBe('billing');
    expect(r.duplicates()).toBe(0);
    expect([...r.finished.values()].some((o) => o.error?.includes('insufficient_quota'))).toBe(false);
    expect(r.finished.size).toBeLessThan(40);
  });
});
