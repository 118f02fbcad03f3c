/**
 * Structured answers (`--schema file.json`): the model answers JSON (responseMimeType application/json with
 * responseJsonSchema, https://ai.google.dev/gemini-api/docs/structured-output) and each top-level property becomes an
 * output column. Structured output is known to come back invalid or truncated at times
 * (https://github.com/googleapis/python-genai/issues/2312), so every answer is parsed and checked here.
 *
 * Supported schema: a top-level `{"type": "object", "properties": {...}, "required": [...]}` whose properties have a
 * `type` of string, number, integer, boolean (optionally with `enum`; numbers with `minimum`/`maximum`), or
 * array/object (kept as JSON text).
 */
import { UsageError } from '../errors.js';

export interface StructuredSchema {
  /** The schema as given, sent as responseJsonSchema. */
  json: Record<string, unknown>;
  /** Top-level property names in schema order: the output columns. */
  properties: string[];
  required: Set<string>;
  types: Map<string, PropertySpec>;
}

interface PropertySpec {
  type: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
}

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/**
 * Checks a schema document.
 * @param source file name for messages.
 * @throws UsageError `SCHEMA_INVALID` naming what is wrong.
 */
export function compileSchema(json: unknown, source: string): StructuredSchema {
  const fail = (why: string) => new UsageError('SCHEMA_INVALID', `${source}: ${why}`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw fail('the schema must be a JSON object');
  const doc = json as Record<string, unknown>;
  if (doc.type !== 'object') throw fail('the top-level "type" must be "object" (each property becomes an output column)');
  const props = doc.properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props) || Object.keys(props).length === 0) {
    throw fail('"properties" must name at least one property');
  }
  const types = new Map<string, PropertySpec>();
  for (const [name, spec] of Object.entries(props as Record<string, unknown>)) {
    const type = (spec as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !TYPES.has(type)) throw fail(`property "${name}" needs a "type" among ${[...TYPES].join(', ')}`);
    const { enum: values, minimum, maximum } = spec as { enum?: unknown; minimum?: unknown; maximum?: unknown };
    if (values !== undefined && !Array.isArray(values)) throw fail(`property "${name}": "enum" must be an array`);
    for (const [key, bound] of [['minimum', minimum], ['maximum', maximum]] as const) {
      if (bound !== undefined && typeof bound !== 'number') throw fail(`property "${name}": "${key}" must be a number`);
    }
    types.set(name, {
      type,
      ...(Array.isArray(values) ? { enum: values } : {}),
      ...(typeof minimum === 'number' ? { minimum } : {}),
      ...(typeof maximum === 'number' ? { maximum } : {}),
    });
  }
  const required = Array.isArray(doc.required) ? doc.required.filter((r): r is string => typeof r === 'string') : [];
  for (const name of required) if (!types.has(name)) throw fail(`"required" names "${name}", which is not a property`);
  return { json: doc, properties: [...types.keys()], required: new Set(required), types };
}

/** Parses and checks an answer against the schema; on success every property becomes a string (missing → ''). */
export function validateStructured(text: string, schema: StructuredSchema): { ok: true; fields: Record<string, string> } | { ok: false; error: string } {
  const body = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, error: `answer is not valid JSON: ${JSON.stringify(body.length > 80 ? `${body.slice(0, 79)}…` : body)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'answer is not a JSON object' };
  return validateObject(value as Record<string, unknown>, schema);
}

/**
 * Checks a parsed answer object against the schema (one item of a packed answer, or a whole answer); on success every
 * property becomes a string (missing → ''). Properties the schema does not name are ignored.
 */
export function validateObject(object: Record<string, unknown>, schema: StructuredSchema): { ok: true; fields: Record<string, string> } | { ok: false; error: string } {
  const fields: Record<string, string> = {};
  for (const name of schema.properties) {
    const spec = schema.types.get(name) as PropertySpec;
    const v = object[name];
    if (v === undefined || v === null) {
      if (schema.required.has(name)) return { ok: false, error: `answer lacks the required property "${name}"` };
      fields[name] = '';
      continue;
    }
    const okType =
      (spec.type === 'string' && typeof v === 'string') ||
      (spec.type === 'number' && typeof v === 'number') ||
      (spec.type === 'integer' && Number.isInteger(v)) ||
      (spec.type === 'boolean' && typeof v === 'boolean') ||
      (spec.type === 'array' && Array.isArray(v)) ||
      (spec.type === 'object' && typeof v === 'object' && !Array.isArray(v));
    if (!okType) return { ok: false, error: `property "${name}" should be ${spec.type}, got ${JSON.stringify(v)}` };
    if (spec.enum && !spec.enum.includes(v)) return { ok: false, error: `property "${name}" = ${JSON.stringify(v)} is not one of ${JSON.stringify(spec.enum)}` };
    if (typeof v === 'number' && ((spec.minimum !== undefined && v < spec.minimum) || (spec.maximum !== undefined && v > spec.maximum))) {
      return { ok: false, error: `property "${name}" = ${v} is outside [${spec.minimum ?? '-∞'}, ${spec.maximum ?? '∞'}]` };
    }
    fields[name] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return { ok: true, fields };
}
