/**
 * A {@link QuotaDay} whose days run midnight to midnight in one IANA time zone, DST-aware: Gemini's and Vertex's follow
 * America/Los_Angeles (./gemini/quota-day.ts), a provider without a known zone follows UTC.
 */
import type { QuotaDay } from './contract.js';

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * The calendar of `zone`.
 * @param zone an IANA zone name (`America/Los_Angeles`, `UTC`).
 * @param label how messages name the zone (`PT`, `UTC`).
 * @throws RangeError when the zone is not known to Intl.
 */
export function zonedQuotaDay(zone: string, label: string): QuotaDay {
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const wallClock = (ms: number): WallClock => {
    const parts: Record<string, number> = {};
    for (const part of formatter.formatToParts(new Date(ms))) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    return { year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0, hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0 };
  };
  const dayOf = (ms: number): string => {
    const w = wallClock(ms);
    return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
  };
  /** UTC offset of the zone at an instant, ms (UTC − local: 7 h in PDT, 8 h in PST). */
  const offsetAt = (ms: number): number => {
    const w = wallClock(ms);
    const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
    return Math.round((ms - (ms % 1000) - asUtc) / 60_000) * 60_000;
  };
  return {
    zone: label,
    dayOf,
    nextBoundary(ms) {
      const w = wallClock(ms);
      const wallMidnight = Date.UTC(w.year, w.month - 1, w.day + 1, 0, 0, 0);
      // A DST change between now and midnight shifts the offset; settle on the offset at the candidate.
      return wallMidnight + offsetAt(wallMidnight + offsetAt(ms));
    },
    clock(ms) {
      const w = wallClock(ms);
      return `${dayOf(ms)} ${String(w.hour).padStart(2, '0')}:${String(w.minute).padStart(2, '0')} ${label}`;
    },
  };
}

/** Days in UTC, for providers whose daily limits follow no published zone. */
export const UTC_DAY: QuotaDay = zonedQuotaDay('UTC', 'UTC');
