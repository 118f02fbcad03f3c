// Large inputs (issue 5): a 1,000,000-row job against the simulator in its own process (latency 0, no quota in the
// way). Measures the peak RSS of classify (VmHWM, read from /proc while it runs), stops the job with SIGKILL once at
// least 900,000 rows are journaled, then resumes it and measures how long the resumed run takes to send its first
// request (spawn → the simulator's request counter moving), and its peak RSS to the end.
//
//   node bench/large-job.mjs              # 1,000,000 rows
//   ROWS=200000 node bench/large-job.mjs  # smaller
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulatorProcess } from './simulator-process.mjs';
import { peakRss, watchRun } from './watch-run.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const dir = path.join(here, '.work', 'large-job');
const ROWS = Number(process.env.ROWS ?? 1_000_000);
const KILL_AT = Math.floor(ROWS * 0.9);
const bin = path.join(root, 'bin', 'gemini-batch.js');

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const words = 'alpha beta gamma delta logistics routing warehouse invoice customer support ticket refund shipping delay'.split(' ');
await new Promise((resolve) => {
  const out = createWriteStream(path.join(dir, 'rows.csv'));
  out.write('id,text\n');
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let i = 0;
  const pump = () => {
    let ok = true;
    while (i < ROWS && ok) {
      ok = out.write(`${i},${Array.from({ length: 10 }, () => words[Math.floor(rand() * words.length)]).join(' ')}\n`);
      i++;
    }
    if (i < ROWS) out.once('drain', pump);
    else out.end(resolve);
  };
  pump();
});
console.log(`input: ${ROWS} rows, ${(statSync(path.join(dir, 'rows.csv')).size / 1e6).toFixed(1)} MB`);
writeScenario();

function writeScenario() {
  const text = JSON.stringify({ acceptAnyKey: true, defaultProject: 'p', projects: [{ id: 'p', keys: [], limits: { '*': { rpm: 1_000_000_000, tpm: 1_000_000_000_000 } } }] });
  createWriteStream(path.join(dir, 'scenario.json')).end(text);
}

const { child: sim, url } = await startSimulatorProcess(path.join(dir, 'scenario.json'));
const requests = async () => (await (await fetch(`${url}/__sim/stats`)).json()).requests.total;

const args = ['classify', 'rows.csv', '--prompt', 'Classify this ticket: {{text}}', '--labels', 'billing,shipping,other', '--base-url', url, '--rpm', '1000000000', '--tpm', '1000000000000', '--workers-per-key', '64', '--json'];
const env = { ...process.env, GEMINI_API_KEY: 'large-job-bench-key' };

/** Lines in the journal, estimated from its size and the length of its first lines (reading it whole is slow). */
let bytesPerLine;
function journalLines() {
  const file = path.join(dir, 'rows.gemini-batch', 'journal.jsonl');
  try {
    if (bytesPerLine === undefined) {
      const head = readFileSync(file, 'utf8').split('\n').slice(0, 2_000);
      if (head.length < 2_000) return 0;
      bytesPerLine = head.slice(0, -1).join('\n').length / (head.length - 1);
    }
    return statSync(file).size / bytesPerLine;
  } catch {
    return 0;
  }
}

function countJournal() {
  try {
    const buf = readFileSync(path.join(dir, 'rows.gemini-batch', 'journal.jsonl'));
    let n = 0;
    for (const b of buf) if (b === 10) n++;
    return n;
  } catch {
    return 0;
  }
}

// Run 1: until ≥ 90 % journaled, then SIGKILL.
const t1 = performance.now();
const first = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
let peak1 = 0;
let killed = false;
await new Promise((resolve) => {
  const timer = setInterval(() => {
    peak1 = Math.max(peak1, peakRss(first.pid));
    if (!killed && journalLines() >= KILL_AT * 1.02) {
      killed = true;
      first.kill('SIGKILL');
    }
  }, 100);
  first.on('close', () => {
    clearInterval(timer);
    resolve();
  });
});
const journaled = countJournal();
console.log(`run 1: killed after ${((performance.now() - t1) / 1000).toFixed(1)} s with ${journaled} rows journaled; peak RSS ${peak1.toFixed(0)} MB`);

// Run 2: resume; time to first request, peak RSS to the end.
const before = await requests();
const t2 = performance.now();
const second = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
let summary = '';
second.stdout.on('data', (d) => (summary += d));
const { peakMb: peak2, firstRequestS } = await watchRun(second, { t0: t2, before, requests, everyMs: 25 });
const totalS = (performance.now() - t2) / 1000;
const end = summary.trim().split('\n').map((l) => { try { return JSON.parse(l); } catch { return {}; } }).find((e) => e.event === 'summary');
console.log(`run 2 (resume): first request after ${firstRequestS?.toFixed(2)} s; finished in ${totalS.toFixed(1)} s; peak RSS ${peak2.toFixed(0)} MB; rows ok ${end?.byStatus?.ok} of ${end?.total}; exit ${end?.exitCode}`);
sim.kill('SIGTERM');
