/**
 * The 429 RESOURCE_EXHAUSTED body for a quota rejection, in the flavours seen from the real API
 * (docs/reference/gemini-api-facts.md §2.2–2.3; fixtures 429-a…429-h in test/fixtures/gemini/):
 * - `full-new`: message with "* Quota exceeded for metric: …, limit: N, model: M" bullets and
 *   "Please retry in S.SSSSSSSSSs."; details Help → QuotaFailure → RetryInfo (fixtures E/F).
 * - `full-old`: the short old message; details QuotaFailure → Help → RetryInfo (fixture A).
 * - `help-only`: new message without bullets, only a Help detail (fixture G).
 * - `bare`: "Resource has been exhausted (e.g. check quota)." without details (fixture H).
 * - `daily-misleading`: like `full-old`, but a per-day violation carries a short retryDelay of 5–25 s (fixture B).
 * - `vary-order`: old or new message and any order of the three details, drawn per response.
 * A model with `limit: 0` always gets the fixture-F shape. quotaValue is a string, omitted when the limit is 0
 * (proto3 default). retryDelay is `"<floor seconds>s"`; the message carries 9 fractional digits.
 */
import { rpcError, type RpcErrorBody } from './error-bodies.js';
import { isDaily, quotaNames } from './quota-names.js';
import type { Violation } from './quota-ledger.js';
import type { Random } from './random.js';
import type { QuotaFlavour, Tier } from './types.js';

const OLD_MESSAGE =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.';
const NEW_MESSAGE_HEAD = `${OLD_MESSAGE} To monitor your current usage, head to: https://ai.dev/rate-limit. `;
const BARE_MESSAGE = 'Resource has been exhausted (e.g. check quota).';

const HELP = {
  '@type': 'type.googleapis.com/google.rpc.Help',
  links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
};

/** What the 429 is about. */
export interface QuotaErrorInput {
  tier: Tier;
  /** `quotaDimensions.model`. */
  quotaModel: string;
  /** One per exceeded dimension, in DIMENSION_ORDER. */
  violations: Violation[];
  flavour: QuotaFlavour;
  limitZero: boolean;
  /** Draws the stand-in delay of never-clearing violations and the `vary-order` choices. */
  random: Random;
}

/** The body, and the retry delay it announces in seconds (for an optional Retry-After header). */
export interface QuotaErrorOutput {
  body: RpcErrorBody;
  retrySeconds: number;
}

/**
 * Seconds until every exceeded dimension has room: the largest wait. A dimension that never clears
 * (limit 0, or a request larger than the limit) reports a random 5–59 s, as real limit-0 429s do (fixture F: 11 s).
 * A sub-millisecond random fraction is added so the message looks like the real one (never earlier than the truth).
 */
export function retrySecondsFor(violations: Violation[], random: Random): number {
  let ms = 0;
  for (const v of violations) {
    const wait = Number.isFinite(v.waitMs) ? v.waitMs : random.int(5_000, 59_999);
    if (wait > ms) ms = wait;
  }
  return (ms + random.next()) / 1000;
}

/** Builds the 429 body for `input` in its flavour. */
export function quotaErrorBody(input: QuotaErrorInput): QuotaErrorOutput {
  const { violations, random } = input;
  const flavour: QuotaFlavour = input.limitZero ? 'full-new' : input.flavour;
  let seconds = retrySecondsFor(violations, random);
  if (flavour === 'daily-misleading' && violations.some((v) => isDaily(v.dimension))) {
    seconds = random.int(5, 25) + random.next();
  }

  if (flavour === 'bare') return { body: rpcError(429, BARE_MESSAGE, 'RESOURCE_EXHAUSTED'), retrySeconds: seconds };
  if (flavour === 'help-only') return { body: rpcError(429, NEW_MESSAGE_HEAD, 'RESOURCE_EXHAUSTED', [HELP]), retrySeconds: seconds };

  const quotaFailure = {
    '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
    violations: violations.map((v) => {
      const names = quotaNames(input.tier, v.dimension);
      const violation: Record<string, unknown> = {
        quotaMetric: names.quotaMetric,
        quotaId: names.quotaId,
        quotaDimensions: { location: 'global', model: input.quotaModel },
      };
      if (v.limit !== 0) violation.quotaValue = String(v.limit);
      return violation;
    }),
  };
  const retryInfo = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${Math.floor(seconds)}s` };
  const newMessage =
    `${NEW_MESSAGE_HEAD}\n` +
    violations
      .map((v) => `* Quota exceeded for metric: ${quotaNames(input.tier, v.dimension).quotaMetric}, limit: ${v.limit}, model: ${input.quotaModel}\n`)
      .join('') +
    `Please retry in ${seconds.toFixed(9)}s.`;

  if (flavour === 'full-new') {
    return { body: rpcError(429, newMessage, 'RESOURCE_EXHAUSTED', [HELP, quotaFailure, retryInfo]), retrySeconds: seconds };
  }
  if (flavour === 'vary-order') {
    const details: unknown[] = [HELP, quotaFailure, retryInfo];
    for (let i = details.length - 1; i > 0; i--) {
      const j = random.int(0, i);
      [details[i], details[j]] = [details[j], details[i]];
    }
    const message = random.next() < 0.5 ? newMessage : OLD_MESSAGE;
    return { body: rpcError(429, message, 'RESOURCE_EXHAUSTED', details), retrySeconds: seconds };
  }
  // full-old and daily-misleading
  return { body: rpcError(429, OLD_MESSAGE, 'RESOURCE_EXHAUSTED', [quotaFailure, HELP, retryInfo]), retrySeconds: seconds };
}
