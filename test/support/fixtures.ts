/** Reads the verbatim Gemini payloads of test/fixtures/gemini (see its README for sources). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The text of a fixture file, e.g. `429-a-free-tpm-old-format.json`. */
export function fixtureText(name: string): string {
  return readFileSync(path.join(repoRoot, 'test', 'fixtures', 'gemini', name), 'utf8');
}

/** The parsed JSON of a fixture file. */
export function fixtureJson<T = unknown>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}
