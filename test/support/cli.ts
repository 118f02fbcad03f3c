/** Runs the built CLI (bin/gemini-batch.js → dist/) as a subprocess, as a user would. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './fixtures.js';

export const binPath = path.join(repoRoot, 'bin', 'gemini-batch.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for the CLI: no real key or endpoint from the developer's shell leaks in. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: '' };
  return { ...env, ...extra };
}

/**
 * Starts the CLI; the caller may kill it. `waitFor(pattern)` resolves once stdout has printed a match (e.g. the notice
 * that the first Ctrl-C was handled), `waitUntil(what, condition)` once `condition()` holds (e.g. a journaled-row count),
 * so that tests wait for the program's state, not for a clock. Both reject, failing the test, when the CLI ends first
 * or the state is not reached within `timeoutMs` (a bound for a broken build, never a moment to act at).
 */
export function spawnCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): {
  child: ChildProcess;
  done: Promise<CliResult>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void>;
} {
  const child = spawn(process.execPath, [binPath, ...args], { cwd: options.cwd, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  const waitFor = async (pattern: RegExp, timeoutMs = 30_000): Promise<void> => {
    const until = Date.now() + timeoutMs;
    while (!pattern.test(stdout)) {
      if (child.exitCode !== null || Date.now() > until) throw new Error(`the CLI did not print ${pattern} (stdout so far: ${stdout.slice(-500)})`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const waitUntil = async (what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> => {
    const until = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the CLI ended before ${what} (exit ${child.exitCode}; stderr: ${stderr.slice(-500)})`);
      if (Date.now() > until) throw new Error(`the CLI did not reach ${what} in ${timeoutMs} ms (stdout so far: ${stdout.slice(-500)})`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { child, done, waitFor, waitUntil };
}

/** Runs the CLI to the end. */
export function runCli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return spawnCli(args, options).done;
}
