/**
 * classify as a user runs it: usage errors before any request (exit 2), the key never written anywhere, stdout output,
 * NDJSON events — in-process (test/support/run-main.ts) against the simulator over real HTTP on 127.0.0.1.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type SimStats, type SimulatorHandle } from '../../src/simulator/index.js';
import { allFiles } from '../support/all-files.js';
import { repoRoot } from '../support/fixtures.js';
import { ClosedPipe, runMain } from '../support/run-main.js';

const SECRET = 'AIzaSyDistinctiveSecretKeyValue0987';
let sim: SimulatorHandle;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator(
    parseScenario(
      {
        projects: [{ id: 'acme', keys: [SECRET], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }],
        scripts: [{ match: 'Blocked-topic', responses: [{ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' }] }],
      },
      'classify-cli',
    ),
  );
  dir = mkdtempSync(path.join(tmpdir(), 'gb-cli-'));
  copyFileSync(path.join(repoRoot, 'samples', 'topics.csv'), path.join(dir, 'topics.csv'));
  writeFileSync(path.join(dir, 'small.csv'), 'id,topic\n1,Invoices\n2,Blocked-topic\n3,=SUM(A1)\n');
  writeFileSync(path.join(dir, 'keys.txt'), `# acme's key\nacme ${SECRET}\n`);
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function stats(): Promise<SimStats> {
  return (await (await fetch(`${sim.url}/__sim/stats`)).json()) as SimStats;
}

describe('classify CLI', () => {
  it('an unknown {{column}} is exit 2 before any request, listing the columns and the nearest name', async () => {
    const before = (await stats()).requests.total;
    const result = await runMain(['classify', 'topics.csv', '--prompt', 'Relevant? {{Descripton}}', '--labels', 'yes,no', '--keys-file', 'keys.txt', '--base-url', sim.url], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('{{Descripton}}');
    expect(result.stderr).toContain('Did you mean {{Description}}?');
    expect(result.stderr).toContain('"Level 3 preferred term"');
    expect((await stats()).requests.total).toBe(before);
  });

  it('a bad keys-file line is exit 2 naming the file and line, without echoing the key', async () => {
    writeFileSync(path.join(dir, 'bad-keys.txt'), `acme ${SECRET} extra\n`);
    const result = await runMain(['classify', 'small.csv', '--prompt', '{{topic}}', '--labels', 'a,b', '--keys-file', 'bad-keys.txt', '--base-url', sim.url], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad-keys\.txt:1:1: /);
    expect(result.stderr).not.toContain(SECRET);
  });

  it('an output that is the input, has no known extension or sits in a missing folder is exit 2 before any request', async () => {
    const before = (await stats()).requests.total;
    const common = ['classify', 'small.csv', '--prompt', '{{topic}}', '--labels', 'a,b', '--keys-file', 'keys.txt', '--base-url', sim.url];
    const same = await runMain([...common, '-o', 'small.csv'], { cwd: dir });
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('is the input file itself');
    expect(readFileSync(path.join(dir, 'small.csv'), 'utf8')).toContain('Blocked-topic');
    const docx = await runMain([...common, '-o', 'out.docx'], { cwd: dir });
    expect(docx.code).toBe(2);
    expect(docx.stderr).toContain('.docx');
    const missing = await runMain([...common, '-o', 'no/such/folder/out.csv'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not exist');
    expect((await stats()).requests.total).toBe(before);
  });

  it('an endpoint nobody answers stops the job early with exit 3 and every row pending', async () => {
    const result = await runMain(['classify', 'small.csv', '--prompt', '{{topic}}', '--labels', 'a,b', '--keys-file', 'keys.txt', '--base-url', 'http://127.0.0.1:9', '-o', 'unreachable.csv', '--job-dir', 'unreachable-job'], { cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/no answer from the API: .*ECONNREFUSED/);
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'unreachable.csv')), { columns: true });
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
  });

  it('a closed stdout (| head) does not stop the job', async () => {
    const closed = new ClosedPipe();
    const ended = await runMain(['classify', 'small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--keys-file', 'keys.txt', '--base-url', sim.url, '-o', 'piped.csv', '--job-dir', 'piped-job'], {
      cwd: dir,
      stdout: closed,
    });
    expect(closed.writes).toBeGreaterThan(0); // the header was written and failed with EPIPE
    expect(ended.code).toBe(1); // one row is scripted to be blocked
    expect(ended.stderr).not.toContain('internal error');
    expect(parse(readFileSync(path.join(dir, 'piped.csv')), { columns: true })).toHaveLength(3);
  });

  it('no key and no --simulate is exit 2 saying where keys come from', async () => {
    const result = await runMain(['classify', 'small.csv', '--prompt', '{{topic}}', '--labels', 'a,b'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('GEMINI_API_KEY');
  });

  it('the API key never appears in stdout, stderr, the journal, the manifest or the output', async () => {
    const result = await runMain(['classify', 'topics.csv', '--prompt-file', path.join(repoRoot, 'samples', 'prompt.txt'), '--labels', 'yes,no', '--keys-file', 'keys.txt', '--base-url', sim.url, '--rpm', '100000', '--tpm', '100000000', '--limit', '100'], {
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('key-1 …0987');
    const texts = [result.stdout, result.stderr, ...allFiles(dir).filter((f) => !f.endsWith('keys.txt') && !f.endsWith('bad-keys.txt')).map((f) => readFileSync(f, 'utf8'))];
    for (const text of texts) expect(text).not.toContain(SECRET);
    expect((await stats()).keys['acme/key-1']?.requests).toBeGreaterThanOrEqual(100);
  });

  it('-o - writes CSV to stdout; a blocked row makes exit 1; formulas are neutralized', async () => {
    const result = await runMain(['classify', 'small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--keys-file', 'keys.txt', '--base-url', sim.url, '-o', '-'], { cwd: dir });
    expect(result.code).toBe(1);
    const rows = parse<Record<string, string>>(result.stdout, { columns: true });
    expect(rows.map((r) => r.id)).toEqual(['1', '2', '3']);
    expect(rows[0]?.status).toBe('ok');
    expect(rows[1]).toMatchObject({ status: 'blocked', label: '' });
    expect(rows[1]?.error).toContain('PROHIBITED_CONTENT');
    expect(rows[2]?.topic).toBe("'=SUM(A1)");
    expect(result.stderr).toContain('finished: 1 of 3 rows not ok');
  });

  it('a finished job run again sends nothing and names no binding (no time was spent waiting on anything)', async () => {
    const args = ['classify', 'small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--keys-file', 'keys.txt', '--base-url', sim.url, '-o', 'again.csv', '--job-dir', 'again-job'];
    const first = await runMain(args, { cwd: dir });
    expect(first.stdout).toMatch(/^bound by: /m);
    const again = await runMain(args, { cwd: dir });
    expect(again.code).toBe(first.code);
    expect(again.stdout).toMatch(/^requests: 0 /m);
    expect(again.stdout).not.toMatch(/^bound by:/m);
  });

  it('--json prints NDJSON events: start, then a summary', async () => {
    const result = await runMain(['classify', 'small.csv', '--prompt', 'Topic: {{topic}}', '--labels', 'finance,other', '--keys-file', 'keys.txt', '--base-url', sim.url, '--json', '--restart'], { cwd: dir });
    const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { event: string; [k: string]: unknown });
    expect(events[0]?.event).toBe('start');
    const summary = events.at(-1);
    expect(summary?.event).toBe('summary');
    expect(summary?.byStatus).toMatchObject({ ok: 2, blocked: 1, pending: 0 });
    expect(summary?.exitCode).toBe(1);
  });
});
