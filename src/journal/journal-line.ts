/**
 * The journal's line format: one JSON object per line, UTF-8, ending with `\n`, its keys always in this order:
 *
 * ```
 * {"row":12,"status":"ok","attempts":1,"tokens":{"input":120,"output":1,"thoughts":0},"fp":"…","label":"yes",
 *  "raw":"yes","finishReason":"STOP","error":null,"key":"key-1 …x7Qa","time":"2025-01-01T00:00:00.000Z"}
 * ```
 * (`fields` follows `label` when present; `pack` follows `key` when present, `,"pack":{"id":"…","item":"bc","rows":20}`;
 * `tier` comes last before `time` when present, `,"tier":"flex"`; optional fields added later go before `time`.)
 *
 * The fixed head (`row`, `status`, `attempts`, `tokens`) and tail (`time`) let {@link parseLineHead} and
 * {@link checkLineTail} index a line from its bytes without `JSON.parse`; {@link parseEntry} reads a whole line.
 */
import type { BillingTier } from '../providers/contract.js';
import type { JournalEntry } from './journal-entry.js';
import { ROW_STATUSES, isRowStatus } from '../row-status.js';

/** The statuses a journal entry can have, in code order: code 1 is `ok`, 2 `failed`… (0 means "no entry"). */
export const ENTRY_STATUSES = ROW_STATUSES.filter((s) => s !== 'pending');
/** A row status a journal entry can have: any but `pending`. */
export type EntryStatus = JournalEntry['status'];

/** 1-based code of an entry status (see {@link ENTRY_STATUSES}); 0 when `status` is not one. */
export function statusCode(status: string): number {
  return (ENTRY_STATUSES as string[]).indexOf(status) + 1;
}

/**
 * Highest row id a journal accepts: 2^31 − 1. The index's memory grows with the highest row id (13 bytes a row), so
 * row ids are expected to be dense, as `InputRecord.index` is.
 */
export const MAX_ROW = 2 ** 31 - 1;

/** ISO 8601 UTC timestamp as `Date.prototype.toISOString` writes it (milliseconds optional). */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const KNOWN_KEYS = new Set(['row', 'status', 'attempts', 'tokens', 'fp', 'label', 'fields', 'raw', 'finishReason', 'error', 'key', 'pack', 'tier', 'time']);

/** The billing tiers an entry can name, in code order: code 0 is `standard` (also an entry without `tier`), 1 `flex`… */
export const ENTRY_TIERS: readonly BillingTier[] = ['standard', 'flex', 'priority', 'batch'];

/**
 * Why an entry cannot be journaled, or null when it can. Checks every field of {@link JournalEntry}: `row` a
 * integer from 0 to {@link MAX_ROW}, `status` one of {@link ENTRY_STATUSES}, token counts and `attempts` non-negative
 * integers, `time` ISO 8601 UTC (`2025-01-01T00:00:00.000Z`), strings or null where the contract says so.
 */
export function entryProblem(e: unknown): string | null {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return 'not an object';
  const x = e as Record<string, unknown>;
  if (!isCount(x.row) || x.row > MAX_ROW) return `row must be an integer from 0 to ${MAX_ROW}, got ${show(x.row)}`;
  if (!isRowStatus(x.status) || x.status === 'pending') return `status must be one of ${ENTRY_STATUSES.join(', ')}, got ${show(x.status)}`;
  if (!isCount(x.attempts)) return `attempts must be a non-negative integer, got ${show(x.attempts)}`;
  const t = x.tokens as Record<string, unknown> | null | undefined;
  if (typeof t !== 'object' || t === null) return 'tokens must be an object';
  for (const k of ['input', 'output', 'thoughts'] as const) {
    if (!isCount(t[k])) return `tokens.${k} must be a non-negative integer, got ${show(t[k])}`;
  }
  if (typeof x.fp !== 'string') return 'fp must be a string';
  for (const k of ['label', 'raw', 'finishReason', 'error', 'key'] as const) {
    if (x[k] !== null && typeof x[k] !== 'string') return `${k} must be a string or null`;
  }
  if (x.fields !== undefined) {
    if (typeof x.fields !== 'object' || x.fields === null || Array.isArray(x.fields)) return 'fields must be an object';
    for (const [k, v] of Object.entries(x.fields)) if (typeof v !== 'string') return `fields.${k} must be a string`;
  }
  if (x.pack !== undefined) {
    const p = x.pack as Record<string, unknown> | null;
    if (typeof p !== 'object' || p === null || typeof p.id !== 'string' || typeof p.item !== 'string' || !isCount(p.rows)) {
      return `pack must be {"id": string, "item": string, "rows": count}, got ${show(x.pack)}`;
    }
  }
  if (x.tier !== undefined && !(ENTRY_TIERS as readonly unknown[]).includes(x.tier)) return `tier must be one of ${ENTRY_TIERS.join(', ')}, got ${show(x.tier)}`;
  if (typeof x.time !== 'string' || !ISO_UTC.test(x.time)) return `time must be ISO 8601 UTC, got ${show(x.time)}`;
  return null;
}

/**
 * One journal line for `entry`, ending with `\n`, keys in the fixed order above. Does not validate: call
 * {@link entryProblem} first. Optional fields beyond the contract are kept (before `time`).
 */
export function serializeEntry(entry: JournalEntry): string {
  const { tokens } = entry;
  let line =
    `{"row":${entry.row},"status":"${entry.status}","attempts":${entry.attempts},` +
    `"tokens":{"input":${tokens.input},"output":${tokens.output},"thoughts":${tokens.thoughts}},` +
    `"fp":${JSON.stringify(entry.fp)},"label":${JSON.stringify(entry.label)}`;
  if (entry.fields !== undefined) line += `,"fields":${JSON.stringify(entry.fields)}`;
  line +=
    `,"raw":${JSON.stringify(entry.raw)},"finishReason":${JSON.stringify(entry.finishReason)}` +
    `,"error":${JSON.stringify(entry.error)},"key":${JSON.stringify(entry.key)}`;
  if (entry.pack !== undefined) line += `,"pack":{"id":${JSON.stringify(entry.pack.id)},"item":${JSON.stringify(entry.pack.item)},"rows":${entry.pack.rows}}`;
  for (const [k, v] of Object.entries(entry)) {
    if (!KNOWN_KEYS.has(k) && v !== undefined) line += `,${JSON.stringify(k)}:${JSON.stringify(v)}`;
  }
  if (entry.tier !== undefined && entry.tier !== 'standard') line += `,"tier":"${entry.tier}"`;
  return `${line},"time":"${entry.time}"}\n`;
}

/** What {@link parseLineHead} reads from a line's first bytes. Reused between calls (no allocation per line). */
export interface LineHead {
  row: number;
  /** {@link statusCode} of the status. */
  code: number;
  attempts: number;
  input: number;
  output: number;
  thoughts: number;
  /** {@link lineTier} of the line: set by whoever checked its tail (0 until then). */
  tier: number;
  /** When parsing failed: what was expected. */
  problem: string;
  /** Where the value of `fp` starts (just after its opening quote) when parsing succeeded. */
  end: number;
}

const HEAD_PARTS = ['{"row":', ',"status":"', '","attempts":', ',"tokens":{"input":', ',"output":', ',"thoughts":', '},"fp":"'].map(
  (s) => Buffer.from(s, 'latin1'),
);
const STATUS_BYTES = ENTRY_STATUSES.map((s) => Buffer.from(s, 'latin1'));
const TAIL = Buffer.from(',"time":"', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Creates a reusable {@link LineHead}. */
export function newLineHead(): LineHead {
  return { row: 0, code: 0, attempts: 0, input: 0, output: 0, thoughts: 0, tier: 0, problem: '', end: 0 };
}

/**
 * Reads `row`, `status`, `attempts` and `tokens` from the line `buf[start, end)` (no newline) into `head`, without
 * JSON.parse. Returns false (and sets `head.problem`) when the line does not start the way {@link serializeEntry}
 * writes it.
 */
export function parseLineHead(buf: Buffer, start: number, end: number, head: LineHead): boolean {
  let p = start;
  const expect = (part: number): boolean => {
    const bytes = HEAD_PARTS[part]!;
    if (end - p < bytes.length) return false;
    for (let i = 0; i < bytes.length; i++) if (buf[p + i] !== bytes[i]) return false;
    p += bytes.length;
    return true;
  };
  // A JSON integer without leading zeros, at most 15 digits (a safe integer). -1 when absent.
  const integer = (): number => {
    let n = 0;
    const first = p;
    while (p < end && p - first < 16) {
      const c = buf[p]!;
      if (c < 0x30 || c > 0x39) break;
      n = n * 10 + (c - 0x30);
      p++;
    }
    const digits = p - first;
    if (digits === 0 || digits > 15 || (digits > 1 && buf[first] === 0x30)) return -1;
    return n;
  };
  const fail = (problem: string): boolean => {
    head.problem = problem;
    return false;
  };
  if (!expect(0) || (head.row = integer()) < 0) return fail('it does not start with {"row":<number>');
  if (head.row > MAX_ROW) return fail(`row ${head.row} is above ${MAX_ROW}`);
  if (!expect(1)) return fail('"status" does not follow "row"');
  const statusStart = p;
  while (p < end && buf[p] !== QUOTE && p - statusStart < 20) p++;
  head.code = 0;
  for (let s = 0; s < STATUS_BYTES.length; s++) {
    const bytes = STATUS_BYTES[s]!;
    if (bytes.length === p - statusStart && buf.compare(bytes, 0, bytes.length, statusStart, p) === 0) head.code = s + 1;
  }
  if (head.code === 0) return fail(`unknown status "${buf.toString('utf8', statusStart, p)}"`);
  if (!expect(2) || (head.attempts = integer()) < 0) return fail('"attempts":<number> does not follow "status"');
  if (!expect(3) || (head.input = integer()) < 0) return fail('"tokens":{"input":<number> does not follow "attempts"');
  if (!expect(4) || (head.output = integer()) < 0) return fail('"tokens" has no "output":<number>');
  if (!expect(5) || (head.thoughts = integer()) < 0) return fail('"tokens" has no "thoughts":<number>');
  if (!expect(6)) return fail('"fp":"…" does not follow "tokens"');
  head.end = p;
  return true;
}

/**
 * True when the line `buf[start, end)` ends the way {@link serializeEntry} ends it: `,"time":"<no quote or
 * backslash>"}`. With {@link parseLineHead}, this catches lines cut or spliced at either end without JSON.parse.
 */
export function checkLineTail(buf: Buffer, start: number, end: number): boolean {
  if (end - start < TAIL.length + 2 || buf[end - 1] !== 0x7d || buf[end - 2] !== QUOTE) return false;
  const at = buf.lastIndexOf(TAIL, end - 2);
  if (at < start) return false;
  for (let i = at + TAIL.length; i < end - 2; i++) if (buf[i] === QUOTE || buf[i] === BACKSLASH) return false;
  return true;
}

const TIER_FIELDS = ENTRY_TIERS.map((t) => Buffer.from(`,"tier":"${t}"`, 'latin1'));

/**
 * The code of the line's `tier` (index in {@link ENTRY_TIERS}; 0 when it has none), read from the bytes just before
 * `,"time":` where {@link serializeEntry} writes it, without JSON.parse. Call on a line {@link checkLineTail} accepted.
 */
export function lineTier(buf: Buffer, start: number, end: number): number {
  const at = buf.lastIndexOf(TAIL, end - 2);
  if (at < start || buf[at - 1] !== QUOTE) return 0;
  for (let code = 1; code < TIER_FIELDS.length; code++) {
    const field = TIER_FIELDS[code]!;
    if (at - field.length >= start && buf.compare(field, 0, field.length, at - field.length, at) === 0) return code;
  }
  return 0;
}

/**
 * Parses a whole line (without its newline) into an entry.
 * @returns the entry, or a string saying why the line is not one.
 */
export function parseEntry(text: string): JournalEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  return entryProblem(value) ?? (value as JournalEntry);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
