/**
 * The --max-cost budget's arithmetic (src/job/spend-budget.ts): what a request reserves (input estimate with its margin
 * plus all its output room, at the tier it asks), what an answer costs (its usage at the tier that served it), and
 * the refusal that keeps spent + in flight + the next request under the cap.
 */
import { describe, expect, it } from 'vitest';
import { priceAt, requestCost } from '../../src/plan/price.js';
import type { ModelAnswer, ModelRequest } from '../../src/providers/contract.js';
import { geminiPrice } from '../../src/providers/gemini/prices.js';
import { SpendBudget, UNCAPPED_OUTPUT_TOKENS } from '../../src/job/spend-budget.js';
import type { WorkItem } from '../../src/schedule/work-item.js';

const flash = geminiPrice('gemini-2.5-flash')!;
const item = {} as WorkItem;
const request = (serviceTier?: ModelRequest['serviceTier']): ModelRequest => ({
  model: 'gemini-2.5-flash',
  prompt: 'x',
  output: { kind: 'labels', labels: ['a'] },
  reasoning: 'least',
  ...(serviceTier ? { serviceTier } : {}),
});
const answer = (input: number, output: number, thoughts: number, served?: string): ModelAnswer => ({
  text: 'a',
  finish: 'stop',
  finishDetail: 'STOP',
  blocked: undefined,
  usage: { inputTokens: input, outputTokens: output, reasoningTokens: thoughts },
  ...(served ? { served: { serviceTier: served } } : {}),
});

/** A budget whose requests estimate 1,000 input tokens (±10 %) and allow `room` output tokens (null: no cap sent). */
function budget(capUsd: number, earlierUsd = 0, room: number | null = 512) {
  return new SpendBudget({ capUsd, earlierUsd, price: flash, estimate: () => ({ tokens: 1_000, relativeError: 0.1 }), outputRoom: () => room ?? undefined });
}

describe('SpendBudget', () => {
  it('reserves the input estimate raised by 3 relative errors and the whole output room, at the tier asked', () => {
    const b = budget(100);
    expect(b.reservation(item, request())).toBeCloseTo(requestCost(flash, 1_300, 512), 12);
    expect(b.reservation(item, request('flex'))).toBeCloseTo(requestCost(priceAt(flash, 'flex')!, 1_300, 512), 12);
    expect(b.reservation(item, request('priority'))).toBeCloseTo(requestCost(priceAt(flash, 'priority')!, 1_300, 512), 12);
    expect(budget(100, 0, null).reservation(item, request())).toBeCloseTo(requestCost(flash, 1_300, UNCAPPED_OUTPUT_TOKENS), 12);
  });

  it('counts an answer at the tier that served it, releases a failed request, and refuses what would pass the cap', () => {
    const one = requestCost(flash, 1_300, 512);
    const b = budget(3.5 * one, 0.5 * one);
    const first = b.tryReserve(item, request('priority'));
    expect('hold' in first).toBe(true);
    const second = b.tryReserve(item, request());
    const third = b.tryReserve(item, request());
    expect('hold' in second && 'refused' in third).toBe(true);
    if (!('refused' in third)) throw new Error('unreachable');
    expect(third.refused.spentUsd).toBeCloseTo(0.5 * one, 12);
    expect(third.refused.inFlightUsd).toBeCloseTo(b.reservation(item, request('priority')) + one, 12);
    // The Priority request was served at standard (a downgrade): billed at standard, not at the 2× reserved.
    if (!('hold' in first) || !('hold' in second)) throw new Error('unreachable');
    first.hold.settle(answer(900, 1, 10, 'standard'));
    first.hold.settle(answer(900, 1, 10, 'standard')); // settling twice changes nothing
    expect(b.answeredUsd).toBeCloseTo(requestCost(flash, 900, 11), 12);
    second.hold.settle(undefined);
    expect(b.reservedUsd).toBeCloseTo(0, 12);
    expect(b.projectedUsd).toBeCloseTo(0.5 * one + requestCost(flash, 900, 11), 12);
    expect('hold' in b.tryReserve(item, request())).toBe(true);
  });
});
