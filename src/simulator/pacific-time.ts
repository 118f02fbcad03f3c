/**
 * Pacific-day arithmetic for RPD: "Requests per day (RPD) quotas reset at midnight Pacific time"
 * (https://ai.google.dev/gemini-api/docs/rate-limits). DST-aware through Intl.DateTimeFormat with
 * `timeZone: 'America/Los_Angeles'`; no tz library.
 */

const TIME_ZONE = 'America/Los_Angeles';

const formatter = new Intl.DateTimeFormat('en-US', {
  timeZone: TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock date and time in Los Angeles at instant `epochMs`. */
function pacificWallClock(epochMs: number): WallClock {
  const out: WallClock = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatter.formatToParts(new Date(epochMs))) {
    if (part.type in out) out[part.type as keyof WallClock] = Number(part.value);
  }
  return out;
}

/** Los Angeles offset from UTC at `epochMs`, in ms (e.g. -8 h in winter, -7 h in summer). */
function pacificOffsetMs(epochMs: number): number {
  const w = pacificWallClock(epochMs);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/** The Pacific calendar day containing `epochMs`, as `YYYY-MM-DD`. */
export function pacificDayKey(epochMs: number): string {
  const w = pacificWallClock(epochMs);
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/**
 * The first instant (epoch ms) after `epochMs` at which the Los Angeles wall clock reads 00:00:00, i.e.
 * when RPD resets. Days are 23 h or 25 h long across DST changes (which happen at 02:00, never at midnight).
 */
export function nextPacificMidnight(epochMs: number): number {
  const w = pacificWallClock(epochMs);
  const wallMidnight = Date.UTC(w.year, w.month - 1, w.day + 1);
  let guess = wallMidnight - pacificOffsetMs(epochMs);
  guess = wallMidnight - pacificOffsetMs(guess);
  return guess;
}
