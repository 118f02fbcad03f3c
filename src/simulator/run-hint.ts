/**
 * The `run:` line of the `simulate` banner: a classify command that works when pasted as is — the sample spreadsheet
 * and prompt shipped with the package, keys the simulator accepts, and this simulator's URL.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatCommand } from '../invocation.js';
import type { Scenario } from './types.js';

/** Rows the hint classifies: a minute or two even at the free tier's 10 RPM. */
export const HINT_ROWS = 20;

/** What the hint needs to know. */
export interface RunHintOptions {
  /** The simulator's base URL, e.g. `http://127.0.0.1:8765`. */
  url: string;
  scenario: Scenario;
  /** The scenario file as given to `--config`; undefined for the generous built-in scenario. */
  config: string | undefined;
  /** How gemini-batch is run here (`npx gemini-batch`…; see invocation.ts). */
  prefix: string;
  /** The directory paths in the hint are relative to. */
  cwd: string;
}

/**
 * The keys file of a scenario: `<name>.keys.txt` beside `<name>.json`, one `PROJECT KEY` a line (the format of
 * `--keys-file`). samples/scenarios/ ships one for each example scenario.
 */
export function scenarioKeysFile(config: string): string {
  return `${config.replace(/\.json$/i, '')}.keys.txt`;
}

/**
 * Lines for the banner: `run: <command>`, and a second line when the command cannot carry the keys by itself (a
 * scenario with keys of its own and no keys file beside it).
 */
export function runHint(o: RunHintOptions): string[] {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const shown = (file: string) => {
    const relative = path.relative(o.cwd, file);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
  };
  const sample = (name: string) => shown(path.join(root, 'samples', name));
  const args = ['classify', sample('topics.csv'), '--prompt-file', sample('prompt.txt'), '--labels', 'yes,no', '--limit', String(HINT_ROWS)];
  const keysFile = o.config !== undefined ? scenarioKeysFile(o.config) : undefined;
  let envPrefix = '';
  const notes: string[] = [];
  if (keysFile !== undefined && existsSync(keysFile)) args.push('--keys-file', shown(path.resolve(keysFile)));
  else if (o.scenario.acceptAnyKey || o.scenario.projects.every((p) => p.keys.length === 0)) envPrefix = 'GEMINI_API_KEY=sim-any-key ';
  else {
    args.push('--keys-file', 'KEYS.txt');
    notes.push(
      `  KEYS.txt: the scenario's keys, one "PROJECT KEY" a line; saved as ${keysFile ?? 'SCENARIO.keys.txt'} beside the scenario, this hint names it`,
    );
  }
  args.push('--base-url', o.url, '--job-dir', 'sim-trial.gemini-batch', '-o', 'sim-trial.csv');
  return [`run: ${envPrefix}${formatCommand(o.prefix, args)}`, ...notes];
}
