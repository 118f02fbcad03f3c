/**
 * Go-style duration strings, as OpenAI writes them in `x-ratelimit-reset-*` headers and in "Please try again in …"
 * messages (`140ms`, `1s`, `1.5s`, `6m0s`; docs/reference/batch-openai-vertex-facts.md §b.2, fixtures in test/fixtures/openai/):
 * the format of Go's time.Duration.String() at millisecond precision.
 */

/**
 * `ms` (rounded up to a whole millisecond) as a Go duration: `0s`; below a second `Nms`; else `[Hh][Mm]S[.fff]s` with
 * the minutes shown whenever hours are, and the seconds' trailing zeros dropped (`1h0m0s`, `6m0s`, `17.087s`).
 */
export function goDuration(ms: number): string {
  if (!(ms > 0)) return '0s';
  const whole = Math.max(1, Math.ceil(ms - 1e-9));
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const millis = whole % 60_000;
  const seconds = `${Math.floor(millis / 1000)}${millis % 1000 === 0 ? '' : `.${String(millis % 1000).padStart(3, '0').replace(/0+$/, '')}`}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}
