// Shared by the peer runners: arguments, the rows to classify, the prompt, and the result file.
// A runner classifies every row with labels yes/no and writes {rows, ok, failed, startedAt, endedAt, errors} as JSON.
import { readFileSync, writeFileSync } from 'node:fs';

/** `--name value` pairs from argv. */
export function args() {
  const out = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  return out;
}

/** The prompts, one per line of the rows file (JSON strings). */
export function prompts(file) {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

/** Keys as [{project, key}] from a keys file of `PROJECT KEY` lines. */
export function keys(file) {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => {
    const [project, key] = l.trim().split(/\s+/);
    return { project, key };
  });
}

export const LABELS = ['yes', 'no'];

/**
 * Writes the runner's result. `answers[i]` is the answer text or an Error. A row counts as done when it got an answer:
 * the benchmark measures rate governance, not label quality (LangChain's plain batch asks for free text).
 */
export function finish(file, answers, startedAt) {
  const endedAt = Date.now();
  let ok = 0;
  const errors = {};
  for (const a of answers) {
    if (typeof a === 'string' && a.length > 0) ok++;
    else {
      const kind = a instanceof Error ? String(a.status ?? a.name ?? 'Error') : 'bad-answer';
      errors[kind] = (errors[kind] ?? 0) + 1;
    }
  }
  writeFileSync(file, JSON.stringify({ rows: answers.length, ok, failed: answers.length - ok, startedAt, endedAt, errors }));
}
