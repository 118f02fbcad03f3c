/**
 * Which --rows-per-request K `plan` suggests when a job sent one row a request is bound by requests (RPD or RPM), not
 * tokens. The candidates are small on purpose: packing can cost accuracy (one row sways another's answer, a row's place
 * in the pack changes it), more as K grows, so the README advises 10–20 for judgement-heavy tasks (README "Several rows
 * per request", docs/rows-per-request.md "Accuracy: what is known").
 */

/** The Ks plan packs the rows with at K = 1, to suggest the smallest one that is enough. */
export const SUGGESTED_KS: readonly number[] = [2, 5, 10, 20];

/** A job's requests, tokens, time and cost at one K (`plan`'s estimate). */
export interface RequestFigures {
  rowsPerRequest: number;
  requests: number;
  /** Input tokens of every request (estimate). */
  inputTokens: number;
  /** Output tokens of every answer, thinking apart (estimate). */
  outputTokens: number;
  /** Minutes the requests need at the usable RPM of every project, and the input tokens at the usable TPM. */
  minutesUnderRpm: number;
  minutesUnderTpm: number;
  /** Quota days the requests need at the RPD of every project; undefined without an RPD. */
  daysUnderRpd: number | undefined;
  /** Cost at list price at the tier the job asks for, USD; undefined without a price. */
  costUsd: number | undefined;
}

/** A suggested K: what binds at K = 1 and the figures at K. */
export interface Suggestion {
  /** What binds one row a request: RPD (more than a quota day of requests) or RPM (requests, not tokens, pace the job). */
  because: 'RPD' | 'RPM';
  figures: RequestFigures;
  /** K is the largest candidate and still does not relieve the limit (a larger K would cut more, at more risk). */
  notEnough: boolean;
}

/** Jobs whose time under RPM is shorter than this gain too little from packing to suggest it (minutes). */
export const MINUTES_WORTH_PACKING = 1;

/**
 * The K to suggest, or undefined when neither RPD nor RPM binds at K = 1 (or no candidate saves requests).
 * RPD binds when the requests need more than one quota day: the smallest candidate that fits them in one, else the
 * largest. RPM binds when requests pace the job more than input tokens do (and it takes a minute or more): the smallest
 * candidate at which TPM paces it instead, else the largest.
 * @param alone the figures at K = 1; @param candidates the figures at each of {@link SUGGESTED_KS}, in order.
 */
export function suggestRowsPerRequest(alone: RequestFigures, candidates: readonly RequestFigures[]): Suggestion | undefined {
  if (alone.rowsPerRequest !== 1 || candidates.length === 0) return undefined;
  const largest = candidates[candidates.length - 1] as RequestFigures;
  const pick = (because: Suggestion['because'], enough: (f: RequestFigures) => boolean): Suggestion | undefined => {
    const found = candidates.find(enough);
    const figures = found ?? largest;
    // Packing that saves under a tenth of the requests (rows too long to pack) is no advice.
    if (figures.requests > alone.requests * 0.9) return undefined;
    return { because, figures, notEnough: found === undefined };
  };
  if (alone.daysUnderRpd !== undefined && alone.daysUnderRpd > 1) return pick('RPD', (f) => f.daysUnderRpd !== undefined && f.daysUnderRpd <= 1);
  if (alone.minutesUnderRpm > alone.minutesUnderTpm && alone.minutesUnderRpm >= MINUTES_WORTH_PACKING) return pick('RPM', (f) => f.minutesUnderRpm <= f.minutesUnderTpm);
  return undefined;
}
