/**
 * The numbers each chart of a project in a run draws, at most {@link MAX_POINTS} points a series:
 * - requests and input tokens in the rolling 60 s window ending at each second — what the server's per-minute quota
 *   counts — shown per point as the most in any window ending within it, beside the RPM and TPM limits in force;
 * - failures (429s by quotaId, 5xx, timeouts, no connection) per point;
 * - the most requests in flight per second beside the concurrency bound;
 * - latency percentiles p50/p90/p99 of HTTP 200 answers per slot (./event-digest.ts).
 * Times are ms since epoch.
 */
import { percentile, type ProjectTrack, type RunTrack } from './event-digest.js';

/** Points per series at most. */
export const MAX_POINTS = 600;

export interface Point {
  t: number;
  v: number;
  s: string;
}

export interface ProjectSeries {
  /** Seconds per point. */
  stepSeconds: number;
  requests: Point[];
  rpmLimit: Point[];
  tokens: Point[];
  tpmLimit: Point[];
  failures: Point[];
  inFlight: Point[];
  bound: Point[];
  latency: Point[];
}

export const SERIES = {
  requests: 'requests in 60 s',
  rpm: 'RPM limit',
  tokens: 'input tokens in 60 s',
  tpm: 'TPM limit',
  inFlight: 'in flight',
  bound: 'concurrency bound',
  p50: 'p50',
  p90: 'p90',
  p99: 'p99',
  rpd: 'RPD limit',
  perDay: 'requests',
} as const;

/** The series of `project` in `run`. */
export function projectSeries(run: RunTrack, project: ProjectTrack): ProjectSeries {
  const t0 = run.header.t0;
  // Seconds since t0: the charts start at the run's first event (after its start-up) and end at its last.
  const first = Math.max(0, Math.floor((Math.min(run.start, run.end) - t0) / 1000));
  const seconds = Math.max(first + 1, Math.ceil((run.end - t0) / 1000));
  const step = Math.max(1, Math.ceil((seconds - first) / MAX_POINTS));
  const points = Math.ceil((seconds - first) / step);
  const at = (i: number) => t0 + Math.min(seconds, first + (i + 1) * step) * 1000;
  const pointOf = (sec: number) => Math.max(0, Math.min(points - 1, Math.floor((sec - first) / step)));
  const rolling = (perSecond: number[], name: string): Point[] => {
    const out: Point[] = [];
    let window = 0;
    for (let sec = Math.max(0, first - 60); sec < first; sec++) window += perSecond[sec] ?? 0;
    let best = 0;
    for (let sec = first; sec < first + points * step; sec++) {
      window += perSecond[sec] ?? 0;
      if (sec >= 60) window -= perSecond[sec - 60] ?? 0;
      if (window > best) best = window;
      if ((sec - first + 1) % step === 0) {
        out.push({ t: at(Math.floor((sec - first) / step)), v: best, s: name });
        best = 0;
      }
    }
    return out;
  };
  const limit = (key: 'rpm' | 'tpm', name: string): Point[] => {
    const out: Point[] = project.limits.filter((l) => l[key] !== undefined).map((l) => ({ t: Math.max(t0, l.at), v: l[key] as number, s: name }));
    const last = out.at(-1);
    if (last) out.push({ t: run.end, v: last.v, s: name });
    return out;
  };
  const failures: Point[] = [];
  for (const [kind, bySec] of project.failures) {
    const perPoint = new Map<number, number>();
    for (const [sec, n] of bySec) perPoint.set(pointOf(sec), (perPoint.get(pointOf(sec)) ?? 0) + n);
    for (const [i, n] of [...perPoint].sort((a, b) => a[0] - b[0])) failures.push({ t: at(i), v: n, s: kind });
  }
  const inFlight: Point[] = project.inFlight.map((f) => ({ t: f.at, v: f.inFlight, s: SERIES.inFlight }));
  const bound: Point[] = project.inFlight.map((f) => ({ t: f.at, v: f.bound, s: SERIES.bound }));
  const latency: Point[] = [];
  for (const [slot, h] of [...project.latency].sort((a, b) => a[0] - b[0])) {
    const t = t0 + Math.min(seconds, (slot + 0.5) * project.slotSeconds) * 1000;
    for (const [q, name] of [
      [0.5, SERIES.p50],
      [0.9, SERIES.p90],
      [0.99, SERIES.p99],
    ] as const) {
      const v = percentile(h, q);
      if (v !== undefined) latency.push({ t, v: Math.round(v), s: name });
    }
  }
  return {
    stepSeconds: step,
    requests: rolling(project.sent, SERIES.requests),
    rpmLimit: limit('rpm', SERIES.rpm),
    tokens: rolling(project.inputTokens, SERIES.tokens),
    tpmLimit: limit('tpm', SERIES.tpm),
    failures,
    inFlight: thin(inFlight),
    bound: thin(bound),
    latency,
  };
}

/** At most {@link MAX_POINTS} points: the largest of each run of consecutive points. */
function thin(points: Point[]): Point[] {
  if (points.length <= MAX_POINTS) return points;
  const per = Math.ceil(points.length / MAX_POINTS);
  const out: Point[] = [];
  for (let i = 0; i < points.length; i += per) {
    const group = points.slice(i, i + per);
    out.push({ ...group.reduce((a, b) => (b.v > a.v ? b : a)), t: group.at(-1)!.t });
  }
  return out;
}
