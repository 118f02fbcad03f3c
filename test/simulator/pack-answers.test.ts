/**
 * Packed requests (several rows in one request, src/simulator/pack-answer.ts): one item per item block, each row's
 * label the one its text alone gets, and the scripted per-pack faults — over real HTTP, in the Gemini and OpenAI
 * dialects.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { INVALID_PACK_LABEL } from '../../src/simulator/pack-answer.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { enumRequest, generate, scenario } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const LABELS = ['low', 'medium', 'high'];
const ROWS = Array.from({ length: 12 }, (_, i) => `Ticket ${i}: the printer on floor ${i % 4} is ${i % 3 === 0 ? 'on fire' : 'slow'}.`);
const IDS = ROWS.map((_, i) => `q${String.fromCharCode(98 + i)}`);

function itemSchema(props: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string', enum: IDS }, ...props }, required: ['id', ...Object.keys(props)] } },
    },
    required: ['items'],
  };
}

function packText(rows: readonly string[], ids: readonly string[] = IDS): string {
  return `Answer each item on its own.\n\n${rows.map((r, i) => `<item id="${ids[i]}">\n${r}\n</item>`).join('\n\n')}`;
}

function packRequest(rows: readonly string[], props: Record<string, unknown> = { label: { type: 'string', enum: LABELS } }, examples?: { user: string; model: string }) {
  return {
    contents: [
      ...(examples ? [{ role: 'user', parts: [{ text: examples.user }] }, { role: 'model', parts: [{ text: examples.model }] }] : []),
      { role: 'user', parts: [{ text: packText(rows) }] },
    ],
    generationConfig: { responseMimeType: 'application/json', responseJsonSchema: itemSchema(props), thinkingConfig: { thinkingBudget: 0 } },
  };
}

async function aloneLabel(text: string): Promise<string> {
  return (await generate(sim!.url, enumRequest(text, LABELS))).json.candidates[0].content.parts[0].text;
}

function itemsOf(json: any): Array<{ id: string; label?: string; answer?: string }> {
  return JSON.parse(json.candidates[0].content.parts[0].text).items;
}

describe('packed requests', () => {
  it('answer one item per id, in order, each with the label its row alone gets', async () => {
    sim = await startSimulator(scenario());
    const r = await generate(sim.url, packRequest(ROWS));
    expect(r.status).toBe(200);
    const items = itemsOf(r.json);
    expect(items.map((i) => i.id)).toEqual(IDS);
    const alone = await Promise.all(ROWS.map(aloneLabel));
    expect(items.map((i) => i.label)).toEqual(alone);
    expect(new Set(alone).size).toBeGreaterThan(1); // the check could fail: the labels differ between rows
    expect(r.json.usageMetadata.candidatesTokenCount).toBeGreaterThan(ROWS.length);
  });

  it('answer only the last user turn (earlier ones are examples) and fill the other properties from the schema', async () => {
    sim = await startSimulator(scenario());
    const examples = { user: packText(['an example row'], ['zz']), model: '{"items":[{"id":"zz","label":"low"}]}' };
    const r = await generate(sim.url, packRequest(ROWS.slice(0, 3), { label: { type: 'string', enum: LABELS }, score: { type: 'integer', minimum: 1, maximum: 5 } }, examples));
    const items = itemsOf(r.json) as Array<{ id: string; label: string; score: number }>;
    expect(items.map((i) => i.id)).toEqual(IDS.slice(0, 3));
    for (const item of items) {
      expect(LABELS).toContain(item.label);
      expect(Number.isInteger(item.score) && item.score >= 1 && item.score <= 5).toBe(true);
    }
  });

  it('free-text items get the sentence a row alone gets', async () => {
    sim = await startSimulator(scenario());
    const r = await generate(sim.url, packRequest(ROWS.slice(0, 2), { answer: { type: 'string' } }));
    const alone = (await generate(sim.url, { contents: [{ role: 'user', parts: [{ text: ROWS[0] }] }], generationConfig: { thinkingConfig: { thinkingBudget: 0 } } })).json;
    expect(itemsOf(r.json)[0]?.answer).toBe(alone.candidates[0].content.parts[0].text);
  });

  it('a JSON request without item blocks is answered as before', async () => {
    sim = await startSimulator(scenario());
    const body = packRequest(ROWS.slice(0, 2));
    body.contents[0]!.parts[0]!.text = 'no blocks here';
    const items = itemsOf((await generate(sim.url, body)).json);
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => IDS.includes(i.id))).toBe(true); // a schema value, not one item per block
  });

  it('the OpenAI dialect answers packed json_schema requests the same way', async () => {
    sim = await startSimulator(scenario());
    const res = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer key-a' },
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: packText(ROWS.slice(0, 4)) }], response_format: { type: 'json_schema', json_schema: { name: 'answers', schema: itemSchema({ label: { type: 'string', enum: LABELS } }) } } }),
    });
    const json = (await res.json()) as any;
    const items = JSON.parse(json.choices[0].message.content).items as Array<{ id: string; label: string }>;
    expect(items.map((i) => i.label)).toEqual(await Promise.all(ROWS.slice(0, 4).map(aloneLabel)));
  });
});

describe('scripted pack faults', () => {
  const marked = ROWS.map((r, i) => (i === 2 || i === 7 ? `${r} #sim:x` : r));
  const start = (fault: string) => startSimulator(scenario({ scripts: [{ match: '#sim:x', responses: [{ kind: 'pack', fault }] }] }));

  it('drop leaves out the marked rows', async () => {
    sim = await start('drop');
    const items = itemsOf((await generate(sim.url, packRequest(marked))).json);
    expect(items.map((i) => i.id)).toEqual(IDS.filter((_, i) => i !== 2 && i !== 7));
  });

  it('duplicate repeats each marked row with another label', async () => {
    sim = await start('duplicate');
    const items = itemsOf((await generate(sim.url, packRequest(marked))).json);
    expect(items).toHaveLength(ROWS.length + 2);
    for (const id of [IDS[2], IDS[7]]) {
      const twins = items.filter((i) => i.id === id);
      expect(twins).toHaveLength(2);
      expect(twins[0]?.label).not.toBe(twins[1]?.label);
    }
  });

  it('swap trades labels between a marked row and the next with another label; invalid-label answers outside the enum', async () => {
    sim = await start('swap');
    const own = await Promise.all(marked.map(aloneLabel));
    const swapped = itemsOf((await generate(sim.url, packRequest(marked))).json);
    expect(swapped.map((i) => i.id)).toEqual(IDS);
    expect(swapped.filter((s, i) => s.label !== own[i]).length).toBeGreaterThanOrEqual(2);
    expect(swapped.map((i) => i.label).sort()).toEqual([...own].sort());
    await sim.close();
    sim = await start('invalid-label');
    const invalid = itemsOf((await generate(sim.url, packRequest(marked))).json);
    expect(invalid.filter((i) => i.label === INVALID_PACK_LABEL).map((i) => i.id)).toEqual([IDS[2], IDS[7]]);
  });

  it('shuffle answers every row in reverse order; a request that is not packed gets the ordinary answer', async () => {
    sim = await start('shuffle');
    const items = itemsOf((await generate(sim.url, packRequest(marked))).json);
    expect(items.map((i) => i.id)).toEqual([...IDS].reverse());
    const single = await generate(sim.url, enumRequest(marked[2] as string, LABELS));
    expect(LABELS).toContain(single.json.candidates[0].content.parts[0].text);
  });

  it('an unknown fault is refused with its path', () => {
    expect(() => scenario({ scripts: [{ match: '#sim:x', responses: [{ kind: 'pack', fault: 'explode' }] }] })).toThrow(/fault/);
  });
});
