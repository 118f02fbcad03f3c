/**
 * Counters behind `GET /__sim/stats` ({@link SimStats}): requests by status and endpoint, 429s by quotaId,
 * faults by kind, per key / project / model counters, and per project and model the most requests and input
 * tokens seen in any rolling 60 s window, admitted and arrived. O(1) amortized per request.
 */
import { MINUTE_MS } from './minute-limiters.js';
import { RingLog } from './ring-log.js';
import type { Peaks60s, SimClock, SimCounters, SimStats } from './types.js';

/** Most requests and tokens in any window (t - 60 s, t]: the maximum over the windows ending at each event. */
class PeakTracker {
  private readonly log = new RingLog();
  requests = 0;
  tokens = 0;

  add(now: number, tokens: number): void {
    this.log.dropThrough(now - MINUTE_MS);
    this.log.push(now, tokens);
    if (this.log.count > this.requests) this.requests = this.log.count;
    if (this.log.sum > this.tokens) this.tokens = this.log.sum;
  }

  reset(): void {
    this.log.clear();
    this.requests = 0;
    this.tokens = 0;
  }
}

function counters(): SimCounters {
  return { requests: 0, ok: 0, rateLimited: 0, errors: 0, inputTokens: 0, outputTokens: 0 };
}

interface ModelEntry {
  counters: SimCounters;
  admitted: PeakTracker;
  arrived: PeakTracker;
}

interface ProjectEntry extends ModelEntry {
  models: Map<string, ModelEntry>;
}

function modelEntry(): ModelEntry {
  return { counters: counters(), admitted: new PeakTracker(), arrived: new PeakTracker() };
}

/** How one request ended, as the stats see it. */
export interface RequestRecord {
  /** HTTP status, or `reset` / `hang`. */
  status: number | 'reset' | 'hang';
  /** `other`: a 200 that is not a generated answer (countTokens); counted only as a request. */
  kind: 'ok' | 'rate-limited' | 'error' | 'other';
  keyAlias?: string;
  project?: string;
  model?: string;
  /** The quotaIds a 429 violated. */
  quotaIds?: string[];
  /** A fault kind (`503`, `reset`, `script-error`…) when the outcome was injected. */
  fault?: string;
  inputTokens?: number;
  outputTokens?: number;
  thoughtsTokens?: number;
  /** The service tier that served an answer of a request that named one. */
  servedTier?: string;
}

/** The mutable statistics of one simulator. */
export class StatsCollector {
  private startedAt: number;
  private total = 0;
  private byStatus: Record<string, number> = {};
  private byEndpoint: Record<string, number> = {};
  private answeredOk = 0;
  private rateLimited = 0;
  private byQuotaId: Record<string, number> = {};
  private faults: Record<string, number> = {};
  private servedTiers: Record<string, number> = {};
  private tokens = { input: 0, output: 0, thoughts: 0 };
  private keys = new Map<string, SimCounters & { project: string }>();
  private projects = new Map<string, ProjectEntry>();

  constructor(private readonly clock: SimClock) {
    this.startedAt = clock.now();
  }

  /** A request arrived at `endpoint`. */
  arrive(endpoint: string): void {
    this.total++;
    this.byEndpoint[endpoint] = (this.byEndpoint[endpoint] ?? 0) + 1;
  }

  private project(id: string): ProjectEntry {
    let p = this.projects.get(id);
    if (!p) {
      p = { ...modelEntry(), models: new Map() };
      this.projects.set(id, p);
    }
    return p;
  }

  private model(project: string, model: string): ModelEntry {
    const p = this.project(project);
    let m = p.models.get(model);
    if (!m) {
      m = modelEntry();
      p.models.set(model, m);
    }
    return m;
  }

  /** A generateContent request of `tokens` input tokens reached the quota check (or was rejected before it). */
  arrivedAtQuota(project: string, model: string, now: number, tokens: number): void {
    this.project(project).arrived.add(now, tokens);
    this.model(project, model).arrived.add(now, tokens);
  }

  /** A request passed the quota. */
  admitted(project: string, model: string, now: number, tokens: number): void {
    this.project(project).admitted.add(now, tokens);
    this.model(project, model).admitted.add(now, tokens);
  }

  /** Records how a request ended. */
  finish(r: RequestRecord): void {
    const status = String(r.status);
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    if (r.fault) this.faults[r.fault] = (this.faults[r.fault] ?? 0) + 1;
    if (r.kind === 'ok') {
      this.answeredOk++;
      this.tokens.input += r.inputTokens ?? 0;
      this.tokens.output += r.outputTokens ?? 0;
      this.tokens.thoughts += r.thoughtsTokens ?? 0;
      if (r.servedTier !== undefined) this.servedTiers[r.servedTier] = (this.servedTiers[r.servedTier] ?? 0) + 1;
    } else if (r.kind === 'rate-limited') {
      this.rateLimited++;
      for (const id of r.quotaIds ?? []) this.byQuotaId[id] = (this.byQuotaId[id] ?? 0) + 1;
    }
    const targets: SimCounters[] = [];
    if (r.keyAlias !== undefined && r.project !== undefined) {
      let k = this.keys.get(r.keyAlias);
      if (!k) {
        k = { ...counters(), project: r.project };
        this.keys.set(r.keyAlias, k);
      }
      targets.push(k);
    }
    if (r.project !== undefined) {
      targets.push(this.project(r.project).counters);
      if (r.model !== undefined) targets.push(this.model(r.project, r.model).counters);
    }
    for (const c of targets) {
      c.requests++;
      if (r.kind === 'ok') {
        c.ok++;
        c.inputTokens += r.inputTokens ?? 0;
        c.outputTokens += r.outputTokens ?? 0;
      } else if (r.kind === 'rate-limited') c.rateLimited++;
      else if (r.kind === 'error') c.errors++;
    }
  }

  /** Zeroes every counter and peak (quota windows live in the ledger and are not touched). */
  reset(): void {
    this.startedAt = this.clock.now();
    this.total = 0;
    this.byStatus = {};
    this.byEndpoint = {};
    this.answeredOk = 0;
    this.rateLimited = 0;
    this.byQuotaId = {};
    this.faults = {};
    this.servedTiers = {};
    this.tokens = { input: 0, output: 0, thoughts: 0 };
    this.keys.clear();
    for (const p of this.projects.values()) {
      p.counters = counters();
      p.admitted.reset();
      p.arrived.reset();
      for (const m of p.models.values()) {
        m.counters = counters();
        m.admitted.reset();
        m.arrived.reset();
      }
    }
  }

  /** A detached copy of the current statistics (the engine adds the Batch API's, SimEngine.snapshot). */
  snapshot(): Omit<SimStats, 'batches'> {
    const peaks = (e: ModelEntry): Peaks60s => ({
      admitted: { requests: e.admitted.requests, inputTokens: e.admitted.tokens },
      arrived: { requests: e.arrived.requests, inputTokens: e.arrived.tokens },
    });
    const projects: SimStats['projects'] = {};
    for (const [id, p] of this.projects) {
      const models: SimStats['projects'][string]['models'] = {};
      for (const [mid, m] of p.models) models[mid] = { ...m.counters, peak60s: peaks(m) };
      projects[id] = { ...p.counters, peak60s: peaks(p), models };
    }
    const keys: SimStats['keys'] = {};
    for (const [alias, k] of this.keys) keys[alias] = { ...k };
    return {
      startedAt: this.startedAt,
      now: this.clock.now(),
      requests: { total: this.total, byStatus: { ...this.byStatus }, byEndpoint: { ...this.byEndpoint } },
      answeredOk: this.answeredOk,
      rateLimited: { total: this.rateLimited, byQuotaId: { ...this.byQuotaId } },
      faults: { ...this.faults },
      tokens: { ...this.tokens },
      servedTiers: { ...this.servedTiers },
      keys,
      projects,
    };
  }
}
