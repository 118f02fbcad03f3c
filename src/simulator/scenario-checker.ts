/**
 * Typed reading of an untrusted JSON value with errors that name the source file, the line and column
 * (when the JSON text is known) and the JSON path of the bad field, e.g.
 * `free-tier.json:9:9: $.projects[0].limits["gemini-2.5-flash"].rpm: expected a whole number >= 0, got "ten".`
 * Every failure is an {@link InputError} with code `SIM_SCENARIO_INVALID`.
 */
import { InputError } from '../errors.js';
import { formatJsonPath, locateJsonPath, type PathSegment } from './json-locate.js';

/** Stable code of every scenario validation error. */
export const SCENARIO_INVALID = 'SIM_SCENARIO_INVALID';

/** A JSON object read from a scenario. */
export type Obj = Record<string, unknown>;

/** A short description of a JSON value for error messages. */
function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** Reads fields of one scenario document; `text` (the file's JSON) lets errors carry line and column. */
export class ScenarioChecker {
  constructor(
    readonly source: string,
    private readonly text?: string,
  ) {}

  /** Throws the InputError for `path`. */
  fail(path: readonly PathSegment[], message: string): never {
    const pos = this.text !== undefined ? locateJsonPath(this.text, path) : undefined;
    throw new InputError(SCENARIO_INVALID, { file: this.source, line: pos?.line, column: pos?.column }, `${formatJsonPath(path)}: ${message}`);
  }

  private expected(path: readonly PathSegment[], what: string, got: unknown): never {
    return this.fail(path, `expected ${what}, got ${describe(got)}.`);
  }

  /** An object whose keys are all in `allowed` (keys starting with `$` or `//` are comments and ignored). */
  object(v: unknown, path: readonly PathSegment[], allowed: readonly string[]): Obj {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return this.expected(path, 'an object', v);
    for (const key of Object.keys(v)) {
      if (key.startsWith('$') || key.startsWith('//') || key === 'comment') continue;
      if (!allowed.includes(key)) this.fail([...path, key], `unknown field; expected one of ${allowed.join(', ')}.`);
    }
    return v as Obj;
  }

  /** A JSON object used as a map (any keys). */
  map(v: unknown, path: readonly PathSegment[]): Obj {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return this.expected(path, 'an object', v);
    return v as Obj;
  }

  /** An array (any elements). */
  array(v: unknown, path: readonly PathSegment[]): unknown[] {
    if (!Array.isArray(v)) return this.expected(path, 'an array', v);
    return v;
  }

  /** A string, non-empty unless `nonEmpty` is false. */
  string(v: unknown, path: readonly PathSegment[], nonEmpty = true): string {
    if (typeof v !== 'string' || (nonEmpty && v === '')) return this.expected(path, nonEmpty ? 'a non-empty string' : 'a string', v);
    return v;
  }

  /** `true` or `false`. */
  boolean(v: unknown, path: readonly PathSegment[]): boolean {
    if (typeof v !== 'boolean') return this.expected(path, 'true or false', v);
    return v;
  }

  /** A whole number in [min, max]. */
  int(v: unknown, path: readonly PathSegment[], min = 0, max = Number.MAX_SAFE_INTEGER): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
      return this.expected(path, `a whole number ${range}`, v);
    }
    return v;
  }

  /** A finite number in [min, max]. */
  number(v: unknown, path: readonly PathSegment[], min = 0, max = Number.MAX_VALUE): number {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
      const range = max === Number.MAX_VALUE ? `>= ${min}` : `from ${min} to ${max}`;
      return this.expected(path, `a number ${range}`, v);
    }
    return v;
  }

  /** One of `choices`. */
  oneOf<T extends string>(v: unknown, path: readonly PathSegment[], choices: readonly T[]): T {
    if (typeof v !== 'string' || !(choices as readonly string[]).includes(v)) {
      return this.expected(path, `one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`, v);
    }
    return v as T;
  }
}
