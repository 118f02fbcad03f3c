/**
 * `classify --provider openai --base-url http://127.0.0.1:PORT/v1` as a user runs it (in-process, test/support/run-main.ts)
 * against the simulator's OpenAI dialect over real HTTP, with the official `openai` client as the transport (issue 13):
 * the sample end to end with every row ok and its limits learned from the x-ratelimit-* headers; each 429 style taking
 * its path (rate_limit_exceeded paused for the hinted wait, Gemini compat's array-wrapped 429 slowed down, both rows
 * then answered; insufficient_quota stopping the run with exit 3 and the rest pending); a server without json_schema
 * stepped down once with a notice; and the bearer key in no output, log or file, whatever the server echoes.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { allFiles } from '../support/all-files.js';
import { repoRoot } from '../support/fixtures.js';
import { runMain, type MainResult } from '../support/run-main.js';

const KEY = 'sk-proj-DistinctiveOpenAiBearer-0123456789abcdefXYZ9';
let dir: string;
let sim: SimulatorHandle | undefined;
const printed: MainResult[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-openai-'));
  copyFileSync(path.join(repoRoot, 'samples', 'topics.csv'), path.join(dir, 'topics.csv'));
  writeFileSync(path.join(dir, 'small.csv'), 'id,topic\n1,Invoices #rl\n2,Payroll #bare\n3,Shipping\n4,Echo #echo\n5,Tax\n6,Audit\n');
});

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(scenario: Record<string, unknown>): Promise<string> {
  sim = await startSimulator(parseScenario({ projects: [{ id: 'acme', keys: [KEY], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }], ...scenario }, 'openai-cli'));
  return sim.url;
}

/** Runs classify; `said` is everything it printed (notices and the summary go to stdout when -o names a file). */
async function classify(args: string[], env: Record<string, string> = { OPENAI_API_KEY: KEY }): Promise<MainResult & { said: string }> {
  const result = await runMain(['classify', ...args, '--provider', 'openai'], { cwd: dir, env });
  printed.push(result);
  return { ...result, said: result.stdout + result.stderr };
}

function rowsOf(file: string): Array<Record<string, string>> {
  return parse<Record<string, string>>(readFileSync(path.join(dir, file), 'utf8'), { columns: true, bom: true });
}

describe('classify --provider openai', () => {
  it('runs the sample end to end: every row ok, labels in the set, limits learned from the x-ratelimit-* headers', async () => {
    const url = await serve({});
    const result = await classify(['topics.csv', '--prompt-file', path.join(repoRoot, 'samples', 'prompt.txt'), '--labels', 'yes,no', '--base-url', `${url}/v1`, '-o', 'topics-out.csv', '--limit', '150']);
    expect(result.code).toBe(0);
    const rows = rowsOf('topics-out.csv');
    expect(rows.length).toBe(150);
    expect(rows.every((r) => r.status === 'ok' && (r.label === 'yes' || r.label === 'no'))).toBe(true);
    const stats = sim!.stats();
    expect(stats.requests.byEndpoint).toEqual({ chatCompletions: 150 });
    expect(stats.rateLimited.total).toBe(0);
    // The starting rate (60 RPM) gave way to the server's 100,000 RPM after the first answer.
    expect(result.said).toMatch(/RPM limit is 100000 \(the server's figure for x-ratelimit-limit-requests\)/);
    expect(result.stdout + result.said).toContain('key-1 …XYZ9');
    // status works for an OpenAI-compatible job: it names the provider and endpoint, and asks for the price it lacks.
    const status = await runMain(['status', 'topics.csv', '--job-dir', 'topics.gemini-batch'], { cwd: dir });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`(openai, ${new URL(url).host})`);
    expect(status.stdout).toContain('rows: 656 — ok 150, pending 506'); // status reads the whole file; the run had --limit 150
    expect(status.stdout).toContain('cost unknown: no list price for gemini-2.5-flash (give --price-input and --price-output');
    const priced = await runMain(['status', 'topics.csv', '--price-input', '0.1', '--price-output', '0.4'], { cwd: dir });
    expect(priced.stdout).toMatch(/cost so far ≈ \$[\d.]+ at the price given/);
  });

  it('rate_limit_exceeded pauses for the hinted wait; Gemini compat\'s array-wrapped bare 429 slows down; both rows then ok', async () => {
    const url = await serve({
      scripts: [
        { match: '#rl', responses: [{ kind: 'error', fixture: 'openai-429-rate-limit-exceeded' }, { kind: 'enum' }] },
        { match: '#bare', responses: [{ kind: 'error', fixture: 'compat-429-bare-array' }, { kind: 'enum' }] },
      ],
    });
    const result = await classify(['small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--base-url', `${url}/v1`, '-o', 'small-out.csv']);
    expect(result.code).toBe(0);
    expect(rowsOf('small-out.csv').map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(sim!.stats().requests.byStatus).toEqual({ '200': 6, '429': 2 });
    // The fixture's 429 names its limit (tokens per minute, 30,000): adopted as the server's figure.
    expect(result.said).toContain('TPM limit is 30000');
    expect(result.said).toMatch(/429 without quota details; pausing briefly/);
  });

  it('insufficient_quota stops the run: exit 3, a clear message, answered rows kept, the rest pending', async () => {
    const url = await serve({ projects: [{ id: 'acme', keys: [KEY], insufficientQuota: { afterRequests: 2 }, limits: { '*': { rpm: 100_000 } } }] });
    const result = await classify(['small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--base-url', `${url}/v1`, '-o', 'billing-out.csv', '--restart']);
    expect(result.code).toBe(3);
    expect(result.said).toContain('stopped: the account cannot pay for more requests (HTTP 429 insufficient_quota: You exceeded your current quota');
    const rows = rowsOf('billing-out.csv');
    expect(rows.filter((r) => r.status === 'ok')).toHaveLength(2);
    expect(rows.filter((r) => r.status === 'pending')).toHaveLength(4);
    expect(rows.find((r) => r.status === 'pending')?.error).toContain('the account cannot pay for more requests');
  });

  it('a server without json_schema: stepped down to json_object once, with a notice; the label read from the object', async () => {
    const url = await serve({ openai: { responseFormats: ['json_object', 'text'] }, scripts: [{ match: 'Topic', responses: [{ kind: 'json', value: { label: 'other' } }] }] });
    const result = await classify(['small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--base-url', `${url}/v1`, '-o', 'format-out.csv', '--restart']);
    expect(result.code).toBe(0);
    expect(rowsOf('format-out.csv').map((r) => r.label)).toEqual(['other', 'other', 'other', 'other', 'other', 'other']);
    expect(result.said.match(/refused response_format json_schema/g)).toHaveLength(1);
    expect(result.said).toContain('sending response_format json_object');
  });

  it('no OPENAI_API_KEY: exit 2 naming it, before any request', async () => {
    const url = await serve({});
    const result = await classify(['small.csv', '--prompt', '{{topic}}', '--labels', 'a,b', '--base-url', `${url}/v1`], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('OPENAI_API_KEY');
    expect(sim!.stats().requests.total).toBe(0);
  });

  it('the bearer key appears in no output, log or file — an answer quoting it, a 401 echoing it included', async () => {
    const url = await serve({ scripts: [{ match: '#echo', responses: [{ kind: 'json', value: { label: `finance ${KEY}` } }] }] });
    const run = await classify(['small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--base-url', `${url}/v1`, '-o', 'echo-out.csv', '--restart', '--max-attempts', '2']);
    expect(run.code).toBe(1);
    expect(rowsOf('echo-out.csv').find((r) => r.id === '4')).toMatchObject({ status: 'invalid_label' });
    // A key the server does not know: OpenAI's 401 quotes it masked; here the whole key is this run's own.
    const refused = await classify(['small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--base-url', `${url}/v1`, '-o', 'refused-out.csv', '--restart'], { OPENAI_API_KEY: `${KEY}-revoked` });
    expect(refused.code).not.toBe(0);
    const texts = [...printed.flatMap((r) => [r.stdout, r.stderr]), ...allFiles(dir).map((f) => readFileSync(f, 'utf8'))];
    expect(texts.length).toBeGreaterThan(10);
    for (const text of texts) expect(text).not.toContain(KEY);
  });
});
