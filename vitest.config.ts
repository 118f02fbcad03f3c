import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // forks: test/support/run-main.ts chdirs, which worker threads cannot.
    pool: 'forks',
    // One process per worker for every file it runs, not one per file: 27 files start a simulator, and each fresh
    // process paid the module imports (and then the tokenizer's ~1 s warm-up, now ~0.1 s) again. Measured on 2 shared
    // cores: the whole suite took 148 s of CPU isolated and 70 s not. Tests restore what they change (timers, mocks,
    // cwd, handlers).
    isolate: false,
    // Vitest's default is one worker less than the cores (1 on 2 cores). Many tests wait on sockets, timers, backoffs and
    // spawned CLIs, so workers beyond the cores keep the cores busy. Measured side by side on 2 cores (vitest run, after
    // the torture tests were sized): 3 workers 41.5, 42.0, 39.4 s; 4 workers 37.5, 39.4, 37.2 s; 5 workers 35.7, 38.0 s
    // against 4's 35.9, 36.4 s (earlier, with the heavier suite: 2 workers 74 s, 3 workers 57 s, 4 workers 60 s).
    maxWorkers: availableParallelism() + 2,
    reporters: ['default', './test/support/count-reporter.ts'],
    // `npm run coverage`: what the tests run in-process (a spawned CLI is not counted). The text table has a row per
    // folder (src/job, src/config…) and per file; coverage/index.html has the lines.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text', 'json-summary', 'html'],
    },
  },
});
