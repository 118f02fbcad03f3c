/**
 * The online service tiers as the simulator serves them (README "Service tiers"; facts in docs/service-tiers.md):
 * which tier a generateContent request asked for (`serviceTier` at the root of its body), whether a Flex request is
 * shed (HTTP 503, the tier's normal behaviour when capacity is short), how long a Flex answer takes (minutes in
 * reality, scaled by the scenario's `timeScale`), and whether a Priority request over the scenario's Priority limit is
 * downgraded to standard. The engine (sim-engine.ts) asks; the dialect says which tier served (the Developer API's
 * `x-gemini-service-tier` header, Vertex's `usageMetadata.trafficType`).
 */
import { RollingLimiter } from './minute-limiters.js';
import { delayMs, type Random } from './random.js';
import type { RequestView } from './request-view.js';
import type { DelaySpec, FlexTier, PriorityTier, Scenario, ServedTier } from './types.js';

/**
 * A Flex answer's generation time when the scenario gives none, ms: the 1–15 minute target of the Flex tier
 * (https://ai.google.dev/gemini-api/docs/optimization; docs/service-tiers.md), median 3 min, p99 15 min, at least 1 min.
 */
export const FLEX_LATENCY: DelaySpec = { medianMs: 180_000, p99Ms: 900_000, minMs: 60_000, maxMs: 900_000 };

/**
 * The tier a request names, or undefined when it names none (or `unspecified`, the SDK's default, or a value that is
 * not a tier: the real API would refuse it; the simulator serves it at standard).
 */
export function askedTier(view: Pick<RequestView, 'serviceTier'>): ServedTier | undefined {
  const tier = view.serviceTier?.toLowerCase();
  return tier === 'flex' || tier === 'standard' || tier === 'priority' ? tier : undefined;
}

/** Decides the tier-specific fate of requests for one scenario. Holds the Priority windows per (project, model). */
export class TierDesk {
  readonly #flex: FlexTier | undefined;
  readonly #priority: PriorityTier | undefined;
  readonly #priorityWindows = new Map<string, RollingLimiter>();

  constructor(scenario: Pick<Scenario, 'flex' | 'priority'>) {
    this.#flex = scenario.flex;
    this.#priority = scenario.priority;
  }

  /** Whether a request that asked for `asked` is shed: a Flex request, with the scenario's shed rate. One draw of `random` for Flex requests. */
  shed(asked: ServedTier | undefined, random: Random): boolean {
    if (asked !== 'flex' || !this.#flex || this.#flex.shedRate <= 0) return false;
    return random.next() < this.#flex.shedRate;
  }

  /**
   * The generation time of an answer, ms: a Flex request's from the scenario's Flex latency times its time scale;
   * any other request's `standardMs` (drawn from the scenario's `latency`).
   */
  latency(asked: ServedTier | undefined, random: Random, standardMs: number): number {
    if (asked !== 'flex' || !this.#flex) return standardMs;
    return delayMs(random, this.#flex.latency) * this.#flex.timeScale;
  }

  /**
   * The tier that serves an answer to a request that asked for `asked`: the one asked, except that a Priority request
   * over the scenario's Priority limit for (project, model) in the last 60 s is served at standard. Counts the request
   * when it is served at priority. A request that names no tier is served at standard.
   * @param now the simulator clock, epoch ms.
   */
  serve(asked: ServedTier | undefined, project: string, model: string, now: number): ServedTier {
    if (asked !== 'priority' || !this.#priority) return asked ?? 'standard';
    const key = `${project}\u0000${model}`;
    let window = this.#priorityWindows.get(key);
    if (!window) {
      window = new RollingLimiter(this.#priority.rpm, undefined);
      this.#priorityWindows.set(key, window);
    }
    if (window.waits(now, 0).rpm > 0) return 'standard';
    window.add(now, 0);
    return 'priority';
  }
}
