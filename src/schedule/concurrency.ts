/**
 * How many requests each key's pool may have in flight: what the quota needs at the latency observed, up to the user's
 * bound (--workers-per-key) and the safe ceilings per key and per process.
 *
 * Little's law: a project sending R requests/s whose requests hold their slot L s on average has R × L in flight. The
 * need allowed is 1.2 × R × L + 3 √(R × L) + 2 (headroom for a latency estimate that lags, and three standard deviations
 * of a Poisson-like count), split evenly over the project's working keys. R is what the project's limiter allows now
 * (RPM, or TPM ÷ the mean input tokens per request, whichever is lower); L is the mean of the last 128 requests, or the
 * age of the oldest request still in flight when that is longer (at the start, and when answers suddenly slow down) —
 * never less than {@link INITIAL_LATENCY_MS} before the first answers. Extra slots cost nothing: the limiter, not the
 * slot count, governs the rate; a slot only allows a request the limiter already allows.
 *
 * When the user's bound or a ceiling keeps a project under its quota (the capacity ÷ L is below 95 % of R, judged after
 * 32 answers), {@link ConcurrencyGovernor.bottlenecks} says so once, with the numbers.
 */
import { LatencyMeter } from './latency-meter.js';
import type { ProjectLimiter } from './project-limiter.js';

/**
 * Requests one key may have in flight at most. No per-key concurrency limit is documented; 5,000 covers the highest
 * published per-project rate (Tier 3 Flash, 10,000 RPM: docs/reference/gemini-api-facts.md §1.5) at 30 s per answer.
 */
export const MAX_IN_FLIGHT_PER_KEY = 5_000;
/**
 * Latency assumed before anything is known, ms: small, so that the first burst stays small when a declared limit is too
 * high (bench S3, a limit declared 5× too high: assuming 1 s, 38 requests left before the first 429 came back and 26
 * were refused; assuming 250 ms, 6; the old fixed 8 per key, 2). The oldest request in flight then raises the estimate
 * as time passes without answers, so a slow model loses at most the first second's burst.
 */
export const INITIAL_LATENCY_MS = 100;
/** Answers needed before a bottleneck is reported. */
export const BOTTLENECK_EVIDENCE = 32;

/** A key's pool as the governor sees it. */
export interface GovernedPool {
  readonly alias: string;
  readonly project: string;
  /** The user's bound (--workers-per-key); undefined: what the quota needs. */
  readonly maxInFlight: number | undefined;
  /** True once the pool takes no more rows (its key was refused). */
  readonly stopped: boolean;
}

/** Why a project's capacity is below its quota. */
export interface Bottleneck {
  project: string;
  /** What holds it: the user's --workers-per-key, the per-key ceiling, or the process's file descriptors. */
  bound: 'user' | 'key-ceiling' | 'process-ceiling';
  /** The message to show once. */
  text: string;
}

interface ProjectState {
  limiter: ProjectLimiter;
  latency: LatencyMeter;
  /** Mean input tokens per request (exponentially weighted), tokens; 0 before the first. */
  meanTokens: number;
}

export interface ConcurrencyOptions {
  pools: readonly GovernedPool[];
  limiters: ReadonlyMap<string, ProjectLimiter>;
  /** Requests one key may have in flight; default {@link MAX_IN_FLIGHT_PER_KEY}. */
  perKeyCeiling?: number;
  /** Requests the process may have in flight (./fd-budget.ts). */
  processCeiling: number;
  /** For the message when the process ceiling binds: `this process may open 1,024 files (ulimit -n)`. */
  processCeilingReason: string;
}

/** `1,234`. */
function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export class ConcurrencyGovernor {
  readonly #pools: readonly GovernedPool[];
  readonly #projects = new Map<string, ProjectState>();
  readonly #perKeyCeiling: number;
  #processCeiling: number;
  readonly #processCeilingReason: string;
  /** The limit of each pool (same order as the pools), as of the last {@link update}. */
  readonly #limits: number[];
  readonly #reported = new Set<string>();
  /** True when the last {@link update} scaled the pools down to the load cap (this process's CPU binds). */
  #loadBound = false;

  constructor(options: ConcurrencyOptions) {
    this.#pools = options.pools;
    for (const [project, limiter] of options.limiters) this.#projects.set(project, { limiter, latency: new LatencyMeter(), meanTokens: 0 });
    this.#perKeyCeiling = options.perKeyCeiling ?? MAX_IN_FLIGHT_PER_KEY;
    this.#processCeiling = Math.max(1, options.processCeiling);
    this.#processCeilingReason = options.processCeilingReason;
    this.#limits = this.#pools.map(() => 1);
  }

  /** Requests pool number `index` may have in flight. */
  limitOf(index: number): number {
    return this.#limits[index] as number;
  }

  /** The sum of every pool's limit: what the process may have in flight now. */
  get totalLimit(): number {
    return this.#limits.reduce((a, b) => a + b, 0);
  }

  /** Requests the process may have in flight (lowered after our own sockets ran out). */
  get processCeiling(): number {
    return this.#processCeiling;
  }

  /** The latency meter of a project (for reports). */
  latencyOf(project: string): LatencyMeter {
    return (this.#projects.get(project) as ProjectState).latency;
  }

  /** Records a request of `tokens` estimated input tokens sent at `at` by `project`; finish what it returns when it ends. */
  start(project: string, tokens: number, at: number): { finish(now: number): void } {
    const state = this.#projects.get(project) as ProjectState;
    state.meanTokens = state.meanTokens === 0 ? tokens : state.meanTokens + 0.05 * (tokens - state.meanTokens);
    const flight = state.latency.start(at);
    return { finish: (now) => state.latency.finish(flight, now) };
  }

  /**
   * Our own sockets ran out (EMFILE…) with `inFlight` requests in flight: the process ceiling drops below that at once
   * and stays there for the run.
   */
  exhausted(inFlight: number): void {
    this.#processCeiling = Math.max(1, Math.min(this.#processCeiling, Math.floor(inFlight * 0.9)));
  }

  /** True when this process's own load (./load-guard.ts), not the quota or a ceiling, limits the pools now. */
  get loadBound(): boolean {
    return this.#loadBound;
  }

  /**
   * Recomputes every pool's limit at `now`.
   * @param loadCap requests in flight this process can take now (./load-guard.ts); Infinity: no cap.
   */
  update(now: number, loadCap = Infinity): void {
    const needs = new Map<string, { need: number; pools: number }>();
    for (const pool of this.#pools) {
      if (pool.stopped) continue;
      let entry = needs.get(pool.project);
      if (!entry) {
        entry = { need: this.#need(this.#projects.get(pool.project) as ProjectState, now), pools: 0 };
        needs.set(pool.project, entry);
      }
      entry.pools++;
    }
    let total = 0;
    this.#pools.forEach((pool, i) => {
      const entry = needs.get(pool.project);
      const limit = pool.stopped || !entry ? 0 : Math.min(Math.ceil(entry.need / entry.pools), pool.maxInFlight ?? Infinity, this.#perKeyCeiling);
      this.#limits[i] = limit;
      total += limit;
    });
    const ceiling = Math.min(this.#processCeiling, loadCap);
    this.#loadBound = total > loadCap && loadCap < this.#processCeiling;
    if (total > ceiling) {
      const scale = ceiling / total;
      this.#limits.forEach((limit, i) => (this.#limits[i] = limit === 0 ? 0 : Math.max(1, Math.floor(limit * scale))));
    }
  }

  /**
   * Projects whose capacity (the user's bound or a ceiling) keeps them under their quota, each reported once, after
   * {@link BOTTLENECK_EVIDENCE} answers.
   */
  bottlenecks(): Bottleneck[] {
    const out: Bottleneck[] = [];
    // Our own CPU is the limit: the latency measured is our queueing, and no option of the user's would help.
    if (this.#loadBound) return out;
    for (const [project, state] of this.#projects) {
      if (this.#reported.has(project)) continue;
      const meanMs = state.latency.meanMs;
      if (meanMs === undefined || state.latency.completions < BOTTLENECK_EVIDENCE) continue;
      const pools = this.#pools.filter((p) => p.project === project && !p.stopped);
      if (pools.length === 0) continue;
      const allPools = this.#pools.filter((p) => !p.stopped).length;
      const processShare = Math.floor(this.#processCeiling * (pools.length / Math.max(1, allPools)));
      const perPool = pools.map((p) => Math.min(p.maxInFlight ?? Infinity, this.#perKeyCeiling));
      const byPools = perPool.reduce((a, b) => a + b, 0);
      const capacity = Math.min(byPools, processShare);
      const rate = this.#rate(state); // requests/s the quota allows
      const reach = capacity / (meanMs / 1000);
      if (reach >= 0.95 * rate) continue;
      this.#reported.add(project);
      const seconds = (meanMs / 1000).toFixed(1);
      const quota = `the quota allows ${formatCount(rate * 60)}`;
      const reached = `reach ${formatCount(reach * 60)} RPM`;
      const userBound = pools[0]?.maxInFlight;
      if (capacity === byPools && userBound !== undefined && userBound <= this.#perKeyCeiling) {
        const suggest = Math.ceil((rate * (meanMs / 1000) * 1.05) / pools.length);
        const keys = `${formatCount(pools.length)} ${pools.length === 1 ? 'key' : 'keys'}`;
        out.push({
          project,
          bound: 'user',
          text: `project ${project}: ${formatCount(userBound)} workers per key × ${keys} at ${seconds} s per answer ${reached}; ${quota} — raise --workers-per-key to ${formatCount(suggest)} or leave it out.`,
        });
      } else if (capacity === byPools) {
        out.push({
          project,
          bound: 'key-ceiling',
          text: `project ${project}: at most ${formatCount(this.#perKeyCeiling)} requests in flight per key × ${formatCount(pools.length)} at ${seconds} s per answer ${reached}; ${quota} — add keys of this project to send faster.`,
        });
      } else {
        out.push({
          project,
          bound: 'process-ceiling',
          text: `project ${project}: at most ${formatCount(capacity)} requests in flight in this process (${this.#processCeilingReason}) at ${seconds} s per answer ${reached}; ${quota}.`,
        });
      }
    }
    return out;
  }

  /** Requests in flight the project needs at `now`. */
  #need(state: ProjectState, now: number): number {
    const oldest = state.latency.oldestAgeMs(now);
    const mean = state.latency.meanMs;
    const latencyMs = Math.max(mean ?? INITIAL_LATENCY_MS, oldest);
    const m = this.#rate(state) * (latencyMs / 1000);
    return Math.ceil(1.2 * m + 3 * Math.sqrt(m) + 2);
  }

  /** Requests/s the project's limiter allows now: RPM, or TPM over the mean request, whichever is lower. */
  #rate(state: ProjectState): number {
    const rpm = state.limiter.rpmTarget;
    const byTokens = state.meanTokens > 0 ? state.limiter.tpmTarget / state.meanTokens : Infinity;
    return Math.min(rpm, byTokens) / 60;
  }
}
