/**
 * Packed requests and answers (issue 15): the ids, the request's text and schema, the join of an answer's items to
 * the rows by id only, and the split of a request's usage among its rows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packJudge } from '../../src/answers/judge-pack.js';
import { canPack, packIds, packItemTokens, packRequestBuilder, packSchema } from '../../src/prompt/pack-request.js';
import { compileSchema } from '../../src/prompt/structured-output.js';
import { strictReady } from '../../src/providers/openai/chat-request.js';
import type { ModelAnswer } from '../../src/providers/contract.js';
import { apportion, shareUsage } from '../../src/schedule/pack-usage.js';

const LABELS = ['yes', 'no'];
const base = { model: 'gemini-2.5-flash', system: 'Be brief.', labels: LABELS, schema: undefined, temperature: 0, maxOutputTokens: undefined, thinkingBudget: undefined };

function answer(text: string | undefined, extra: Partial<ModelAnswer> = {}): ModelAnswer {
  return { text, finish: 'stop', finishDetail: 'STOP', blocked: undefined, usage: { inputTokens: 100, outputTokens: 30, reasoningTokens: 0 }, ...extra };
}

describe('pack ids', () => {
  it('are distinct, letters only, never a number: two consonants up to 400, three beyond', () => {
    for (const n of [1, 2, 20, 400, 401, 1000]) {
      const ids = packIds(n);
      expect(new Set(ids).size).toBe(n);
      expect(ids.every((id) => /^[bcdfghjklmnpqrstvwxz]+$/.test(id))).toBe(true);
      expect(ids[0]?.length).toBe(n <= 400 ? 2 : 3);
    }
  });
});

describe('the request of a pack', () => {
  it('holds each row\'s prompt exactly, in an item block with its id, and asks for {items: [{id, label}]}', () => {
    const prompts = ['Is "this" urgent?\nsecond line', 'Row two'];
    const request = packRequestBuilder(base)(prompts, ['bb', 'bc']);
    expect(request.prompt).toContain('<item id="bb">\nIs "this" urgent?\nsecond line\n</item>\n\n<item id="bc">\nRow two\n</item>');
    expect(request.system).toBe('Be brief.');
    expect(request.output).toEqual({ kind: 'json', name: 'answers', schema: packSchema(base, ['bb', 'bc']) });
    const item = (packSchema(base, ['bb', 'bc']) as any).properties.items.items;
    expect(item.properties).toEqual({ id: { type: 'string', enum: ['bb', 'bc'] }, label: { type: 'string', enum: LABELS } });
    // OpenAI's strict mode takes it as it is.
    expect(strictReady(packSchema(base, ['bb']))).toBe(true);
  });

  it('caps each row\'s answer at --max-output-tokens: the pack gets that much room per row', () => {
    expect(packRequestBuilder({ ...base, maxOutputTokens: 50 })(['a', 'b', 'c'], ['bb', 'bc', 'bd']).maxOutputTokens).toBe(150);
    expect(packRequestBuilder(base)(['a'], ['bb']).maxOutputTokens).toBeUndefined();
  });

  it('sends the few-shot examples as one packed turn pair, with ids no row of a pack has', () => {
    const request = packRequestBuilder({ ...base, examples: [{ prompt: 'ex one', answer: 'yes' }, { prompt: 'ex two', answer: 'no' }] })(['a', 'b'], ['bb', 'bc']);
    expect(request.examples).toHaveLength(1);
    const turn = request.examples?.[0];
    const items = JSON.parse(turn?.answer ?? '').items as Array<{ id: string; label: string }>;
    expect(items.map((i) => i.label)).toEqual(['yes', 'no']);
    expect(items.every((i) => !packIds(1000).includes(i.id) && turn?.prompt.includes(`<item id="${i.id}">`))).toBe(true);
  });

  it('a --schema\'s properties go into each item, its required list with id', () => {
    const schema = { type: 'object', properties: { label: { type: 'string', enum: LABELS }, score: { type: 'integer' } }, required: ['label'] };
    const item = (packSchema({ labels: undefined, schema }, ['bb']) as any).properties.items.items;
    expect(Object.keys(item.properties)).toEqual(['id', 'label', 'score']);
    expect(item.required).toEqual(['id', 'label']);
    const free = (packSchema({ labels: undefined, schema: undefined }, ['bb']) as any).properties.items.items;
    expect(free.properties.answer).toEqual({ type: 'string' });
  });

  it('a prompt holding the item markers cannot go in a pack', () => {
    expect(canPack('plain text <b>bold</b>')).toBe(true);
    expect(canPack('breaks out </item> here')).toBe(false);
    expect(canPack('<item id="bb"> fake')).toBe(false);
  });

  it('estimates an item\'s output from the longest label, the schema, or the free-text room', () => {
    const chars = (t: string) => Math.ceil(t.length / 4);
    expect(packItemTokens({ labels: ['a', 'a much longer label'], schema: undefined, maxOutputTokens: undefined }, chars)).toBeGreaterThan(packItemTokens({ labels: ['a', 'b'], schema: undefined, maxOutputTokens: undefined }, chars));
    expect(packItemTokens({ labels: undefined, schema: undefined, maxOutputTokens: 40 }, chars)).toBeLessThan(packItemTokens({ labels: undefined, schema: undefined, maxOutputTokens: undefined }, chars));
  });
});

describe('judging a packed answer', () => {
  const judge = packJudge({ kind: 'labels', labels: LABELS });
  const ids = ['bb', 'bc', 'bd', 'bf'];

  it('joins by id only: items in any order each go to their own row, decorated labels normalized', () => {
    const v = judge(answer(JSON.stringify({ items: [{ id: 'bf', label: 'No' }, { id: 'bb', label: 'yes' }, { id: 'bd', label: 'no' }, { id: 'bc', label: '**Yes**' }] })), ids);
    expect(v.map((x) => (x.kind === 'done' ? x.outcome.label : x.reason))).toEqual(['yes', 'yes', 'no', 'no']);
    expect(v[3]).toMatchObject({ kind: 'done', outcome: { status: 'ok', raw: '{"id":"bf","label":"No"}', finishReason: 'STOP', error: null } });
  });

  it('sends again the rows with no item, two items (even alike) or an invalid one; ignores ids it does not have', () => {
    const items = [
      { id: 'bb', label: 'yes' },
      { id: 'bc', label: 'no' },
      { id: 'bc', label: 'no' },
      { id: 'bd', label: 'maybe' },
      { id: 'zz', label: 'yes' },
    ];
    const v = judge(answer(JSON.stringify({ items })), ids);
    expect(v[0]).toMatchObject({ kind: 'done' });
    expect(v[1]).toEqual({ kind: 'again', reason: "the pack's answer has 2 items for id bc" });
    expect(v[2]).toEqual({ kind: 'again', reason: `the pack's item bd: label "maybe" is not one of the labels` });
    expect(v[3]).toEqual({ kind: 'again', reason: "the pack's answer has no item for id bf" });
  });

  it('an unusable answer sends every row again: blocked, filtered, no text, not JSON, cut, no items list', () => {
    const cases: ModelAnswer[] = [
      answer(undefined, { blocked: 'SAFETY' }),
      answer(undefined, { finish: 'content-filter', finishDetail: 'SAFETY' }),
      answer(undefined, { finish: 'length', finishDetail: 'MAX_TOKENS' }),
      answer('{"items": [{"id": "bb", "lab', { finish: 'length', finishDetail: 'MAX_TOKENS' }),
      answer('{"answers": []}'),
      answer('yes'),
    ];
    for (const a of cases) {
      const v = judge(a, ids);
      expect(v.every((x) => x.kind === 'again'), JSON.stringify(a)).toBe(true);
    }
    expect(judge(cases[3] as ModelAnswer, ids)[0]).toMatchObject({ reason: expect.stringContaining('cut at the output limit') });
  });

  it('--schema items are checked against the schema; free-text items need an answer', () => {
    const schema = compileSchema({ type: 'object', properties: { label: { type: 'string', enum: LABELS }, score: { type: 'integer', minimum: 1, maximum: 5 } }, required: ['label'] }, 's.json');
    const v = packJudge({ kind: 'schema', schema })(answer(JSON.stringify({ items: [{ id: 'bb', label: 'yes', score: 3 }, { id: 'bc', label: 'yes', score: 9 }] })), ['bb', 'bc']);
    expect(v[0]).toMatchObject({ kind: 'done', outcome: { label: 'yes', fields: { label: 'yes', score: '3' } } });
    expect(v[1]).toMatchObject({ kind: 'again', reason: expect.stringContaining('outside [1, 5]') });
    const t = packJudge({ kind: 'text' })(answer('[{"id": "bb", "answer": " Bonjour "}, {"id": "bc", "answer": ""}]'), ['bb', 'bc']);
    expect(t[0]).toMatchObject({ kind: 'done', outcome: { label: 'Bonjour' } });
    expect(t[1]).toMatchObject({ kind: 'again' });
  });
});

describe('splitting a request\'s usage among its rows', () => {
  it('parts add up to the total exactly and each is within one token of its exact share', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.array(fc.integer({ min: 1, max: 5_000 }), { minLength: 1, maxLength: 60 }), (total, weights) => {
        const parts = apportion(total, weights);
        const sum = weights.reduce((a, b) => a + b, 0);
        expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
        parts.forEach((p, i) => {
          expect(Number.isInteger(p) && p >= 0).toBe(true);
          expect(Math.abs(p - (total * (weights[i] as number)) / sum)).toBeLessThan(1);
        });
      }),
    );
  });

  it('input follows the rows\' weights, output and thinking are even', () => {
    const shares = shareUsage({ inputTokens: 300, outputTokens: 31, reasoningTokens: 10 }, [1, 2]);
    expect(shares).toEqual([
      { input: 100, output: 16, thoughts: 5 },
      { input: 200, output: 15, thoughts: 5 },
    ]);
  });
});
