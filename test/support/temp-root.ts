/** A temporary folder for the tests of one file, with a named folder in it per test or group. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** A test file's temporary folder: `dir()` its path, `folder(name)` a folder in it (made if missing), by path. */
export interface TempRoot {
  readonly dir: () => string;
  readonly folder: (name: string) => string;
}

/**
 * Makes a folder named `prefix` and random characters in the system's temporary folder before the tests of the enclosing
 * scope (beforeAll), and removes it with all it holds after them (afterAll).
 */
export function tempRoot(prefix: string): TempRoot {
  let root: string | undefined;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });
  const dir = (): string => {
    if (root === undefined) throw new Error('tempRoot: used before its beforeAll ran');
    return root;
  };
  return {
    dir,
    folder: (name) => {
      const folder = path.join(dir(), name);
      mkdirSync(folder, { recursive: true });
      return folder;
    },
  };
}
