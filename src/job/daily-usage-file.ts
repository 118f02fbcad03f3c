/**
 * Requests per day, per quota project and model, kept in the job directory (`quota-usage.json`) so that a second run
 * on the same Pacific day knows what was already spent (RPD resets at midnight America/Los_Angeles,
 * https://ai.google.dev/gemini-api/docs/rate-limits).
 *
 * File shape: `{"day":"2026-11-29","requests":{"<project>\u0000<model>":123},"parked":{"<project>\u0000<model>":
 * {"until":<ms>,"reason":"…"}}}`; counts from an earlier day are ignored, parks last until their time.
 * Writes are batched (at most every `flushIntervalMs`) and atomic.
 */
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../files/atomic-file.js';
import type { DailyUsageStore } from '../schedule/project-limiter.js';

interface UsageFile {
  day: string;
  requests: Record<string, number>;
  parked?: Record<string, { until: number; reason: string }>;
}

export class DailyUsageFile implements DailyUsageStore {
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

  park(project: string, model: string, until: number, reason: string): void {
    this.#data.parked = { ...this.#data.parked, [`${project}\u0000${model}`]: { until, reason } };
    this.#dirty = true;
    void this.flush();
  }

  increment(project: string, model: string, day: string): void {
    if (this.#data.day !== day) this.#data = { day, requests: {}, ...(this.#data.parked ? { parked: this.#data.parked } : {}) };
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
    const text = `${JSON.stringify(this.#data)}\n`;
    this.#writing = this.#writing.then(() => writeFileAtomic(this.#file, text)).catch(() => undefined);
    return this.#writing;
  }
}
