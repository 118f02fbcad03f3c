/**
 * Gemini's requests-per-day quota resets at midnight Pacific time (America/Los_Angeles, DST-aware), not UTC.
 * Source: https://ai.google.dev/gemini-api/docs/rate-limits ("Requests per day (RPD) quotas reset at midnight Pacific
 * time"), ../shared/reference/gemini-api-facts.md §1.1.
 */
const ZONE = 'America/Los_Angeles';
const formatter = new Intl.DateTimeFormat('en-US', {
  timeZone: ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(ms: number): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** The Pacific calendar day of an instant, `YYYY-MM-DD`. */
export function pacificDay(ms: number): string {
  const w = wallClock(ms);
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** UTC offset of Pacific time at an instant, ms (UTC − local: 7 h in PDT, 8 h in PST). */
function offsetAt(ms: number): number {
  const w = wallClock(ms);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((ms - (ms % 1000) - asUtc) / 60_000) * 60_000;
}

/** The next midnight in America/Los_Angeles strictly after `ms`, as ms since epoch. */
export function nextPacificMidnight(ms: number): number {
  const w = wallClock(ms);
  const wallMidnight = Date.UTC(w.year, w.month - 1, w.day + 1, 0, 0, 0);
  let candidate = wallMidnight + offsetAt(ms);
  // A DST change between now and midnight shifts the offset; settle on the offset at the candidate.
  candidate = wallMidnight + offsetAt(candidate);
  return candidate;
}

/** `HH:MM PT` of an instant, for messages like "capacity returns at 00:00 PT". */
export function pacificClock(ms: number): string {
  const w = wallClock(ms);
  return `${pacificDay(ms)} ${String(w.hour).padStart(2, '0')}:${String(w.minute).padStart(2, '0')} PT`;
}
