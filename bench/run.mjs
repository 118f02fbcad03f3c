// The rate-governance benchmark (issue 4): gemini-batch and the tools a TypeScript user would otherwise use, each
// against its own simulator process running the same scenario, all in one run. Writes bench/RESULTS.md.
//
//   npm run bench                 # every scenario, every tool (about 6 minutes; runs in parallel)
//   node bench/run.mjs S1 S4      # some scenarios
//   BENCH_RPM=120 BENCH_MINUTES=3 node bench/run.mjs
//
// Efficiency = rows answered per minute ÷ the binding quota rate (the server's real RPM × projects), over the wall
// time from the first request the simulator saw to the last row settled. 429s, requests and peaks come from the
// simulator's own counters (GET /__sim/stats), not from the tools.
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { startSimulatorProcess } from './simulator-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const work = path.join(here, '.work');
const R = Number(process.env.BENCH_RPM ?? 240);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 5);
const N = R * MINUTES;

const scenarios = {
  S1: { title: 'declared quota, one project (rolling 60 s)', projects: 1, keysPerProject: 1, window: undefined, declared: R, rows: N, faults: undefined },
  S2: { title: 'two projects with two keys each (rolling)', projects: 2, keysPerProject: 2, window: undefined, declared: R, rows: 2 * N, faults: undefined },
  S3: { title: 'quota declared 5× the real one (token bucket, burst 1/12 min)', projects: 1, keysPerProject: 1, window: { policy: 'bucket', burst: R / 12 }, declared: 5 * R, rows: N, faults: undefined },
  S4: { title: 'token bucket whose burst is 1/6 of the minute', projects: 1, keysPerProject: 1, window: { policy: 'bucket', burst: R / 6 }, declared: R, rows: N, faults: undefined },
  S5: { title: '3 % 503s and 1 % connection resets (rolling)', projects: 1, keysPerProject: 1, window: undefined, declared: R, rows: N, faults: { '503': 0.03, reset: 0.01 } },
};
const allTools = ['gemini-batch', 'pqueue-genai', 'langchain-batch'];
// BENCH_TOOLS=gemini-batch node bench/run.mjs S1: only some tools.
const tools = process.env.BENCH_TOOLS ? process.env.BENCH_TOOLS.split(',').filter((t) => allTools.includes(t)) : allTools;

function scenarioJson(id, s) {
  const projects = Array.from({ length: s.projects }, (_, p) => ({
    id: `p${p + 1}`,
    keys: Array.from({ length: s.keysPerProject }, (_, k) => `bench-key-p${p + 1}-k${k + 1}`),
    limits: { 'gemini-2.5-flash': { rpm: R, tpm: 100_000_000, ...(s.window ? { window: s.window } : {}) } },
  }));
  return {
    description: `${id}: ${s.title}`,
    seed: 1,
    tier: 'paid',
    projects,
    latency: { medianMs: 200, p99Ms: 300 },
    requestLog: true,
    ...(s.faults ? { faults: s.faults } : {}),
  };
}

function rowsFor(count) {
  const records = parse(readFileSync(path.join(root, 'test', 'fixtures', 'data', 'cip-2020-nces.csv')), { columns: true });
  const out = [];
  for (let i = 0; i < count; i++) {
    const r = records[i % records.length];
    out.push(`Row ${i}. We are a renewable-energy engineering firm. Would graduates of this programme be a hiring target for us? Programme: ${r.CIPTitle}. ${r.CIPDefinition}`);
  }
  return out;
}


function run(cmd, args, opts) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out, endedAt: Date.now() }));
  });
}

async function measure(id, s, tool, ready) {
  const dir = path.join(work, `${id}-${tool}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const scenarioFile = path.join(dir, 'scenario.json');
  writeFileSync(scenarioFile, JSON.stringify(scenarioJson(id, s), null, 2));
  const keyLines = scenarioJson(id, s).projects.flatMap((p) => p.keys.map((k) => `${p.id} ${k}`));
  writeFileSync(path.join(dir, 'keys.txt'), `${keyLines.join('\n')}\n`);
  const prompts = rowsFor(s.rows);
  writeFileSync(path.join(dir, 'rows.jsonl'), `${prompts.map((p) => JSON.stringify(p)).join('\n')}\n`);
  writeFileSync(path.join(dir, 'rows.csv'), `text\n${prompts.map((p) => `"${p.replace(/"/g, '""')}"`).join('\n')}\n`);

  const sim = await startSimulatorProcess(scenarioFile);
  await ready;
  let result;
  try {
    if (tool === 'gemini-batch') {
      const r = await run(process.execPath, [path.join(root, 'bin', 'gemini-batch.js'), 'classify', 'rows.csv', '--prompt', '{{text}}', '--labels', 'yes,no', '--keys-file', 'keys.txt', '--base-url', sim.url, '--rpm', String(s.declared), '--json'], { cwd: dir });
      const summary = r.out.trim().split('\n').map((l) => { try { return JSON.parse(l); } catch { return {}; } }).find((e) => e.event === 'summary');
      if (!summary) throw new Error(`gemini-batch gave no summary:\n${r.out.slice(-2000)}`);
      result = { ok: summary.byStatus.ok, failed: summary.total - summary.byStatus.ok, endedAt: r.endedAt, exit: r.code };
    } else {
      const out = path.join(dir, 'result.json');
      const r = await run(process.execPath, [path.join(here, 'runners', `${tool}.mjs`), '--rows', 'rows.jsonl', '--keys', 'keys.txt', '--baseUrl', sim.url, '--rpm', String(s.declared), '--out', out], { cwd: dir });
      if (r.code !== 0) throw new Error(`${tool} failed:\n${r.out.slice(-2000)}`);
      const j = JSON.parse(readFileSync(out, 'utf8'));
      result = { ok: j.ok, failed: j.failed, endedAt: j.endedAt, exit: r.code, errors: j.errors };
    }
    const stats = await (await fetch(`${sim.url}/__sim/stats`)).json();
    const log = await (await fetch(`${sim.url}/__sim/log?since=0`)).json();
    writeFileSync(path.join(dir, 'sim-log.json'), JSON.stringify(log));
    writeFileSync(path.join(dir, 'sim-stats.json'), JSON.stringify(stats, null, 2));
    const firstRequest = Math.min(...log.map((e) => e.t));
    const wallS = (result.endedAt - firstRequest) / 1000;
    const binding = R * s.projects;
    const peak = Math.max(...Object.values(stats.projects).map((p) => p.peak60s.arrived.requests));
    return {
      id,
      tool,
      rows: s.rows,
      ok: result.ok,
      failed: result.failed,
      wallS,
      efficiency: result.failed === 0 ? result.ok / (wallS / 60) / binding : undefined,
      rowsPerMin: result.ok / (wallS / 60),
      requests: stats.requests.total,
      rateLimited: stats.rateLimited.total,
      per1000: (1000 * stats.rateLimited.total) / Math.max(1, stats.requests.total),
      peak,
      admitted60: R,
      errors: result.errors,
    };
  } finally {
    sim.child.kill('SIGTERM');
  }
}

const wanted = process.argv.slice(2).filter((a) => a in scenarios);
const ids = wanted.length > 0 ? wanted : Object.keys(scenarios);
mkdirSync(work, { recursive: true });
const started = new Date();
console.log(`benchmark: ${ids.join(', ')} × ${tools.join(', ')}; R = ${R} RPM, ${MINUTES} min of rows per project`);
// Every simulator starts (and builds its tokenizer) before any tool sends: start-up CPU must not stall a run.
let go;
const ready = new Promise((resolve) => (go = resolve));
const runs = ids.flatMap((id) => tools.map((tool) => measure(id, scenarios[id], tool, ready).catch((error) => ({ id, tool, error: String(error.message ?? error) }))));
setTimeout(go, 3_000 + 500 * runs.length);
const results = await Promise.all(runs);

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root }).toString().trim() ? ' (with uncommitted changes)' : '';
const fmt = (n, d = 0) => (n === undefined ? 'n/a (rows failed)' : n.toFixed(d));
const lines = [
  '| Scenario | Tool | Efficiency | 429s per 1,000 req | Failed rows | Rows ok | Wall s | Requests | Peak sent in any 60 s (server admits ' + R + '/project) |',
  '|---|---|---|---|---|---|---|---|---|',
  ...results.map((r) =>
    r.error
      ? `| ${r.id} | ${r.tool} | error: ${r.error.split('\n')[0]} | | | | | | |`
      : `| ${r.id} | ${r.tool} | ${r.efficiency === undefined ? 'n/a (rows failed)' : `**${r.efficiency.toFixed(3)}**`} | ${fmt(r.per1000, 1)} | ${r.failed} | ${r.ok}/${r.rows} | ${fmt(r.wallS, 1)} | ${r.requests} | ${r.peak} |`,
  ),
];
const table = lines.join('\n');
console.log(table);
writeFileSync(path.join(work, `results-${started.toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ commit, R, MINUTES, results }, null, 2));
writeFileSync(path.join(work, 'last-table.md'), `${table}\n\ncommit ${commit}${dirty}, ${started.toISOString()}, node ${process.version}, command: node bench/run.mjs ${process.argv.slice(2).join(' ')} (BENCH_RPM=${R}, BENCH_MINUTES=${MINUTES})\n`);
