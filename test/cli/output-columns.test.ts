/**
 * What the output file says and what the summary says about it (issue 12, "Free-form and output"): the answer column is
 * `answer` in free-form mode (`label` with labels, or --answer-column), and the summary counts the cells that formula
 * escaping changed and names --no-escape-formulas. In-process, with --simulate.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-output-columns-'));
  writeFileSync(path.join(dir, 'rows.csv'), 'id,text\n1,Refund please\n2,"=HYPERLINK(""x"")"\n3,-not a number\n4,-12.5\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (file: string) => parse<Record<string, string>>(readFileSync(path.join(dir, file)), { columns: true });

describe('the answer column', () => {
  it('is "answer" in free-form mode, "label" with labels, and --answer-column names it', async () => {
    const free = await runMain(['classify', 'rows.csv', '--prompt', 'Summarize: {{text}}', '--simulate', '-o', 'free.csv', '--job-dir', 'free-job'], { cwd: dir });
    expect(free.code).toBe(0);
    expect(Object.keys(read('free.csv')[0] ?? {})).toEqual(['id', 'text', 'answer', 'status', 'error']);
    expect(read('free.csv')[0]?.answer?.length).toBeGreaterThan(0);

    const labels = await runMain(['classify', 'rows.csv', '--prompt', 'Money? {{text}}', '--labels', 'yes,no', '--simulate', '-o', 'labels.csv', '--job-dir', 'labels-job'], { cwd: dir });
    expect(labels.code).toBe(0);
    expect(Object.keys(read('labels.csv')[0] ?? {})).toEqual(['id', 'text', 'label', 'status', 'error']);

    const named = await runMain(
      ['classify', 'rows.csv', '--prompt', 'Money? {{text}}', '--labels', 'yes,no', '--answer-column', 'is_money', '--simulate', '-o', 'named.csv', '--job-dir', 'labels-job'],
      { cwd: dir },
    );
    expect(named.code).toBe(0);
    expect(Object.keys(read('named.csv')[0] ?? {})).toEqual(['id', 'text', 'is_money', 'status', 'error']);
    expect(read('named.csv').map((r) => r.is_money)).toEqual(read('labels.csv').map((r) => r.label)); // the same job, resumed
  });

  it('--answer-column with --schema is a usage error', async () => {
    writeFileSync(path.join(dir, 'schema.json'), JSON.stringify({ type: 'object', properties: { topic: { type: 'string' } } }));
    const result = await runMain(['classify', 'rows.csv', '--prompt', '{{text}}', '--schema', 'schema.json', '--answer-column', 'x', '--simulate'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--answer-column');
  });
});

describe('formula escaping', () => {
  it('the summary says how many cells were escaped and names --no-escape-formulas; plain negative numbers are not counted', async () => {
    const escaped = await runMain(['classify', 'rows.csv', '--prompt', 'Money? {{text}}', '--labels', 'yes,no', '--simulate', '-o', 'escaped.csv', '--job-dir', 'esc-job'], { cwd: dir });
    expect(escaped.code).toBe(0);
    expect(escaped.stdout).toMatch(/formulas: 2 cells begin with = \+ - @ .*--no-escape-formulas keeps cells as they are/);
    expect(read('escaped.csv').map((r) => r.text)).toEqual(['Refund please', `'=HYPERLINK("x")`, "'-not a number", '-12.5']);

    const kept = await runMain(['classify', 'rows.csv', '--prompt', 'Money? {{text}}', '--labels', 'yes,no', '--simulate', '-o', 'kept.csv', '--job-dir', 'esc-job', '--no-escape-formulas'], { cwd: dir });
    expect(kept.code).toBe(0);
    expect(kept.stdout).not.toContain('formulas:');
    expect(read('kept.csv')[1]?.text).toBe('=HYPERLINK("x")');

    const jsonl = await runMain(['classify', 'rows.csv', '--prompt', 'Money? {{text}}', '--labels', 'yes,no', '--simulate', '-o', 'out.jsonl', '--job-dir', 'esc-job'], { cwd: dir });
    expect(jsonl.stdout).not.toContain('formulas:'); // JSONL is never escaped
  });
});
