/**
 * `gemini-batch simulate`: prints the URL and how to use it, serves until stopped, resolves 0; --rpm/--tpm/--rpd
 * override the scenario; bad input fails with the documented error classes.
 */
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/errors.js';
import { runSimulateCommand, startSimulator } from '../../src/simulator/index.js';
import { keyTail } from '../../src/simulator/simulate-command.js';
import { enumRequest, generate, scenario } from './helpers.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Starts the command; resolves its output stream's first banner and a way to stop it. */
async function launch(opts: Parameters<typeof runSimulateCommand>[0]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (d) => (out += d));
  let err = '';
  stderr.on('data', (d) => (err += d));
  const controller = new AbortController();
  const done = runSimulateCommand({ ...opts, signal: controller.signal }, { stdout, stderr });
  while (!out.includes('\n')) await new Promise((r) => setTimeout(r, 10));
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
  return { url, out: () => out, err: () => err, stop: () => (controller.abort(), done) };
}

describe('keyTail', () => {
  it('shows the last 4 characters of a key, nothing of a short one, never the whole key', () => {
    expect(keyTail('AIzaSyD-secret-part-x7Qa')).toBe('…x7Qa');
    expect(keyTail('123456789')).toBe('…6789');
    for (const key of ['12345678', 'abcd', 'a', '']) expect(keyTail(key)).toBe('…');
  });
});

describe('runSimulateCommand', () => {
  it('prints the URL on its first line and a run: command with --base-url on its second, serves any key, and resolves 0 when stopped', async () => {
    const run = await launch({});
    expect(run.out().split('\n')[0]).toContain(run.url);
    expect(run.out().split('\n')[1]).toMatch(new RegExp(`^run: .*--base-url ${run.url.replace(/[.]/g, '\\.')}`));
    expect((await generate(run.url, enumRequest('hello'), 'anything-goes')).status).toBe(200);
    expect(await run.stop()).toBe(0);
    expect(run.err()).toMatch(/1 requests, 1 answered/);
    await expect(fetch(`${run.url}/__sim/stats`)).rejects.toThrow();
  });

  it('loads --config, lists keys per project by alias and last 4 characters, and applies --rpm to every model', async () => {
    const run = await launch({ config: path.join(repo, 'samples', 'scenarios', 'free-tier.json'), rpm: 1 });
    expect(run.out()).toContain('    key free-1 …ey-1\n');
    expect(run.out()).toContain('    key free-2 …ey-2\n');
    expect(run.out()).not.toContain('sim-free-key');
    expect(run.out()).toContain('gemini-2.5-flash: 1 RPM / 250,000 TPM / 250 RPD');
    expect((await generate(run.url, enumRequest('a'), 'sim-free-key-1')).status).toBe(200);
    expect((await generate(run.url, enumRequest('b'), 'sim-free-key-2')).status).toBe(429);
    expect(await run.stop()).toBe(0);
  });

  it('a bad --config is an InputError; a taken port a UsageError SIM_PORT_IN_USE', async () => {
    const io = { stdout: new PassThrough(), stderr: new PassThrough() };
    await expect(runSimulateCommand({ config: path.join(repo, 'samples', 'scenarios', 'absent.json') }, io)).rejects.toBeInstanceOf(InputError);
    const holder = await startSimulator(scenario());
    try {
      await expect(runSimulateCommand({ port: holder.port }, io)).rejects.toMatchObject({ code: 'SIM_PORT_IN_USE' });
      await expect(runSimulateCommand({ rpm: -1 }, io)).rejects.toBeInstanceOf(UsageError);
    } finally {
      await holder.close();
    }
  });
});
