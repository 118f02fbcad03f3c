// ESLint with typescript-eslint's type-aware rules over src/ and test/ (`npm run lint`, which type-checks the tests
// first). CI runs it in .ci/run, not in `npm test`: type-aware linting costs about a minute of CPU. One TypeScript
// program serves both folders: test/tsconfig.json includes src/ and test/.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'coverage/', 'bench/', 'bin/', 'scripts/', '**/*.js', '**/*.mjs', '**/*.cjs']),
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'vitest.config.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./test/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection ends the process) and its ordering.
      // Where not waiting is the point, `void` it with a comment saying why that is safe.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a callback's result is ignored (an event handler, forEach) drops its rejection.
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union without a default names every member, so a new status, finish reason or failure kind
      // cannot be missed. A `default:` is a decision about the rest (the simulator's fault kinds, csv-parse's many
      // error codes) and counts as handling it.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Off: an async function without await is deliberate here. It implements a Promise-returning interface (the
      // fakes in test/, Endpoint.close) or makes a throw a rejection (Journal.open), which callers rely on.
      '@typescript-eslint/require-await': 'off',
      // A value caught from a stream's 'error' event or a catch is rethrown as it came (unknown): wrapping it would
      // change what callers branch on. Throwing anything else that is not an Error stays an error.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Off in tests only: they read the simulator's and the SDKs' raw JSON (`JSON.parse`, `Response.json()`) as
      // `any` and assert its shape with expect, which fails on a wrong shape; src/ keeps these rules on.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);
