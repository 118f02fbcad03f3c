/**
 * Differences between a stored manifest and the current run's, as lines a user can read: those that change answers
 * (the job cannot resume) and those that do not.
 */
import type { AnswerSource, Manifest } from './manifest.js';

/** Strings longer than this (or holding a line break) are shown as an excerpt around their first difference. */
const SHORT_STRING = 60;
/** Characters of context on each side of the first difference in an excerpt. */
const EXCERPT_CONTEXT = 24;

/**
 * Compares a stored manifest with the current run's.
 * - `blocking`: one line per difference that changes answers: where they come from (`answers came from the built-in
 *   simulator (--simulate: made-up answers); this run would send to the Gemini API at generativelanguage.googleapis.com`),
 *   the model, how rows are fingerprinted, and every setting that differs, compared deep, by dotted path
 *   (`labels: yes,no → yes,no,maybe`, `prompt changed at character 57: "…{{Topic}}…" → "…{{Title}}…"`,
 *   `generationConfig.temperature: 0 → 0.2`).
 * - `notes`: differences that do not (`input moved: a.csv → b/a.csv`, `written by gemini-batch 0.1.0, this is 0.2.0`,
 *   `input read differently: reading.delimiter: ";" → ","`). A changed input is not a difference here: its rows are
 *   matched to the answers by fingerprint (../job/reconcile-input.ts).
 */
export function diffManifest(stored: Manifest, current: Manifest): { blocking: string[]; notes: string[] } {
  const blocking: string[] = [];
  const notes: string[] = [];
  diffSource(stored.source, current.source, blocking);
  if (stored.source !== undefined && stored.input.rowFingerprint !== current.input.rowFingerprint) {
    blocking.push(`rows are tied to their answers another way: ${show(stored.input.rowFingerprint)} → ${show(current.input.rowFingerprint)}`);
  }
  const keys = new Set([...Object.keys(stored.settings), ...Object.keys(current.settings)]);
  for (const key of keys) diffValue(key, stored.settings[key], current.settings[key], blocking);
  const a = stored.input;
  const b = current.input;
  if (a.path !== b.path) notes.push(`input moved: ${a.path} → ${b.path}`);
  const reading: string[] = [];
  if (a.reading !== undefined && b.reading !== undefined) diffValue('reading', a.reading, b.reading, reading);
  if (reading.length > 0) notes.push(`input read differently (${reading.join('; ')}): rows are matched to their answers by their prompt inputs`);
  if (stored.tool.version !== current.tool.version) {
    notes.push(`written by gemini-batch ${stored.tool.version}, this is ${current.tool.version}`);
  }
  return { blocking, notes };
}

/** How messages name each provider. */
const PROVIDER_NAMES: Record<string, string> = { gemini: 'the Gemini API', vertex: 'Vertex AI', openai: 'the OpenAI-compatible API' };

/**
 * Where answers come from, for a message: `the built-in simulator (…)` (`…, speaking as Vertex AI` for another
 * provider than Gemini) or `the Gemini API at <host>`.
 */
export function describeSource(source: AnswerSource): string {
  const provider = PROVIDER_NAMES[source.provider] ?? `the ${source.provider} API`;
  if (source.kind === 'simulator') return `the built-in simulator (--simulate: made-up answers${source.provider === 'gemini' ? '' : `, speaking as ${provider.replace(/^the /, '')}`})`;
  return `${provider} at ${source.endpoint}`;
}

/** The lines saying how the source of the answers differs (nothing when it does not). */
function diffSource(a: AnswerSource | undefined, b: AnswerSource | undefined, out: string[]): void {
  if (b === undefined || deepEqual(a, b)) return;
  if (a === undefined) {
    out.push(`the manifest does not say where its answers came from (written by an earlier gemini-batch); this run would send to ${describeSource(b)}`);
    return;
  }
  if (a.kind !== b.kind || a.provider !== b.provider || a.endpoint !== b.endpoint) {
    const mixed = a.kind !== b.kind ? ': simulated answers are never mixed with real ones' : '';
    out.push(`answers came from ${describeSource(a)}; this run would send to ${describeSource(b)}${mixed}`);
  }
  if (a.model !== b.model) out.push(`model: ${show(a.model)} → ${show(b.model)}`);
  const rest = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !['kind', 'provider', 'endpoint', 'model'].includes(k)));
  for (const key of rest) diffValue(`source.${key}`, (a as unknown as Record<string, unknown>)[key], (b as unknown as Record<string, unknown>)[key], out);
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
  return s === undefined ? `(${typeof v})` : clip(s); // a function or a symbol: JSON has neither
}

function clip(s: string): string {
  return s.length > 2 * SHORT_STRING ? `${s.slice(0, 2 * SHORT_STRING)}…` : s;
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
