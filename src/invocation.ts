/**
 * How to print a gemini-batch command so that it runs as printed in the user's shell (the resume line, the simulator's
 * `run:` hint). After `npm install` in a clone the bare name is not on PATH; `npx gemini-batch` is.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * The words that start a gemini-batch command here:
 * - `npx gemini-batch` when this run came through npx or `npm exec` (npm sets `npm_command=exec`);
 * - `gemini-batch` when that name on `PATH` is this very program (`npm link`, `npm install -g`), or when `script` is a
 *   bare name rather than a path (an embedding, the in-process tests);
 * - otherwise `node <script>`, the path relative to `cwd` when it lies below it (`node bin/gemini-batch.js`).
 * @param script `process.argv[1]`: the path of the script node ran.
 * @param env the environment (`npm_command`, `PATH`).
 */
export function commandPrefix(script: string | undefined, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string {
  if (env.npm_command === 'exec') return 'npx gemini-batch';
  if (script === undefined || !script.includes(path.sep)) return 'gemini-batch';
  const self = realpathOrUndefined(script);
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'gemini-batch');
    if (existsSync(candidate) && self !== undefined && realpathOrUndefined(candidate) === self) return 'gemini-batch';
  }
  const relative = path.relative(cwd, script);
  const shown = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : script;
  return `node ${shellWord(shown)}`;
}

/** A word as a POSIX shell reads it back: bare when it holds only safe characters, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** A command line as typed: how gemini-batch was started (`commandPrefix`) and the arguments after it. */
export interface Invocation {
  prefix: string;
  args: readonly string[];
}

/** The command line a shell runs as printed: the prefix, then each argument quoted where needed. */
export function formatCommand(prefix: string, args: readonly string[]): string {
  return [prefix, ...args.map(shellWord)].join(' ');
}
