// End-to-end overhead (issue 4): rows/s of `gemini-batch classify` against the simulator in its own process, at
// latency 0 and with no quota in the way, on a generated CSV. Wall time is the classify process's, from spawn to
// exit: start-up, the input scan, sending, journaling and writing the output are all in it.
//
//   node bench/overhead.mjs            # 20,000 rows, 3 runs, median
//   ROWS=50000 RUNS=5 node bench/overhead.mjs
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulatorProcess } from './simulator-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const dir = path.join(here, '.work', 'overhead');
const ROWS = Number(process.env.ROWS ?? 20_000);
const RUNS = Number(process.env.RUNS ?? 3);
const WORKERS = Number(process.env.WORKERS ?? 64);
const bin = path.join(root, 'bin', 'gemini-batch.js');

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const words = 'alpha beta gamma delta logistics routing warehouse invoice customer support ticket refund shipping delay'.split(' ');
let seed = 1;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const lines = ['id,text'];
for (let i = 0; i < ROWS; i++) lines.push(`${i},${Array.from({ length: 12 }, () => words[Math.floor(rand() * words.length)]).join(' ')}`);
writeFileSync(path.join(dir, 'rows.csv'), `${lines.join('\n')}\n`);
writeFileSync(
  path.join(dir, 'scenario.json'),
  JSON.stringify({ acceptAnyKey: true, defaultProject: 'p', projects: [{ id: 'p', keys: [], limits: { '*': { rpm: 1_000_000_000, tpm: 1_000_000_000_000 } } }] }),
);

const { child: sim, url } = await startSimulatorProcess(path.join(dir, 'scenario.json'));

const rates = [];
for (let run = 1; run <= RUNS; run++) {
  rmSync(path.join(dir, 'rows.gemini-batch'), { recursive: true, force: true });
  const started = performance.now();
  const code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [bin, 'classify', 'rows.csv', '--prompt', 'Classify this support ticket: {{text}}', '--labels', 'billing,shipping,other', '--base-url', url, '--rpm', '1000000000', '--tpm', '1000000000000', '--workers-per-key', String(WORKERS), '--json'],
      { cwd: dir, env: { ...process.env, GEMINI_API_KEY: 'overhead-bench-key' }, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('close', resolve);
  });
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`classify exited ${code}`);
  rates.push(ROWS / seconds);
  console.log(`run ${run}: ${ROWS} rows in ${seconds.toFixed(2)} s = ${(ROWS / seconds).toFixed(0)} rows/s`);
}
sim.kill('SIGTERM');
const sorted = [...rates].sort((a, b) => a - b);
console.log(`median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} rows/s over ${RUNS} runs (${ROWS} rows, ${WORKERS} workers, node ${process.version})`);
