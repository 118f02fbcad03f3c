/** The in-process runner of test/support/run-main.ts: streams captured, relative paths resolved in `cwd`, cwd restored. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-run-main-'));
  writeFileSync(path.join(dir, 'small.csv'), 'id,topic\n1,Invoices\n2,Shipping\n3,Refunds\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runMain', () => {
  it('returns the exit code and what was written to stdout and stderr', async () => {
    const version = await runMain(['--version'], { cwd: dir });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const usage = await runMain(['classify', 'small.csv', '--prompt', '{{topic}}', '--labels', 'a,b'], { cwd: dir });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('GEMINI_API_KEY');
  });

  it('resolves relative paths in cwd, writes plain lines (no TTY) and puts the process cwd back', async () => {
    const before = process.cwd();
    const seen: string[] = [];
    const result = await runMain(['classify', 'small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'money,other', '--simulate'], {
      cwd: dir,
      onWrite: (stream, text) => seen.push(`${stream}:${text}`),
    });
    expect(process.cwd()).toBe(before);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('\u001b['); // no cursor movement: the line reporter
    expect(seen.join('')).toContain('every row ok');
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'small.classified.csv')), { columns: true });
    expect(rows.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(existsSync(path.join(dir, 'small.gemini-batch', 'manifest.json'))).toBe(true);
  });

  it('serializes concurrent calls, each in its own cwd', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'gb-run-main-other-'));
    try {
      const [a, b] = await Promise.all([
        runMain(['status', 'small.csv'], { cwd: dir }),
        runMain(['status', 'small.csv'], { cwd: other }),
      ]);
      expect(a.code).toBe(0);
      expect(a.stdout).toContain('3');
      expect(b.code).toBe(2);
      expect(b.stderr).toContain('small.csv: no such file');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
