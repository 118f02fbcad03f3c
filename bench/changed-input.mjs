// A changed input at scale (issue 12): a 1,000,000-row job whose every row is answered, then a row is inserted near
// the top and another edited. The resumed run must match the rows to their answers by fingerprint, rewrite the journal
// under the new row ids, send 2 requests, and write every row. Measures the time until the first request (the pass
// over the input and the journal rewrite), the wall time, the peak RSS (VmHWM), and the requests sent.
//
// The finished job is built directly (manifest and journal written here the way classify writes them, with
// src/job/answer-fingerprint.ts's fingerprints) instead of running 1,000,000 requests first.
//
//   node bench/changed-input.mjs              # 1,000,000 rows
//   ROWS=200000 node bench/changed-input.mjs  # smaller
import { spawn } from 'node:child_process';
import { createHash, hash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulatorProcess } from './simulator-process.mjs';
import { watchRun } from './watch-run.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const dir = path.join(here, '.work', 'changed-input');
const ROWS = Number(process.env.ROWS ?? 1_000_000);
const bin = path.join(root, 'bin', 'gemini-batch.js');
const LABELS = ['billing', 'shipping', 'other'];
const PROMPT = 'Classify this ticket: {{text}}';

rmSync(dir, { recursive: true, force: true });
mkdirSync(path.join(dir, 'rows.gemini-batch'), { recursive: true });
const words = 'alpha beta gamma delta logistics routing warehouse invoice customer support ticket refund shipping delay'.split(' ');
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const texts = Array.from({ length: ROWS }, (_, i) => `${i} ${Array.from({ length: 10 }, () => words[Math.floor(rand() * words.length)]).join(' ')}`);
const fp = (text) => hash('sha256', `${text.length}:${text}`, 'base64url').slice(0, 22); // answer-fingerprint.ts: one prompt column

async function writeLines(file, lines) {
  await new Promise((resolve) => {
    const out = createWriteStream(file);
    let i = 0;
    const pump = () => {
      let ok = true;
      while (i < lines.length && ok) ok = out.write(lines[i++]);
      if (i < lines.length) out.once('drain', pump);
      else out.end(resolve);
    };
    pump();
  });
}

async function sha256(file) {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk);
  return h.digest('hex');
}

const input = path.join(dir, 'rows.csv');
await writeLines(input, ['id,text\n', ...texts.map((t, i) => `${i},${t}\n`)]);
const time = new Date().toISOString();
await writeLines(
  path.join(dir, 'rows.gemini-batch', 'journal.jsonl'),
  texts.map(
    (t, row) =>
      `{"row":${row},"status":"ok","attempts":1,"tokens":{"input":20,"output":1,"thoughts":0},"fp":"${fp(t)}","label":"${LABELS[row % 3]}","raw":"${LABELS[row % 3]}","finishReason":"STOP","error":null,"key":"key-1 …-key","time":"${time}"}\n`,
  ),
);
writeFileSync(path.join(dir, 'scenario.json'), JSON.stringify({ acceptAnyKey: true, defaultProject: 'p', projects: [{ id: 'p', keys: [], limits: { '*': { rpm: 1_000_000_000, tpm: 1_000_000_000_000 } } }] }));
const { child: sim, url } = await startSimulatorProcess(path.join(dir, 'scenario.json'));
writeFileSync(
  path.join(dir, 'rows.gemini-batch', 'manifest.json'),
  JSON.stringify({
    format: 1,
    tool: { name: 'gemini-batch', version: JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version },
    createdAt: time,
    input: {
      path: 'rows.csv',
      size: statSync(input).size,
      sha256: await sha256(input),
      records: ROWS,
      columns: ['id', 'text'],
      checkpoints: [],
      rowFingerprint: 'prompt-columns',
      reading: { format: 'csv', encoding: 'utf-8', delimiter: ',', quote: '"', headerRow: 1, sheet: null, relaxColumnCount: false },
    },
    source: { kind: 'api', provider: 'gemini', endpoint: new URL(url).host, model: 'gemini-2.5-flash' },
    settings: { prompt: PROMPT, system: null, labels: LABELS, schema: null, temperature: 0, maxOutputTokens: null, thinkingBudget: null, examples: null },
  }),
);

// The change: a row inserted after row 10, row 500,000 (or the middle) edited.
const edited = Math.floor(ROWS / 2);
const changed = [...texts];
changed[edited] = `${edited} edited: a refund for a damaged parcel`;
changed.splice(11, 0, 'inserted: where is my invoice');
await writeLines(input, ['id,text\n', ...changed.map((t, i) => `${i},${t}\n`)]);
console.log(`input: ${ROWS} rows answered, then 1 inserted and 1 edited (${(statSync(input).size / 1e6).toFixed(1)} MB)`);

const requests = async () => (await (await fetch(`${url}/__sim/stats`)).json()).requests.total;
const args = ['classify', 'rows.csv', '--prompt', PROMPT, '--labels', LABELS.join(','), '--base-url', url, '--rpm', '1000000000', '--tpm', '1000000000000', '--workers-per-key', '64', '--json'];
const before = await requests();
const t0 = performance.now();
const run = spawn(process.execPath, [bin, ...args], { cwd: dir, env: { ...process.env, GEMINI_API_KEY: 'changed-input-bench-key' }, stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
run.stdout.on('data', (d) => (out += d));
const { code, peakMb: peak, firstRequestS } = await watchRun(run, { t0, before, requests, everyMs: 50 });
const wall = (performance.now() - t0) / 1000;
const sent = (await requests()) - before;
const lines = out.trim().split('\n').map((l) => JSON.parse(l));
const note = lines.find((e) => typeof e.text === 'string' && e.text.includes('the input changed'))?.text;
const output = readFileSync(path.join(dir, 'rows.classified.csv'), 'utf8').trimEnd().split('\n');
let ok = 0;
let misplaced = 0;
for (let i = 1; i < output.length; i++) {
  const line = output[i];
  const text = changed[i - 1];
  if (line.endsWith(',ok,')) ok++;
  // an unchanged row keeps the label its original row id had
  const original = i - 1 < 11 ? i - 1 : i - 2;
  if (i - 1 !== 11 && i - 1 !== edited + 1 && !line.startsWith(`${i - 1},${text},${LABELS[original % 3]},`)) misplaced++;
}
console.log(`resume of the changed input: exit ${code}; first request after ${firstRequestS?.toFixed(2)} s; wall ${wall.toFixed(1)} s; peak RSS ${peak.toFixed(0)} MB; ${sent} requests sent`);
console.log(`output: ${output.length - 1} rows, ${ok} ok, ${misplaced} unchanged rows not carrying their own answer`);
console.log(`notice: ${note}`);
sim.kill();
