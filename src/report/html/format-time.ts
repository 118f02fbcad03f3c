/** How the report writes instants (UTC) and spans of time. */

/** `2026-12-01 10:53:47 UTC`. */
export function utc(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** `10:53:47` (UTC). */
export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** `0.4 s`, `12 s`, `3 min 05 s`, `2 h 10 min`. */
export function span(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}
