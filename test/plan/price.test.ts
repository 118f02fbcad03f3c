import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { JobTally } from '../../src/job/job-tally.js';
import { billingTierOf, dearerTier, priceAt, priceOf, requestCost, tierCost } from '../../src/plan/price.js';
import { geminiPrice, PRICE_TABLE, TIER_FACTORS } from '../../src/providers/gemini/prices.js';
import { entry, tempDir } from '../journal/entries.js';

const flash = geminiPrice('gemini-2.5-flash')!;

describe('prices by billing tier', () => {
  it('prices Flex and Batch at half the standard price and Priority at the top of +75–100 %', () => {
    const row = PRICE_TABLE.models.find((m) => m.prefix === 'gemini-2.5-flash')!;
    expect(priceAt(flash, 'standard')).toBe(flash);
    expect(priceAt(flash, 'flex')).toMatchObject({ input: row.input / 2, output: row.output / 2 });
    expect(priceAt(flash, 'batch')).toMatchObject({ input: row.input / 2, output: row.output / 2 });
    expect(priceAt(flash, 'priority')).toMatchObject({ input: row.input * 2, output: row.output * 2 });
    expect(TIER_FACTORS.priority?.low).toBe(1.75);
  });

  it('scales the long-prompt prices of 2.5 Pro too', () => {
    const pro = geminiPrice('gemini-2.5-pro')!;
    const flex = priceAt(pro, 'flex')!;
    expect(requestCost(flex, 300_000, 1000)).toBeCloseTo(requestCost(pro, 300_000, 1000) / 2, 12);
    expect(requestCost(flex, 1000, 1000)).toBeCloseTo(requestCost(pro, 1000, 1000) / 2, 12);
  });

  it('keeps the tiers under --price-input/--price-output, which give the standard price', () => {
    const given = priceOf(flash, { input: 1 })!;
    expect(given.input).toBe(1);
    expect(priceAt(given, 'flex')?.input).toBe(0.5);
    expect(priceOf(undefined, { input: 1, output: 2 })?.tiers).toBeUndefined();
  });

  it('has no tier a price does not list, and costs an unknown one at standard', () => {
    const plain = priceOf(undefined, { input: 1, output: 2 })!;
    expect(priceAt(plain, 'flex')).toBeUndefined();
    expect(tierCost(plain, 'flex', 1_000_000, 0)).toBe(1);
  });

  it('bills a row answered at two tiers at the dearer one', () => {
    expect(dearerTier(flash, undefined, 'flex')).toBe('flex');
    expect(dearerTier(flash, 'priority', 'standard')).toBe('priority');
    expect(dearerTier(flash, 'flex', 'standard')).toBe('standard');
    expect(dearerTier(flash, 'standard', 'priority')).toBe('priority');
  });

  it('reads a served tier, whatever its case, and nothing else', () => {
    expect(billingTierOf('flex')).toBe('flex');
    expect(billingTierOf(' Standard ')).toBe('standard');
    expect(billingTierOf('unspecified')).toBeUndefined();
    expect(billingTierOf(undefined)).toBeUndefined();
  });
});

describe('JobTally cost by tier', () => {
  it("counts each journaled row's tokens at its tier, and each finished row at the tier it was served", async () => {
    const { dir, remove } = tempDir();
    try {
      const journal = await Journal.open(path.join(dir, 'journal.jsonl'));
      journal.append(entry(0, { tokens: { input: 1000, output: 10, thoughts: 0 } }));
      journal.append(entry(1, { tier: 'flex', tokens: { input: 2000, output: 20, thoughts: 5 } }));
      journal.append(entry(9, { tier: 'priority', tokens: { input: 500, output: 1, thoughts: 0 } })); // past --limit 5
      const tally = new JobTally(journal, 5, flash);
      const expected = requestCost(flash, 1000, 10) + requestCost(priceAt(flash, 'flex')!, 2000, 25);
      expect(tally.costUsd).toBeCloseTo(expected, 12);
      expect(tally.byTier).toEqual({ standard: 1, flex: 1, priority: 0, batch: 0 });
      tally.finish(undefined, 'ok', { input: 300, output: 1, thoughts: 0 }, 'priority');
      expect(tally.costUsd).toBeCloseTo(expected + requestCost(priceAt(flash, 'priority')!, 300, 1), 12);
      tally.finish('ok', 'ok', { input: 100, output: 1, thoughts: 0 }, 'flex', 'standard');
      expect(tally.byTier).toEqual({ standard: 0, flex: 2, priority: 1, batch: 0 });
      // A row answered again whose journal line now bills its earlier tokens at another tier: they are re-costed.
      const before = tally.costUsd!;
      const earlier = { input: 2000, output: 20, thoughts: 5 };
      tally.finish('ok', 'ok', { input: 10, output: 1, thoughts: 0 }, 'priority', 'flex', earlier);
      const delta = requestCost(priceAt(flash, 'priority')!, 10, 1) + requestCost(priceAt(flash, 'priority')!, 2000, 25) - requestCost(priceAt(flash, 'flex')!, 2000, 25);
      expect(tally.costUsd).toBeCloseTo(before + delta, 12);
      await journal.close();
    } finally {
      remove();
    }
  });
});
