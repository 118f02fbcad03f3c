/**
 * Issue 11 item 1: a job's answers never mix sources. `classify … --simulate`, then the same command against an API
 * endpoint, used to report "N already done, 0 to send" and exit 0 with the simulator's labels as `ok`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-source-'));
  fs.writeFileSync(path.join(dir, 'x.tsv'), `id\ttext\n${Array.from({ length: 20 }, (_, i) => `${i}\ttopic ${i}`).join('\n')}\n`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const args = ['classify', 'x.tsv', '--prompt', 'Topic: {{text}}', '--labels', 'yes,no'];

describe('where answers come from is part of the job (issue 11 item 1)', () => {
  it('a real run refuses a job whose answers came from the simulator, saying so, before any request', async () => {
    expect((await runMain([...args, '--simulate'], { cwd: dir })).code).toBe(0);
    // A real key against an endpoint that accepts no connection: the job must stop before trying it.
    const real = await runMain([...args, '--base-url', 'http://127.0.0.1:9'], { cwd: dir, env: { GEMINI_API_KEY: 'AIzaSyExampleRealKey000000000000000000' } });
    expect(real.code).toBe(2);
    expect(real.stderr).toContain('answers came from the built-in simulator (--simulate: made-up answers); this run would send to the Gemini API at 127.0.0.1:9');
    expect(real.stderr).toContain('--restart');
    expect(real.stdout).not.toContain('kept from earlier runs');
  });

  it('the simulator resumes its own job', async () => {
    const again = await runMain([...args, '--simulate'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('20 rows: 20 kept from earlier runs, 0 to send');
  });
});
