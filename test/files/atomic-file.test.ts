/**
 * Issue 11 items 8 and 13: temporary files are created exclusively with unpredictable names, so a planted file or
 * symbolic link is never written through; those left by killed runs are removed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeStaleTemporaries, writeFileAtomic } from '../../src/files/atomic-file.js';
import { writeManifest } from '../../src/journal/manifest.js';
import { createOutputWriter } from '../../src/output/create-output-writer.js';

let dir: string;
let victim: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-atomic-'));
  victim = path.join(dir, 'victim.txt');
  fs.writeFileSync(victim, 'precious');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.on('error', reject);
    child.on('exit', () => resolve(child.pid!));
  });
}

describe('temporary files (issue 11 item 8)', () => {
  it('an output does not write through a symbolic link planted at the temporary name earlier versions used', async () => {
    const target = path.join(dir, 'out.csv');
    fs.symlinkSync(victim, path.join(dir, `.out.csv.tmp-${process.pid}`));
    const writer = await createOutputWriter({ target, columns: ['a', 'label', 'status', 'error'] });
    await writer.write(['1', 'yes', 'ok', '']);
    await writer.commit();
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
    expect(fs.readFileSync(target, 'utf8')).toContain('1,yes,ok,');
  });

  it('the manifest does not write through a symbolic link planted at the temporary name earlier versions used', async () => {
    fs.symlinkSync(victim, path.join(dir, `.manifest.json.tmp-${process.pid}`));
    await writeManifest(dir, {
      format: 1,
      tool: { name: 'gemini-batch', version: '0' },
      createdAt: new Date(0).toISOString(),
      input: { path: 'a.csv', size: 1, sha256: '0'.repeat(64), records: 1, columns: ['a'] },
      settings: {},
    });
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).format).toBe(1);
  });

  it('names temporaries unpredictably: two writes never use the same name', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const writer = await createOutputWriter({ target: path.join(dir, 'x.csv'), columns: ['a'] });
      for (const name of fs.readdirSync(dir)) if (name.startsWith('.x.csv.tmp-')) seen.add(name);
      await writer.abort();
    }
    expect(seen.size).toBe(5);
    for (const name of seen) expect(name).toMatch(new RegExp(`^\\.x\\.csv\\.tmp-${process.pid}-[0-9a-f]{16}$`));
  });

  it('writeFileAtomic replaces a file planted as a symbolic link instead of writing through it', async () => {
    const target = path.join(dir, 'quota-usage.json');
    fs.symlinkSync(victim, target);
    await writeFileAtomic(target, '{}');
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
    expect(fs.lstatSync(target).isSymbolicLink()).toBe(false);
  });
});

describe('leftover temporaries (issue 11 item 13)', () => {
  it('writing an output removes the temporaries that killed runs left beside it, and only those', async () => {
    const dead = await deadPid();
    const leftovers = [`.out.csv.tmp-${dead}`, `.out.csv.tmp-${dead}-0123456789abcdef`];
    const live = `.out.csv.tmp-${process.pid}-fedcba9876543210`; // a run of this process still writing
    const other = `.other.csv.tmp-${dead}-0123456789abcdef`; // another output's
    for (const name of [...leftovers, live, other]) fs.writeFileSync(path.join(dir, name), 'partial');
    const writer = await createOutputWriter({ target: path.join(dir, 'out.csv'), columns: ['a'] });
    await writer.write(['1']);
    await writer.commit();
    expect(fs.readdirSync(dir).sort()).toEqual([live, other, 'out.csv', 'victim.txt'].sort());
  });

  it('removeStaleTemporaries of a folder removes every dead process temporary and nothing else', async () => {
    const dead = await deadPid();
    for (const name of [`.manifest.json.tmp-${dead}-0123456789abcdef`, `.quota-usage.json.tmp-${dead}`, 'journal.jsonl', `.lock.tmp-${process.pid}-0123456789abcdef`]) {
      fs.writeFileSync(path.join(dir, name), '');
    }
    const removed = await removeStaleTemporaries(dir);
    expect(removed.sort()).toEqual([`.manifest.json.tmp-${dead}-0123456789abcdef`, `.quota-usage.json.tmp-${dead}`].sort());
    expect(fs.readdirSync(dir).sort()).toEqual([`.lock.tmp-${process.pid}-0123456789abcdef`, 'journal.jsonl', 'victim.txt'].sort());
  });
});
