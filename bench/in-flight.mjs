// Many requests in flight (issue 10): `gemini-batch classify` at 30,000 RPM with answers after 4 s holds about 2,000
// requests in flight. Run against the simulator over plain HTTP (HTTP/1.1 keep-alive: a socket per request in flight)
// and over HTTPS (HTTP/2 by ALPN, as the real endpoint offers: 100 streams per connection), with default flags. We
// sample the classify process's RSS, open file descriptors and in-flight count, and read its CPU time at the end.
//
//   npm run build && node bench/in-flight.mjs
//   ROWS=60000 RPM=30000 LATENCY_MS=4000 node bench/in-flight.mjs
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const work = path.join(here, '.work', 'in-flight');
const ROWS = Number(process.env.ROWS ?? 30_000);
const RPM = Number(process.env.RPM ?? 30_000);
const LATENCY_MS = Number(process.env.LATENCY_MS ?? 4_000);
const { startSimulator, parseScenario } = await import(path.join(root, 'dist', 'simulator', 'index.js'));
const tls = { key: readFileSync(path.join(root, 'test', 'fixtures', 'tls', 'localhost.key')), cert: readFileSync(path.join(root, 'test', 'fixtures', 'tls', 'localhost.crt')) };
/** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ, 100 on Linux). */
const ticks = 100;

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const lines = ['id,text'];
for (let i = 0; i < ROWS; i++) lines.push(`${i},support ticket ${i}: the parcel arrived late and the invoice shows a wrong amount`);
writeFileSync(path.join(work, 'rows.csv'), `${lines.join('\n')}\n`);

const results = [];
for (const mode of (process.env.MODES ?? 'http1,https-h2').split(',')) results.push(await measure(mode));
console.log(`${ROWS} rows at ${RPM} RPM, answers after ${LATENCY_MS} ms (about ${Math.round((RPM / 60) * (LATENCY_MS / 1000))} in flight), default flags; node ${process.version}`);
console.log('| endpoint | rows ok | failed | most in flight | most open fds | peak RSS MB | RSS MB at 1/3 · 2/3 of sending | CPU s | CPU ms per row | wall s |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.mode} | ${r.ok} | ${r.failed} | ${r.mostInFlight} | ${r.mostFds} | ${r.peakRss} | ${r.rssThird} · ${r.rssTwoThirds} | ${r.cpuS.toFixed(1)} | ${((1000 * r.cpuS) / ROWS).toFixed(3)} | ${r.wallS.toFixed(1)} |`);
}

async function measure(mode) {
  const sim = await startSimulator(
    parseScenario(
      {
        acceptAnyKey: true,
        defaultProject: 'p',
        projects: [{ id: 'p', keys: [], limits: { '*': { rpm: RPM, tpm: 1_000_000_000 } } }],
        latency: { medianMs: LATENCY_MS, p99Ms: LATENCY_MS },
      },
      'in-flight',
    ),
    { port: 0, ...(mode === 'https-h2' ? { tls } : {}) },
  );
  rmSync(path.join(work, 'rows.gemini-batch'), { recursive: true, force: true });
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin', 'gemini-batch.js'), 'classify', 'rows.csv', '--prompt', 'Classify: {{text}}', '--labels', 'billing,shipping,other', '--base-url', sim.url, '--rpm', String(RPM), '--tpm', '1000000000', '--json'],
    { cwd: work, env: { ...process.env, GEMINI_API_KEY: 'in-flight-bench-key', NODE_EXTRA_CA_CERTS: path.join(root, 'test', 'fixtures', 'tls', 'localhost.crt') }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  let mostInFlight = 0;
  child.stdout.on('data', (d) => {
    out += d;
    for (const m of String(d).matchAll(/"inFlight":(\d+)/g)) mostInFlight = Math.max(mostInFlight, Number(m[1]));
  });
  const samples = [];
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      const cpuS = (Number(stat[11]) + Number(stat[12])) / ticks;
      samples.push({ at: performance.now() - started, rss, hwm, fds: readdirSync(`/proc/${child.pid}/fd`).length, cpuS });
    } catch {
      // exited
    }
  }, 200);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearInterval(sampler);
  const wallS = (performance.now() - started) / 1000;
  await sim.close();
  writeFileSync(path.join(work, `${mode}.ndjson`), out);
  const summary = out.trim().split('\n').map((l) => JSON.parse(l)).find((e) => e.event === 'summary');
  const sendingS = (ROWS / RPM) * 60;
  const at = (s) => Math.round(samples.reduce((best, x) => (Math.abs(x.at / 1000 - s) < Math.abs(best.at / 1000 - s) ? x : best), samples[0]).rss);
  return {
    mode,
    code,
    ok: summary?.byStatus.ok ?? 0,
    failed: summary ? summary.total - summary.byStatus.ok : ROWS,
    mostInFlight,
    mostFds: Math.max(...samples.map((s) => s.fds)),
    peakRss: Math.round(Math.max(...samples.map((s) => s.hwm))),
    rssThird: at(sendingS / 3),
    rssTwoThirds: at((2 * sendingS) / 3),
    cpuS: samples.at(-1)?.cpuS ?? 0,
    wallS,
  };
}
