/** Reads the verbatim Gemini payloads of test/fixtures/gemini (see its README for sources). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Fixture texts already read, by file name: a test that fails thousands of requests with one payload reads it once. */
const texts = new Map<string, string>();

/** The text of a fixture file, e.g. `429-a-free-tpm-old-format.json` (read once per process; the files never change). */
export function fixtureText(name: string): string {
  let text = texts.get(name);
  if (text === undefined) {
    text = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'gemini', name), 'utf8');
    texts.set(name, text);
  }
  return text;
}

/** The parsed JSON of a fixture file. */
export function fixtureJson<T = unknown>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}
