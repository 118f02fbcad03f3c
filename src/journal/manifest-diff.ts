/**
 * Differences between a stored manifest and the current run's, as lines a user can read: those that change answers
 * (the job cannot resume) and those that do not.
 */
import type { Manifest } from './manifest.js';

/** Strings longer than this (or holding a line break) are shown as an excerpt around their first difference. */
const SHORT_STRING = 60;
/** Characters of context on each side of the first difference in an excerpt. */
const EXCERPT_CONTEXT = 24;

/**
 * Compares a stored manifest with the current run's.
 * - `blocking`: one line per difference that changes answers: the input's bytes (`input file changed: size 315,980 →
 *   316,002 bytes, sha256 3f2a… → 9b1c…`), records read, columns, and every setting that differs, compared deep, by
 *   dotted path (`model: "gemini-2.5-flash" → "gemini-2.5-pro"`, `labels: yes,no → yes,no,maybe`,
 *   `prompt changed at character 57: "…{{Topic}}…" → "…{{Title}}…"`, `generationConfig.temperature: 0 → 0.2`).
 * - `notes`: differences that do not (`input moved: a.csv → b/a.csv`, `written by gemini-batch 0.1.0, this is 0.2.0`).
 */
export function diffManifest(stored: Manifest, current: Manifest): { blocking: string[]; notes: string[] } {
  const blocking: string[] = [];
  const notes: string[] = [];
  const a = stored.input;
  const b = current.input;
  if (a.size !== b.size || a.sha256 !== b.sha256) {
    const size = a.size === b.size ? `same size (${count(a.size)} bytes)` : `size ${count(a.size)} → ${count(b.size)} bytes`;
    blocking.push(`input file changed: ${size}, sha256 ${a.sha256.slice(0, 4)}… → ${b.sha256.slice(0, 4)}…`);
  }
  if (a.records !== null && b.records !== null && a.records !== b.records) {
    blocking.push(`input records: ${count(a.records)} → ${count(b.records)}`);
  }
  if (!deepEqual(a.columns, b.columns)) diffValue('input columns', a.columns, b.columns, blocking);
  const keys = new Set([...Object.keys(stored.settings), ...Object.keys(current.settings)]);
  for (const key of keys) diffValue(key, stored.settings[key], current.settings[key], blocking);
  if (a.path !== b.path) notes.push(`input moved: ${a.path} → ${b.path}`);
  if (stored.tool.version !== current.tool.version) {
    notes.push(`written by gemini-batch ${stored.tool.version}, this is ${current.tool.version}`);
  }
  return { blocking, notes };
}

/** Pushes the lines describing how `b` differs from `a` at `path` (nothing when equal). */
function diffValue(path: string, a: unknown, b: unknown, out: string[]): void {
  if (deepEqual(a, b)) return;
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) diffValue(`${path}.${key}`, a[key], b[key], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.every(isScalar) && b.every(isScalar)) {
      out.push(`${path}: ${scalarList(a, b)}`);
    } else if (a.length === b.length) {
      a.forEach((item, i) => diffValue(`${path}[${i}]`, item, b[i], out));
    } else {
      out.push(`${path}: ${a.length} items → ${b.length} items`);
    }
    return;
  }
  if (typeof a === 'string' && typeof b === 'string' && (isLong(a) || isLong(b))) {
    out.push(`${path} changed ${excerpts(a, b)}`);
    return;
  }
  out.push(`${path}: ${show(a)} → ${show(b)}`);
}

/** `yes,no → yes,no,maybe`, or for long lists the counts and what was added and removed. */
function scalarList(a: unknown[], b: unknown[]): string {
  const plain = (list: unknown[]) => list.every((x) => typeof x === 'string' && !x.includes(',') && x.trim() === x && x !== '');
  const join = (list: unknown[]) => (list.length === 0 ? '(empty)' : plain(list) ? list.join(',') : JSON.stringify(list));
  const short = `${join(a)} → ${join(b)}`;
  if (short.length <= 2 * SHORT_STRING) return short;
  const added = b.filter((x) => !a.includes(x));
  const removed = a.filter((x) => !b.includes(x));
  const parts = [`${a.length} → ${b.length} items`];
  if (added.length > 0) parts.push(`added ${clip(added.map(show).join(', '))}`);
  if (removed.length > 0) parts.push(`removed ${clip(removed.map(show).join(', '))}`);
  if (added.length === 0 && removed.length === 0) parts.push('same items, other order or repeats');
  return parts.join('; ');
}

/** `at character N: "…old…" → "…new…"` around the first differing character (1-based). */
function excerpts(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const cut = (s: string) => {
    const from = Math.max(0, i - EXCERPT_CONTEXT);
    const to = Math.min(s.length, i + EXCERPT_CONTEXT);
    return `${from > 0 ? '…' : ''}${JSON.stringify(s.slice(from, to)).slice(1, -1)}${to < s.length ? '…' : ''}`;
  };
  return `at character ${i + 1}: "${cut(a)}" → "${cut(b)}"`;
}

function isLong(s: string): boolean {
  return s.length > SHORT_STRING || /[\r\n]/.test(s);
}

function show(v: unknown): string {
  if (v === undefined) return '(none)';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : clip(s);
}

function clip(s: string): string {
  return s.length > 2 * SHORT_STRING ? `${s.slice(0, 2 * SHORT_STRING)}…` : s;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function isScalar(v: unknown): boolean {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Equality of JSON values: key order does not matter, a key holding `undefined` counts as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}
