/**
 * Issue 11 items 5–7: a key never appears in anything a job writes or prints, whatever the server echoes back.
 *
 * A small server on 127.0.0.1 answers like the Gemini API and quotes the key it was sent everywhere it can: the real
 * 403 CONSUMER_SUSPENDED body (test/fixtures/gemini/403-consumer-suspended.json), a 400 and a 503 whose messages
 * quote it, a 404 for the model that quotes it, an answer text that contains it. Then every file under the test's
 * folder (job directories, outputs) and everything printed is searched for each key.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureText } from '../support/fixtures.js';
import { runMain, type MainResult } from '../support/run-main.js';

/** Keys of the real shape: AIza + 35 characters. */
const SUSPENDED = 'AIzaSyA1suspendedKeyValue-xxxxxxxxxxxQa';
const ECHOING = 'AIzaSyB2echoingKeyValue_yyyyyyyyyyyyyRb';
const IN_URL = 'AIzaSyC3keyPutInTheBaseUrl-zzzzzzzzzzSc';
const REVERSED = 'AIzaSyD4keyWrittenBeforeTheProject-wwTd';
const ALL_KEYS = [SUSPENDED, ECHOING, IN_URL, REVERSED];

let server: http.Server;
let url: string;
let dir: string;
const printed: MainResult[] = [];

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function rpcError(code: number, status: string, message: string): unknown {
  return { error: { code, status, message, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ECHO', metadata: { key: message } }] } };
}

const seen = new Map<string, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const key = String(req.headers['x-goog-api-key'] ?? '');
      const prompt = (JSON.parse(body) as { contents: Array<{ parts: Array<{ text: string }> }> }).contents.at(-1)?.parts[0]?.text ?? '';
      const attempt = (seen.get(prompt) ?? 0) + 1;
      seen.set(prompt, attempt);
      if (req.url?.includes('gemini-missing')) return answer(res, 404, rpcError(404, 'NOT_FOUND', `models/gemini-missing is not found for api_key:${key}`));
      if (key === SUSPENDED) return res.writeHead(403, { 'content-type': 'application/json' }).end(fixtureText('403-consumer-suspended.json').replaceAll('{{API_KEY}}', key));
      if (prompt.includes('bad-row')) return answer(res, 400, rpcError(400, 'INVALID_ARGUMENT', `Request for api_key:${key} contains an invalid argument.`));
      if (prompt.includes('flaky-row') && attempt === 1) return answer(res, 503, rpcError(503, 'UNAVAILABLE', `The model is overloaded for ${key}.`));
      const text = prompt.includes('echo-row') ? `yes, and your key is ${key}` : 'yes';
      return answer(res, 200, {
        candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
        modelVersion: 'gemini-2.5-flash',
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-keys-'));
  fs.writeFileSync(path.join(dir, 'rows.csv'), 'id,text\n1,plain-row\n2,bad-row\n3,flaky-row\n4,echo-row\n5,plain-row two\n');
  fs.writeFileSync(path.join(dir, 'keys.txt'), `acme ${SUSPENDED}\nbeta ${ECHOING}\n`);
  fs.writeFileSync(path.join(dir, 'suspended.txt'), `acme ${SUSPENDED}\n`);
  fs.writeFileSync(path.join(dir, 'reversed.txt'), `${REVERSED} acme-prod\n`);
  fs.writeFileSync(path.join(dir, 'comma.txt'), `acme,${REVERSED}\n`);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], env: Record<string, string> = {}): Promise<MainResult> {
  const result = await runMain(['classify', 'rows.csv', '--prompt', 'Is this relevant? {{text}}', '--labels', 'yes,no', '--max-attempts', '3', ...args], { cwd: dir, env });
  printed.push(result);
  return result;
}

function everyFile(root: string): string[] {
  return fs.readdirSync(root, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? everyFile(path.join(root, e.name)) : [path.join(root, e.name)]));
}

describe('no key in any output (issue 11 items 5–7)', () => {
  it('item 5: what the server quotes of a key is replaced by its alias in the journal, the error column, notices and quota-usage.json', async () => {
    const first = await run(['--keys-file', 'keys.txt', '--base-url', url, '-o', 'out.csv']);
    expect(first.code).toBe(1); // bad-row failed, echo-row is not a label
    expect(first.stdout).toContain("Consumer 'api_key:key-1 …xxQa' has been suspended");
    const out = fs.readFileSync(path.join(dir, 'out.csv'), 'utf8');
    expect(out).toContain('Request for api_key:key-2 …yyRb contains an invalid argument');
    const quota = fs.readFileSync(path.join(dir, 'rows.gemini-batch', 'quota-usage.json'), 'utf8');
    expect(quota).toContain('key-1 …xxQa');
    const journal = fs.readFileSync(path.join(dir, 'rows.gemini-batch', 'journal.jsonl'), 'utf8');
    expect(journal).toContain('yes, and your key is key-2 …yyRb');
    // The next run leaves the refused key out and says so.
    const second = await run(['--keys-file', 'keys.txt', '--base-url', url, '-o', 'out.csv', '--retry-errors', '--json']);
    expect(second.stdout).toContain('was refused by the API in an earlier run');
  });

  it('item 5: a run whose every key is refused, and a fatal 404 quoting the key, print no key', async () => {
    const refused = await run(['--keys-file', 'suspended.txt', '--base-url', url, '--job-dir', 'job-refused', '-o', 'refused.csv']);
    expect(refused.code).toBe(2);
    expect(`${refused.stdout}${refused.stderr}`).toContain('has been suspended');
    const missing = await run(['--keys-file', 'keys.txt', '--base-url', url, '--job-dir', 'job-404', '-o', '404.csv', '--model', 'gemini-missing'], {});
    expect(missing.code).toBe(2);
    expect(`${missing.stdout}${missing.stderr}`).toContain('models/gemini-missing is not found for api_key:key-');
  });

  it('item 6: a keys file written KEY PROJECT, or with a comma, is refused without showing the key', async () => {
    const reversed = await run(['--keys-file', 'reversed.txt', '--base-url', url, '--job-dir', 'job-reversed']);
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toContain('reversed.txt:1:1');
    expect(reversed.stderr).toContain('looks like an API key');
    const comma = await run(['--keys-file', 'comma.txt', '--base-url', url, '--job-dir', 'job-comma']);
    expect(comma.code).toBe(2);
    expect(comma.stderr).toContain('comma.txt:1:5');
    expect(fs.existsSync(path.join(dir, 'job-reversed'))).toBe(false);
  });

  it('item 7: credentials in --base-url or GOOGLE_GEMINI_BASE_URL are refused without showing them', async () => {
    const env = { GEMINI_API_KEY: ECHOING };
    const host = new URL(url).host;
    for (const [args, extra] of [
      [['--base-url', `${url}/?key=${IN_URL}`], {}],
      [['--base-url', `http://user:${IN_URL}@${host}`], {}],
      [[], { GOOGLE_GEMINI_BASE_URL: `${url}?key=${IN_URL}` }],
      [['--base-url', `not a url ${IN_URL}`], {}],
    ] as Array<[string[], Record<string, string>]>) {
      const result = await run([...args, '--job-dir', 'job-url'], { ...env, ...extra });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/--base-url|GOOGLE_GEMINI_BASE_URL/);
    }
    expect(fs.existsSync(path.join(dir, 'job-url'))).toBe(false);
  });

  it('grep: no key in any file the jobs wrote, nor in anything they printed', () => {
    const files = everyFile(dir).filter((f) => !f.endsWith('.txt')); // the keys files hold the keys, by design
    expect(files.length).toBeGreaterThan(8);
    const leaks: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(file, 'latin1');
      for (const key of ALL_KEYS) if (text.includes(key)) leaks.push(`${path.relative(dir, file)} holds ${key.slice(0, 8)}…`);
    }
    printed.forEach((r, i) => {
      for (const key of ALL_KEYS) {
        if (r.stdout.includes(key)) leaks.push(`run ${i + 1} printed ${key.slice(0, 8)}… on stdout`);
        if (r.stderr.includes(key)) leaks.push(`run ${i + 1} printed ${key.slice(0, 8)}… on stderr`);
      }
    });
    expect(leaks).toEqual([]);
  });
});
