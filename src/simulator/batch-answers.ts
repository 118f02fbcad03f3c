/**
 * The result of each line of a batch, decided by the same rules as an online generateContent (answer-builder.ts: enum
 * labels, JSON for a schema, free text; the scenario's `scripts`, whose positions per prompt are shared with online
 * requests), so a row gets the same answer through batch as online. On top of them the scenario's `batch.lineErrors`
 * and `batch.blocked` rules. A failed line is a google.rpc.Status with a gRPC code, not an HTTP one
 * (docs/batch-api.md "Output"): a scripted HTTP error becomes the gRPC code of its status.
 */
import { buildAnswer, responseIdFor } from './answer-builder.js';
import type { BatchLine } from './batch-lines.js';
import type { BatchScenario, LineSelector } from './batch-types.js';
import { contextTooLong, internalError, namedFixture, thinkingBudgetZero } from './error-bodies.js';
import { promptTokens } from './prompt-tokens.js';
import { hashString, mix32 } from './random.js';
import { readRequest, type RequestView } from './request-view.js';
import type { ScriptBook } from './script-book.js';
import type { ModelSpec, ScriptResponse } from './types.js';

/** A line's outcome: a GenerateContentResponse, or a google.rpc.Status. */
export interface LineResult {
  key?: string;
  metadata?: Record<string, unknown>;
  /** Inline output leaves `metadata` out (the scripted `dropInlineMetadata`). */
  dropMetadata?: boolean;
  response?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The usual message of a gRPC code (the Gemini API's wording where it has one: error-bodies.ts). */
export function grpcMessage(code: number): string {
  switch (code) {
    case 1:
      return 'The operation was cancelled.';
    case 3:
      return 'Request contains an invalid argument.';
    case 4:
      return 'Deadline expired before operation could complete.';
    case 8:
      return 'Resource has been exhausted (e.g. check quota).';
    case 13:
      return internalError().error.message;
    case 14:
      return 'The service is currently unavailable.';
    default:
      return `Simulated error (code ${code}).`;
  }
}

const GRPC_BY_HTTP: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 409: 10, 429: 8, 499: 1, 500: 13, 501: 12, 502: 14, 503: 14, 504: 4 };

/** The gRPC code of an HTTP status (google.rpc.Code mapping); 2 UNKNOWN for others. */
export function grpcCodeOf(httpStatus: number): number {
  return GRPC_BY_HTTP[httpStatus] ?? 2;
}

/** A line's request read: its view and input tokens, or the 400 message that makes it a code-3 line. */
export type ReadLine = { view: RequestView; tokens: number } | { message: string };

/** Reads a line's request (once per line: create counts its tokens, then answers it). */
export function readLine(line: BatchLine): ReadLine {
  const read = readRequest(line.request);
  if (!read.ok) return { message: read.message };
  return { view: read.view, tokens: promptTokens(read.view).total };
}

/** Decides line results; remembers how many batches carried each line (its attempts). */
export class BatchAnswerer {
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly seed: number,
    private readonly rules: Pick<BatchScenario, 'lineErrors' | 'blocked'>,
    private readonly scripts: ScriptBook,
  ) {}

  /** The result of `line` (read as `read`) in a batch for `spec`; `seq` numbers the answer (its responseId). */
  answer(line: BatchLine, read: ReadLine, spec: ModelSpec, seq: number): LineResult {
    const result: LineResult = {};
    if (line.key !== undefined) result.key = line.key;
    if (line.metadata !== undefined) result.metadata = line.metadata;
    const fail = (code: number, message?: string): LineResult => ({ ...result, error: { code, message: message ?? grpcMessage(code) } });

    if ('message' in read) return fail(3, read.message);
    const { view, tokens } = read;
    if (spec.thinking === 'always' && view.thinkingBudget === 0) return fail(3, thinkingBudgetZero().error.message);
    if (tokens > spec.contextWindow) return fail(3, contextTooLong(spec.contextWindow).error.message);

    const identity = line.key !== undefined ? `key:${line.key}` : `text:${view.userText}`;
    const attempt = (this.attempts.get(identity) ?? 0) + 1;
    this.attempts.set(identity, attempt);
    const selected = (rule: LineSelector, i: number, salt: number): boolean =>
      (rule.times === undefined || attempt <= rule.times) &&
      (rule.keys === undefined || (line.key !== undefined && rule.keys.includes(line.key))) &&
      (rule.fraction === undefined || mix32(this.seed, hashString(identity), attempt, salt + i) / 2 ** 32 < rule.fraction);

    const errorRule = this.rules.lineErrors.find((r, i) => selected(r, i, 0xe770));
    if (errorRule) return fail(errorRule.code, errorRule.message);

    const ctx = { spec, view, promptTokenCount: tokens, hash: hashString(view.userText), responseId: responseIdFor(this.seed ^ 0xba7c, seq) };
    const blockRule = this.rules.blocked.find((r, i) => selected(r, i, 0xb10c));
    if (blockRule) return { ...result, response: buildAnswer(ctx, { kind: 'blocked', blockReason: blockRule.blockReason }).body };

    const scriptIndex = this.scripts.find(view.userText);
    const scripted: ScriptResponse | undefined = scriptIndex >= 0 ? this.scripts.next(scriptIndex, view.userText) : undefined;
    switch (scripted?.kind) {
      case undefined:
      case 'delay-ms':
        return { ...result, response: buildAnswer(ctx).body };
      case 'error': {
        const fixture = scripted.fixture !== undefined ? namedFixture(scripted.fixture) : undefined;
        const body = (scripted.body ?? fixture?.body) as { error?: { message?: unknown } } | undefined;
        const message = typeof body?.error?.message === 'string' ? body.error.message : undefined;
        return fail(grpcCodeOf(scripted.status), message);
      }
      case 'reset':
        return fail(14);
      case 'hang':
        return fail(4);
      case 'pack':
        return { ...result, response: buildAnswer(ctx, { kind: 'pack', fault: scripted.fault, marker: this.scripts.match(scriptIndex) }).body };
      default:
        return { ...result, response: buildAnswer(ctx, scripted).body };
    }
  }
}
