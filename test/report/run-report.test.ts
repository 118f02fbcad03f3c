/**
 * The HTML run report (issue 16) of a simulator run with scripted stretches: RPM-paced rows, a per-minute 429 whose
 * retryDelay pauses the project, slow answers that leave every request slot taken (concurrency), 503s, rows that fail
 * with a 400, and a daily quota that parks the project and stops the run. In-process, over real HTTP; about 5 s. The
 * report merges stretches under 750 ms into a neighbour, so each scripted stretch lasts longer than that: the RPM one
 * about 1.8 s (50 rows at 1,200 RPM after a burst), the 429 pause 1.0–1.1 s (its retryDelay, with jitter), the
 * concurrency one about 2 s (10 answers of 300 ms, 2 at a time); CPU load only lengthens them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const KEY = 'report-test-key-0123456789-secret';
let dir: string;
let html: string;
let classifyOut: string;

/** A per-minute 429 at our own limit, asking for 1 s (the shape of fixture 429-a, another quotaId). */
const RPM_429 = {
  error: {
    code: 429,
    message: 'You exceeded your current quota. Please retry in 1s.',
    status: 'RESOURCE_EXHAUSTED',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel', quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' }, quotaValue: '1200' }],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' },
    ],
  },
};

function rowText(n: number): string {
  if (n === 10 || n === 20) return `topic ${n} #sim:flaky`;
  if (n === 25 || n === 35) return `topic ${n} #sim:bad`;
  if (n === 51) return `topic ${n} #sim:rpm429`;
  if (n >= 56 && n <= 65) return `topic ${n} #sim:slow`;
  return `topic ${n}`;
}

/** The stretch causes of the "what bound the rate" panel, in order. */
function causes(page: string): string[] {
  return [...page.matchAll(/<tr data-cause="([^"]+)">/g)].map((m) => m[1] as string);
}

/** The figure of chart `id` (of project `project`), or undefined. */
function figure(page: string, id: string, project?: string): string | undefined {
  const attrs = `data-chart="${id}"${project !== undefined ? ` data-project="${project}"` : ''}`;
  const start = page.indexOf(`<figure class="chart" ${attrs}`);
  if (start < 0) return undefined;
  return page.slice(start, page.indexOf('</figure>', start));
}

function seriesOf(fig: string | undefined): string[] {
  return (/data-series="([^"]*)"/.exec(fig ?? '')?.[1] ?? '').split('|').filter((s) => s !== '');
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-report-'));
  fs.writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: 80 }, (_, i) => `${i + 1},${rowText(i + 1)}`).join('\n')}\n`);
  fs.writeFileSync(
    path.join(dir, 'scenario.json'),
    JSON.stringify({
      tier: 'paid',
      projects: [{ id: 'p', keys: [KEY], limits: { '*': { rpm: 100_000, tpm: 100_000_000, rpd: 72 } } }],
      scripts: [
        { match: '#sim:flaky', responses: [{ kind: 'error', status: 503, fixture: '503-overloaded' }, { kind: 'error', status: 503, fixture: '503-overloaded' }, { kind: 'enum' }] },
        { match: '#sim:bad', responses: [{ kind: 'error', status: 400, fixture: '400-context-too-long' }] },
        { match: '#sim:rpm429', responses: [{ kind: 'error', status: 429, body: RPM_429 }, { kind: 'enum' }] },
        { match: '#sim:slow', responses: [{ kind: 'delay-ms', ms: 300 }] },
      ],
    }),
  );
  const result = await runMain(
    ['classify', 'rows.csv', '--prompt', 'Topic: {{text}}', '--labels', 'x,y', '--simulate', '--simulate-config', 'scenario.json', '--rpm', '1200', '--tpm', '10000000', '--workers-per-key', '2', '--report'],
    { cwd: dir, env: { GEMINI_API_KEY: KEY } },
  );
  classifyOut = result.stdout + result.stderr;
  expect(result.code, classifyOut).toBe(3);
  html = fs.readFileSync(path.join(dir, 'rows.report.html'), 'utf8');
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('classify --report', () => {
  it('writes the report beside the input and prints its path', () => {
    expect(classifyOut).toContain('report: rows.report.html');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
  });

  it('is self-contained: no script, nothing fetched', () => {
    expect(html).not.toMatch(/<script|<link |<img |@import|url\(/i);
    expect(html).not.toMatch(/\b(src|href)="https?:/i);
    expect(html).toContain('@media print');
  });

  it('never holds the key, only its alias', () => {
    expect(html).not.toContain(KEY);
    expect(fs.readFileSync(path.join(dir, 'rows.gemini-batch', 'events.log'), 'utf8')).not.toContain(KEY);
  });
});

describe('the charts', () => {
  it('requests per minute against the RPM line, input tokens against the TPM line', () => {
    const rpm = figure(html, 'rpm', 'p');
    expect(seriesOf(rpm)).toEqual(['requests in 60 s', 'RPM limit']);
    expect(rpm).toContain('<svg');
    expect(rpm).toContain('>RPM limit</text>');
    expect(rpm).toContain('>requests in 60 s</text>');
    const tpm = figure(html, 'tpm', 'p');
    expect(seriesOf(tpm)).toEqual(['input tokens in 60 s', 'TPM limit']);
    expect(tpm).toContain('>TPM limit</text>');
  });

  it('429s by quotaId, 503s and refused requests as marks', () => {
    const failures = figure(html, 'failures', 'p');
    const series = seriesOf(failures);
    expect(series).toContain('429 GenerateRequestsPerMinutePerProjectPerModel');
    expect(series.some((s) => /^429 GenerateRequestsPerDay/.test(s))).toBe(true);
    expect(series).toContain('503');
    expect(series).toContain('400 refused');
    for (const s of series) expect(failures).toContain(`>${s}</text>`);
  });

  it('requests in flight against the concurrency bound, latency percentiles', () => {
    const inFlight = figure(html, 'in-flight', 'p');
    expect(seriesOf(inFlight)).toEqual(['in flight', 'concurrency bound']);
    expect(inFlight).toContain('>concurrency bound</text>');
    expect(seriesOf(figure(html, 'latency', 'p'))).toEqual(['p50', 'p90', 'p99']);
  });

  it('requests per Pacific day against the RPD the daily 429 named', () => {
    const rpd = figure(html, 'rpd', 'p');
    expect(seriesOf(rpd)).toEqual(['requests', 'RPD limit']);
    expect(rpd).toContain('quota day (PT)');
  });
});

describe('what bound the rate', () => {
  it('names the scripted stretches in order: RPM, the 429 pause, concurrency, the daily park', () => {
    const order = causes(html);
    const wanted = ['rpm', 'pause', 'concurrency', 'park'];
    let at = 0;
    for (const cause of order) if (cause === wanted[at]) at++;
    expect(at, `stretches: ${order.join(', ')}`).toBe(wanted.length);
    expect(order.at(-1)).toBe('park');
  });

  it('says each in words, with the limits in force', () => {
    const row = (cause: string) => html.match(new RegExp(`<tr data-cause="${cause}">(.*?)</tr>`))?.[1] ?? '';
    expect(row('rpm')).toContain('paced to the RPM limit (1,200/min)');
    expect(row('pause')).toContain('retryDelay after a 429');
    expect(row('pause')).toContain('GenerateRequestsPerMinutePerProjectPerModel');
    expect(row('concurrency')).toContain('every request slot was taken');
    expect(row('park')).toMatch(/parked by its daily quota .*parked until \d{4}-\d\d-\d\d 00:00 PT/);
  });
});

describe('the tables', () => {
  it('rows by status, the errors grouped with example rows, labels by count', () => {
    expect(html).toMatch(/<tr><td>failed<\/td><td class="n">2<\/td>/);
    const errors = html.slice(html.indexOf('<table class="errors">'), html.indexOf('</table>', html.indexOf('<table class="errors">')));
    expect(errors).toMatch(/<td>failed<\/td><td class="n">2<\/td><td>[^<]*<\/td><td>25, 35<\/td>/);
    const labels = html.slice(html.indexOf('<table class="labels">'), html.indexOf('</table>', html.indexOf('<table class="labels">')));
    expect(labels).toMatch(/<td>x<\/td>/);
    expect(labels).toMatch(/<td>y<\/td>/);
  });

  it('tokens and cost, and the runs with their exit codes', () => {
    expect(html).toMatch(/<tr data-tier="standard"><td>online \(standard\)<\/td>/);
    expect(html).toMatch(/<table class="runs">.*<td>3 — stopped early, resumable<\/td>/);
  });
});

describe('gemini-batch report', () => {
  it('writes the same report from the job directory, to -o, and prints the path', async () => {
    const result = await runMain(['report', 'rows.gemini-batch', '-o', 'again.html'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('report: again.html\n');
    const again = fs.readFileSync(path.join(dir, 'again.html'), 'utf8');
    expect(causes(again)).toEqual(causes(html));
  });

  it('refuses a target with no job (exit 2)', async () => {
    const result = await runMain(['report', 'nothing.csv'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nothing.csv: no such file or job directory.');
  });
});
