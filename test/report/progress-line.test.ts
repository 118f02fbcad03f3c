import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../src/report/progress-line.js';
import { estimateEta, type ProgressSnapshot } from '../../src/report/progress-snapshot.js';
import type { JobSummary } from '../../src/report/summary.js';
import { formatSummary } from '../../src/report/summary.js';
import { TtyReporter } from '../../src/report/tty-reporter.js';

function snapshot(over: Partial<ProgressSnapshot> = {}): ProgressSnapshot {
  return {
    done: 123_456,
    total: 1_000_000,
    byStatus: { ok: 123_450, failed: 3, blocked: 1, invalid_label: 2, invalid_output: 0, skipped: 0, pending: 876_544 },
    requests: 130_000,
    rateLimited: 12,
    retries: 40,
    inFlight: 50,
    tokens: { input: 12_345_678, output: 1_234_567, thoughts: 0 },
    elapsedMs: 600_000,
    rowsPerSecond: 205.7,
    etaMs: 4_265_000,
    binding: 'RPM',
    bindingLeftMs: undefined,
    costUsd: 12.3456,
    ...over,
  };
}

describe('progressLine', () => {
  it('at 120 columns every field shown is whole (the cost is not cut mid-number) and the line fits', () => {
    const line = progressLine(snapshot(), 120);
    expect(line.length).toBeLessThanOrEqual(119);
    expect(line).toContain('123,456/1,000,000 rows · 3 failed · 3 other not ok');
    if (line.includes('$')) expect(line).toContain('$12.35');
  });

  it('at any width, fields are whole or absent, and the count of rows and failures always shows', () => {
    const fields = ['205.7 rows/s', 'ETA 1h11m', 'binds: RPM', '429s 12', 'in 12,345,678 out 1,234,567', '$12.35'];
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 250 }), (columns) => {
        const line = progressLine(snapshot(), columns);
        expect(line.length).toBeLessThanOrEqual(columns - 1);
        const last = line.split(' | ').at(-1)!;
        if (columns >= 60) expect([...fields, '3 other not ok'].some((f) => last.endsWith(f))).toBe(true);
        // Fields left out must not show cut: the line ends in no prefix (2 characters or more) of one of them.
        const cut: string[] = [];
        for (const field of fields) {
          if (line.includes(field)) continue;
          for (let k = 2; k < field.length; k++) if (line.endsWith(field.slice(0, k))) cut.push(field.slice(0, k));
        }
        expect(cut, line).toEqual([]);
        if (columns >= 60) expect(line).toContain('123,456/1,000,000 rows · 3 failed');
        else expect(line).toContain('123,456/1,000,000');
      }),
      { numRuns: 200 },
    );
  });

  it('drops the least useful fields first: tokens and cost before the ETA', () => {
    const narrow = progressLine(snapshot(), 80);
    expect(narrow).toContain('ETA');
    expect(narrow).not.toContain('in 12,345,678');
  });

  it('while a 429 pause holds the run, shows the pause and an ETA after it, not the few seconds the rows would take', () => {
    const eta = estimateEta(10, 5, 58_000);
    expect(eta).toBe(60_000);
    const line = progressLine(snapshot({ done: 990, total: 1_000, etaMs: eta, binding: '429 pause', bindingLeftMs: 58_000, costUsd: undefined }), 120);
    expect(line).toContain('429 pause 58s');
    expect(line).toContain('ETA 1m00s');
  });

  it('estimateEta: nothing left is 0, no rate yet is unknown', () => {
    expect(estimateEta(0, 0, 10_000)).toBe(0);
    expect(estimateEta(5, 0, undefined)).toBeUndefined();
    expect(estimateEta(100, 10, undefined)).toBe(10_000);
  });
});

describe('TtyReporter', () => {
  it('draws the fitted line on a 120-column terminal, failures included', () => {
    const out = Object.assign(new PassThrough(), { isTTY: true, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const reporter = new TtyReporter(out as unknown as NodeJS.WriteStream);
    reporter.start({ input: 'x.csv', inputDescription: 'CSV', headerNotes: [], model: 'gemini-2.5-flash', total: 1_000_000, resumed: 0, kept: 0, again: { skipped: 0, errors: 0 }, keptNotOk: 0, toSend: 1_000_000, pools: [], limits: [], jobDir: 'j', output: 'o', endpoint: 'e' });
    reporter.tick(snapshot());
    reporter.finish({ ...summary(), bound: [{ binding: 'RPM', share: 0.92 }, { binding: 'concurrency', share: 0.05 }, { binding: '429 pause', share: 0.03 }] });
    expect(text).toContain('3 failed');
    expect(text).toContain('binds: RPM');
    expect(text).toContain('bound by: RPM 92 % · concurrency 5 % · 429 pause 3 %');
  });
});

function summary(): JobSummary {
  return {
    exitCode: 1,
    ending: 'finished',
    total: 10,
    byStatus: { ok: 9, failed: 1, blocked: 0, invalid_label: 0, invalid_output: 0, skipped: 0, pending: 0 },
    requests: 11,
    rateLimited: 0,
    retries: 1,
    tokens: { input: 1, output: 1, thoughts: 0 },
    costUsd: undefined,
    wallMs: 1_000,
    finishedThisRun: 10,
    output: undefined,
    jobDir: 'j',
    resumeCommand: undefined,
    bound: [],
  };
}

describe('formatSummary', () => {
  it('says what bound the run, leaving out shares under 1 %', () => {
    const lines = formatSummary({ ...summary(), bound: [{ binding: 'TPM', share: 0.995 }, { binding: 'input', share: 0.005 }] });
    expect(lines).toContain('bound by: TPM 100 %');
  });
});
