/**
 * Answers to packed requests: several rows in one request, as gemini-batch sends them with `--rows-per-request`
 * (README "Packed requests"). A request is packed when
 * - it asks for JSON (`application/json`, or an OpenAI `json_schema`) with a schema whose `items` property is an
 *   array of objects that have an `id` property, and
 * - its last user turn holds item blocks: `<item id="ID">`, a line break, the row's text, a line break, `</item>`.
 *
 * The answer is `{"items": [...]}` with one item per block of the last user turn (earlier user turns are few-shot
 * examples), in the blocks' order: `{"id": ID, ...}` with the item schema's other properties. A `label` property with an
 * enum gets the member a `text/x.enum` request of the item's text alone gets (the same hash of the same text), so a
 * test can check each row's label against its own id; other properties get {@link schemaValue} of that hash (an
 * `answer` string without an enum: a sentence about the item's text).
 *
 * Scripted faults (`{"kind": "pack", "fault": …}`) change the items whose text holds the rule's `match`:
 * `drop` leaves them out, `duplicate` repeats each with another label, `swap` trades labels with the next item that has
 * another one, `invalid-label` gives them a label outside the enum, `shuffle` answers every item in reverse order.
 */
import { hashString, mix32 } from './random.js';
import type { RequestView } from './request-view.js';
import { enumMember, schemaValue } from './schema-value.js';

/** What a scripted pack fault does (see the file comment). */
export const PACK_FAULTS = ['drop', 'duplicate', 'swap', 'invalid-label', 'shuffle'] as const;
export type PackFault = (typeof PACK_FAULTS)[number];

/** The label an `invalid-label` fault answers: never a member of a label enum gemini-batch sends. */
export const INVALID_PACK_LABEL = '(not one of the labels)';

/** One item block of a packed request. */
export interface PackItem {
  id: string;
  /** The row's text between the block's lines, exactly. */
  text: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const BLOCK = /<item id="([^"\n]+)">\n([\s\S]*?)\n<\/item>/g;

/** The schema of one item of a packed request (the object schema of `items.items` with an `id`), or undefined. */
function itemSchema(view: RequestView): Obj | undefined {
  const schema = view.jsonSchema ?? view.schema;
  if (!isObj(schema) || !isObj(schema.properties)) return undefined;
  const items = schema.properties.items;
  if (!isObj(items) || !isObj(items.items)) return undefined;
  const item = items.items;
  return isObj(item.properties) && item.properties.id !== undefined ? item : undefined;
}

/** The item blocks of a packed request, in order; undefined when the request is not packed. */
export function packItems(view: RequestView): PackItem[] | undefined {
  if (view.mimeType?.toLowerCase() !== 'application/json' || itemSchema(view) === undefined) return undefined;
  const last = [...view.contents].reverse().find((c) => c.role === 'user');
  const text = last?.texts.join('') ?? '';
  const items = [...text.matchAll(BLOCK)].map((m) => ({ id: m[1] as string, text: m[2] as string }));
  return items.length > 0 ? items : undefined;
}

/**
 * The JSON text answering a packed request: one item per block (see the file comment), with `fault` applied to the
 * items whose text contains `marker`.
 */
export function packedAnswerText(view: RequestView, items: readonly PackItem[], fault?: { fault: PackFault; marker: string }): string {
  const schema = itemSchema(view) as Obj;
  const props = { ...(schema.properties as Obj) };
  delete props.id;
  const rest: Obj = { ...schema, properties: props };
  if (Array.isArray(schema.required)) rest.required = schema.required.filter((r) => r !== 'id');
  const labelSchema = props.label;
  const labels = isObj(labelSchema) && Array.isArray(labelSchema.enum) ? labelSchema.enum.map(String) : undefined;

  let answers: Obj[] = items.map((item) => {
    const hash = hashString(item.text);
    const value = schemaValue(rest, hash);
    const fields: Obj = isObj(value) ? value : {};
    if (labels) fields.label = enumMember(labelSchema, hash);
    else if (isObj(props.answer) && props.answer.enum === undefined && typeof fields.answer === 'string') fields.answer = sentence(item.text, hash);
    return { id: item.id, ...fields };
  });

  if (fault) {
    const marked = (i: number) => (items[i] as PackItem).text.includes(fault.marker);
    switch (fault.fault) {
      case 'drop':
        answers = answers.filter((_, i) => !marked(i));
        break;
      case 'duplicate':
        answers = answers.flatMap((a, i) => (marked(i) ? [a, { ...a, ...(labels ? { label: otherLabel(labels, a.label, mix32(i, 0xd0)) } : {}) }] : [a]));
        break;
      case 'swap':
        answers.forEach((a, i) => {
          if (!marked(i)) return;
          for (let k = 1; k < answers.length; k++) {
            const b = answers[(i + k) % answers.length] as Obj;
            if (b.label !== a.label) {
              [a.label, b.label] = [b.label, a.label];
              return;
            }
          }
        });
        break;
      case 'invalid-label':
        answers.forEach((a, i) => {
          if (marked(i)) a.label = INVALID_PACK_LABEL;
        });
        break;
      case 'shuffle':
        answers.reverse();
        break;
    }
  }
  return JSON.stringify({ items: answers });
}

function otherLabel(labels: readonly string[], current: unknown, hash: number): string {
  const others = labels.filter((l) => l !== current);
  return others.length > 0 ? (others[hash % others.length] as string) : String(current);
}

/** The sentence a free-text request of `text` alone gets (answer-builder.ts). */
function sentence(text: string, hash: number): string {
  const words = text.split(/\s+/).filter(Boolean);
  return `Simulated answer ${(hash % 0x10000).toString(16).padStart(4, '0')}: the prompt has ${words.length} words.`;
}
