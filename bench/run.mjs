// The rate-governance benchmark (issues 4 and 10): gemini-batch and the tools a TypeScript user would otherwise use, each
// against its own simulator process running the same scenario, all in one run. Writes bench/.work/last-table.md.
//
//   npm run bench                 # every scenario (about 15 minutes; runs in parallel)
//   node bench/run.mjs S1 S4      # some scenarios
//   BENCH_TOOLS=gemini-batch node bench/run.mjs S6     # some tools
//   BENCH_RPM=120 BENCH_MINUTES=3 node bench/run.mjs   # S1–S5 at another rate / length
//   BENCH_BASELINE=../base BENCH_TOOLS=gemini-batch,gemini-batch@baseline node bench/run.mjs S8
//                                 # also runs the built checkout at ../base (its bin/gemini-batch.js) as the tool
//                                 # gemini-batch@baseline, side by side with this one: a change measured before and after
//
// Efficiency = ideal ÷ wall. Wall: from the first request the simulator saw to the last row settled. Ideal: what a
// perfect client needs for the same rows with the same answer times — it sends row k exactly when the binding quota
// allows (k ÷ RPM, or the tokens of the rows before it ÷ TPM) and is done when the last answer is back, each row
// taking the latency the simulator drew for its answer (its log's latencyMs). With slow answers the wait for the last
// ones is part of the ideal, not a loss. 429s, requests and peaks come from the simulator's own counters
// (GET /__sim/stats), not from the tools; 429s injected as faults (S10) are counted apart.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
/** S6–S10: the issue's 300 RPM, five minutes of rows. */
const R10 = 300;
const N10 = R10 * 5;
/** Network legs of S6–S10: a client near Google's front end (a few ms each way, p99 20 ms). */
const NEAR = { medianMs: 5, p99Ms: 20 };
const FAST = { medianMs: 200, p99Ms: 300 };

const everyTool = ['gemini-batch', 'pqueue-genai', 'langchain-batch'];
// The peers keep ceil(RPM/60) = 5 requests in flight: at 5 s per answer that is 56 RPM, so S6–S9 would take them
// 25 minutes to 2 hours each. They run where answers are fast.
const scenarios = {
  S1: { title: 'declared quota, one project (rolling 60 s)', rpm: R, projects: 1, keysPerProject: 1, told: { rpm: R }, rows: N, latency: FAST },
  S2: { title: 'two projects with two keys each (rolling)', rpm: R, projects: 2, keysPerProject: 2, told: { rpm: R }, rows: 2 * N, latency: FAST },
  S3: { title: 'quota declared 5× the real one (token bucket, burst 1/12 min)', rpm: R, projects: 1, keysPerProject: 1, window: { policy: 'bucket', burst: R / 12 }, told: { rpm: 5 * R }, rows: N, latency: FAST },
  S4: { title: 'token bucket whose burst is 1/6 of the minute', rpm: R, projects: 1, keysPerProject: 1, window: { policy: 'bucket', burst: R / 6 }, told: { rpm: R }, rows: N, latency: FAST },
  S5: { title: '3 % 503s and 1 % connection resets (rolling)', rpm: R, projects: 1, keysPerProject: 1, told: { rpm: R }, rows: N, latency: FAST, faults: { '503': 0.03, reset: 0.01 } },
  S6: { title: 'rolling 300 RPM, answers lognormal median 5 s / p99 12 s', rpm: R10, projects: 1, keysPerProject: 1, told: { rpm: R10 }, rows: N10, latency: { medianMs: 5_000, p99Ms: 12_000, uplink: NEAR, downlink: NEAR }, tools: ['gemini-batch'] },
  S7: { title: 'rolling 300 RPM, answers lognormal median 20 s / p99 40 s', rpm: R10, projects: 1, keysPerProject: 1, told: { rpm: R10 }, rows: N10, latency: { medianMs: 20_000, p99Ms: 40_000, uplink: NEAR, downlink: NEAR }, tools: ['gemini-batch'] },
  S8: {
    title: 'TPM-bound: 100,000 TPM, prompts of 50–4,000 tokens in English, German and Japanese, median 2 s',
    rpm: R10,
    tpm: 100_000,
    projects: 1,
    keysPerProject: 1,
    told: { rpm: R10, tpm: 100_000 },
    rows: 560,
    prompts: 'multilingual',
    latency: { medianMs: 2_000, p99Ms: 6_000, uplink: NEAR, downlink: NEAR },
    tools: ['gemini-batch'],
  },
  S9: { title: 'Flex-like: answers after 30–120 s (median 60 s), 5 % 503 sheds', rpm: R10, projects: 1, keysPerProject: 1, told: { rpm: R10 }, rows: N10, latency: { medianMs: 60_000, p99Ms: 120_000, minMs: 30_000, maxMs: 120_000, uplink: NEAR, downlink: NEAR }, faults: { '503': 0.05 }, tools: ['gemini-batch'] },
  S10: { title: 'rolling 300 RPM, 1 % of answers a 429 without details', rpm: R10, projects: 1, keysPerProject: 1, told: { rpm: R10 }, rows: N10, latency: FAST, faults: { '429-bare': 0.01 } },
};
// S1 and S3 through --provider openai (issue 13): the simulator in the OpenAI dialect (POST /v1/chat/completions, bearer
// key from OPENAI_API_KEY), with its x-ratelimit-* and retry-after(-ms) headers on (h) or off (n).
for (const [id, headers] of [['S1o-h', true], ['S1o-n', false], ['S3o-h', true], ['S3o-n', false]]) {
  const base = scenarios[id.slice(0, 2)];
  scenarios[id] = { ...base, title: `${base.title}; --provider openai, headers ${headers ? 'on' : 'off'}`, provider: 'openai', openai: { style: 'openai', rateLimitHeaders: headers, retryAfterHeaders: headers }, tools: ['gemini-batch'] };
}
/** Another built checkout of gemini-batch, run as the tool `gemini-batch@baseline` (BENCH_BASELINE). */
const baseline = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
if (baseline) everyTool.push('gemini-batch@baseline');
const tools = process.env.BENCH_TOOLS ? process.env.BENCH_TOOLS.split(',').filter((t) => everyTool.includes(t)) : everyTool;
/** The checkout whose bin/gemini-batch.js a gemini-batch tool runs; undefined for a peer. */
const checkoutOf = (tool) => (tool === 'gemini-batch' ? root : tool === 'gemini-batch@baseline' ? baseline : undefined);
/** Whether scenario `s` runs `tool` (a baseline checkout runs wherever gemini-batch does). */
const runsTool = (s, tool) => (s.tools ?? everyTool).includes(checkoutOf(tool) ? 'gemini-batch' : tool);

function scenarioJson(id, s) {
  const projects = Array.from({ length: s.projects }, (_, p) => ({
    id: `p${p + 1}`,
    keys: Array.from({ length: s.keysPerProject }, (_, k) => `bench-key-p${p + 1}-k${k + 1}`),
    limits: { 'gemini-2.5-flash': { rpm: s.rpm, tpm: s.tpm ?? 100_000_000, ...(s.window ? { window: s.window } : {}) } },
  }));
  return {
    description: `${id}: ${s.title}`,
    seed: 1,
    tier: 'paid',
    projects,
    latency: s.latency,
    requestLog: true,
    ...(s.faults ? { faults: s.faults } : {}),
    ...(s.openai ? { openai: s.openai } : {}),
  };
}

function rowsFor(s) {
  return s.prompts === 'multilingual' ? multilingualRows(s.rows) : classificationRows(s.rows);
}

function classificationRows(count) {
  const records = parse(readFileSync(path.join(root, 'test', 'fixtures', 'data', 'cip-2020-nces.csv')), { columns: true });
  const out = [];
  for (let i = 0; i < count; i++) {
    const r = records[i % records.length];
    out.push(`Row ${i}. We are a renewable-energy engineering firm. Would graduates of this programme be a hiring target for us? Programme: ${r.CIPTitle}. ${r.CIPDefinition}`);
  }
  return out;
}

/**
 * Prompts of about 50 to 4,000 tokens (log-uniform), a third each in English (CIP programme definitions), German and
 * Japanese (test/fixtures/text), seeded. Lengths are set in characters at the language's usual characters per o200k
 * token; the simulator counts the real tokens.
 */
function multilingualRows(count) {
  const en = parse(readFileSync(path.join(root, 'test', 'fixtures', 'data', 'cip-2020-nces.csv')), { columns: true }).map((r) => `${r.CIPTitle}. ${r.CIPDefinition}`).join(' ');
  const de = readFileSync(path.join(root, 'test', 'fixtures', 'text', 'de-skills.txt'), 'utf8').replace(/\n/g, ' ');
  const ja = readFileSync(path.join(root, 'test', 'fixtures', 'text', 'ja-skills.txt'), 'utf8').replace(/\n/g, '');
  const sources = [
    { text: en, charsPerToken: 4.5 },
    { text: de, charsPerToken: 3.6 },
    { text: ja, charsPerToken: 1.3 },
  ];
  let seed = 10;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const out = [];
  for (let i = 0; i < count; i++) {
    const source = sources[i % 3];
    const tokens = 50 * Math.exp(random() * Math.log(4_000 / 50));
    const chars = Math.round(tokens * source.charsPerToken);
    // A stretch of the source from a random place, wrapping around at its end.
    let at = Math.floor(random() * source.text.length);
    let body = '';
    while (body.length < chars) {
      const piece = source.text.slice(at, at + chars - body.length);
      body += piece;
      at = (at + piece.length) % source.text.length;
    }
    out.push(`Row ${i}. Is this text about health care? ${body}`);
  }
  return out;
}

/**
 * The wall time of a perfect client (see the top of this file), s: row k leaves at its place in the binding quota and
 * its answer comes back after the latency the simulator drew for the row's answer (first 200 in the log).
 */
function idealWall(s, prompts, log, stats, dir) {
  const latency = new Map();
  for (const e of log) if (e.status === 200 && e.promptSha256 && !latency.has(e.promptSha256)) latency.set(e.promptSha256, (e.latencyMs ?? 0) / 1000);
  // Tokens per row, for the TPM-bound scenario: gemini-batch's journal has each row's promptTokenCount.
  let tokens;
  if (s.tpm !== undefined) {
    tokens = new Array(prompts.length).fill(stats.tokens.input / prompts.length);
    try {
      for (const line of readFileSync(path.join(dir, 'rows.gemini-batch', 'journal.jsonl'), 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const entry = JSON.parse(line);
        if (entry.tokens?.input > 0) tokens[entry.row] = entry.tokens.input;
      }
    } catch {
      // no journal (a peer): the even spread stays
    }
  }
  let end = 0;
  let before = 0;
  prompts.forEach((prompt, k) => {
    const sendAt = s.tpm !== undefined ? (before / (s.tpm * s.projects)) * 60 : (k / (s.rpm * s.projects)) * 60;
    if (tokens) before += tokens[k];
    const l = latency.get(createHash('sha256').update(prompt).digest('hex'));
    if (l !== undefined) end = Math.max(end, sendAt + l);
  });
  return end;
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
  const prompts = rowsFor(s);
  writeFileSync(path.join(dir, 'rows.jsonl'), `${prompts.map((p) => JSON.stringify(p)).join('\n')}\n`);
  writeFileSync(path.join(dir, 'rows.csv'), `text\n${prompts.map((p) => `"${p.replace(/"/g, '""')}"`).join('\n')}\n`);

  const sim = await startSimulatorProcess(scenarioFile);
  await ready;
  let result;
  try {
    if (checkoutOf(tool)) {
      const told = Object.entries(s.told).flatMap(([flag, value]) => [`--${flag}`, String(value)]);
      // --provider openai: one bearer key from OPENAI_API_KEY, the OpenAI dialect's /v1 base URL.
      const credentials = s.provider === 'openai' ? ['--provider', 'openai', '--base-url', `${sim.url}/v1`] : ['--keys-file', 'keys.txt', '--base-url', sim.url];
      const env = s.provider === 'openai' ? { ...process.env, OPENAI_API_KEY: keyLines[0].split(' ')[1] } : process.env;
      const r = await run(process.execPath, [path.join(checkoutOf(tool), 'bin', 'gemini-batch.js'), 'classify', 'rows.csv', '--prompt', '{{text}}', '--labels', 'yes,no', ...credentials, ...told, '--json'], { cwd: dir, env });
      const summary = r.out.trim().split('\n').map((l) => { try { return JSON.parse(l); } catch { return {}; } }).find((e) => e.event === 'summary');
      if (!summary) throw new Error(`gemini-batch gave no summary:\n${r.out.slice(-2000)}`);
      result = { ok: summary.byStatus.ok, failed: summary.total - summary.byStatus.ok, endedAt: r.endedAt, exit: r.code, bound: summary.bound, notices: r.out.split('\n').filter((l) => l.includes('"notice"')).map((l) => JSON.parse(l).text) };
    } else {
      const out = path.join(dir, 'result.json');
      const r = await run(process.execPath, [path.join(here, 'runners', `${tool}.mjs`), '--rows', 'rows.jsonl', '--keys', 'keys.txt', '--baseUrl', sim.url, '--rpm', String(s.told.rpm), '--out', out], { cwd: dir });
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
    const idealS = idealWall(s, prompts, log, stats, dir);
    const injected429 = stats.faults['429-bare'] ?? 0;
    const quota429 = stats.rateLimited.total - injected429;
    const peaks = Object.values(stats.projects).map((p) => p.peak60s);
    return {
      id,
      tool,
      rows: s.rows,
      ok: result.ok,
      failed: result.failed,
      wallS,
      idealS,
      efficiency: result.failed === 0 ? idealS / wallS : undefined,
      requests: stats.requests.total,
      quota429,
      injected429,
      per1000: (1000 * quota429) / Math.max(1, stats.requests.total),
      peak: Math.max(...peaks.map((p) => p.arrived.requests)),
      peakTokens: Math.max(...peaks.map((p) => p.arrived.inputTokens)),
      limit: s.rpm,
      tpm: s.tpm,
      errors: result.errors,
      bound: result.bound,
      notices: result.notices,
    };
  } finally {
    sim.child.kill('SIGTERM');
  }
}

const wanted = process.argv.slice(2).filter((a) => a in scenarios);
const ids = wanted.length > 0 ? wanted : Object.keys(scenarios);
mkdirSync(work, { recursive: true });
const started = new Date();
console.log(`benchmark: ${ids.join(', ')} × ${tools.join(', ')}; S1–S5 at R = ${R} RPM, ${MINUTES} min of rows per project; S6–S10 at ${R10} RPM`);
// Every simulator starts (and builds its tokenizer) before any tool sends: start-up CPU must not stall a run.
let go;
const ready = new Promise((resolve) => (go = resolve));
const runs = ids.flatMap((id) => tools.filter((t) => runsTool(scenarios[id], t)).map((tool) => measure(id, scenarios[id], tool, ready).catch((error) => ({ id, tool, error: String(error.message ?? error) }))));
setTimeout(go, 3_000 + 500 * runs.length);
const results = await Promise.all(runs);

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
const describe = (dir) =>
  `${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir }).toString().trim()}${execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: dir }).toString().trim() ? ' (with uncommitted changes)' : ''}`;
const dirty = (describe(root).includes('uncommitted') ? ' (with uncommitted changes)' : '') + (baseline ? `; gemini-batch@baseline: commit ${describe(baseline)} at ${baseline}` : '');
const fmt = (n, d = 0) => (n === undefined ? 'n/a (rows failed)' : n.toFixed(d));
const pct = (b) => `${b.binding} ${Math.round(b.share * 100)} %`;
const lines = [
  '| Scenario | Tool | Efficiency | 429s per 1,000 req (quota) | Failed rows | Rows ok | Wall s (ideal) | Requests | Peak arrived in any 60 s (limit) | What bound the run |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...results.map((r) =>
    r.error
      ? `| ${r.id} | ${r.tool} | error: ${r.error.split('\n')[0]} | | | | | | | |`
      : `| ${r.id} | ${r.tool} | ${r.efficiency === undefined ? 'n/a (rows failed)' : `**${r.efficiency.toFixed(3)}**`} | ${fmt(r.per1000, 1)}${r.injected429 ? ` (+${r.injected429} injected)` : ''} | ${r.failed} | ${r.ok}/${r.rows} | ${fmt(r.wallS, 1)} (${fmt(r.idealS, 1)}) | ${r.requests} | ${r.tpm ? `${r.peakTokens} tokens (${r.tpm})` : `${r.peak} (${r.limit})`} | ${(r.bound ?? []).filter((b) => b.share >= 0.01).map(pct).join(' · ')} |`,
  ),
];
const table = lines.join('\n');
console.log(table);
writeFileSync(path.join(work, `results-${started.toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ commit, R, MINUTES, results }, null, 2));
writeFileSync(path.join(work, 'last-table.md'), `${table}\n\ncommit ${commit}${dirty}, ${started.toISOString()}, node ${process.version}, command: node bench/run.mjs ${process.argv.slice(2).join(' ')} (BENCH_RPM=${R}, BENCH_MINUTES=${MINUTES})\n\n${results.filter((r) => r.notices?.length).map((r) => `${r.id} ${r.tool} notices:\n${r.notices.map((n) => `  ${n}`).join('\n')}`).join('\n')}\n`);
