/**
 * `--provider vertex` end to end, in-process, against the simulator's Vertex AI paths over real HTTP on 127.0.0.1.
 *
 * Application Default Credentials cannot run here (no Google account), so the credentials come the ways
 * google-auth-library offers: a `GOOGLE_APPLICATION_CREDENTIALS` file of type `external_account` whose token exchange
 * (`token_url`) is a server of this test — the ADC file is read, its subject token exchanged, and the access token
 * sent as `Authorization: Bearer` by @google/genai's own auth path — and, under `--simulate`, a fixed token handed to
 * the SDK through `googleAuthOptions.authClient`. Not exercised: gcloud's user credentials, service-account key
 * signing, the metadata server, and Google's real endpoints.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { repoRoot } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const TOKEN = 'ya29.vertex-test-access-token-Q7x9';
const SUBJECT = 'subject-token-of-the-workload-5Kp2';
const VERTEX_PATH = '/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent';

let dir: string;
const servers: Array<{ close(): unknown }> = [];
let exchanges = 0;

/** The token exchange an `external_account` ADC file names (RFC 8693, as google-auth-library's STS client posts it). */
async function tokenServer(): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      if (form.get('subject_token') !== SUBJECT) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
        return;
      }
      exchanges++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: TOKEN, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 3600 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Forwards to the simulator, recording each request's path and Authorization header. */
async function recordingProxy(target: string, seen: Array<{ path: string; authorization: string | undefined }>): Promise<string> {
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function simulator(extra: Record<string, unknown> = {}): Promise<SimulatorHandle> {
  const sim = await startSimulator(
    parseScenario({ projects: [{ id: 'shared', keys: [TOKEN], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }], ...extra }, 'vertex-classify'),
  );
  servers.push(sim);
  return sim;
}

/** Every file under `root`, as text. */
function filesUnder(root: string): Array<{ file: string; text: string }> {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(root, f))
    .filter((f) => statSync(f).isFile())
    .map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-vertex-'));
  copyFileSync(path.join(repoRoot, 'samples', 'topics.csv'), path.join(dir, 'topics.csv'));
  copyFileSync(path.join(repoRoot, 'samples', 'prompt.txt'), path.join(dir, 'prompt.txt'));
  writeFileSync(path.join(dir, 'subject.txt'), SUBJECT);
  writeFileSync(
    path.join(dir, 'adc.json'),
    JSON.stringify({
      type: 'external_account',
      audience: '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/test',
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${await tokenServer()}/v1/token`,
      credential_source: { file: path.join(dir, 'subject.txt') },
    }),
  );
});

afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--provider vertex', () => {
  it('runs the sample end to end on the Vertex paths with a token from Application Default Credentials; the token is written nowhere', async () => {
    const sim = await simulator();
    const seen: Array<{ path: string; authorization: string | undefined }> = [];
    const url = await recordingProxy(sim.url, seen);
    const args = ['classify', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no', '--provider', 'vertex', '--project', 'my-project', '--location', 'us-central1', '--base-url', url, '--rpm', '100000', '--tpm', '100000000', '--limit', '50'];
    const result = await runMain(args, { cwd: dir, env: { GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, 'adc.json') } });
    expect(result.stdout).toContain('finished: every row ok');
    expect(result.code).toBe(0);

    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'topics.classified.csv')), { columns: true });
    expect(rows).toHaveLength(50);
    expect(rows.every((r) => r.status === 'ok' && (r.label === 'yes' || r.label === 'no'))).toBe(true);
    // Every request went to the Vertex path with the exchanged token; the token was exchanged, not once per request
    // (50 rows: each request costs this process the client's, the proxy's and the simulator's work).
    expect(seen).toHaveLength(50);
    expect(new Set(seen.map((s) => s.path))).toEqual(new Set([VERTEX_PATH]));
    expect(new Set(seen.map((s) => s.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
    expect(exchanges).toBeGreaterThanOrEqual(1);
    expect(exchanges).toBeLessThanOrEqual(2);
    // The manifest records the provider; the run's header names Vertex's project and location.
    const manifest = JSON.parse(readFileSync(path.join(dir, 'topics.gemini-batch', 'manifest.json'), 'utf8')) as { source: unknown };
    expect(manifest.source).toEqual({ kind: 'api', provider: 'vertex', endpoint: new URL(url).host, model: 'gemini-2.5-flash' });
    expect(result.stdout).toContain('project my-project, us-central1');
    // Neither the access token nor the subject token is in any output, log or file.
    for (const text of [result.stdout, result.stderr, ...filesUnder(dir).filter((f) => !f.file.endsWith('subject.txt') && !f.file.endsWith('adc.json')).map((f) => f.text)]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(SUBJECT);
    }
  });

  it('shared-capacity 429s (Dynamic Shared Quota, no details) slow the run down but never park it: every row ends ok', async () => {
    // The simulator draws a fault per prompt and attempt (seeded), so these 60 rows always meet 5 shared-capacity 429s
    // in their first requests and none in their second: each such row waits one 1–2 s backoff (the first after such a
    // 429). The 150 rows of seed 7 sent 8 429s down the same path, but one row twice, so the run waited 3–6 s for it.
    const sim = await simulator({ seed: 6, faults: { '429-bare': 0.05 } });
    const args = ['classify', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no', '--provider', 'vertex', '--project', 'my-project', '--location', 'us-central1', '--base-url', sim.url, '--rpm', '100000', '--tpm', '100000000'];
    const result = await runMain([...args, '--limit', '60', '--job-dir', 'dsq.gemini-batch', '-o', 'dsq.csv', '--json'], {
      cwd: dir,
      env: { GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, 'adc.json') },
    });
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = events.find((e) => e.event === 'summary') as { rateLimited: number; byStatus: Record<string, number> };
    expect(summary.rateLimited).toBeGreaterThan(0);
    expect(summary.byStatus.ok).toBe(60);
    const notices = events.filter((e) => e.event === 'notice').map((e) => String(e.text));
    expect(notices.some((t) => t.includes('shared capacity is busy'))).toBe(true);
    expect(notices.some((t) => /daily quota|parked/.test(t))).toBe(false);
  });

  it('--simulate speaks Vertex AI with an injected token; the manifest says so, and a Gemini run of the same job is refused', async () => {
    const base = ['classify', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no', '--limit', '20', '--job-dir', 'sim.gemini-batch', '-o', 'sim.csv', '--simulate'];
    const vertex = await runMain([...base, '--provider', 'vertex', '--project', 'my-project'], { cwd: dir });
    expect(vertex.code).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'sim.gemini-batch', 'manifest.json'), 'utf8')) as { source: unknown };
    expect(manifest.source).toEqual({ kind: 'simulator', provider: 'vertex', endpoint: 'built-in', model: 'gemini-2.5-flash' });
    const gemini = await runMain(base, { cwd: dir });
    expect(gemini.code).toBe(2);
    expect(gemini.stderr).toContain('speaking as Vertex AI');
  });

  it('usage errors before any request: no project, stray --project, API keys, --tier', async () => {
    const base = ['classify', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no', '--base-url', 'http://127.0.0.1:9'];
    const cases: Array<[string[], RegExp]> = [
      [['--provider', 'vertex'], /needs the Google Cloud project: give --project/],
      [['--project', 'my-project'], /--project is for --provider vertex/],
      [['--provider', 'vertex', '--project', 'my-project', '--keys-file', 'keys.txt'], /Application Default Credentials/],
      [['--provider', 'vertex', '--project', 'my-project', '--tier', '1'], /--tier names a usage tier of the Gemini API/],
      [['--provider', 'bedrock'], /--provider must be one of gemini, openai, vertex/],
    ];
    for (const [extra, message] of cases) {
      const result = await runMain([...base, ...extra], { cwd: dir });
      expect(result.code, extra.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    // GOOGLE_CLOUD_PROJECT gives the project, as it does to @google/genai.
    const fromEnv = await runMain(['plan', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no', '--provider', 'vertex'], { cwd: dir, env: { GOOGLE_CLOUD_PROJECT: 'env-project' } });
    expect(fromEnv.code).toBe(0);
  });

  it('plan and status work for Vertex: Dynamic Shared Quota limits, list prices, --price-* overrides', async () => {
    const plan = await runMain(['plan', 'topics.csv', '--prompt-file', 'prompt.txt', '--labels', 'yes,no', '--provider', 'vertex', '--project', 'my-project'], { cwd: dir });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Dynamic Shared Quota');
    expect(plan.stdout).toMatch(/cost/i);
    const status = await runMain(['status', 'topics.csv', '--json'], { cwd: dir });
    expect(status.code).toBe(0);
    const listed = JSON.parse(status.stdout) as { costUsd: number | null };
    expect(listed.costUsd).toBeGreaterThan(0);
    const priced = JSON.parse((await runMain(['status', 'topics.csv', '--json', '--price-input', '0', '--price-output', '0'], { cwd: dir })).stdout) as { costUsd: number | null };
    expect(priced.costUsd).toBe(0);
  });
});
