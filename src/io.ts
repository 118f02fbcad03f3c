/**
 * The streams and environment a command runs with: the process's own in the real CLI (bin/gemini-batch.js), fakes in
 * tests (test/support/run-main.ts). Commands write only to these and read the environment only from `env`.
 */
export interface Io {
  /** Progress, plans, status; a progress bar when `isTTY` is true. */
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** Errors, and progress when the output itself goes to stdout (`-o -`). */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Keys (GEMINI_API_KEY…), GOOGLE_GEMINI_BASE_URL, npm_command (for the resume hint). */
  env: NodeJS.ProcessEnv;
}
