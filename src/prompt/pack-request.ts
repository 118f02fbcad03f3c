/**
 * The request of a pack: several rows in one request (`--rows-per-request K`), each row's rendered prompt in an item
 * block with an id the tool assigns, the answer constrained by a JSON schema to a list of `{id, …}` items that
 * ../answers/judge-pack.ts joins back to the rows by id only.
 *
 * The user turn:
 * ```
 * <PACK_PREAMBLE, naming the number of items>
 *
 * <item id="bc">
 * <row 1's prompt, exactly as a request of that row alone would send it>
 * </item>
 *
 * <item id="bd">
 * …
 * </item>
 * ```
 * The answer's schema (`json` output named `answers`): `{"items": [{"id": <one of the pack's ids>, …}]}` where `…` is
 * `label` (an enum of the labels), the --schema's properties, or `answer` (a string) in free-form mode. The system
 * instruction is the user's; few-shot examples become one packed example turn (their ids are not the rows' ids).
 *
 * Ids: two lower-case consonants (`bc`, `bd` … `zz`, then three): short, one or two tokens, never a number a model could
 * take for a row number or for content, never a word, never a label. They are assigned by position in each request;
 * only the pairing within that request matters.
 */
import type { JsonSchema, ModelRequest, WantedOutput } from '../providers/contract.js';
import type { RequestSettings } from './build-request.js';

/** The `name` of a pack's answer schema, where a provider asks for one (OpenAI json_schema.name). */
export const PACK_SCHEMA_NAME = 'answers';

/** The most rows one request may carry (--rows-per-request). */
export const MAX_ROWS_PER_REQUEST = 1000;

const CONSONANTS = 'bcdfghjklmnpqrstvwxz';

/**
 * `n` distinct ids: two consonants each while they last (400), else three (8,000 ids). Skips no pair: a pair of
 * consonants is no English word.
 * @throws RangeError for more than 8,000.
 */
export function packIds(n: number): string[] {
  const c = CONSONANTS.length;
  const width = n <= c * c ? 2 : 3;
  if (n > c ** width) throw new RangeError(`at most ${c ** 3} ids`);
  return Array.from({ length: n }, (_, i) => idAt(i, width));
}

/** The `i`-th id of `width` consonants. */
function idAt(i: number, width: number): string {
  const c = CONSONANTS.length;
  let id = '';
  for (let k = width - 1; k >= 0; k--) id += CONSONANTS[Math.floor(i / c ** k) % c];
  return id;
}

/** The sentences before the items (every pack; plain words so that the model needs no other instruction). */
export function packPreamble(count: number): string {
  return (
    `Below are ${count} items. Each item is a separate task: answer each one on its own, judging it by its own text only. ` +
    'Give exactly one entry per item in "items", with the id of the item it answers.'
  );
}

/** One item block: the row's prompt between an opening line with its id and a closing line. */
export function itemBlock(id: string, prompt: string): string {
  return `<item id="${id}">\n${prompt}\n</item>`;
}

/** The packed user turn of `prompts` with their `ids`. */
export function packPrompt(prompts: readonly string[], ids: readonly string[]): string {
  return `${packPreamble(prompts.length)}\n\n${prompts.map((p, i) => itemBlock(ids[i] as string, p)).join('\n\n')}`;
}

/**
 * Whether a row's prompt can go in a pack: not when it holds an item block's markers (`<item id="`, `</item>`), which
 * would blur where its block ends. Such a row is sent alone.
 */
export function canPack(prompt: string): boolean {
  return !prompt.includes('</item>') && !prompt.includes('<item id="');
}

/** The properties of one item besides `id`, with their required list and whether extra properties are refused. */
interface ItemShape {
  properties: Record<string, unknown>;
  required: string[];
  closed: boolean | undefined;
}

function itemShape(settings: Pick<RequestSettings, 'labels' | 'schema'>): ItemShape {
  if (settings.labels) return { properties: { label: { type: 'string', enum: [...settings.labels] } }, required: ['label'], closed: true };
  if (settings.schema) {
    const s = settings.schema;
    const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
    return { properties: { ...(s.properties as Record<string, unknown>) }, required, closed: typeof s.additionalProperties === 'boolean' ? s.additionalProperties === false : undefined };
  }
  return { properties: { answer: { type: 'string' } }, required: ['answer'], closed: true };
}

/**
 * The JSON schema of a pack's answer for `ids`: an object whose `items` is an array of `{id, …}` (see the file
 * comment). `additionalProperties: false` on every object unless a --schema leaves its own open (OpenAI's strict mode
 * needs it; Gemini's responseJsonSchema takes it).
 */
export function packSchema(settings: Pick<RequestSettings, 'labels' | 'schema'>, ids: readonly string[]): JsonSchema {
  const shape = itemShape(settings);
  const item: JsonSchema = {
    type: 'object',
    properties: { id: { type: 'string', enum: [...ids] }, ...shape.properties },
    required: ['id', ...shape.required.filter((r) => r !== 'id')],
  };
  if (shape.closed !== undefined) item.additionalProperties = !shape.closed;
  return { type: 'object', properties: { items: { type: 'array', items: item } }, required: ['items'], additionalProperties: false };
}

/** What {@link packRequestBuilder} needs: the settings of a row's request. */
export type PackSettings = Omit<RequestSettings, 'template'>;

/**
 * Returns a function building the request of a pack from its rows' rendered prompts (in order) and their ids. The
 * examples (a single request's user/model turns) become one packed turn pair: their prompts as items with ids of their
 * own, their answers as the items of a packed answer.
 */
export function packRequestBuilder(settings: PackSettings): (prompts: readonly string[], ids: readonly string[]) => ModelRequest {
  const reasoning: ModelRequest['reasoning'] = settings.thinkingBudget !== undefined ? { budgetTokens: settings.thinkingBudget } : 'least';
  const examples = packedExamples(settings);
  return (prompts, ids) => ({
    model: settings.model,
    system: settings.system,
    examples,
    prompt: packPrompt(prompts, ids),
    output: { kind: 'json', schema: packSchema(settings, ids), name: PACK_SCHEMA_NAME } satisfies WantedOutput,
    // --max-output-tokens caps each row's answer: the pack gets that much room per row.
    maxOutputTokens: settings.maxOutputTokens !== undefined ? settings.maxOutputTokens * prompts.length : undefined,
    temperature: settings.temperature,
    reasoning,
    moreRoom: false,
    serviceTier: settings.serviceTier,
  });
}

/** The few-shot examples as one packed user/model pair, or undefined when there are none. */
function packedExamples(settings: PackSettings): ModelRequest['examples'] {
  const list = settings.examples ?? [];
  if (list.length === 0) return undefined;
  // Three consonants from the end of their space: never the id of a row (rows get two while a pack has at most 400,
  // three from the start beyond; a pack has at most MAX_ROWS_PER_REQUEST).
  const last = CONSONANTS.length ** 3;
  const ids = list.map((_, i) => idAt(last - list.length + i, 3));
  const field = settings.labels ? 'label' : settings.schema ? undefined : 'answer';
  const items = list.map((e, i): Record<string, unknown> => {
    if (field) return { id: ids[i], [field]: e.answer };
    // --schema examples carry a JSON answer ({"label": …}): its properties go into the item.
    const value = parseObject(e.answer);
    return { id: ids[i], ...(value ?? { label: e.answer }) };
  });
  return [{ prompt: packPrompt(list.map((e) => e.prompt), ids), answer: JSON.stringify({ items }) }];
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Output tokens assumed for one free-text answer in a pack when --max-output-tokens does not say (a short paragraph). */
export const FREE_TEXT_ITEM_TOKENS = 256;

/**
 * Output tokens one row's item of a packed answer takes, about: `{"id":"bc","label":<the longest label>},`; for a
 * --schema, its JSON with the longest enum member per property, 25 tokens per free string, 20 per array or object,
 * 2 per number or boolean (as `plan` guesses); for free text, --max-output-tokens per row, else
 * {@link FREE_TEXT_ITEM_TOKENS}. `tokens` estimates a text's tokens.
 */
export function packItemTokens(settings: Pick<RequestSettings, 'labels' | 'schema' | 'maxOutputTokens'>, tokens: (text: string) => number): number {
  const wrapper = tokens('{"id":"bc",},');
  if (settings.labels) return wrapper + tokens(`"label":${JSON.stringify(longest(settings.labels))}`);
  if (settings.schema) {
    let n = wrapper;
    for (const [name, spec] of Object.entries((settings.schema.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown }>)) {
      n += tokens(`"${name}":,`);
      if (Array.isArray(spec?.enum) && spec.enum.length > 0) n += tokens(longest(spec.enum.map((v) => JSON.stringify(v))));
      else n += spec?.type === 'string' ? 25 : spec?.type === 'array' || spec?.type === 'object' ? 20 : 2;
    }
    return n;
  }
  return wrapper + tokens('"answer":""') + (settings.maxOutputTokens ?? FREE_TEXT_ITEM_TOKENS);
}

function longest(texts: readonly string[]): string {
  return texts.reduce((a, b) => (b.length > a.length ? b : a), '');
}
