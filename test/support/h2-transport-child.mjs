// Runs in its own process with NODE_EXTRA_CA_CERTS=test/fixtures/tls/localhost.crt (Node reads it at start-up only):
// the simulator over HTTPS with HTTP/2, and the transport against it. Prints one JSON object of findings.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { startSimulator, parseScenario } = await import(path.join(root, 'dist', 'simulator', 'index.js'));
const { createGeminiCaller } = await import(path.join(root, 'dist', 'providers', 'gemini', 'gemini-caller.js'));
const { httpTransport, transportState } = await import(path.join(root, 'dist', 'providers', 'http-transport.js'));
const tls = { key: readFileSync(path.join(root, 'test', 'fixtures', 'tls', 'localhost.key')), cert: readFileSync(path.join(root, 'test', 'fixtures', 'tls', 'localhost.crt')) };

const out = {};
const sim = await startSimulator(
  parseScenario(
    {
      acceptAnyKey: true,
      defaultProject: 'p',
      projects: [{ id: 'p', keys: [], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }],
      latency: { medianMs: 300, p99Ms: 300 },
      scripts: [{ match: '#reset', responses: [{ kind: 'reset' }] }, { match: '#hang', responses: [{ kind: 'hang' }] }],
    },
    'h2',
  ),
  { port: 0, tls },
);
out.url = sim.url;
const client = createGeminiCaller({ auth: { kind: 'api-key', apiKey: 'h2-test-key' }, baseUrl: sim.url, timeoutMs: 10_000 });
const request = (prompt) => ({ model: 'gemini-2.5-flash', prompt, output: { kind: 'labels', labels: ['a', 'b'] }, reasoning: 'least' });

// 250 at once: HTTP/2, three sessions of at most 100 streams, every request reported uploaded once.
const uploads = [];
let most = { sessions: 0, streams: 0 };
const watch = setInterval(() => {
  const s = transportState().h2[sim.url];
  if (s && s.streams > most.streams) most = s;
}, 20);
const answers = await Promise.allSettled(Array.from({ length: 250 }, (_, i) => client.generate(request(`row ${i}`), { onUploaded: (t) => uploads.push(t) })));
clearInterval(watch);
out.ok = answers.filter((a) => a.status === 'fulfilled' && a.value.text).length;
out.uploads = uploads.length;
out.connectRttKnown = uploads.every((u) => typeof u.connectRttMs === 'number');
out.most = most;
out.h1 = transportState().h1;

// A stream reset fails that request only (a ConnectionFailure), not the others on its session.
const mixed = await Promise.allSettled([client.generate(request('#reset me')), ...Array.from({ length: 20 }, (_, i) => client.generate(request(`after ${i}`)))]);
out.reset = mixed[0].status === 'rejected' ? mixed[0].reason.code : 'answered';
out.othersOk = mixed.slice(1).every((a) => a.status === 'fulfilled');

// Abort: cancelled, not failed.
const controller = new AbortController();
const hanging = client.generate(request('#hang forever'), { signal: controller.signal });
setTimeout(() => controller.abort(), 200);
out.abort = await hanging.then(() => 'answered', (e) => e.code);

// A request timing out on its own (per-request timeout).
out.timeout = await client.generate(request('#hang again'), { timeoutMs: 300 }).then(() => 'answered', (e) => e.code);
await sim.close();

// Answers compressed over HTTP/2 are decoded.
const gz = await startSimulator(parseScenario({ acceptAnyKey: true, defaultProject: 'p', projects: [{ id: 'p', keys: [] }] }, 'gzip'), { port: 0, tls, compress: ['gzip'] });
const gzClient = createGeminiCaller({ auth: { kind: 'api-key', apiKey: 'h2-test-key' }, baseUrl: gz.url, timeoutMs: 10_000 });
out.gzip = await gzClient.generate(request('compressed please')).then((a) => a.text, (e) => e.code);
await gz.close();

// An HTTPS server that offers HTTP/1.1 only: the transport falls back and remembers it.
const h1only = https.createServer(tls, (req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
});
await new Promise((resolve) => h1only.listen(0, '127.0.0.1', resolve));
const h1url = `https://127.0.0.1:${h1only.address().port}`;
const h1response = await httpTransport(`${h1url}/x`, { method: 'POST', body: '{}' }, (t) => (out.h1Upload = typeof t.flushedAt === 'number'));
out.h1Status = h1response.status;
out.h1Body = await h1response.text();
out.h1Remembered = transportState().h1.includes(h1url);
h1only.close();
h1only.closeAllConnections();

process.stdout.write(JSON.stringify(out));
process.exit(0);
