import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { acquireJobLock } from '../../src/journal/job-lock.js';
import { defaultJobDir, jobFiles, refuseSymlinks, resetJobDir } from '../../src/journal/job-dir.js';
import { Journal } from '../../src/journal/journal.js';
import { writeManifest } from '../../src/journal/manifest.js';
import { entry, tempDir } from './entries.js';

let dir: string;
let remove: () => void;
beforeEach(() => ({ dir, remove } = tempDir('gb-jobdir-')));
afterEach(() => remove());

describe('job directory', () => {
  it('sits beside the input and keeps its extension', () => {
    expect(defaultJobDir(path.join('data', 'topics.csv'))).toBe(path.join('data', 'topics.gemini-batch'));
    expect(defaultJobDir('topics.xlsx')).toBe('topics.gemini-batch');
    expect(defaultJobDir('/abs/dir/no-extension')).toBe('/abs/dir/no-extension.gemini-batch');
  });

  it('names its files', () => {
    expect(jobFiles('/j')).toEqual({
      manifest: '/j/manifest.json',
      journal: '/j/journal.jsonl',
      quotaUsage: '/j/quota-usage.json',
      requests: '/j/requests.log',
      lock: '/j/lock',
      runs: '/j/runs.jsonl',
      batches: '/j/batches.jsonl',
      batchFiles: '/j/batches',
      events: '/j/events.log',
    });
  });

  it('resets a job: removes its results and temporaries, keeps the lock', async () => {
    const jobDir = path.join(dir, 'topics.csv.gemini-batch');
    const release = await acquireJobLock(jobDir);
    const files = jobFiles(jobDir);
    const journal = await Journal.open(files.journal);
    journal.append(entry(0));
    await journal.close();
    fs.writeFileSync(files.manifest, '{}');
    fs.writeFileSync(files.quotaUsage, '{}');
    fs.writeFileSync(path.join(jobDir, '.manifest.json.tmp-123'), '');
    fs.writeFileSync(files.batches, '');
    fs.mkdirSync(files.batchFiles);
    fs.writeFileSync(path.join(files.batchFiles, 'b0001.jsonl'), '{}\n');
    await resetJobDir(jobDir);
    expect(fs.readdirSync(jobDir)).toEqual(['lock']);
    await release();
  });

  it('refuses to reset a directory holding files that are not a job\'s, and removes nothing', async () => {
    const files = jobFiles(dir);
    await writeManifest(dir, { format: 1 } as never);
    fs.writeFileSync(files.journal, '');
    fs.writeFileSync(path.join(dir, 'thesis.docx'), 'mine');
    const error = await resetJobDir(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe('JOB_DIR_FOREIGN_FILES');
    expect((error as UsageError).message).toContain('thesis.docx');
    expect(fs.readdirSync(dir).sort()).toEqual(['journal.jsonl', 'manifest.json', 'thesis.docx']);
  });

  it('has nothing to reset when the directory does not exist, and refuses a file', async () => {
    await resetJobDir(path.join(dir, 'missing'));
    const file = path.join(dir, 'file');
    fs.writeFileSync(file, '');
    await expect(resetJobDir(file)).rejects.toMatchObject({ code: 'JOB_DIR_NOT_A_DIRECTORY', exitCode: 2 });
  });

  it('refuses a job directory whose files are symbolic links (issue 11 item 8)', async () => {
    const jobDir = path.join(dir, 'job');
    fs.mkdirSync(jobDir);
    fs.writeFileSync(path.join(dir, 'victim'), '');
    await expect(refuseSymlinks(jobDir)).resolves.toBeUndefined();
    for (const name of ['journal.jsonl', 'runs.jsonl', 'requests.log']) {
      fs.symlinkSync(path.join(dir, 'victim'), path.join(jobDir, name));
      await expect(refuseSymlinks(jobDir)).rejects.toMatchObject({ code: 'JOB_DIR_SYMLINK', exitCode: 2, message: expect.stringContaining(name) });
      fs.rmSync(path.join(jobDir, name));
    }
  });
});
