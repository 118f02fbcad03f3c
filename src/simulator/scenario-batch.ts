/**
 * Validation of a scenario's `batch` block: the Batch API's accelerated clock, limits and scripted cases
 * (README "Batch API"; the model in batch-types.ts).
 */
import type { PathSegment } from './json-locate.js';
import type { ScenarioChecker } from './scenario-checker.js';
import { BLOCK_REASONS } from './scenario-scripts.js';
import { defaultBatchScenario, type BatchEnd, type BatchScenario, type JobRule, type LineSelector } from './batch-types.js';

const FIELDS = [
  'pendingMs', 'runningMs', 'expireMs', 'fileTtlMs', 'resultsForm', 'nameSeed', 'shuffle', 'concurrentBatches', 'enqueuedTokens',
  'rejectCreates', 'outputDelayMs', 'dropInlineMetadata', 'createReplyDelayMs', 'uploadStartReplyDelayMs', 'uploadReplyDelayMs', 'downloadStallMs', 'lineErrors', 'blocked', 'jobs',
];
const ENDS: readonly BatchEnd[] = ['SUCCEEDED', 'FAILED', 'EXPIRED', 'PENDING'];

function selector(c: ScenarioChecker, o: Record<string, unknown>, path: PathSegment[]): LineSelector {
  const s: LineSelector = {};
  if (o.keys !== undefined) s.keys = c.array(o.keys, [...path, 'keys']).map((k, i) => c.string(k, [...path, 'keys', i], false));
  if (o.fraction !== undefined) s.fraction = c.number(o.fraction, [...path, 'fraction'], 0, 1);
  if (o.times !== undefined) s.times = c.int(o.times, [...path, 'times'], 1);
  return s;
}

function job(c: ScenarioChecker, raw: unknown, path: PathSegment[]): JobRule {
  const o = c.object(raw, path, ['end', 'nth', 'containsKey', 'displayNameIncludes', 'times']);
  const rule: JobRule = { end: c.oneOf(o.end, [...path, 'end'], ENDS) };
  if (o.nth !== undefined) rule.nth = c.array(o.nth, [...path, 'nth']).map((n, i) => c.int(n, [...path, 'nth', i], 1));
  if (o.containsKey !== undefined) rule.containsKey = c.string(o.containsKey, [...path, 'containsKey'], false);
  if (o.displayNameIncludes !== undefined) rule.displayNameIncludes = c.string(o.displayNameIncludes, [...path, 'displayNameIncludes']);
  if (o.times !== undefined) rule.times = c.int(o.times, [...path, 'times'], 1);
  return rule;
}

/** Validates `batch`; absent: every default (batch-types.ts {@link defaultBatchScenario}). */
export function parseBatch(c: ScenarioChecker, raw: unknown): BatchScenario {
  const b = defaultBatchScenario();
  if (raw === undefined) return b;
  const o = c.object(raw, ['batch'], FIELDS);
  const ms = (name: 'pendingMs' | 'runningMs' | 'expireMs' | 'fileTtlMs' | 'outputDelayMs' | 'createReplyDelayMs' | 'uploadStartReplyDelayMs' | 'uploadReplyDelayMs' | 'downloadStallMs', min = 0): void => {
    if (o[name] !== undefined) b[name] = c.int(o[name], ['batch', name], min);
  };
  ms('pendingMs');
  ms('runningMs', 1);
  ms('expireMs', 1);
  ms('fileTtlMs', 1);
  ms('outputDelayMs');
  ms('createReplyDelayMs');
  ms('uploadStartReplyDelayMs');
  ms('uploadReplyDelayMs');
  ms('downloadStallMs');
  if (o.resultsForm !== undefined) b.resultsForm = c.oneOf(o.resultsForm, ['batch', 'resultsForm'], ['auto', 'file', 'inline'] as const);
  if (o.dropInlineMetadata !== undefined) b.dropInlineMetadata = c.number(o.dropInlineMetadata, ['batch', 'dropInlineMetadata'], 0, 1);
  if (o.nameSeed !== undefined) b.nameSeed = c.int(o.nameSeed, ['batch', 'nameSeed'], 0, 0xffffffff);
  if (o.shuffle !== undefined) b.shuffle = c.boolean(o.shuffle, ['batch', 'shuffle']);
  if (o.concurrentBatches !== undefined) b.concurrentBatches = c.int(o.concurrentBatches, ['batch', 'concurrentBatches'], 1);
  if (o.enqueuedTokens !== undefined) b.enqueuedTokens = c.int(o.enqueuedTokens, ['batch', 'enqueuedTokens'], 1);
  if (o.rejectCreates !== undefined) b.rejectCreates = c.int(o.rejectCreates, ['batch', 'rejectCreates']);
  if (o.lineErrors !== undefined) {
    b.lineErrors = c.array(o.lineErrors, ['batch', 'lineErrors']).map((r, i) => {
      const path = ['batch', 'lineErrors', i];
      const e = c.object(r, path, ['code', 'message', 'keys', 'fraction', 'times']);
      const rule = { ...selector(c, e, path), code: c.int(e.code, [...path, 'code'], 1, 16) };
      return e.message === undefined ? rule : { ...rule, message: c.string(e.message, [...path, 'message']) };
    });
  }
  if (o.blocked !== undefined) {
    b.blocked = c.array(o.blocked, ['batch', 'blocked']).map((r, i) => {
      const path = ['batch', 'blocked', i];
      const e = c.object(r, path, ['blockReason', 'keys', 'fraction', 'times']);
      return { ...selector(c, e, path), blockReason: e.blockReason === undefined ? 'PROHIBITED_CONTENT' : c.oneOf(e.blockReason, [...path, 'blockReason'], BLOCK_REASONS) };
    });
  }
  if (o.jobs !== undefined) b.jobs = c.array(o.jobs, ['batch', 'jobs']).map((r, i) => job(c, r, ['batch', 'jobs', i]));
  return b;
}
