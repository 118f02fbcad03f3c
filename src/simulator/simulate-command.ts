/**
 * The body of `gemini-batch simulate [--port N] [--config F] [--rpm N --tpm N --rpd N]`: serve a scenario on
 * 127.0.0.1 until SIGINT/SIGTERM, telling the user how to point `classify` at it.
 */
import { UsageError } from '../errors.js';
import { runHint } from './run-hint.js';
import { loadScenario } from './scenario-parse.js';
import { generousScenario, withLimitOverrides } from './scenario-presets.js';
import { startSimulator } from './start-simulator.js';
import type { DelaySpec, ModelLimits, Scenario } from './types.js';

/** Options of `simulate`. `signal` (not a CLI flag) stops the server like SIGINT, for tests and embedding. */
export interface SimulateCommandOptions {
  port?: number;
  config?: string;
  rpm?: number;
  tpm?: number;
  rpd?: number;
  signal?: AbortSignal;
  /** How gemini-batch is run here, for the banner's `run:` hint (invocation.ts). Default `gemini-batch`. */
  commandPrefix?: string;
  /** The directory the hint's paths are relative to. Default the working directory. */
  cwd?: string;
}

function checkCount(name: string, v: number | undefined, min: number): void {
  if (v !== undefined && (!Number.isInteger(v) || v < min)) {
    throw new UsageError('SIM_OPTION_INVALID', `--${name} must be a whole number >= ${min}, got ${v}.`);
  }
}

function describeLimits(model: string, l: ModelLimits): string {
  if (l.limitZero) return `${model}: limit 0 (every request 429)`;
  const n = (v: number | undefined, unit: string): string | undefined => (v === undefined ? undefined : `${v.toLocaleString('en-US')} ${unit}`);
  const parts = [n(l.rpm, 'RPM'), n(l.tpm, 'TPM'), n(l.rpd, 'RPD'), n(l.tpd, 'TPD')].filter(Boolean);
  return `${model === '*' ? 'every model' : model}: ${parts.length ? parts.join(' / ') : 'unlimited'} (${l.window.kind} window)`;
}

/**
 * How the banner shows a key: its last 4 characters (`…ab12`), or only `…` for a key of 8 characters or fewer, so
 * that the whole key is never printed (a scenario may hold real-looking keys, and terminals end up in logs).
 */
export function keyTail(key: string): string {
  return key.length > 8 ? `…${key.slice(-4)}` : '…';
}

/**
 * The banner: URL on the first line, then a classify command that works when pasted (run-hint.ts), then projects, limits
 * and keys (alias and last 4 characters).
 */
function banner(url: string, scenario: Scenario, source: string, hint: string[]): string {
  const lines = [`Gemini API simulator on ${url} (${source})`, ...hint];
  for (const p of scenario.projects) {
    lines.push(`  project ${p.id} (${p.tier} tier)`);
    for (const [model, l] of Object.entries(p.limits)) lines.push(`    ${describeLimits(model, l)}`);
    for (const k of p.keys) lines.push(`    key ${k.alias} ${keyTail(k.key)}${k.leaked ? ' (leaked: 403)' : ''}`);
  }
  if (scenario.acceptAnyKey) lines.push(`  any other key is accepted and charged to project ${scenario.defaultProject}`);
  const faults = Object.entries(scenario.faults.rates).filter(([, rate]) => rate > 0);
  if (faults.length > 0) lines.push(`  faults: ${faults.map(([kind, rate]) => `${kind} ${Number((rate * 100).toFixed(3))}%`).join(', ')}`);
  const latency = describeLatency(scenario.latency);
  if (latency) lines.push(`  latency: ${latency}`);
  lines.push(`  429 flavour: ${scenario.quota429.flavour}${scenario.scripts.length ? ` · ${scenario.scripts.length} script(s)` : ''}`);
  lines.push(`  stats: ${url}/__sim/stats · stop with Ctrl+C`);
  return `${lines.join('\n')}\n`;
}

/** `generation median 5000 ms, p99 12000 ms · uplink median 20 ms… · gemini-2.5-pro generation median…`; empty for none. */
function describeLatency(l: Scenario['latency']): string {
  const one = (spec: DelaySpec | undefined) => (spec && spec.medianMs > 0 ? `median ${spec.medianMs} ms, p99 ${spec.p99Ms} ms` : undefined);
  const parts: string[] = [];
  const generation = one(l);
  if (generation) parts.push(`generation ${generation}`);
  for (const [model, spec] of Object.entries(l.models ?? {})) {
    const d = one(spec);
    if (d) parts.push(`${model} generation ${d}`);
  }
  const up = one(l.uplink);
  if (up) parts.push(`uplink ${up}`);
  const down = one(l.downlink);
  if (down) parts.push(`downlink ${down}`);
  return parts.join(' · ');
}

/**
 * Runs the simulator until SIGINT or SIGTERM (or `opts.signal` aborts), then closes it and resolves 0.
 * `--rpm/--tpm/--rpd` override the limits of every project and model of the scenario (or the generous one).
 * @throws InputError (SIM_SCENARIO_INVALID / SIM_SCENARIO_UNREADABLE) for a bad `--config`; UsageError
 * SIM_OPTION_INVALID for a bad number, SIM_PORT_IN_USE when the port is taken.
 */
export async function runSimulateCommand(
  opts: SimulateCommandOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  checkCount('port', opts.port, 0);
  checkCount('rpm', opts.rpm, 0);
  checkCount('tpm', opts.tpm, 0);
  checkCount('rpd', opts.rpd, 0);
  const base = opts.config !== undefined ? loadScenario(opts.config) : generousScenario();
  const over: { rpm?: number; tpm?: number; rpd?: number } = {};
  if (opts.rpm !== undefined) over.rpm = opts.rpm;
  if (opts.tpm !== undefined) over.tpm = opts.tpm;
  if (opts.rpd !== undefined) over.rpd = opts.rpd;
  const scenario = withLimitOverrides(base, over);
  let handle;
  try {
    handle = await startSimulator(scenario, { port: opts.port ?? 0 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError('SIM_PORT_IN_USE', `port ${opts.port} is in use; choose another with --port (0 picks a free one).`, { cause: err });
    }
    throw err;
  }
  const hint = runHint({ url: handle.url, scenario, config: opts.config, prefix: opts.commandPrefix ?? 'gemini-batch', cwd: opts.cwd ?? process.cwd() });
  io.stdout.write(banner(handle.url, scenario, opts.config ?? 'generous built-in scenario', hint));
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      opts.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (opts.signal?.aborted) stop();
    else opts.signal?.addEventListener('abort', stop);
  });
  const stats = handle.stats();
  await handle.close();
  io.stderr.write(`simulator stopped: ${stats.requests.total} requests, ${stats.answeredOk} answered, ${stats.rateLimited.total} rate-limited\n`);
  return 0;
}
