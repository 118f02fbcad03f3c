#!/usr/bin/env node
// Replays a newcomer's first hour (issue 12) from a fresh clone and checks that every step behaves as written: the
// README's commands run as printed, the simulator example works as pasted, and each message a newcomer meets leads
// somewhere. Every command is run through bash exactly as a user would type it (or paste it from the tool's output).
//
//   node scripts/replay-newcomer.mjs                     # clone this repository, run everything (npm test included)
//   node scripts/replay-newcomer.mjs --skip-npm-test     # leave out `npm test` (minutes on a small machine)
//   node scripts/replay-newcomer.mjs --repo <path|url> --keep
//
// Prints one line per check (PASS/FAIL, what was run, what was seen) and exits 1 if any check failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = option('--repo', path.resolve(here, '..'));
const work = mkdtempSync(path.join(tmpdir(), 'gb-newcomer-'));
const clone = path.join(work, 'gemini-batch');
const results = [];

// ── helpers ──────────────────────────────────────────────────────────────────────────────────────────────────────────

/** The environment of a newcomer's shell: no key, no base URL, nothing of this machine's npm session. */
function userEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|GEMINI_|GOOGLE_)/i.test(k) || k === 'NODE_OPTIONS' || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Starts `bash -c command` in its own process group (a terminal's foreground job), collecting its output. */
function start(command, { cwd = clone, env = {} } = {}) {
  const child = spawn('bash', ['-c', command], { cwd, env: userEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const run = { child, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d) => (run.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (run.stderr += d));
  run.done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout: run.stdout, stderr: run.stderr })));
  /** Ctrl-C as a terminal sends it: SIGINT to the whole foreground process group. */
  run.interrupt = () => process.kill(-child.pid, 'SIGINT');
  run.waitFor = async (test, timeoutMs = 120_000) => {
    const until = Date.now() + timeoutMs;
    while (!test(run)) {
      if (child.exitCode !== null || Date.now() > until) return false;
      await sleep(20);
    }
    return true;
  };
  return run;
}

/** Runs `command` to its end. */
async function sh(command, options = {}) {
  const t0 = Date.now();
  const result = await start(command, options).done;
  return { ...result, seconds: (Date.now() - t0) / 1000 };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `command` as typed in a terminal 120 columns wide (util-linux `script` gives it a pseudo-terminal). */
const inTerminal = (command) => `script -qfec ${shellQuote(`stty cols 120 rows 40; ${command}`)} /dev/null`;
const shellQuote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The progress bar's frames in what a terminal received: each redraw, without colour and cursor codes. */
function barFrames(output) {
  return output
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '\n')
    .split(/[\r\n]+/)
    .map((line) => line.trimEnd())
    .filter((line) => /\d+\/\d+ rows/.test(line) && line.includes('|'));
}

/** Seconds of `1h02m`, `4m05s`, `45s`. */
function seconds(text) {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text ?? '');
  return m && text ? Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) : NaN;
}

function check(name, ok, detail = '') {
  results.push({ name, ok });
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}${detail ? `\n      ${detail.replace(/\n/g, '\n      ')}` : ''}`);
}

/** A line of `text` matching `pattern`, for the report. */
const lineOf = (text, pattern) => text.split('\n').find((l) => pattern.test(l)) ?? '(no such line)';
const tail = (text, n = 4) => text.trim().split('\n').slice(-n).join('\n');

/** The shell commands of the README's fenced block that follows `heading` (the n-th block after it). */
function readmeBlock(readme, heading, n = 0) {
  const after = readme.slice(readme.indexOf(heading));
  const blocks = [...after.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks[n].replace(/\\\n\s*/g, '').trim();
}

function csvRows(file) {
  // Enough CSV for counting records and reading a header: quoted cells may hold line breaks.
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const records = [];
  let cell = '';
  let row = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell), records.push(row), (row = []), (cell = '');
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) row.push(cell), records.push(row);
  const [header, ...data] = records;
  return { header, rows: data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))) };
}

const number = (text, pattern) => Number((pattern.exec(text)?.[1] ?? 'NaN').replace(/,/g, ''));

// ── the path ─────────────────────────────────────────────────────────────────────────────────────────────────────────

console.log(`newcomer replay: fresh clone of ${repo} in ${clone}\n`);
{
  const r = await sh(`git clone --quiet ${JSON.stringify(repo)} ${JSON.stringify(clone)}`, { cwd: work });
  check('git clone', r.code === 0, r.stderr.trim());
  if (r.code !== 0) process.exit(1);
  const head = await sh('git log --oneline -1');
  console.log(`      at ${head.stdout.trim()}\n`);
}
const readme = readFileSync(path.join(clone, 'README.md'), 'utf8');

// 1. The README's first command, as written.
const tryIt = readmeBlock(readme, '## Try it');
{
  const r = await sh(tryIt);
  const out = path.join(clone, 'samples', 'topics.classified.csv');
  const written = existsSync(out) ? csvRows(out) : { header: [], rows: [] };
  check(
    `README "Try it": ${tryIt}`,
    r.code === 0 && r.stdout.includes('finished: every row ok') && written.rows.length === 656 && written.header.slice(-3).join(',') === 'label,status,error',
    `exit ${r.code} in ${r.seconds.toFixed(0)} s; ${lineOf(r.stdout, /^finished/)}; ${written.rows.length} rows in samples/topics.classified.csv, last columns ${written.header.slice(-3).join(',')}`,
  );
}
// 2. "run the same command again and nothing is sent twice"
{
  const again = tryIt.replace(/^npm install && /, '');
  const r = await sh(again);
  check(
    `README: the same command again sends nothing: ${again}`,
    r.code === 0 && r.stdout.includes('656 rows: 656 kept from earlier runs, 0 to send') && /requests: 0 /.test(r.stdout),
    `${lineOf(r.stdout, /kept from earlier runs/).trim()}; ${lineOf(r.stdout, /^requests:/)}`,
  );
}
// 3. npm test, as the README says.
if (flag('--skip-npm-test')) console.log('SKIP  README: npm test (--skip-npm-test)');
else {
  const r = await sh(readmeBlock(readme, 'Run the tests:'));
  check('README: npm test', r.code === 0 && /^\d+ passed, 0 failed\s*$/m.test(r.stdout), `exit ${r.code} in ${r.seconds.toFixed(0)} s; ${lineOf(r.stdout, /passed, \d+ failed/)}`);
}
// 4. "Every option: npx gemini-batch classify --help"
{
  const command = /Every option: `([^`]+)`/.exec(readme)?.[1];
  const r = await sh(command);
  check(`README: ${command}`, r.code === 0 && r.stdout.includes('--answer-column') && r.stdout.includes('--tier'), `exit ${r.code}`);
}

// 5. The simulator example: serve the scenario, paste the banner's run: line, compare it with the README's.
{
  const simulate = readmeBlock(readme, '## The simulator', 0);
  const readmeClassify = readmeBlock(readme, '## The simulator', 1);
  const server = start(simulate);
  const ready = await server.waitFor((s) => /stats: /.test(s.stdout), 60_000);
  const runLine = lineOf(server.stdout, /^run: /).replace(/^run: /, '');
  check(`README: ${simulate}`, ready && runLine.startsWith('npx gemini-batch classify'), `banner: ${server.stdout.split('\n').slice(0, 2).join('\n')}`);
  check('the banner shows keys by alias and last 4 characters only', ready && !server.stdout.includes('sim-free-key-1') && /key free-1 …ey-1/.test(server.stdout), lineOf(server.stdout, /key free-1/).trim());
  check("the README's classify command is the banner's run: line", runLine === readmeClassify, `README: ${readmeClassify}\nbanner: ${runLine}`);
  // Pasted into a terminal 120 columns wide, so that the progress bar is drawn as a user sees it.
  const r = await sh(inTerminal(runLine));
  const out = path.join(clone, 'sim-trial.csv');
  const rows = existsSync(out) ? csvRows(out).rows : [];
  check(
    `the banner's run: line, pasted: ${runLine}`,
    r.code === 0 && rows.length === 20 && rows.every((row) => row.status === 'ok') && number(r.stdout, /429s: (\d+)/) > 0 && r.seconds < 240,
    `exit ${r.code} in ${r.seconds.toFixed(0)} s; ${lineOf(r.stdout, /^requests:/)}; ${rows.length} rows, ${rows.filter((row) => row.status === 'ok').length} ok; ${lineOf(r.stdout, /learned|quotaValue/).trim()}`,
  );
  // The progress bar of that run (issue 12, "Progress and status"; src/report/progress-line.ts).
  const frames = barFrames(r.stdout);
  const tooWide = frames.filter((f) => [...f].length > 119);
  const cutCost = frames.filter((f) => /\$[\d.]*$/.test(f) && !/\$\d+\.\d{2,4}$/.test(f));
  check(
    'the progress bar fits 120 columns and never cuts a number (the cost)',
    frames.length > 0 && tooWide.length === 0 && cutCost.length === 0,
    `${frames.length} frames; widest ${Math.max(0, ...frames.map((f) => [...f].length))} columns; last: ${frames.at(-1) ?? '(none)'}`,
  );
  const paused = frames.filter((f) => /429 pause (\S+)/.test(f));
  const etaShort = paused.filter((f) => seconds(/ETA (\S+)/.exec(f)?.[1]) < seconds(/429 pause (\S+)/.exec(f)?.[1]));
  check(
    'during a 429 pause the bar says so, and its ETA is never shorter than the pause',
    paused.length > 0 && etaShort.length === 0,
    `${paused.length} frames in a pause; e.g. ${paused[Math.floor(paused.length / 2)] ?? '(none)'}${etaShort.length ? `\nETA shorter than the pause: ${etaShort[0]}` : ''}`,
  );
  server.interrupt();
  const stopped = await server.done;
  // Run through npx, npm ends itself with the interrupt's signal once gemini-batch has exited (README, exit codes).
  check('the simulator stops on Ctrl-C', (stopped.code === 0 || stopped.signal === 'SIGINT') && stopped.stderr.includes('simulator stopped'), `${tail(stopped.stderr, 1)} (npx: ${stopped.signal ?? `exit ${stopped.code}`})`);
}

// 6. Input and prompts: each error names the file and says what to do (exit 2, before any request).
const cli = 'npx gemini-batch';
{
  writeFileSync(path.join(work, 'header-only.csv'), 'id,topic\r\n');
  writeFileSync(path.join(work, 'archive.csv'), gzipSync(Buffer.from('id,topic\n1,Invoices\n'.repeat(300))));
  writeFileSync(path.join(work, 'titled.csv'), 'Tickets exported 2024-05-01\n\nid,subject,body\n1,Refund,Please refund\n2,Late,Where is it\n');
  writeFileSync(path.join(work, 'ragged.csv'), 'id,subject,body\n1,a,b\n2,c\n3,d,e,f\n4,g,h\n5\n');
  const w = (f) => path.join(work, f);

  let r = await sh(`${cli} classify ${w('header-only.csv')} --prompt '{{topic}}' --labels a,b --simulate`);
  check('a header-only file: exit 2 naming the file', r.code === 2 && r.stderr.includes('header-only.csv: the file has a header') && r.stderr.includes('no data rows'), r.stderr.trim());

  r = await sh(`${cli} classify ${w('archive.csv')} --prompt '{{topic}}' --labels a,b --simulate`);
  check('a binary file renamed .csv: it says it looks binary', r.code === 2 && /looks like a gzip archive, not text/.test(r.stderr) && !r.stderr.includes('--encoding'), r.stderr.trim());

  r = await sh(`${cli} classify ${w('titled.csv')} --prompt '{{id}} {{subjct}}: {{body}}' --labels a,b --simulate`);
  check(
    'unknown placeholders: all at once, each with its nearest column, and --header-row N for a title row',
    r.code === 2 && ['{{id}}', '{{subjct}}', '{{body}}'].every((p) => r.stderr.includes(p)) && r.stderr.includes('pass --header-row 3'),
    r.stderr.trim(),
  );
  r = await sh(`${cli} classify ${w('titled.csv')} --prompt '{{id}} {{subject}}: {{body}}' --labels a,b --simulate --header-row 3`);
  check('... and --header-row 3 as suggested works', r.code === 0, lineOf(r.stdout, /^finished/));
  r = await sh(`${cli} classify ${w('titled.csv')} --prompt '{{Id}} {{subjct}}' --labels a,b --simulate --header-row 3`);
  check('... a misspelt placeholder is matched to its nearest column', r.code === 2 && r.stderr.includes('{{Id}}: did you mean {{id}}?') && r.stderr.includes('{{subjct}}: did you mean {{subject}}?'), r.stderr.trim());

  r = await sh(`${cli} classify ${w('ragged.csv')} --prompt '{{subject}}' --labels a,b --simulate`);
  check('a ragged file: up to 10 bad lines with their field counts', r.code === 2 && r.stderr.includes('line 3 has 2, line 4 has 4, line 6 has 1'), r.stderr.trim());
}

// 7. Free-form answers and formula escaping.
{
  writeFileSync(path.join(work, 'notes.csv'), 'id,note\n1,Refund please\n2,"=HYPERLINK(""http://x"")"\n3,-call back tomorrow\n4,-12.5\n');
  const notes = path.join(work, 'notes.csv');
  let r = await sh(`${cli} classify ${notes} --prompt 'Summarize: {{note}}' --simulate -o ${path.join(work, 'free.csv')} --job-dir ${path.join(work, 'free.gemini-batch')}`);
  const free = existsSync(path.join(work, 'free.csv')) ? csvRows(path.join(work, 'free.csv')) : { header: [] };
  check('free-form mode: the answer column is "answer"', r.code === 0 && free.header.join(',') === 'id,note,answer,status,error', `columns: ${free.header.join(',')}`);
  r = await sh(`${cli} classify ${notes} --prompt 'Summarize: {{note}}' --simulate --answer-column summary -o ${path.join(work, 'named.csv')} --job-dir ${path.join(work, 'free.gemini-batch')}`);
  const named = existsSync(path.join(work, 'named.csv')) ? csvRows(path.join(work, 'named.csv')) : { header: [] };
  check('--answer-column names it', r.code === 0 && named.header.includes('summary'), `columns: ${named.header.join(',')}`);
  r = await sh(`${cli} classify ${notes} --prompt 'Money? {{note}}' --labels yes,no --simulate -o ${path.join(work, 'escaped.csv')} --job-dir ${path.join(work, 'labels.gemini-batch')}`);
  check('formula escaping: the summary counts the cells and names --no-escape-formulas', r.code === 0 && /formulas: 2 cells begin with/.test(r.stdout) && r.stdout.includes('--no-escape-formulas'), lineOf(r.stdout, /^formulas:/));
}

// 7b. Failed rows on the progress bar: a scenario whose '#broken' rows always get a 500.
{
  writeFileSync(
    path.join(work, 'broken.json'),
    JSON.stringify({
      acceptAnyKey: true,
      defaultProject: 'p',
      projects: [{ id: 'p', keys: [], limits: { '*': { rpm: 100000, tpm: 100000000 } } }],
      latency: { medianMs: 300, p99Ms: 600 },
      scripts: [{ match: '#broken', responses: [{ kind: 'error', status: 500, delayMs: 300 }] }],
    }),
  );
  const lines = Array.from({ length: 120 }, (_, i) => `${i},${i % 10 === 3 ? '#broken ' : ''}ticket ${i}`);
  writeFileSync(path.join(work, 'tickets.csv'), `id,text\n${lines.join('\n')}\n`);
  const r = await sh(inTerminal(`${cli} classify ${path.join(work, 'tickets.csv')} --prompt '{{text}}' --labels a,b --simulate --simulate-config ${path.join(work, 'broken.json')} --max-attempts 2`));
  const frames = barFrames(r.stdout);
  const last = frames.at(-1) ?? '';
  check('the progress bar counts failed rows apart from the rows done', /\d+\/120 rows · \d+ failed/.test(last) && / failed 12\b/.test(r.stdout), `last frame: ${last}\n${lineOf(r.stdout, /^rows: /).trim()}`);
}

// 8. plan.
{
  // A job directory of its own: the sample's, done by the README's run, would leave nothing to plan.
  const topics = `samples/topics.csv --prompt-file samples/prompt.txt --labels yes,no --job-dir ${path.join(work, 'plan.gemini-batch')}`;
  let r = await sh(`${cli} plan ${topics} --tier free`);
  check(
    'plan --tier free: the published free-tier limits with their source, not billed, RPD binds in Pacific days',
    r.code === 0 && r.stdout.includes('RPM 10 · TPM 250,000 · RPD 250') && r.stdout.includes('docs/rate-limits.md') && r.stdout.includes('the free tier is not billed') && /binding: RPD → the job spans 3 Pacific days/.test(r.stdout),
    [lineOf(r.stdout, /^limits per project/), lineOf(r.stdout, /docs\/rate-limits/).trim(), lineOf(r.stdout, /^binding/), lineOf(r.stdout, /^cost/)].join('\n'),
  );
  r = await sh(`${cli} plan ${topics} --simulate --simulate-config samples/scenarios/free-tier.json`);
  check("plan under a scenario uses the scenario's limits and says why", r.code === 0 && r.stdout.includes("the scenario's limits (free-tier.json") && r.stdout.includes('RPM 10 · TPM 250,000 · RPD 250'), lineOf(r.stdout, /scenario's limits/).trim());
  r = await sh(`${cli} classify samples/topics.csv --prompt-file samples/prompt.txt --labels yes,no --simulate --simulate-config samples/scenarios/free-tier.json --limit 1 --job-dir ${path.join(work, 'scenario-job')} -o ${path.join(work, 'scenario.csv')}`);
  check("classify under a scenario says which limits it starts from and why", r.code === 0 && /limits: starting from .*The scenario's own limits \(free-tier.json/.test(r.stdout), lineOf(r.stdout, /^\s*limits:/).trim());

  const long = Array.from({ length: 20 }, (_, i) => `${i},"${'The parcel arrived late and the box was damaged. '.repeat(40 + i * 6)}"`);
  writeFileSync(path.join(work, 'long.csv'), `id,text\n${long.join('\n')}\n`);
  r = await sh(`${cli} plan ${path.join(work, 'long.csv')} --prompt 'Rewrite in plain words: {{text}}'`);
  const perRow = number(r.stdout, /about ([\d,]+) per row/);
  check('plan: free-text output estimated from the rows (2–8k characters each), with the flag that states it', perRow > 400 && r.stdout.includes('--output-tokens'), lineOf(r.stdout, /^output tokens/));
  check("plan: --max-input-tokens defaults to the model's input limit and says so", r.stdout.includes("input limit per request: 1,048,576 tokens (gemini-2.5-flash's own limit"), lineOf(r.stdout, /^input limit/));
  r = await sh(`${cli} plan --help`);
  const listed = ['--json', '--timeout', '--max-attempts', '--no-escape-formulas'].filter((o) => new RegExp(`(^|[\\s,])${o}(?![\\w-])`, 'm').test(r.stdout));
  check('plan --help lists only options that do something in plan', r.code === 0 && listed.length === 0 && r.stdout.includes('--tier'), listed.length ? `still listed: ${listed.join(' ')}` : 'none of --json --timeout --max-attempts --no-escape-formulas');
}

// 9. Resume, status and Ctrl-C, on a scenario with faults and latency (so that there are retries and requests in flight).
{
  const job = (name) => `samples/topics.csv --prompt-file samples/prompt.txt --labels yes,no --simulate --simulate-config samples/scenarios/two-projects-faults.json --job-dir ${name}.gemini-batch -o ${name}.csv`;
  const journalLines = (name) => {
    try {
      return readFileSync(path.join(clone, `${name}.gemini-batch`, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  const first = start(`${cli} classify ${job('ctrlc')}`);
  await first.waitFor(() => journalLines('ctrlc') >= 150);
  first.interrupt();
  const stopped = await first.done;
  const resumeLine = lineOf(stopped.stdout, /^resume with: /).replace(/^resume with: /, '');
  // gemini-batch exits 3; run through npx, the shell sees npm end with SIGINT (README, exit codes).
  const interrupted = (run) => run.code === 3 || run.signal === 'SIGINT';
  check(
    'Ctrl-C: the run stops, writes its output and prints a resume line that starts the way the job was run',
    interrupted(stopped) && /^interrupted: \d+ rows pending/m.test(stopped.stdout) && existsSync(path.join(clone, 'ctrlc.csv')) && resumeLine.startsWith(`${cli} classify samples/topics.csv`),
    `${lineOf(stopped.stdout, /^interrupted/)}; ${stopped.signal ?? `exit ${stopped.code}`}; resume with: ${resumeLine}`,
  );
  const resumed = await sh(resumeLine);
  const header = lineOf(resumed.stdout, /kept from earlier runs/);
  const [rows, kept, toSend] = [number(header, /· ([\d,]+) rows:/), number(header, /rows: ([\d,]+) kept/), number(header, /runs, ([\d,]+) to send/)];
  check('the resume line runs as printed, and its header adds up (kept + to send = rows)', resumed.code === 0 && rows === 656 && kept + toSend === 656 && kept >= 150, header.trim());
  const retries = number(stopped.stdout, /retries: ([\d,]+)/) + number(resumed.stdout, /retries: ([\d,]+)/);
  const status = await sh(`${cli} status samples/topics.csv --job-dir ctrlc.gemini-batch`);
  check('status agrees with the summaries on retries (one source of truth)', number(status.stdout, /retries: ([\d,]+)/) === retries, `summaries: ${retries} · status: ${lineOf(status.stdout, /retries:/)}`);

  // Answers that take 3 s, so that requests are in flight when the second Ctrl-C comes.
  writeFileSync(
    path.join(work, 'slow.json'),
    JSON.stringify({ acceptAnyKey: true, defaultProject: 'p', projects: [{ id: 'p', keys: [], limits: { '*': { rpm: 100000, tpm: 100000000 } } }], latency: { medianMs: 3000, p99Ms: 6000 } }),
  );
  const twice = start(`${cli} classify samples/topics.csv --prompt-file samples/prompt.txt --labels yes,no --simulate --simulate-config ${path.join(work, 'slow.json')} --job-dir twice.gemini-batch -o twice.csv`);
  await twice.waitFor(() => journalLines('twice') >= 20);
  twice.interrupt();
  const handled = await twice.waitFor((s) => s.stdout.includes('stopping: no new requests'), 30_000);
  twice.interrupt();
  const quit = await twice.done;
  check(
    'a double Ctrl-C quits at once and prints the resume command too',
    handled && interrupted(quit) && /^quit at once \(second Ctrl-C\)/m.test(quit.stdout) && /resume with: npx gemini-batch classify/.test(quit.stdout),
    `${lineOf(quit.stdout, /^quit at once/)}; ${quit.signal ?? `exit ${quit.code}`}; ${lineOf(quit.stdout, /^resume with/)}`,
  );
}

// 10. A changed input resumes by row fingerprint; a run stopped with exit 2 after requests keeps an earlier output.
{
  const rows = (n, edit = () => undefined) => {
    const lines = ['id,text'];
    for (let i = 0; i < n; i++) lines.push(edit(i) ?? `${i},ticket ${i} about a parcel`);
    return `${lines.join('\n')}\n`;
  };
  const file = path.join(work, 'changing.csv');
  writeFileSync(file, rows(40));
  const command = `${cli} classify ${file} --prompt 'Ticket: {{text}}' --labels late,other --simulate`;
  const first = await sh(command);
  const before = existsSync(path.join(work, 'changing.classified.csv')) ? csvRows(path.join(work, 'changing.classified.csv')).rows : [];
  // Row 5 edited, a row inserted after row 10, row 30 removed.
  const lines = rows(40, (i) => (i === 5 ? '5,ticket 5 about a refund' : undefined)).trimEnd().split('\n');
  lines.splice(12, 0, '40,a brand new ticket');
  lines.splice(lines.indexOf('30,ticket 30 about a parcel'), 1);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const second = await sh(command);
  const after = existsSync(path.join(work, 'changing.classified.csv')) ? csvRows(path.join(work, 'changing.classified.csv')).rows : [];
  const byId = new Map(before.map((row) => [row.id, row.label]));
  const keptSame = after.filter((row) => row.id !== '5' && row.id !== '40').every((row) => byId.get(row.id) === row.label);
  check(
    'a changed input resumes by row fingerprint: unchanged rows keep their answers, the edited and new rows are sent, the removed one leaves, with the counts',
    first.code === 0 && second.code === 0 && number(second.stdout, /requests: (\d+)/) === 2 && after.length === 40 && !after.some((row) => row.id === '30') && keptSame && /the input changed since the last run.*keep their answers/.test(second.stdout),
    `exit ${second.code}; ${lineOf(second.stdout, /the input changed since/).trim()}; ${lineOf(second.stdout, /^requests:/)}; ${after.length} output rows`,
  );

  const out = path.join(work, 'changing.classified.csv');
  const earlier = existsSync(out) ? readFileSync(out) : Buffer.alloc(0);
  const refused = await sh(`${cli} classify ${file} --prompt 'Ticket: {{text}}' --labels late,other --simulate --model gemini-9-nonexistent --job-dir ${path.join(work, 'refused.gemini-batch')} -o ${out}`);
  const unchanged = existsSync(out) && readFileSync(out).equals(earlier);
  check(
    'a run stopped with exit 2 after some requests does not replace an earlier output file',
    refused.code === 2 && unchanged && earlier.length > 0,
    `exit ${refused.code}; ${tail(refused.stderr + refused.stdout, 2)}; output ${unchanged ? 'unchanged' : 'REPLACED'}`,
  );
}

// ── summary ──────────────────────────────────────────────────────────────────────────────────────────────────────────
const failed = results.filter((r) => !r.ok);
console.log(`\n${results.length - failed.length} of ${results.length} checks passed${failed.length ? `; failed: ${failed.map((f) => f.name).join(' | ')}` : ''}`);
if (!flag('--keep')) rmSync(work, { recursive: true, force: true });
else console.log(`kept: ${work}`);
process.exit(failed.length ? 1 : 0);
