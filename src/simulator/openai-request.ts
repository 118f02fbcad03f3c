/**
 * Reads a chat/completions body into the simulator's {@link RequestView}: `system`/`developer` messages become the
 * system instruction, `user` and `assistant` messages the contents (text parts; image/audio parts count as media),
 * `response_format` the wanted output (json_schema → application/json with that schema, json_object →
 * application/json, text), `max_completion_tokens`/`max_tokens` the output limit, `reasoning_effort` the thinking
 * (none → budget 0; low/medium/high → budgets 1,024/8,192/24,576 as Gemini's compatibility layer maps them,
 * docs/reference/batch-openai-vertex-facts.md §b.1). Checks what OpenAI's API checks before answering (§b.2 "Structured output"):
 * strict schemas (root object, `additionalProperties: false`, every property required), the word "json" in the
 * messages for json_object, and the response_format types the scenario's server accepts. Messages of the 400s follow
 * OpenAI's wording where it is known, [INFERRED] otherwise.
 */
import type { ReadResult, SimFailure } from './dialect.js';
import type { ContentView, RequestView } from './request-view.js';
import type { OpenAIStyle, ResponseFormatType } from './types.js';

/** What the reader needs from the scenario. */
export interface ChatReadOptions {
  style: OpenAIStyle;
  /** The response_format types accepted; another is a 400. */
  formats: readonly ResponseFormatType[];
  /** max_tokens counts against TPM (ReadResult.extraTokens). */
  countMaxTokens: boolean;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

/** reasoning_effort → thinking (budgets of Gemini's compatibility layer, §b.1; `minimal` as Gemini's lowest level). */
const EFFORT: Record<string, { budget?: number; level?: string }> = {
  none: { budget: 0 },
  minimal: { level: 'MINIMAL' },
  low: { budget: 1024, level: 'LOW' },
  medium: { budget: 8192, level: 'MEDIUM' },
  high: { budget: 24576, level: 'HIGH' },
};

function bad(message: string, param?: string, code?: string): { ok: false; failure: SimFailure } {
  const failure: SimFailure = { kind: 'invalid-request', message };
  if (param !== undefined) failure.param = param;
  if (code !== undefined) failure.code = code;
  return { ok: false, failure };
}

/** The text parts and media parts of a message's `content` (a string or an array of parts). */
function readContent(role: string, content: unknown): ContentView {
  const view: ContentView = { role, texts: [], mediaParts: 0 };
  if (typeof content === 'string') view.texts.push(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (typeof part === 'string') view.texts.push(part);
      else if (isObj(part) && typeof part.text === 'string') view.texts.push(part.text);
      else if (isObj(part)) view.mediaParts++;
    }
  }
  return view;
}

/**
 * The first strict-mode violation of `schema`, in OpenAI's wording ("Invalid schema for response_format 'NAME': In
 * context=('properties', 'label'), …"), or undefined. Strict mode needs an object root, `additionalProperties: false`
 * and every property listed in `required` on every object (https://platform.openai.com/docs/guides/structured-outputs).
 */
export function strictSchemaProblem(schema: unknown, name: string): string | undefined {
  const head = `Invalid schema for response_format '${name}'`;
  if (!isObj(schema) || schema.type !== 'object') {
    const got = isObj(schema) ? JSON.stringify(schema.type ?? null) : JSON.stringify(schema);
    return `${head}: schema must be a JSON Schema of 'type: "object"', got 'type: ${got}'.`;
  }
  const walk = (s: unknown, context: string[]): string | undefined => {
    if (!isObj(s)) return undefined;
    const where = `In context=(${context.map((c) => `'${c}'`).join(', ')})`;
    if (s.type === 'object' || isObj(s.properties)) {
      if (s.additionalProperties !== false) return `${head}: ${where}, 'additionalProperties' is required to be supplied and to be false.`;
      const props = isObj(s.properties) ? Object.keys(s.properties) : [];
      const required = Array.isArray(s.required) ? s.required : [];
      const missing = props.find((p) => !required.includes(p));
      if (missing !== undefined) {
        return `${head}: ${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
      }
      for (const p of props) {
        const problem = walk((s.properties as Obj)[p], [...context, 'properties', p]);
        if (problem) return problem;
      }
    }
    if (s.items !== undefined) return walk(s.items, [...context, 'items']);
    for (const key of ['anyOf', '$defs', 'definitions']) {
      const sub = s[key];
      const entries = Array.isArray(sub) ? sub.map((v, i) => [String(i), v] as const) : isObj(sub) ? Object.entries(sub) : [];
      for (const [k, v] of entries) {
        const problem = walk(v, [...context, key, k]);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return walk(schema, []);
}

/** Applies `response_format` to `view`; a failure when the server refuses it. */
function readResponseFormat(raw: unknown, view: RequestView, messagesText: string, o: ChatReadOptions): { ok: false; failure: SimFailure } | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObj(raw) || typeof raw.type !== 'string') return bad("Missing required parameter: 'response_format.type'.", 'response_format.type', 'missing_required_parameter');
  const type = raw.type;
  if (!(o.formats as readonly string[]).includes(type)) {
    return bad(`Invalid parameter: 'response_format' of type '${type}' is not supported with this model.`, 'response_format');
  }
  if (type === 'json_object') {
    if (o.style === 'openai' && !/json/i.test(messagesText)) {
      return bad("'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", 'messages');
    }
    view.mimeType = 'application/json';
  } else if (type === 'json_schema') {
    const js = raw.json_schema;
    if (!isObj(js)) return bad("Missing required parameter: 'response_format.json_schema'.", 'response_format.json_schema', 'missing_required_parameter');
    if (typeof js.name !== 'string' || js.name === '') return bad("Missing required parameter: 'response_format.json_schema.name'.", 'response_format.json_schema.name', 'missing_required_parameter');
    if (o.style === 'openai' && js.strict === true) {
      const problem = strictSchemaProblem(js.schema, js.name);
      if (problem) return bad(problem, 'response_format', 'invalid_json_schema');
    }
    view.mimeType = 'application/json';
    if (js.schema !== undefined) view.jsonSchema = js.schema;
  }
  return undefined;
}

/** Reads a chat/completions body. Never throws. */
export function readChatRequest(body: unknown, o: ChatReadOptions): ReadResult {
  if (!isObj(body)) return bad('The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') return bad('you must provide a model parameter', 'model');
  if (body.messages === undefined) return bad("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(body.messages)) return bad("Invalid type for 'messages': expected an array of objects.", 'messages', 'invalid_type');
  if (body.messages.length === 0) return bad("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  if (body.stream === true) return bad('The simulator does not stream chat completions; send "stream": false.', 'stream');

  const contents: ContentView[] = [];
  const system: ContentView = { role: 'user', texts: [], mediaParts: 0 };
  let userText = '';
  let allText = '';
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i] as unknown;
    if (!isObj(m) || typeof m.role !== 'string' || !ROLES.includes(m.role)) {
      const role = isObj(m) ? String(m.role) : String(m);
      return bad(`Invalid value: '${role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages[${i}].role`, 'invalid_value');
    }
    const c = readContent(m.role === 'assistant' ? 'model' : 'user', m.content);
    allText += c.texts.join('');
    if (m.role === 'system' || m.role === 'developer') {
      system.texts.push(...c.texts);
      system.mediaParts += c.mediaParts;
    } else {
      contents.push(c);
      if (m.role === 'user') for (const t of c.texts) userText += t;
    }
  }
  const view: RequestView = { contents, userText, includeThoughts: false };
  if (system.texts.length > 0 || system.mediaParts > 0) view.system = system;

  const format = readResponseFormat(body.response_format, view, allText, o);
  if (format) return format;

  for (const field of ['max_completion_tokens', 'max_tokens'] as const) {
    const v = body[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      return bad(`Invalid '${field}': integer below minimum value. Expected a value >= 1, but got ${JSON.stringify(v)} instead.`, field, 'integer_below_min_value');
    }
    view.maxOutputTokens ??= v;
  }
  const effort = body.reasoning_effort;
  if (effort !== undefined && effort !== null) {
    const e = typeof effort === 'string' ? EFFORT[effort] : undefined;
    if (!e) return bad(`Invalid value: '${typeof effort === 'string' ? effort : JSON.stringify(effort)}'. Supported values are: 'none', 'minimal', 'low', 'medium', and 'high'.`, 'reasoning_effort', 'invalid_value');
    if (e.budget !== undefined) view.thinkingBudget = e.budget;
    if (e.level !== undefined) view.thinkingLevel = e.level;
  }
  const extraTokens = o.countMaxTokens ? (view.maxOutputTokens ?? 0) : 0;
  return { ok: true, view, model: body.model, extraTokens };
}
