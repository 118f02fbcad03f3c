/**
 * Reads a job's event log (grammar in ./event-log-format.ts) sequentially, in 4 MiB chunks, handing each record to a
 * visitor with absolute times (ms since epoch) and names resolved (projects, aliases, quotaIds). A torn last line,
 * lines that do not parse and record types this version does not know are skipped (counted in the result).
 */
import fs from 'node:fs';
import { O_NOFOLLOW } from '../files/atomic-file.js';
import { EVENT_LOG_MAGIC, type EventRunHeader, type HoldKind, type RequestOutcome } from './event-log-format.js';

/** A request, or a second's requests summed: what both `q` and `a` lines say. */
export interface RequestEvent {
  /** The quota project. */
  project: string;
  /** The key's alias; undefined for a per-second sum. */
  alias: string | undefined;
  /** When sent, ms since epoch (a sum: the second's start). */
  sentAt: number;
  /** Requests (1 for a request line). */
  count: number;
  inputTokens: number;
  outputTokens: number;
  /** Outcomes with how many requests had each; a 429's quotaIds beside it. */
  outcomes: Array<{ outcome: RequestOutcome; quotaIds: string[]; count: number }>;
  /** Latency of a request line, ms (any outcome); undefined for a sum. */
  latencyMs: number | undefined;
  /** For a sum: histogram of the latencies of its HTTP 200 answers, bucket (./event-log-format.ts) → count. */
  latencyBuckets: Array<[number, number]> | undefined;
}

/** Receives the records of an event log in file order. Every method is optional. */
export interface EventVisitor {
  run?(header: EventRunHeader): void;
  request?(event: RequestEvent): void;
  inFlight?(project: string, at: number, inFlight: number, bound: number): void;
  limits?(project: string, at: number, limits: { rpm: number | undefined; tpm: number | undefined; rpd: number | undefined }): void;
  hold?(project: string, at: number, kind: HoldKind, until: number | undefined, reason: string): void;
  binding?(at: number, binding: string): void;
  end?(at: number): void;
}

/** What {@link readEventLog} found. */
export interface EventLogRead {
  /** False when there is no event log (or it is not of this format): nothing was visited. */
  found: boolean;
  /** Lines skipped: torn, damaged, or of a record type this version does not know. */
  skipped: number;
  bytes: number;
}

const CHUNK = 4 * 1024 * 1024;

/**
 * Reads `file` and visits its records.
 * @returns found: false when the file does not exist or does not start with this format's first line. Never throws
 *   for its content; an I/O error other than a missing file is thrown.
 */
export function readEventLog(file: string, visitor: EventVisitor): EventLogRead {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: false, skipped: 0, bytes: 0 };
    throw error;
  }
  const parser = new LineParser(visitor);
  let bytes = 0;
  try {
    const buffer = Buffer.alloc(CHUNK);
    let carry = Buffer.alloc(0);
    let first = true;
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      bytes += n;
      const chunk = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : buffer.subarray(0, n);
      const end = chunk.lastIndexOf(0x0a);
      if (end < 0) {
        carry = Buffer.from(chunk);
        continue;
      }
      const lines = chunk.toString('utf8', 0, end).split('\n');
      carry = Buffer.from(chunk.subarray(end + 1));
      if (first) {
        first = false;
        if (lines[0] !== EVENT_LOG_MAGIC) return { found: false, skipped: 0, bytes };
        lines[0] = '';
      }
      for (const line of lines) if (line !== '') parser.line(line);
    }
    if (first) return { found: false, skipped: 0, bytes };
    if (carry.length > 0) parser.skipped++; // the torn last line
  } finally {
    fs.closeSync(fd);
  }
  return { found: true, skipped: parser.skipped, bytes };
}

class LineParser {
  skipped = 0;
  #t0 = 0;
  #inRun = false;
  #projects: string[] = [];
  #pools: Array<{ project: string; alias: string }> = [];
  #quotaIds: string[] = [];
  readonly #v: EventVisitor;

  constructor(visitor: EventVisitor) {
    this.#v = visitor;
  }

  line(line: string): void {
    try {
      if (!this.#parse(line)) this.skipped++;
    } catch {
      this.skipped++;
    }
  }

  /** @returns false when the line is not understood. */
  #parse(line: string): boolean {
    const type = line.charCodeAt(0);
    if (line.charCodeAt(1) !== 0x20) return false;
    if (type === 0x52 /* R */) {
      const header = JSON.parse(line.slice(2)) as EventRunHeader;
      if (typeof header.t0 !== 'number' || typeof header.run !== 'string') return false;
      this.#t0 = header.t0;
      this.#inRun = true;
      this.#projects = [];
      this.#pools = [];
      this.#quotaIds = [];
      this.#v.run?.(header);
      return true;
    }
    if (!this.#inRun) return false;
    const f = line.split(' ');
    switch (type) {
      case 0x71 /* q */:
        return this.#request(f);
      case 0x61 /* a */:
        return this.#aggregate(f);
      case 0x66 /* f */: {
        const project = this.#projects[int(f[2])];
        if (project === undefined || f.length !== 5) return false;
        this.#v.inFlight?.(project, this.#t0 + int(f[1]), int(f[3]), int(f[4]));
        return true;
      }
      case 0x4c /* L */: {
        const project = this.#projects[int(f[2])];
        if (project === undefined || f.length !== 6) return false;
        this.#v.limits?.(project, this.#t0 + int(f[1]), { rpm: optional(f[3]), tpm: optional(f[4]), rpd: optional(f[5]) });
        return true;
      }
      case 0x48 /* H */: {
        const project = this.#projects[int(f[2])];
        const kind = f[3] as HoldKind;
        if (project === undefined || !['pause', 'park', 'disabled', 'none'].includes(kind)) return false;
        const until = optional(f[4]);
        const reason = JSON.parse(line.slice(line.indexOf(' "') + 1)) as unknown;
        this.#v.hold?.(project, this.#t0 + int(f[1]), kind, until === undefined ? undefined : this.#t0 + until, typeof reason === 'string' ? reason : '');
        return true;
      }
      case 0x62 /* b */:
        if (f.length !== 3 || !f[2]) return false;
        this.#v.binding?.(this.#t0 + int(f[1]), f[2]);
        return true;
      case 0x45 /* E */:
        this.#v.end?.(this.#t0 + int(f[1]));
        return true;
      case 0x4a /* J */:
        this.#projects[int(f[1])] = JSON.parse(line.slice(line.indexOf(' ', 2) + 1)) as string;
        return true;
      case 0x50 /* P */: {
        const project = this.#projects[int(f[2])];
        if (project === undefined) return false;
        this.#pools[int(f[1])] = { project, alias: JSON.parse(line.slice(line.indexOf(' ', line.indexOf(' ', 2) + 1) + 1)) as string };
        return true;
      }
      case 0x51 /* Q */:
        this.#quotaIds[int(f[1])] = JSON.parse(line.slice(line.indexOf(' ', 2) + 1)) as string;
        return true;
      default:
        return false;
    }
  }

  #request(f: string[]): boolean {
    const pool = this.#pools[int(f[3])];
    if (!pool || f.length < 7) return false;
    const quotaIds = f[7] ? f[7].split(',').map((k) => this.#quotaIds[int(k)] ?? `quotaId ${k}`) : [];
    this.#v.request?.({
      project: pool.project,
      alias: pool.alias,
      sentAt: this.#t0 + int(f[1]),
      count: 1,
      inputTokens: int(f[4]),
      outputTokens: int(f[5]),
      outcomes: [{ outcome: outcomeOf(f[6] as string), quotaIds, count: 1 }],
      latencyMs: int(f[2]),
      latencyBuckets: undefined,
    });
    return true;
  }

  #aggregate(f: string[]): boolean {
    const project = this.#projects[int(f[2])];
    if (project === undefined || f.length < 7) return false;
    const outcomes = (f[6] as string).split(',').map((part) => {
      const x = part.lastIndexOf('x');
      const [code, ...ids] = part.slice(0, x).split(':');
      return { outcome: outcomeOf(code as string), quotaIds: ids.map((k) => this.#quotaIds[int(k)] ?? `quotaId ${k}`), count: int(part.slice(x + 1)) };
    });
    const latencyBuckets = f[7]
      ? f[7].split(',').map((pair): [number, number] => {
          const [b, n] = pair.split(':');
          return [int(b), int(n)];
        })
      : [];
    this.#v.request?.({
      project,
      alias: undefined,
      sentAt: this.#t0 + int(f[1]) * 1000,
      count: int(f[3]),
      inputTokens: int(f[4]),
      outputTokens: int(f[5]),
      outcomes,
      latencyMs: undefined,
      latencyBuckets,
    });
    return true;
  }
}

/** A whole number field; throws (the line is skipped) otherwise. */
function int(field: string | undefined): number {
  const n = Number(field);
  if (field === undefined || field === '' || !Number.isFinite(n)) throw new RangeError(`not a number: ${String(field)}`);
  return n;
}

function optional(field: string | undefined): number | undefined {
  return field === '-' ? undefined : int(field);
}

function outcomeOf(code: string): RequestOutcome {
  if (code === 't' || code === 'c' || code === 'b' || code === 'x') return code;
  return int(code);
}
