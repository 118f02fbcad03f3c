/**
 * Which request shape (chat-request.ts) the server at hand accepts, learned from its refusals: OpenAI-compatible
 * servers differ (docs/reference/batch-openai-vertex-facts.md §b.3: vLLM, Ollama, llama.cpp, gateways; OpenAI's own non-reasoning
 * models refuse `reasoning_effort`). When a 400 names a field this tool sends — OpenAI's `param`, or the field named in
 * the message (Google's `Unknown name "response_format"`, a validation error quoting it) — that field steps down one
 * rung for every later request, and the caller is told once per step, with what the server said.
 */
import { CAP_STEPS, FORMAT_STEPS, FULL_SHAPE, LEAST_EFFORT_STEPS, type RequestShape } from './chat-request.js';

/** The fields that can step down, and the names a refusal may use for each. */
const FIELDS: ReadonlyArray<{ key: keyof RequestShape; steps: readonly string[]; names: readonly string[] }> = [
  { key: 'format', steps: FORMAT_STEPS, names: ['response_format', 'json_schema'] },
  { key: 'leastEffort', steps: LEAST_EFFORT_STEPS, names: ['reasoning_effort'] },
  { key: 'cap', steps: CAP_STEPS, names: ['max_completion_tokens', 'max_tokens'] },
];

/** What a 400 said: OpenAI's `param` when the body had one, and the message. */
export interface Refusal {
  param: string | undefined;
  message: string;
}

/** The field of {@link RequestShape} a refusal names, or undefined. */
export function refusedField(refusal: Refusal, shape: RequestShape): keyof RequestShape | undefined {
  const param = refusal.param ?? '';
  for (const f of FIELDS) if (f.names.some((n) => param === n || param.startsWith(`${n}.`))) return f.key;
  if (refusal.param !== undefined && refusal.param !== null && param !== '') return undefined;
  for (const f of FIELDS) {
    // The cap's field is named by its current name only: "max_tokens is too large" is about a value, not the field.
    const names = f.key === 'cap' ? [shape.cap] : f.names;
    if (names.some((n) => new RegExp(`(^|[^a-z_])${n}([^a-z_]|$)`).test(refusal.message))) return f.key;
  }
  return undefined;
}

/** Describes a shape's field for a notice. */
function describe(key: keyof RequestShape, value: string): string {
  if (key === 'format') return value === 'none' ? 'no response_format (the answer\'s shape asked in the system message)' : `response_format ${value}${value === 'json_object' ? ' (the answer\'s shape asked in the system message)' : ''}`;
  if (key === 'leastEffort') return value === 'omit' ? 'no reasoning_effort' : `reasoning_effort ${value}`;
  return value === 'omit' ? 'no output cap' : `the output cap as ${value}`;
}

/** The shape requests go out in, for one provider (all its callers). */
export class ParamLadder {
  private shape: RequestShape = { ...FULL_SHAPE };

  /** @param notice told once per step: which field the server refused and what is sent instead. */
  constructor(private readonly notice: (message: string) => void) {}

  /** The shape to send now. */
  current(): RequestShape {
    return { ...this.shape };
  }

  /**
   * Steps down the field `refusal` names, if `sent` (the shape the refused request used) still holds its rung — a
   * refusal of a shape already left behind (requests in flight meanwhile) changes nothing but is retried.
   * @returns true when the request should be sent again in the current shape.
   */
  stepDown(refusal: Refusal, sent: RequestShape): boolean {
    const key = refusedField(refusal, sent);
    if (key === undefined) return false;
    const field = FIELDS.find((f) => f.key === key)!;
    const at = field.steps.indexOf(sent[key]);
    if (at < 0 || at === field.steps.length - 1) return false;
    if (this.shape[key] !== sent[key]) return true;
    const next = field.steps[at + 1]!;
    (this.shape as Record<keyof RequestShape, string>)[key] = next;
    this.notice(`the server refused ${describe(key, sent[key])} (${refusal.message.slice(0, 200)}); sending ${describe(key, next)} from now on.`);
    return true;
  }
}
