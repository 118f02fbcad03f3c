#!/usr/bin/env node
/**
 * Throughput of the Gemini API simulator at latency 0: requests/s it answers with short classification
 * prompts (text/x.enum, system instruction, thinking off), as gemini-batch sends them.
 *
 * The simulator runs in its own process (from dist/, so run `npm run build` first); this process drives it
 * with many concurrent keep-alive HTTP/1.1 connections through a minimal client on raw sockets (one request
 * in flight per connection, no pipelining), so the load generator costs as little CPU as possible.
 *
 *   node bench/sim-throughput.mjs [--connections 64] [--seconds 10] [--warmup 2] [--json]
 *
 * Prints requests/s (HTTP 200 answers only), latency p50/p99 and the simulator's own count of answers.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : def;
};

if (args.includes('--serve')) {
  // Child: the simulator, generous scenario (any key, 10,000 RPM would throttle a benchmark: raise it).
  const sim = await import(path.join(here, '..', 'dist', 'simulator', 'index.js'));
  const { warmTokenizer } = await import(path.join(here, '..', 'dist', 'simulator', 'tokenizer.js'));
  warmTokenizer();
  const scenario = sim.withLimitOverrides(sim.generousScenario(), { rpm: 100_000_000, tpm: 1_000_000_000_000 });
  const handle = await sim.startSimulator(scenario, { port: 0 });
  process.stdout.write(`PORT ${handle.port}\n`);
  process.on('message', async (m) => {
    if (m === 'stats') process.send(handle.stats());
    if (m === 'stop') {
      await handle.close();
      process.exit(0);
    }
  });
} else {
  await drive();
}

function requestBytes(i) {
  const body = JSON.stringify({
    contents: [{ role: 'user', parts: [{ text: `Review #${i}: "The blender arrived on time and works great, but it is loud." Classify its sentiment.` }] }],
    systemInstruction: { parts: [{ text: 'You label customer reviews. Answer with one label only.' }], role: 'user' },
    generationConfig: {
      temperature: 0,
      responseMimeType: 'text/x.enum',
      responseSchema: { type: 'STRING', enum: ['positive', 'negative', 'mixed', 'neutral'] },
      thinkingConfig: { thinkingBudget: 0 },
    },
  });
  return Buffer.from(
    'POST /v1beta/models/gemini-2.5-flash:generateContent HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      `x-goog-api-key: bench-key-0000000000000000\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** One keep-alive connection sending a request, waiting for the whole response, sending the next. */
function connection(port, state) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let buf = Buffer.alloc(0);
    let sentAt = 0;
    const send = () => {
      if (state.stop) {
        socket.end();
        return resolve();
      }
      sentAt = performance.now();
      socket.write(requestBytes(state.seq++));
    };
    socket.on('connect', send);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      for (;;) {
        const headEnd = buf.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const head = buf.subarray(0, headEnd).toString('latin1');
        const m = /content-length:\s*(\d+)/i.exec(head);
        const len = m ? Number(m[1]) : 0;
        if (buf.length < headEnd + 4 + len) return;
        const status = Number(head.slice(9, 12));
        buf = buf.subarray(headEnd + 4 + len);
        if (state.measuring) {
          if (status === 200) state.ok++;
          else state.other++;
          state.latencies.push(performance.now() - sentAt);
        }
        send();
      }
    });
  });
}

async function drive() {
  const connections = opt('connections', 64);
  const seconds = opt('seconds', 10);
  const warmup = opt('warmup', 2);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const ask = () => new Promise((resolve) => child.once('message', resolve).send('stats'));
  const state = { seq: 0, stop: false, measuring: false, ok: 0, other: 0, latencies: [] };
  const running = Array.from({ length: connections }, () => connection(port, state));
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const before = await ask();
  state.measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  state.measuring = false;
  const elapsed = (performance.now() - t0) / 1000;
  const after = await ask();
  state.stop = true;
  await Promise.all(running);
  child.send('stop');
  const lat = state.latencies.sort((a, b) => a - b);
  const pct = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : NaN);
  const result = {
    connections,
    seconds: Number(elapsed.toFixed(2)),
    requestsPerSecond: Math.round(state.ok / elapsed),
    non200: state.other,
    latencyMs: { p50: Number(pct(0.5).toFixed(2)), p99: Number(pct(0.99).toFixed(2)) },
    simulatorAnsweredPerSecond: Math.round((after.answeredOk - before.answeredOk) / elapsed),
  };
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    process.stdout.write(
      `simulator throughput: ${result.requestsPerSecond} requests/s (${connections} keep-alive connections, ${result.seconds} s, ` +
        `latency p50 ${result.latencyMs.p50} ms / p99 ${result.latencyMs.p99} ms, non-200: ${result.non200}; simulator counted ${result.simulatorAnsweredPerSecond}/s)\n`,
    );
  }
}
