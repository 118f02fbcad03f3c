/**
 * Reads a GenerateContentRequest body into the few things the simulator needs. Accepts camelCase and
 * snake_case field names (proto JSON mapping; the docs use both `systemInstruction` and `system_instruction`,
 * docs/reference/gemini-api-facts.md §8.8). Body shape as sent by @google/genai 2.32 is in docs/reference/gemini-api-facts.md §4.2.
 */

/** Text of one Content, by part. Non-text parts (inline data, files) are counted in `mediaParts`. */
export interface ContentView {
  role: string;
  texts: string[];
  mediaParts: number;
}

/** The parts of a request that matter to the simulator. */
export interface RequestView {
  contents: ContentView[];
  system?: ContentView;
  /** Concatenation of the text parts of user contents: what answers, scripts and hashes are computed from. */
  userText: string;
  mimeType?: string;
  /** `generationConfig.responseSchema` (OpenAPI-subset Schema). */
  schema?: unknown;
  /** `generationConfig.responseJsonSchema` (JSON Schema). */
  jsonSchema?: unknown;
  maxOutputTokens?: number;
  thinkingBudget?: number;
  thinkingLevel?: string;
  includeThoughts: boolean;
  /**
   * `serviceTier` at the root of the body (`flex`, `standard`, `priority`; lower case, as @google/genai 2.32 sends it,
   * docs/service-tiers.md), as sent; absent when the request names none.
   */
  serviceTier?: string;
}

/** Result of reading a body: the view, or what is wrong with it (the message of a 400). */
export type ReadResult = { ok: true; view: RequestView } | { ok: false; message: string };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `obj[camel]`, else `obj[snake]`. */
export function pick(obj: Obj, camel: string, snake: string): unknown {
  const v = obj[camel];
  return v !== undefined ? v : obj[snake];
}

function readContent(raw: unknown, defaultRole: string): ContentView {
  if (typeof raw === 'string') return { role: defaultRole, texts: [raw], mediaParts: 0 };
  const c = isObj(raw) ? raw : {};
  const role = typeof c.role === 'string' && c.role !== '' ? c.role : defaultRole;
  const texts: string[] = [];
  let mediaParts = 0;
  const parts = Array.isArray(c.parts) ? c.parts : isObj(c.parts) ? [c.parts] : [];
  for (const p of parts) {
    if (typeof p === 'string') texts.push(p);
    else if (isObj(p)) {
      if (typeof p.text === 'string') texts.push(p.text);
      else if (pick(p, 'inlineData', 'inline_data') !== undefined || pick(p, 'fileData', 'file_data') !== undefined) {
        mediaParts++;
      }
    }
  }
  return { role, texts, mediaParts };
}

function optionalNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/**
 * Reads a generateContent body (or the `generateContentRequest` of a countTokens body).
 * Fails when the body is not an object or has no contents.
 */
export function readRequest(body: unknown): ReadResult {
  if (!isObj(body)) return { ok: false, message: 'Invalid JSON payload received. Expected an object.' };
  const rawContents = body.contents;
  const list = Array.isArray(rawContents) ? rawContents : rawContents === undefined || rawContents === null ? [] : [rawContents];
  if (list.length === 0) return { ok: false, message: '* GenerateContentRequest.contents: contents is not specified\n' };
  const contents = list.map((c) => readContent(c, 'user'));
  const rawSystem = pick(body, 'systemInstruction', 'system_instruction');
  const system = rawSystem === undefined || rawSystem === null ? undefined : readContent(rawSystem, 'user');

  let userText = '';
  for (const c of contents) if (c.role === 'user') for (const t of c.texts) userText += t;

  const config = pick(body, 'generationConfig', 'generation_config');
  const gc: Obj = isObj(config) ? config : {};
  const thinkingRaw = pick(gc, 'thinkingConfig', 'thinking_config');
  const thinking: Obj = isObj(thinkingRaw) ? thinkingRaw : {};
  const mime = pick(gc, 'responseMimeType', 'response_mime_type');
  const level = pick(thinking, 'thinkingLevel', 'thinking_level');

  const view: RequestView = {
    contents,
    userText,
    includeThoughts: pick(thinking, 'includeThoughts', 'include_thoughts') === true,
  };
  if (system) view.system = system;
  if (typeof mime === 'string') view.mimeType = mime;
  const schema = pick(gc, 'responseSchema', 'response_schema');
  if (schema !== undefined && schema !== null) view.schema = schema;
  const jsonSchema = pick(gc, 'responseJsonSchema', 'response_json_schema');
  if (jsonSchema !== undefined && jsonSchema !== null) view.jsonSchema = jsonSchema;
  const maxOut = optionalNumber(pick(gc, 'maxOutputTokens', 'max_output_tokens'));
  if (maxOut !== undefined) view.maxOutputTokens = maxOut;
  const budget = optionalNumber(pick(thinking, 'thinkingBudget', 'thinking_budget'));
  if (budget !== undefined) view.thinkingBudget = budget;
  if (typeof level === 'string') view.thinkingLevel = level.toUpperCase();
  const tier = pick(body, 'serviceTier', 'service_tier');
  if (typeof tier === 'string') view.serviceTier = tier;
  return { ok: true, view };
}

/**
 * The request inside a countTokens body: `{contents}` or `{generateContentRequest: {...}}`.
 */
export function readCountTokensRequest(body: unknown): ReadResult {
  if (isObj(body)) {
    const inner = pick(body, 'generateContentRequest', 'generate_content_request');
    if (isObj(inner)) return readRequest(inner);
  }
  return readRequest(body);
}
