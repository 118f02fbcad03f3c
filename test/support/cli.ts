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

/** Starts the CLI; the caller may kill it. */
export function spawnCli(args: string[], options: { cwd: string; env?: Record<string, string> }): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [binPath, ...args], { cwd: options.cwd, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Runs the CLI to the end. */
export function runCli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return spawnCli(args, options).done;
}
