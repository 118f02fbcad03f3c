/**
 * Runs the CLI in-process: `main()` of src/cli.ts with fake streams (no TTY), an environment of the test's choosing (no
 * key from the developer's shell) and a working directory, so relative paths in `args` resolve as they would in a
 * shell there. Much faster than spawning bin/gemini-batch.js, and it tests src/, not a stale dist/. Spawn the CLI
 * (./cli.ts) only where a signal or a kill is the point: a second Ctrl-C calls `process.exit`.
 *
 * The working directory is the process's: each call chdirs into `cwd` and back, and calls are serialized within a test
 * file (one vitest fork), so tests may await several `runMain` at once. This needs vitest's `forks` pool
 * (vitest.config.ts); worker threads cannot chdir. `-o -` writes its CSV to the fake stdout (`Io.stdout`), as the
 * real CLI writes it to the process's.
 */
import { Writable } from 'node:stream';
import { main } from '../../src/cli.js';

export interface MainResult {
  /** The exit code main() returned (`ExitCode` of src/errors.ts). */
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunMainOptions {
  /** The working directory the command runs in. */
  cwd: string;
  /** The whole environment the command sees (default empty: no key, no base URL, no npm_command). */
  env?: Record<string, string>;
  /** Called with each chunk as it is written, e.g. to send a SIGINT once the job has started. */
  onWrite?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** A stdout of the test's own instead of the captured one (e.g. {@link ClosedPipe}); `stdout` is then ''. */
  stdout?: Writable;
  /** A stderr of the test's own instead of the captured one; `stderr` is then ''. */
  stderr?: Writable;
}

/** A writable that keeps what is written; `isTTY` false, so classify prints plain lines. */
class CapturedStream extends Writable {
  text = '';
  readonly isTTY = false;

  constructor(private readonly onText: (text: string) => void) {
    super({ decodeStrings: false });
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.text += text;
    this.onText(text);
    done();
  }
}

/** A stdout whose reader has gone (`| head` after it exits): every write fails with EPIPE, as a closed pipe does. */
export class ClosedPipe extends Writable {
  /** Writes attempted (each failed). */
  writes = 0;

  override _write(_chunk: unknown, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.writes++;
    done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' }));
  }
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `gemini-batch <args…>` in-process and resolves when main() returns. Never rejects for a failing command: the
 * exit code and the streams say what happened.
 * @throws Error when the process cannot chdir (a worker-thread pool).
 */
export function runMain(args: readonly string[], options: RunMainOptions): Promise<MainResult> {
  const run = queue.then(() => runNow(args, options));
  queue = run.catch(() => undefined);
  return run;
}

async function runNow(args: readonly string[], options: RunMainOptions): Promise<MainResult> {
  const stdout = new CapturedStream((text) => options.onWrite?.('stdout', text));
  const stderr = new CapturedStream((text) => options.onWrite?.('stderr', text));
  const before = process.cwd();
  try {
    process.chdir(options.cwd);
  } catch (error) {
    throw new Error(`runMain needs a process that can chdir (vitest pool 'forks'): ${String(error)}`, { cause: error });
  }
  try {
    const code = await main(['node', 'gemini-batch', ...args], { stdout: options.stdout ?? stdout, stderr: options.stderr ?? stderr, env: { ...options.env } });
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    process.chdir(before);
  }
}
