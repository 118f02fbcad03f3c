// The run report at scale (issue 16): a 1,000,000-row job's event log must stay under 50 MB and its report must build
// in under 10 s. The job directory is built here: the journal as classify writes it (1 % failed rows with a few kinds
// of error, 2 % Flex-billed), runs.jsonl, and the event log written by the real EventLog (dist/) on a simulated clock
// at the rate of a real run: requests evenly at RPM, lognormal latency (median 2 s, p99 8 s), 1 % 503s and 0.5 %
// per-minute 429s sent again, the state lines the recorder writes (in flight each second, what bound the run every
// few seconds, a 429 pause after each 429). Then `gemini-batch report` is run as a child process and timed.
//
//   npm run build && node bench/event-log.mjs                  # 1,000,000 rows at 10,000 RPM, then at 1,000 RPM
//   ROWS=200000 RPMS=4000 node bench/event-log.mjs
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const { EventLog } = await import(path.join(root, 'dist', 'journal', 'event-log.js'));
const ROWS = Number(process.env.ROWS ?? 1_000_000);
const RPMS = (process.env.RPMS ?? '10000,1000').split(',').map(Number);
const bin = path.join(root, 'bin', 'gemini-batch.js');
const LABELS = ['billing', 'shipping', 'other'];

let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
const latency = () => Math.round(2000 * Math.exp(normal() * (Math.log(4) / 2.326)));

async function writeLines(file, count, line) {
  await new Promise((resolve) => {
    const out = createWriteStream(file);
    let i = 0;
    const pump = () => {
      let ok = true;
      while (i < count && ok) ok = out.write(line(i++));
      if (i < count) out.once('drain', pump);
      else out.end(resolve);
    };
    pump();
  });
}

const ERRORS = ['no answer within 60 s (--timeout)', 'HTTP 503: The model is overloaded. Please try again later.', 'HTTP 400: The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).'];

for (const rpm of RPMS) {
  const dir = path.join(here, '.work', `event-log-${rpm}`);
  const job = path.join(dir, 'rows.gemini-batch');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(job, { recursive: true });
  const t0 = Date.UTC(2026, 10, 2, 17, 0, 0);
  const time = new Date(t0).toISOString();
  await writeLines(path.join(job, 'journal.jsonl'), ROWS, (row) => {
    const failed = row % 100 === 37;
    const tier = row % 50 === 3 ? ',"tier":"flex"' : '';
    return failed
      ? `{"row":${row},"status":"failed","attempts":8,"tokens":{"input":0,"output":0,"thoughts":0},"fp":"f${row}","label":null,"raw":null,"finishReason":null,"error":"${ERRORS[row % 3]}","key":"key-1 …-key"${tier},"time":"${time}"}\n`
      : `{"row":${row},"status":"ok","attempts":1,"tokens":{"input":${90 + (row % 40)},"output":1,"thoughts":0},"fp":"f${row}","label":"${LABELS[row % 3]}","raw":"${LABELS[row % 3]}","finishReason":"STOP","error":null,"key":"key-1 …-key"${tier},"time":"${time}"}\n`;
  });
  writeFileSync(
    path.join(job, 'manifest.json'),
    JSON.stringify({
      format: 1,
      tool: { name: 'gemini-batch', version: '0.1.0' },
      createdAt: time,
      input: { path: 'rows.csv', size: 1, sha256: '0'.repeat(64), records: ROWS, columns: ['id', 'text'], checkpoints: [], rowFingerprint: 'prompt-columns' },
      source: { kind: 'api', provider: 'gemini', endpoint: 'generativelanguage.googleapis.com', model: 'gemini-2.5-flash' },
      settings: { prompt: 'Classify this ticket: {{text}}', system: null, labels: LABELS, schema: null },
    }),
  );

  // The event log, at the run's rate, on a simulated clock.
  const started = performance.now();
  const run = `${time}#4242`;
  const log = new EventLog(path.join(job, 'events.log'), { run, t0, model: 'gemini-2.5-flash', zone: 'PT', provider: 'gemini' });
  const pools = [log.pool('key-1 …a1b2', 'acme'), log.pool('key-2 …c3d4', 'acme')];
  log.limits(0, t0, rpm, 4_000_000, undefined);
  log.binding(t0, 'rpm');
  const gap = 60_000 / rpm;
  let sent = 0;
  let requests = 0;
  let rateLimited = 0;
  let nextState = t0 + 1000;
  let nextFlush = t0 + 250;
  let retries = [];
  for (let row = 0; row < ROWS || retries.length > 0; ) {
    const at = t0 + sent * gap;
    sent++;
    const isRetry = retries.length > 0 && retries[0] <= at;
    if (isRetry) retries.shift();
    else row++;
    const roll = rand();
    const pool = pools[sent % 2];
    requests++;
    if (roll < 0.005) {
      rateLimited++;
      log.request(pool, at, 40, 0, 0, 429, ['GenerateRequestsPerMinutePerProjectPerModel']);
      log.hold(0, at + 40, 'pause', at + 1040, 'per-minute quota (GenerateRequestsPerMinutePerProjectPerModel)');
      log.hold(0, at + 1040, 'none', undefined, '');
      retries.push(at + 1100);
    } else if (roll < 0.015) {
      log.request(pool, at, latency(), 0, 0, 503);
      retries.push(at + 2000);
    } else {
      log.request(pool, at, latency(), 90 + (sent % 40), 1, 200);
    }
    while (at >= nextState) {
      log.inFlight(0, nextState, Math.round((rpm / 60) * 2 + 10 * rand()), Math.round((rpm / 60) * 2.6));
      if (rand() < 0.02) log.binding(nextState, rand() < 0.5 ? 'concurrency' : 'rpm');
      nextState += 1000;
    }
    if (at >= nextFlush) {
      log.flush(at);
      nextFlush += 250;
    }
  }
  const end = t0 + sent * gap + 8000;
  log.binding(end - 8000, 'finishing');
  log.close(end);
  const writeMs = performance.now() - started;
  writeFileSync(
    path.join(job, 'runs.jsonl'),
    `${JSON.stringify({ run, startedAt: time, updatedAt: new Date(end).toISOString(), exitCode: 1, requests, rateLimited, retries: requests - ROWS, finished: ROWS })}\n`,
  );
  const bytes = statSync(path.join(job, 'events.log')).size;

  // Wall time, and CPU time (user + system, by GNU time(1)): on a shared machine the wall time includes waiting for a core.
  const r0 = performance.now();
  const timed = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, bin, 'report', job, '-o', path.join(dir, 'report.html')], { encoding: 'utf8' });
  const cpu = timed.stderr.trim().split('\n').at(-1).split(' ').map(Number).reduce((a, b) => a + b, 0);
  const reportS = (performance.now() - r0) / 1000;
  const html = statSync(path.join(dir, 'report.html')).size;
  console.log(
    `${ROWS.toLocaleString('en-US')} rows at ${rpm.toLocaleString('en-US')} RPM (${((end - t0) / 3_600_000).toFixed(1)} h, ${requests.toLocaleString('en-US')} requests): ` +
      `events.log ${(bytes / 1e6).toFixed(1)} MB (${(bytes / requests).toFixed(1)} bytes a request; written in ${(writeMs / 1000).toFixed(1)} s), ` +
      `report built in ${reportS.toFixed(2)} s wall, ${cpu.toFixed(2)} s CPU (${(html / 1e6).toFixed(2)} MB of HTML)`,
  );
}
