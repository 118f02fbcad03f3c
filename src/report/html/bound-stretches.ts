/**
 * "What bound the rate": a run cut into stretches, each named for what held sending back (schedule/binding.ts: a quota
 * dimension, the concurrency bound, a 429 pause, retries' backoff, the input, the last answers) or a daily park, and
 * said in words with the limits then in force. Stretches shorter than {@link minStretchMs} are merged into the longer
 * neighbour (a daily park never is), and a run is told in at most {@link MAX_STRETCHES} stretches.
 */
import { BINDING_LABELS, type Binding } from '../../schedule/binding.js';
import { countOf, formatCount } from '../progress-snapshot.js';
import { span } from './format-time.js';
import type { ProjectTrack, RunTrack } from './event-digest.js';

/** The most stretches a run is told in. */
export const MAX_STRETCHES = 40;

/** What a stretch is named for: a binding of schedule/binding.ts, or `park` (every project parked by its daily quota). */
export type StretchCause = Binding | 'park' | (string & {});

export interface Stretch {
  from: number;
  to: number;
  cause: StretchCause;
  /** The cause's short name: `RPM`, `429 pause`, `daily park`… */
  name: string;
  /** The stretch in words, with the limits then in force. */
  words: string;
  /** Requests sent during it (every project). */
  requests: number;
  /** 429s that came back during it. */
  rateLimited: number;
}

/** Short names of the causes: the progress line's (schedule/binding.ts), `the input` in a sentence, and the park. */
export const CAUSE_NAMES: Readonly<Record<string, string>> = { ...BINDING_LABELS, input: 'the input', park: 'daily park' };

/** Stretches shorter than this are merged into a neighbour: 1 % of the run, at least 750 ms, ms. */
export function minStretchMs(spanMs: number): number {
  return Math.max(750, spanMs / 100);
}

/**
 * The run's stretches, in time order, covering its first binding to its end.
 * @param clock formats an instant for the words (the report's time zone).
 */
export function boundStretches(run: RunTrack, clock: (ms: number) => string): Stretch[] {
  const raw: Array<{ from: number; to: number; cause: StretchCause }> = [];
  const bindings = run.bindings;
  for (let i = 0; i < bindings.length; i++) {
    const b = bindings[i]!;
    const to = i + 1 < bindings.length ? bindings[i + 1]!.at : run.end;
    if (to > b.at) raw.push({ from: b.at, to, cause: b.binding });
  }
  // From the moment every project of the run is parked by its daily quota until past the run's end, the park binds.
  const parkedFrom = allParkedFrom(run);
  let segments = raw;
  if (parkedFrom !== undefined) {
    segments = raw.flatMap((s) => (s.to <= parkedFrom ? [s] : s.from >= parkedFrom ? [] : [{ ...s, to: parkedFrom }]));
    segments.push({ from: parkedFrom, to: Math.max(parkedFrom, run.end), cause: 'park' });
  }
  const merged = smooth(segments, minStretchMs(run.end - (bindings[0]?.at ?? run.header.t0)));
  return merged.map((s) => describe(run, s, clock));
}

/** When every project of the run was parked by a daily quota lasting past the run's end; undefined otherwise. */
function allParkedFrom(run: RunTrack): number | undefined {
  let from = -Infinity;
  for (const p of run.projects.values()) {
    const last = p.holds.at(-1);
    if (!last || last.kind !== 'park' || (last.until ?? Infinity) <= run.end) return undefined;
    from = Math.max(from, last.at);
  }
  return Number.isFinite(from) ? from : undefined;
}

function join<T extends { from: number; to: number; cause: StretchCause }>(segments: T[]): T[] {
  const out: T[] = [];
  for (const s of segments) {
    const last = out.at(-1);
    if (last && last.cause === s.cause) last.to = s.to;
    else out.push({ ...s });
  }
  return out;
}

/** Merges the shortest stretch under `minMs` (or beyond {@link MAX_STRETCHES}) into its longer neighbour, until none is left. */
function smooth(segments: Array<{ from: number; to: number; cause: StretchCause }>, minMs: number): Array<{ from: number; to: number; cause: StretchCause }> {
  let s = join(segments);
  for (;;) {
    let shortest = -1;
    for (let i = 0; i < s.length; i++) {
      const seg = s[i]!;
      if (seg.cause === 'park' || s.length === 1) continue;
      const len = seg.to - seg.from;
      if (len >= minMs && s.length <= MAX_STRETCHES) continue;
      if (shortest < 0 || len < s[shortest]!.to - s[shortest]!.from) shortest = i;
    }
    if (shortest < 0) return s;
    const prev = s[shortest - 1];
    const next = s[shortest + 1];
    const into = !prev ? next : !next ? prev : prev.cause === 'park' ? next : next.cause === 'park' ? prev : prev.to - prev.from >= next.to - next.from ? prev : next;
    if (!into) return s;
    const seg = s[shortest]!;
    into.from = Math.min(into.from, seg.from);
    into.to = Math.max(into.to, seg.to);
    s.splice(shortest, 1);
    s = join(s);
  }
}

function describe(run: RunTrack, s: { from: number; to: number; cause: StretchCause }, clock: (ms: number) => string): Stretch {
  const projects = [...run.projects.values()];
  let requests = 0;
  let rateLimited = 0;
  const fromSec = Math.floor((s.from - run.header.t0) / 1000);
  const toSec = Math.ceil((s.to - run.header.t0) / 1000);
  for (const p of projects) {
    for (let sec = fromSec; sec < toSec; sec++) requests += p.sent[sec] ?? 0;
    for (const [kind, bySec] of p.failures) {
      if (!kind.startsWith('429')) continue;
      for (const [sec, n] of bySec) if (sec >= fromSec && sec < toSec) rateLimited += n;
    }
  }
  const each = (f: (p: ProjectTrack) => string | undefined) =>
    projects
      .map((p) => {
        const v = f(p);
        return v === undefined ? undefined : projects.length > 1 ? `project ${p.name}: ${v}` : v;
      })
      .filter((v): v is string => v !== undefined)
      .join('; ');
  const limitAt = (p: ProjectTrack, key: 'rpm' | 'tpm' | 'rpd') => {
    const l = [...p.limits].reverse().find((x) => x.at <= s.to) ?? p.limits[0];
    const v = l?.[key];
    return v === undefined ? undefined : formatCount(v);
  };
  const perMinute = (s.to - s.from) > 0 ? (requests * 60_000) / (s.to - s.from) : 0;
  let words: string;
  switch (s.cause) {
    case 'rpm':
      words = `requests were paced to the RPM limit (${each((p) => `${limitAt(p, 'rpm')}/min`)})`;
      break;
    case 'tpm':
      words = `input tokens were paced to the TPM limit (${each((p) => `${limitAt(p, 'tpm')} tokens/min`)})`;
      break;
    case 'rpd':
      words = `the daily request quota (${each((p) => (limitAt(p, 'rpd') ? `RPD ${limitAt(p, 'rpd')}` : undefined)) || 'RPD'})`;
      break;
    case 'concurrency': {
      const bound = each((p) => {
        const inside = p.inFlight.filter((f) => f.at >= s.from && f.at <= s.to + 1000);
        return inside.length > 0 ? `${formatCount(Math.max(...inside.map((f) => f.bound)))} in flight allowed` : undefined;
      });
      words = `every request slot was taken: answers came too slowly for the quota at this concurrency${bound ? ` (${bound})` : ''}`;
      break;
    }
    case 'cpu':
      words = "this process's CPU was the bottleneck (the event loop was busy)";
      break;
    case 'pause': {
      const why = each((p) => p.holds.find((h) => h.kind === 'pause' && h.at <= s.to && (h.until ?? 0) >= s.from)?.reason);
      words = `sending stopped for the server's retryDelay after a 429${why ? ` (${why})` : ''}`;
      break;
    }
    case 'backoff':
      words = 'rows were waiting out their retry backoff after failures (5xx, timeouts, resets)';
      break;
    case 'input':
      words = 'rows were read from the input slower than they could be sent';
      break;
    case 'finishing':
      words = 'every row was sent; waiting for the last answers';
      break;
    case 'park': {
      const parks = each((p) => {
        const h = p.holds.at(-1);
        return h && h.kind === 'park' ? `${h.reason}, parked until ${h.until !== undefined ? clock(h.until) : '?'}` : undefined;
      });
      words = `every project was parked by its daily quota (${parks}); the run stopped`;
      break;
    }
    default:
      words = s.cause;
  }
  return {
    from: s.from,
    to: s.to,
    cause: s.cause,
    name: CAUSE_NAMES[s.cause] ?? s.cause,
    words: `${words}; ${formatCount(requests)} requests in ${span(s.to - s.from)} (${formatCount(Math.round(perMinute))}/min)${rateLimited > 0 ? `, ${countOf(rateLimited, '429')}` : ''}`,
    requests,
    rateLimited,
  };
}
