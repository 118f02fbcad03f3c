/**
 * Validation of a scenario's `scripts`: scripted answers for prompts carrying a marker (README "scripts").
 */
import { NAMED_ERROR_BODIES, namedFixture } from './error-bodies.js';
import { NAMED_OPENAI_BODIES } from './openai-bodies.js';
import type { PathSegment } from './json-locate.js';
import { PACK_FAULTS } from './pack-answer.js';
import type { ScenarioChecker } from './scenario-checker.js';
import type { ScriptResponse, ScriptRule } from './types.js';

const KINDS = ['enum', 'text', 'json', 'blocked', 'finish', 'max-tokens', 'error', 'reset', 'hang', 'delay-ms', 'pack'] as const;

/** finishReason values of the SDK enum (docs/reference/gemini-api-facts.md §4.5). */
export const FINISH_REASONS = [
  'STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'LANGUAGE', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII',
  'MALFORMED_FUNCTION_CALL', 'IMAGE_SAFETY', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS', 'FINISH_REASON_UNSPECIFIED',
] as const;

/** promptFeedback.blockReason values (docs/reference/gemini-api-facts.md §4.5). */
export const BLOCK_REASONS = ['SAFETY', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'IMAGE_SAFETY', 'BLOCKED_REASON_UNSPECIFIED'] as const;

/** Error fixtures a script may name; `html-502` is served as text/html. */
export const SCRIPT_FIXTURES = [...Object.keys(NAMED_ERROR_BODIES), ...Object.keys(NAMED_OPENAI_BODIES), 'html-502'];

function response(c: ScenarioChecker, raw: unknown, path: PathSegment[]): ScriptResponse {
  const kind = c.oneOf(c.object(raw, path, ['kind', 'text', 'value', 'blockReason', 'finishReason', 'thoughtsTokenCount', 'status', 'fixture', 'body', 'delayMs', 'ms', 'fault']).kind, [...path, 'kind'], KINDS);
  const allowedByKind: Record<(typeof KINDS)[number], string[]> = {
    enum: ['delayMs'],
    text: ['text', 'finishReason', 'delayMs'],
    json: ['value', 'delayMs'],
    blocked: ['blockReason', 'delayMs'],
    finish: ['finishReason', 'text', 'delayMs'],
    'max-tokens': ['thoughtsTokenCount', 'delayMs'],
    error: ['status', 'fixture', 'body', 'delayMs'],
    reset: ['delayMs'],
    hang: [],
    'delay-ms': ['ms'],
    pack: ['fault', 'delayMs'],
  };
  const o = c.object(raw, path, ['kind', ...allowedByKind[kind]]);
  const delay = o.delayMs === undefined ? {} : { delayMs: c.int(o.delayMs, [...path, 'delayMs']) };
  switch (kind) {
    case 'enum':
      return { kind, ...delay };
    case 'text': {
      const r: ScriptResponse = { kind, text: c.string(o.text, [...path, 'text'], false), ...delay };
      if (o.finishReason !== undefined) r.finishReason = c.oneOf(o.finishReason, [...path, 'finishReason'], FINISH_REASONS);
      return r;
    }
    case 'json':
      if (o.value === undefined) c.fail([...path, 'value'], 'expected the JSON value to answer (an object, or a string of JSON text).');
      return { kind, value: o.value, ...delay };
    case 'blocked':
      return { kind, blockReason: o.blockReason === undefined ? 'PROHIBITED_CONTENT' : c.oneOf(o.blockReason, [...path, 'blockReason'], BLOCK_REASONS), ...delay };
    case 'finish': {
      const r: ScriptResponse = { kind, finishReason: c.oneOf(o.finishReason, [...path, 'finishReason'], FINISH_REASONS), ...delay };
      if (o.text !== undefined) r.text = c.string(o.text, [...path, 'text'], false);
      return r;
    }
    case 'max-tokens': {
      const r: ScriptResponse = { kind, ...delay };
      if (o.thoughtsTokenCount !== undefined) r.thoughtsTokenCount = c.int(o.thoughtsTokenCount, [...path, 'thoughtsTokenCount'], 1);
      return r;
    }
    case 'error': {
      const fixture = o.fixture === undefined ? undefined : c.oneOf(o.fixture, [...path, 'fixture'], SCRIPT_FIXTURES);
      const fixtureStatus = fixture === 'html-502' ? 502 : fixture ? namedFixture(fixture)!.status : undefined;
      if (o.status === undefined && fixtureStatus === undefined) c.fail([...path, 'status'], 'expected an HTTP status from 400 to 599 (or a "fixture").');
      const status = o.status === undefined ? fixtureStatus! : c.int(o.status, [...path, 'status'], 400, 599);
      const r: ScriptResponse = { kind, status, ...delay };
      if (fixture !== undefined) r.fixture = fixture;
      if (o.body !== undefined) r.body = c.map(o.body, [...path, 'body']);
      return r;
    }
    case 'reset':
      return { kind, ...delay };
    case 'hang':
      return { kind };
    case 'delay-ms':
      return { kind, ms: c.int(o.ms, [...path, 'ms']) };
    case 'pack':
      return { kind, fault: c.oneOf(o.fault, [...path, 'fault'], PACK_FAULTS), ...delay };
  }
}

/** Validates `scripts` (an array of `{match, responses}`). */
export function parseScripts(c: ScenarioChecker, raw: unknown, path: PathSegment[]): ScriptRule[] {
  return c.array(raw, path).map((item, i) => {
    const p = [...path, i];
    const o = c.object(item, p, ['match', 'responses']);
    const responses = c.array(o.responses, [...p, 'responses']);
    if (responses.length === 0) c.fail([...p, 'responses'], 'expected at least one response.');
    return {
      match: c.string(o.match, [...p, 'match']),
      responses: responses.map((r, k) => response(c, r, [...p, 'responses', k])),
    };
  });
}
