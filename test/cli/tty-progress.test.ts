/**
 * The progress bar as a terminal shows it (src/report/tty-reporter.ts, issue 17 "Untested paths"): classify in-process
 * with a fake TTY as stdout (`isTTY`, 100 columns) — the header as plain lines, then the bar redrawn in place, a notice
 * on its own line with the bar drawn again under it, the cursor and line wrapping given back whenever the bar stops,
 * and the summary under the last frame. With `-o -` the CSV alone goes to stdout and the bar to stderr.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const COLUMNS = 100;
const ESC = '\u001b';
/** cli-progress saves the cursor where the bar goes before its first frame. */
const SAVE_CURSOR = `${ESC}7`;
const HIDE_CURSOR = `${ESC}[?25l`;
const SHOW_CURSOR = `${ESC}[?25h`;
const NO_WRAP = `${ESC}[?7l`;
const WRAP = `${ESC}[?7h`;
/** Where cli-progress starts each frame: the cursor to column 1. */
const FRAME = `${ESC}[1G`;

/** A terminal as cli-progress sees one: `isTTY` and a width; it keeps the bytes written. */
class FakeTty extends Writable {
  readonly isTTY = true;
  readonly columns = COLUMNS;
  readonly rows = 40;
  text = '';

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** The frames the bar drew, without escape sequences. */
function frames(text: string): string[] {
  return text
    .split(FRAME)
    .slice(1)
    .map((f) => f.split(ESC)[0]!);
}

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-tty-'));
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: 300 }, (_, i) => `${i},topic ${i}`).join('\n')}\n`);
  // A job whose journal's last line is torn: the next run says so in a notice, while its bar is up.
  const first = await runMain(['classify', 'rows.csv', '--prompt', '{{text}}', '--labels', 'a,b', '--simulate', '--limit', '5'], { cwd: dir });
  expect(first.code).toBe(0);
  const journal = path.join(dir, 'rows.gemini-batch', 'journal.jsonl');
  truncateSync(journal, readFileSync(journal).length - 20);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the progress bar on a terminal', () => {
  it('draws in place under the header, prints a notice on its own line, gives the cursor back, and ends with the summary', async () => {
    const tty = new FakeTty();
    const result = await runMain(['classify', 'rows.csv', '--prompt', '{{text}}', '--labels', 'a,b', '--simulate'], { cwd: dir, stdout: tty });
    expect(result.code).toBe(0);
    const text = tty.text;

    // The header: plain lines before the first frame.
    const header = text.slice(0, text.indexOf(SAVE_CURSOR));
    expect(header).toContain('300 rows: 4 kept from earlier runs, 296 to send');
    expect(header).not.toContain(ESC);
    expect(text).not.toMatch(/^\[\d+s\] /m); // no plain progress lines: those are for pipes and files

    // Each time the bar starts it hides the cursor and line wrapping, and each time it stops it gives both back.
    const starts = text.split(HIDE_CURSOR).length - 1;
    expect(starts).toBeGreaterThanOrEqual(2); // the first bar, and the bar drawn again after the notice
    expect(text.split(SHOW_CURSOR).length - 1).toBe(starts);
    expect(text.split(NO_WRAP).length - 1).toBe(starts);
    expect(text.split(WRAP).length - 1).toBe(starts);

    // The notice: its own line, between two bars.
    const notice = text.indexOf("\n! the journal's last line was torn");
    expect(notice).toBeGreaterThan(text.indexOf(HIDE_CURSOR));
    expect(text.lastIndexOf(SHOW_CURSOR, notice)).toBeGreaterThan(text.lastIndexOf(HIDE_CURSOR, notice)); // the bar was stopped first
    expect(text.indexOf(FRAME, notice)).toBeGreaterThan(notice); // and is drawn again under it

    // Every frame fits the terminal; the last one counts every row.
    const drawn = frames(text);
    for (const frame of drawn) expect(frame.length).toBeLessThan(COLUMNS);
    expect(drawn.at(-1)).toMatch(/ 300\/300 rows \| [\d.]+ rows\/s \| ETA /);

    // The summary starts on a line of its own, after the cursor was given back.
    const summary = text.indexOf('\nfinished: every row ok.');
    expect(summary).toBeGreaterThan(text.lastIndexOf(SHOW_CURSOR));
    expect(text.slice(summary)).toContain('rows: 300 — ok 300');
    expect(text.slice(summary)).not.toContain(ESC);
  });

  it('with -o - the CSV alone goes to stdout, the bar to stderr', async () => {
    const stdout = new FakeTty();
    const stderr = new FakeTty();
    const result = await runMain(['classify', 'rows.csv', '--prompt', '{{text}}', '--labels', 'a,b', '--simulate', '-o', '-', '--limit', '20'], { cwd: dir, stdout, stderr });
    expect(result.code).toBe(0);
    expect(stdout.text).not.toContain(ESC);
    const rows = parse<Record<string, string>>(stdout.text, { columns: true });
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    expect(rows.every((r) => r.status === 'ok')).toBe(true);
    expect(stderr.text).toContain(HIDE_CURSOR);
    expect(frames(stderr.text).at(-1)).toMatch(/ 20\/20 rows /);
    expect(stderr.text).toContain('\nfinished: every row ok.');
  });
});
