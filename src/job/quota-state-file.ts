/**
 * What a job has learned about its quotas, kept in the job directory (`quota-usage.json`) so that the next run starts
 * from it instead of hitting the same walls again:
 * - requests per Pacific day, per quota project and model (RPD resets at midnight America/Los_Angeles,
 *   https://ai.google.dev/gemini-api/docs/rate-limits), and daily-quota parks;
 * - limits learned from a 429's quotaValue;
 * - keys the API refused (by a hash of the key, never the key), for 24 hours.
 *
 * File shape: `{"day":"2026-11-29","requests":{"<project>\u0000<model>":123},"parked":{"<project>\u0000<model>":
 * {"until":<ms>,"reason":"…"}}}`; counts from an earlier day are ignored, parks last until their time.
 * Writes are batched (at most every `flushIntervalMs`) and atomic.
 */
import { readFileSync } from 'node:fs';
import { redactSecrets } from '../config/known-secrets.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import type { DailyUsageStore } from '../schedule/project-limiter.js';

interface UsageFile {
  day: string;
  requests: Record<string, number>;
  parked?: Record<string, { until: number; reason: string }>;
  learned?: Record<string, Partial<Record<'rpm' | 'tpm' | 'rpd', number>>>;
  refusedKeys?: Record<string, { alias: string; reason: string; at: number }>;
}

/** How long a refused key is left out of later runs, ms. */
export const REFUSED_KEY_MEMORY_MS = 24 * 3_600_000;

export class QuotaStateFile implements DailyUsageStore {
  readonly #file: string;
  readonly #flushIntervalMs: number;
  #data: UsageFile = { day: '', requests: {} };
  #dirty = false;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  /** Loads `file` if it exists and is readable; a damaged file counts as empty (the count only errs on the low side). */
  constructor(file: string, flushIntervalMs = 2_000) {
    this.#file = file;
    this.#flushIntervalMs = flushIntervalMs;
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as UsageFile;
      if (typeof parsed.day === 'string' && typeof parsed.requests === 'object' && parsed.requests !== null) this.#data = parsed;
    } catch {
      // absent or damaged: start from zero
    }
  }

  get(project: string, model: string, day: string): number {
    if (this.#data.day !== day) return 0;
    return this.#data.requests[`${project}\u0000${model}`] ?? 0;
  }

  parked(project: string, model: string): { until: number; reason: string } | undefined {
    return this.#data.parked?.[`${project}\u0000${model}`];
  }

  /** The parks still in force at `now`, of every project and model. */
  activeParks(now = Date.now()): Array<{ until: number; reason: string }> {
    return Object.values(this.#data.parked ?? {}).filter((p) => p.until > now);
  }

  park(project: string, model: string, until: number, reason: string): void {
    this.#data.parked = { ...this.#data.parked, [`${project}\u0000${model}`]: { until, reason } };
    this.#dirty = true;
    void this.flush();
  }

  /** Limits a 429's quotaValue taught for this project and model. */
  learnedLimits(project: string, model: string): Partial<Record<'rpm' | 'tpm' | 'rpd', number>> {
    return this.#data.learned?.[`${project}\u0000${model}`] ?? {};
  }

  /** Remembers a limit learned from a 429's quotaValue. */
  learn(project: string, model: string, dimension: 'rpm' | 'tpm' | 'rpd', value: number): void {
    const key = `${project}\u0000${model}`;
    this.#data.learned = { ...this.#data.learned, [key]: { ...this.#data.learned?.[key], [dimension]: value } };
    this.#dirty = true;
    void this.flush();
  }

  /** The refusal of a key in the last 24 hours, by key id (a hash of the key). */
  refusal(keyId: string, now = Date.now()): { alias: string; reason: string; at: number } | undefined {
    const r = this.#data.refusedKeys?.[keyId];
    return r && now - r.at < REFUSED_KEY_MEMORY_MS ? r : undefined;
  }

  /** Remembers that the API refused a key (400 API_KEY_INVALID, 401, 403). */
  refuse(keyId: string, alias: string, reason: string): void {
    this.#data.refusedKeys = { ...this.#data.refusedKeys, [keyId]: { alias, reason, at: Date.now() } };
    this.#dirty = true;
    void this.flush();
  }

  increment(project: string, model: string, day: string): void {
    if (this.#data.day !== day) this.#data = { ...this.#data, day, requests: {} };
    const key = `${project}\u0000${model}`;
    this.#data.requests[key] = (this.#data.requests[key] ?? 0) + 1;
    this.#dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#flushIntervalMs);
    this.#timer.unref?.();
  }

  /** Writes pending counts now. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (!this.#dirty) return this.#writing;
    this.#dirty = false;
    // Reasons quote what servers said: cleaned of known keys again here, the last step before the disk.
    const text = redactSecrets(`${JSON.stringify(this.#data)}\n`);
    this.#writing = this.#writing.then(() => writeFileAtomic(this.#file, text)).catch(() => undefined);
    return this.#writing;
  }
}
