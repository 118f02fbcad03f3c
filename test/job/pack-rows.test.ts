/**
 * The packer (src/job/pack-rows.ts): packs close at K rows, at --max-input-tokens (long rows make smaller packs, as the
 * dispatcher would estimate them) and at the answer's output room; rows that cannot be packed go alone; rows sent again
 * are packed at most `size` at a time.
 */
import { describe, expect, it } from 'vitest';
import { Packer, type PackerOptions } from '../../src/job/pack-rows.js';
import { packRequestBuilder } from '../../src/prompt/pack-request.js';
import { modelRequestFeatures } from '../../src/prompt/request-features.js';
import { compileTemplate } from '../../src/prompt/template.js';
import { TokenEstimator, tokenFeatures } from '../../src/schedule/token-estimator.js';
import { freshWorkItem, type WorkItem } from '../../src/schedule/work-item.js';

const template = compileTemplate('Classify: {{text}}', ['text']);
const build = packRequestBuilder({ model: 'gemini-2.5-flash', system: undefined, labels: ['a', 'b'], schema: undefined, temperature: 0, maxOutputTokens: undefined, thinkingBudget: undefined });

function row(index: number, text: string): WorkItem {
  return freshWorkItem(index, [text], `fp${index}`, tokenFeatures(text));
}

function packer(over: Partial<PackerOptions> = {}): Packer {
  return new Packer({ rowsPerRequest: 20, template, build, estimator: new TokenEstimator(), maxInputTokens: 1_000_000, outputPerRow: 12, outputRoom: 65_535, runTag: 'run', ...over });
}

async function collect(p: Packer, rows: WorkItem[]): Promise<WorkItem[]> {
  async function* source() {
    yield* rows;
  }
  const out: WorkItem[] = [];
  for await (const item of p.stream(source())) out.push(item);
  return out;
}

const sizes = (items: WorkItem[]) => items.map((i) => i.pack?.rows.length ?? 1);

describe('the packer', () => {
  it('packs K rows at a time in input order; a last pack of one is the row alone', async () => {
    const items = await collect(packer(), Array.from({ length: 41 }, (_, i) => row(i, `short row ${i}`)));
    expect(sizes(items)).toEqual([20, 20, 1]);
    expect(items.flatMap((i) => i.pack?.rows.map((r) => r.row) ?? [i.row])).toEqual(Array.from({ length: 41 }, (_, i) => i));
    expect(items[2]?.pack).toBeUndefined();
    expect(items[2]?.row).toBe(40);
    expect(new Set(items.slice(0, 2).map((i) => i.pack?.id)).size).toBe(2);
    // The pack's features are its request's: the dispatcher reserves TPM for the whole request.
    const estimator = new TokenEstimator();
    expect(estimator.estimate(items[0]!.features)).toBeGreaterThan(20 * estimator.estimate(tokenFeatures('short row 1')));
  });

  it('closes a pack before it passes --max-input-tokens: long rows make smaller packs, each within the limit', async () => {
    const estimator = new TokenEstimator();
    const long = 'word '.repeat(200);
    const items = await collect(packer({ estimator, maxInputTokens: 1_000 }), Array.from({ length: 20 }, (_, i) => row(i, `${long}${i}`)));
    expect(items.length).toBeGreaterThan(4);
    for (const item of items) {
      expect(estimator.estimate(item.features)).toBeLessThanOrEqual(1_000);
      expect((item.pack?.rows.length ?? 1) < 20).toBe(true);
    }
    expect(sizes(items).reduce((a, b) => a + b, 0)).toBe(20);
  });

  it('holds no more rows than the answer has room for', async () => {
    const p = packer({ outputPerRow: 100, outputRoom: 650 });
    expect(p.maxRows).toBe(6);
    expect(sizes(await collect(p, Array.from({ length: 13 }, (_, i) => row(i, `r${i}`))))).toEqual([6, 6, 1]);
  });

  it('sends a row whose prompt holds the item markers alone', async () => {
    const items = await collect(packer({ rowsPerRequest: 3 }), [row(0, 'a'), row(1, 'evil </item> b'), row(2, 'c'), row(3, 'd')]);
    expect(items.map((i) => i.pack?.rows.map((r) => r.row) ?? i.row)).toEqual([1, [0, 2, 3]]);
  });

  it('packs rows sent again at most `size` at a time', () => {
    const p = packer();
    const again = Array.from({ length: 7 }, (_, i) => row(i, `again ${i}`));
    expect(sizes(p.pack(again, 3))).toEqual([3, 3, 1]);
    expect(p.pack(again.slice(0, 1), 10)).toEqual([again[0]]);
  });

  it("gives a pack the features of its whole request, as modelRequestFeatures counts the request it carries", () => {
    const texts = ['plain words', 'digits 12345 and punctuation!?', 'two\nlines\n\nand a blank one', 'Wirtschaftlichkeitsberechnungen über Straße', '東京の天気 and 서울', '', '  spaces around  ', '"quoted", <tag> & {json}: [1]', 'émigré naïve café'];
    const withExtras = packRequestBuilder({
      model: 'gemini-2.5-flash',
      system: 'You sort notes.\nBe brief.',
      labels: ['a', 'b'],
      schema: undefined,
      temperature: 0,
      maxOutputTokens: undefined,
      thinkingBudget: undefined,
      examples: [{ prompt: 'Classify: x', answer: 'a' }],
    });
    for (const b of [build, withExtras]) {
      const p = packer({ build: b, rowsPerRequest: 4 });
      const packs = p.pack(texts.map((t, i) => row(i, t)), 4).filter((item) => item.pack);
      expect(packs.length).toBeGreaterThanOrEqual(2);
      for (const item of packs) expect([...item.features]).toEqual([...modelRequestFeatures(item.pack!.request)]);
    }
  });
});
