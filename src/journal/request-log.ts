/**
 * The job's durable count of requests sent, per Pacific day, quota project and model (`<job-dir>/requests.log`): the
 * RPD a later run starts from. One line is appended, with one write(2), before each request leaves, so a run killed
 * with SIGKILL has counted every request it sent (a power failure loses at most what was not yet flushed).
 *
 * Format (text, one record a line, every line ending with `\n`):
 * ```
 * #1 ["2026-11-29","acme","gemini-2.5-flash"]    defines counter 1: (Pacific day, project, model)
 * 1                                               one request on counter 1 (2 bytes)
 * =1 1234                                         counter 1 stood at 1234 (written when the log is compacted)
 * ```
 * A torn last line (no `\n`) is ignored. When a run first counts a request, the log is compacted to the counters of
 * the latest day (atomically: temporary file and rename), so it never grows beyond one day of requests.
 *
 * Cost: one write(2) of 2–8 bytes per request, about 2.4 µs on the development machine (/tmp/ws.mjs in the commit
 * message of this file's introduction); at 4,000 requests/s, 1 % of a core.
 */
import fs from 'node:fs';
import { O_NOFOLLOW, writeFileAtomicSync } from '../files/atomic-file.js';

/** Requests counted for one (day, project, model). */
interface Counter {
  id: number;
  day: string;
  project: string;
  model: string;
  count: number;
}

export class RequestLog {
  readonly #file: string;
  readonly #counters = new Map<string, Counter>();
  #fd: number | undefined;
  #nextId = 1;

  /** Reads `file` when it exists (nothing is created until the first {@link increment}). */
  constructor(file: string) {
    this.#file = file;
    let text: string;
    try {
      const fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
      try {
        text = fs.readFileSync(fd, 'utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return; // absent (or unreadable): no request counted yet
    }
    this.#replay(text);
  }

  /** Requests counted for the day, project and model. */
  get(project: string, model: string, day: string): number {
    return this.#counters.get(keyOf(day, project, model))?.count ?? 0;
  }

  /** True when the log holds any counter. */
  get isEmpty(): boolean {
    return this.#counters.size === 0;
  }

  /**
   * Adds `count` to a counter without writing a line per request: to carry the counts of an older job directory's
   * quota-usage.json into the log. Written by the next compaction.
   */
  seed(project: string, model: string, day: string, count: number): void {
    if (count > 0) this.#counter(day, project, model).count += count;
  }

  /**
   * Counts one request, durably: its line is handed to the OS before this returns. When the log cannot be opened or
   * written (disk full, read-only folder), the request is counted in memory only and the log is not tried again
   * this run ({@link failure} says why): a count that cannot be kept must not stop requests.
   */
  increment(project: string, model: string, day: string): void {
    if (this.#fd === undefined && this.failure === undefined) {
      try {
        this.#open(day);
      } catch (error) {
        this.failure = error;
      }
    }
    const known = this.#counters.get(keyOf(day, project, model));
    const counter = known ?? this.#counter(day, project, model);
    counter.count += 1;
    if (this.failure !== undefined) return;
    try {
      fs.writeSync(this.#fd as number, known ? `${counter.id}\n` : `#${counter.id} ${JSON.stringify([day, project, model])}\n${counter.id}\n`);
    } catch (error) {
      this.failure = error;
    }
  }

  /** Why the log stopped being written this run, or undefined while it is written. */
  failure: unknown;

  /** fdatasyncs the log (a power failure then loses nothing counted so far). */
  sync(): void {
    if (this.#fd !== undefined) fs.fdatasyncSync(this.#fd);
  }

  /** Syncs and closes the log. */
  close(): void {
    if (this.#fd === undefined) return;
    try {
      fs.fdatasyncSync(this.#fd);
    } finally {
      fs.closeSync(this.#fd);
      this.#fd = undefined;
    }
  }

  /**
   * Compacts the log to the counters of the latest day (or of `day`, when later), then opens it for appending. The
   * counters keep their objects (callers hold them) and get new ids, in the order written.
   */
  #open(day: string): void {
    const latest = [...this.#counters.values()].reduce((d, c) => (c.day > d ? c.day : d), day);
    const kept = [...this.#counters.values()].filter((c) => c.day === latest);
    this.#counters.clear();
    this.#nextId = 1;
    let text = '';
    for (const c of kept) {
      c.id = this.#nextId++;
      this.#counters.set(keyOf(c.day, c.project, c.model), c);
      text += `#${c.id} ${JSON.stringify([c.day, c.project, c.model])}\n=${c.id} ${c.count}\n`;
    }
    writeFileAtomicSync(this.#file, text);
    this.#fd = fs.openSync(this.#file, fs.constants.O_WRONLY | fs.constants.O_APPEND | O_NOFOLLOW);
  }

  #counter(day: string, project: string, model: string): Counter {
    const key = keyOf(day, project, model);
    let counter = this.#counters.get(key);
    if (!counter) {
      counter = { id: this.#nextId++, day, project, model, count: 0 };
      this.#counters.set(key, counter);
    }
    return counter;
  }

  #replay(text: string): void {
    const byId = new Map<number, Counter>();
    const end = text.lastIndexOf('\n'); // a torn last line is ignored
    for (const line of text.slice(0, end + 1).split('\n')) {
      if (line === '') continue;
      if (line.startsWith('#')) {
        const space = line.indexOf(' ');
        try {
          const [day, project, model] = JSON.parse(line.slice(space + 1)) as [string, string, string];
          if (typeof day === 'string' && typeof project === 'string' && typeof model === 'string') {
            byId.set(Number(line.slice(1, space)), this.#counter(day, project, model));
          }
        } catch {
          // a damaged definition: its requests are not counted (the count only errs low)
        }
      } else if (line.startsWith('=')) {
        const [id, count] = line.slice(1).split(' ').map(Number);
        const counter = byId.get(id as number);
        if (counter && Number.isSafeInteger(count)) counter.count = count as number;
      } else {
        const counter = byId.get(Number(line));
        if (counter) counter.count += 1;
      }
    }
  }
}

function keyOf(day: string, project: string, model: string): string {
  return `${day}\u0000${project}\u0000${model}`;
}
