/**
 * Sizes of the torture tests. `npm test` runs them small enough to stay fast; `npm run test:torture` sets the
 * variables to the sizes their issues' "Done when" name (issue 5: a 3,000-row job SIGKILLed at 20 moments; issue 14: a
 * 2,000-row `--batch` job, and kills at 4 seeded random moments besides the named ones).
 */

/**
 * The integer in environment variable `name`, or `fallback` when it is unset or empty.
 * @throws Error when it is set to anything but an integer of at least `min`.
 */
export function testSize(name: string, fallback: number, min = 1): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer of at least ${min}, got ${JSON.stringify(value)}`);
  return n;
}
