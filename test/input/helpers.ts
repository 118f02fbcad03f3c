/** Shared helpers of the input tests. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { InputError } from '../../src/errors.js';
import type { InputRecord, InputSource } from '../../src/input/input-source.js';

/** Path of a file in test/fixtures/data (copies of public files, see SOURCES.md there, and synthetic files). */
export function fixture(name: string): string {
  return resolve(import.meta.dirname, '..', 'fixtures', 'data', name);
}

/** Every record of a source, in order. */
export async function readAll(source: InputSource): Promise<InputRecord[]> {
  const records: InputRecord[] = [];
  for await (const record of source.records()) records.push(record);
  return records;
}

/** A temporary directory for files a test writes; `cleanup()` removes it. */
export async function scratchDir(): Promise<{ dir: string; file: (name: string, content: string | Uint8Array) => Promise<string>; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'gemini-batch-input-'));
  return {
    dir,
    file: async (name, content) => {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Awaits `promise`, expects an InputError and returns it. */
export async function inputErrorOf(promise: Promise<unknown>): Promise<InputError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}
