/**
 * The `run:` line of the `simulate` banner: a classify command that works when pasted as is — the sample spreadsheet
 * and prompt shipped with the package, keys the simulator accepts, and this simulator's URL.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
 * Writes the keys of a scenario that has none beside it (`scenarioKeysFile(config)`, else a new file in the system's
 * temporary directory when that one cannot be created) in the `--keys-file` format, so that the hint can name a file
 * that exists. The keys are the scenario's own made-up ones, not Google API keys.
 * @returns the path written.
 */
export function writeScenarioKeysFile(config: string, scenario: Scenario): string {
  const text = [
    `# Test keys of ${path.basename(config)}, for classify --keys-file against \`gemini-batch simulate --config ${path.basename(config)}\`.`,
    '# They are the simulator\'s made-up keys, not Google API keys: one "PROJECT KEY" a line.',
    ...scenario.projects.flatMap((p) => p.keys.map((k) => `${p.id} ${k.key}`)),
    '',
  ].join('\n');
  const beside = scenarioKeysFile(config);
  try {
    writeFileSync(beside, text, { flag: 'wx', mode: 0o600 });
    return beside;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return beside; // written meanwhile: that one is used
  }
  const elsewhere = path.join(mkdtempSync(path.join(tmpdir(), 'gemini-batch-sim-')), path.basename(beside));
  writeFileSync(elsewhere, text, { flag: 'wx', mode: 0o600 });
  return elsewhere;
}

/**
 * Lines for the banner: `run: <command>`, and a second line when the scenario's keys file had to be written first (a
 * scenario with keys of its own and no keys file beside it): every printed command runs as printed.
 * @throws Error from the file system when no keys file can be written, beside the scenario or in the temporary directory.
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
  else if (keysFile !== undefined && o.config !== undefined) {
    const written = shown(path.resolve(writeScenarioKeysFile(o.config, o.scenario)));
    args.push('--keys-file', written);
    notes.push(`  keys: the scenario's keys were written to ${written} (one "PROJECT KEY" a line) for --keys-file`);
  }
  args.push('--base-url', o.url, '--job-dir', 'sim-trial.gemini-batch', '-o', 'sim-trial.csv');
  return [`run: ${envPrefix}${formatCommand(o.prefix, args)}`, ...notes];
}
