// HTTP/1.1 keep-alive or HTTP/2 for thousands of requests in flight (issue 10): the same load over each protocol, with
// TLS as on the real endpoint (generativelanguage.googleapis.com speaks both, ALPN h2 and http/1.1). A server in its own
// process answers every POST after DELAY_MS with a classification-sized JSON body; the client keeps CONCURRENCY
// requests in flight until TOTAL are done, and we measure the client's CPU time, peak RSS and connections.
//
//   node bench/transport.mjs                       # 2,000 in flight, 10,000 requests, 4 s per answer, TLS
//   CONCURRENCY=200 TOTAL=2000 node bench/transport.mjs
//
// HTTP/2 streams per connection are capped at 100 on the server (MAX_STREAMS), the figure Google's front ends
// advertise in SETTINGS_MAX_CONCURRENT_STREAMS as commonly observed (not checked from here: no outside network); the
// client opens as many sessions as that needs.
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const work = path.join(here, '.work', 'transport');
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 2_000);
const TOTAL = Number(process.env.TOTAL ?? 10_000);
const DELAY_MS = Number(process.env.DELAY_MS ?? 4_000);
const MAX_STREAMS = Number(process.env.MAX_STREAMS ?? 100);
const ANSWER = JSON.stringify({
  candidates: [{ content: { parts: [{ text: 'shipping' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 312, candidatesTokenCount: 1, totalTokenCount: 313, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 312 }] },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'x'.repeat(22),
});
const BODY = JSON.stringify({ contents: [{ parts: [{ text: 'Classify this support ticket: '.padEnd(1_200, 'lorem ipsum ') }], role: 'user' }], generationConfig: { responseMimeType: 'text/x.enum' } });

function certificate() {
  mkdirSync(work, { recursive: true });
  const key = path.join(work, 'key.pem');
  const cert = path.join(work, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

if (process.argv[2] === 'server') {
  const { key, cert } = JSON.parse(process.argv[3]);
  const server = http2.createSecureServer({ key, cert, allowHTTP1: true, settings: { maxConcurrentStreams: MAX_STREAMS } }, (req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(ANSWER), DELAY_MS));
  });
  server.listen({ port: 0, host: '127.0.0.1', backlog: 4_096 }, () => process.send({ port: server.address().port }));
} else if (process.argv[2] === 'client') {
  const result = await measure(process.argv[3], Number(process.argv[4]));
  process.send(result);
} else {
  const pem = certificate();
  const server = fork(fileURLToPath(import.meta.url), ['server', JSON.stringify({ key: pem.key.toString(), cert: pem.cert.toString() })], { stdio: 'inherit' });
  const { port } = await new Promise((resolve) => server.once('message', resolve));
  const results = [];
  // Each client in a fresh process, so that its peak RSS is its own.
  for (const proto of ['h1', 'h2']) {
    const client = fork(fileURLToPath(import.meta.url), ['client', proto, String(port)], { stdio: 'inherit' });
    results.push(await new Promise((resolve, reject) => {
      client.once('message', resolve);
      client.once('exit', (code) => code !== 0 && reject(new Error(`client ${proto} exited ${code}`)));
    }));
  }
  server.kill();
  console.log(`${CONCURRENCY} in flight, ${TOTAL} requests, answers after ${DELAY_MS} ms, TLS, at most ${MAX_STREAMS} streams per HTTP/2 connection; node ${process.version}`);
  console.log('| protocol | connections | client CPU s | CPU ms per request | peak RSS MB (baseline) | wall s |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results) console.log(`| ${r.proto} | ${r.connections} | ${r.cpuS.toFixed(2)} | ${((1000 * r.cpuS) / TOTAL).toFixed(3)} | ${r.peakRssMb.toFixed(0)} (${r.baseRssMb.toFixed(0)}) | ${r.wallS.toFixed(1)} |`);
}

async function measure(proto, port) {
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let connections = 0;
  let send;
  let close;
  if (proto === 'h1') {
    const agent = new https.Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo', rejectUnauthorized: false });
    send = () =>
      new Promise((resolve, reject) => {
        const req = https.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1beta/models/m:generateContent', agent, rejectUnauthorized: false, headers: { 'content-type': 'application/json' } }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).length));
        });
        req.on('socket', (s) => {
          if (s.connecting) connections++;
        });
        req.on('error', reject);
        req.end(BODY);
      });
    close = () => agent.destroy();
  } else {
    const sessions = [];
    const session = () => {
      let s = sessions.find((x) => !x.closed && x.active < MAX_STREAMS);
      if (!s) {
        s = { session: http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false }), active: 0, closed: false };
        s.session.on('close', () => (s.closed = true));
        s.session.on('error', () => (s.closed = true));
        sessions.push(s);
        connections++;
      }
      return s;
    };
    send = () =>
      new Promise((resolve, reject) => {
        const s = session();
        s.active++;
        const stream = s.session.request({ ':method': 'POST', ':path': '/v1beta/models/m:generateContent', 'content-type': 'application/json' });
        const chunks = [];
        stream.on('data', (c) => chunks.push(c));
        stream.on('end', () => {
          s.active--;
          resolve(Buffer.concat(chunks).length);
        });
        stream.on('error', (e) => {
          s.active--;
          reject(e);
        });
        stream.end(BODY);
      });
    close = () => sessions.forEach((s) => s.session.close());
  }
  let started = 0;
  let failed = 0;
  const worker = async () => {
    while (started < TOTAL) {
      started++;
      await send().catch(() => failed++);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  close();
  if (failed > 0) throw new Error(`${proto}: ${failed} requests failed`);
  return { proto, connections, cpuS: (cpu.user + cpu.system) / 1e6, peakRssMb: peakRss / 1e6, baseRssMb: rssBefore / 1e6, wallS };
}
