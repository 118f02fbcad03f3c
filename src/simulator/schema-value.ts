/**
 * A deterministic value valid for a response schema, for `responseMimeType: application/json` answers.
 * Understands both the OpenAPI-subset Schema of `responseSchema` (`type: "OBJECT"`, `propertyOrdering`,
 * `nullable`) and the JSON Schema of `responseJsonSchema` (`type: "object"`, type arrays, `const`, `oneOf`)
 * (https://ai.google.dev/gemini-api/docs/structured-output). Unknown keywords are ignored, as the API does.
 */
import { mix32 } from './random.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function get(o: Obj, camel: string, snake: string): unknown {
  return o[camel] !== undefined ? o[camel] : o[snake];
}

function typeOf(schema: Obj): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t.toLowerCase();
  if (Array.isArray(t)) {
    const first: unknown = t.find((x) => typeof x === 'string' && x.toLowerCase() !== 'null');
    return typeof first === 'string' ? first.toLowerCase() : undefined;
  }
  if (isObj(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];

/**
 * The first enum member of `schema` chosen by `hash`, or undefined when `schema` has no non-empty enum.
 * Used for `text/x.enum` answers (https://ai.google.dev/gemini-api/docs/structured-output).
 */
export function enumMember(schema: unknown, hash: number): string | undefined {
  if (!isObj(schema)) return undefined;
  const e = schema.enum;
  if (!Array.isArray(e) || e.length === 0) return undefined;
  return String(e[hash % e.length]);
}

/** A value valid for `schema`, chosen by `hash`. Depth-limited to 8 levels. */
export function schemaValue(schema: unknown, hash: number, depth = 0): unknown {
  if (!isObj(schema) || depth > 8) return null;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[hash % schema.enum.length];
  const alternatives = get(schema, 'anyOf', 'any_of') ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) return schemaValue(alternatives[0], hash, depth + 1);
  const h = (n: number): number => mix32(hash, n, depth);
  switch (typeOf(schema)) {
    case 'object': {
      const props = isObj(schema.properties) ? schema.properties : {};
      const order = get(schema, 'propertyOrdering', 'property_ordering');
      const names = Array.isArray(order) ? order.filter((n): n is string => typeof n === 'string' && n in props) : [];
      for (const n of Object.keys(props)) if (!names.includes(n)) names.push(n);
      const out: Obj = {};
      names.forEach((name, i) => {
        out[name] = schemaValue(props[name], h(i + 1), depth + 1);
      });
      return out;
    }
    case 'array': {
      const minRaw = Number(get(schema, 'minItems', 'min_items') ?? 1);
      const maxRaw = Number(get(schema, 'maxItems', 'max_items') ?? Infinity);
      const min = Number.isFinite(minRaw) ? Math.max(0, minRaw) : 1;
      const max = Number.isNaN(maxRaw) ? Infinity : maxRaw;
      const count = Math.max(0, Math.min(Math.max(min, 1), max, 16));
      return Array.from({ length: count }, (_, i) => schemaValue(schema.items, h(i + 101), depth + 1));
    }
    case 'integer':
    case 'number': {
      const lo = Number(schema.minimum ?? 0);
      const hiRaw = Number(schema.maximum ?? lo + 100);
      const hi = Number.isFinite(hiRaw) ? hiRaw : lo + 100;
      const base = Number.isFinite(lo) ? lo : 0;
      const span = Math.max(0, hi - base);
      if (typeOf(schema) === 'integer') return Math.ceil(base) + (span >= 1 ? h(7) % (Math.floor(span) + 1) : 0);
      return base + (span * (h(7) % 1000)) / 1000;
    }
    case 'boolean':
      return h(9) % 2 === 0;
    case 'null':
      return null;
    case 'string':
    default: {
      const format = schema.format;
      if (format === 'date-time') return '2025-01-01T00:00:00Z';
      if (format === 'date') return '2025-01-01';
      return `${WORDS[h(11) % WORDS.length]}`;
    }
  }
}
