/**
 * What a job has learned about its quotas, kept in the job directory so that the next run starts from it instead of
 * hitting the same walls again:
 * - requests per Pacific day, per quota project and model (RPD resets at midnight America/Los_Angeles,
 *   https://ai.google.dev/gemini-api/docs/rate-limits): counted durably in `requests.log` (./request-log.ts), one line
 *   written before each request leaves, so a run killed with SIGKILL loses no count;
 * - daily-quota parks, limits learned from a 429's quotaValue, keys the API refused (by a hash of the key, never the
 *   key, for 24 hours): in `quota-usage.json`, rewritten atomically and synchronously when one of them changes (rare
 *   events, each on disk before the run goes on).
 *
 * quota-usage.json: `{"day":"2026-11-29","requests":{"<project>\u0000<model>":123},"parked":{"<project>\u0000<model>":
 * {"until":<ms>,"reason":"…"}},"learned":{…},"refusedKeys":{…}}`; `day` and `requests` are a snapshot of the log
 * for people (and the count of job directories written before requests.log existed); parks last until their time.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { redactSecrets } from '../config/known-secrets.js';
import { writeFileAtomic, writeFileAtomicSync } from '../files/atomic-file.js';
import type { DailyUsageStore } from '../schedule/project-limiter.js';
import { RequestLog } from './request-log.js';

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
  readonly #log: RequestLog;
  #data: UsageFile = { day: '', requests: {} };
  #writing: Promise<void> = Promise.resolve();

  /**
   * Loads `file` (quota-usage.json) and the `requests.log` beside it, if they exist and are readable; a damaged file
   * counts as empty (the count only errs on the low side). Nothing is written until something changes.
   */
  constructor(file: string) {
    this.#file = file;
    this.#log = new RequestLog(path.join(path.dirname(file), 'requests.log'));
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as UsageFile;
      if (typeof parsed.day === 'string' && typeof parsed.requests === 'object' && parsed.requests !== null) this.#data = parsed;
    } catch {
      // absent or damaged: start from zero
    }
    if (this.#log.isEmpty) {
      // A job directory from before requests.log: its counts were in quota-usage.json.
      for (const [key, count] of Object.entries(this.#data.requests)) {
        const [project, model] = key.split('\u0000');
        if (project !== undefined && model !== undefined && typeof count === 'number') this.#log.seed(project, model, this.#data.day, count);
      }
    }
  }

  get(project: string, model: string, day: string): number {
    return this.#log.get(project, model, day);
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
    this.#save();
  }

  /** Limits a 429's quotaValue taught for this project and model. */
  learnedLimits(project: string, model: string): Partial<Record<'rpm' | 'tpm' | 'rpd', number>> {
    return this.#data.learned?.[`${project}\u0000${model}`] ?? {};
  }

  /** Remembers a limit learned from a 429's quotaValue. */
  learn(project: string, model: string, dimension: 'rpm' | 'tpm' | 'rpd', value: number): void {
    const key = `${project}\u0000${model}`;
    this.#data.learned = { ...this.#data.learned, [key]: { ...this.#data.learned?.[key], [dimension]: value } };
    this.#save();
  }

  /** The refusal of a key in the last 24 hours, by key id (a hash of the key). */
  refusal(keyId: string, now = Date.now()): { alias: string; reason: string; at: number } | undefined {
    const r = this.#data.refusedKeys?.[keyId];
    return r && now - r.at < REFUSED_KEY_MEMORY_MS ? r : undefined;
  }

  /** Remembers that the API refused a key (400 API_KEY_INVALID, 401, 403). */
  refuse(keyId: string, alias: string, reason: string): void {
    this.#data.refusedKeys = { ...this.#data.refusedKeys, [keyId]: { alias, reason, at: Date.now() } };
    this.#save();
  }

  /**
   * Counts one request, in requests.log, before it leaves (see the file comment). When the log cannot be written
   * (disk full), the request is still counted in memory for this run and the run goes on: the journal reports a full
   * disk itself, and a count can only err low.
   */
  increment(project: string, model: string, day: string): void {
    this.#log.increment(project, model, day);
    if (this.#data.day !== day) this.#data = { ...this.#data, day, requests: {} };
    const key = `${project}\u0000${model}`;
    this.#data.requests[key] = this.#log.get(project, model, day);
  }

  /** Writes the snapshot of today's counts to quota-usage.json and syncs requests.log. */
  flush(): Promise<void> {
    try {
      this.#log.sync();
    } catch {
      // reported by the next increment, which fails the same way
    }
    const text = this.#text();
    this.#writing = this.#writing.then(() => writeFileAtomic(this.#file, text)).catch(() => undefined);
    return this.#writing;
  }

  /** Syncs and closes requests.log. */
  async close(): Promise<void> {
    await this.flush();
    this.#log.close();
  }

  /** quota-usage.json now, on disk before this returns; a failure to write is ignored (the state only helps). */
  #save(): void {
    try {
      writeFileAtomicSync(this.#file, this.#text());
    } catch {
      // unwritable job directory: the next run learns the same things again
    }
  }

  /** The file's text; reasons quote what servers said, cleaned of known keys again here, the last step before the disk. */
  #text(): string {
    return redactSecrets(`${JSON.stringify(this.#data)}\n`);
  }
}
