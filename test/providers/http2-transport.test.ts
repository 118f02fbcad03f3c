import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs test/support/h2-transport-child.mjs in a process that trusts the test certificate (built dist/). */
function child(): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(root, 'test', 'support', 'h2-transport-child.mjs')],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(root, 'test', 'fixtures', 'tls', 'localhost.crt') }, timeout: 60_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Record<string, unknown>)),
    );
  });
}

describe('httpTransport over HTTPS: HTTP/2 where the server offers it', () => {
  it('multiplexes requests on a few sessions, reports uploads, resets one stream alone, aborts, times out, decodes gzip, and falls back to HTTP/1.1', async () => {
    const found = await child();
    expect(found.url).toMatch(/^https:/);
    expect(found.ok).toBe(250);
    expect(found.uploads).toBe(250);
    expect(found.connectRttKnown).toBe(true);
    // 250 in flight over streams of at most 100 per session: 3 sessions, not 250 connections.
    expect(found.most).toEqual({ sessions: 3, streams: 250 });
    expect(found.h1).toEqual([]);
    expect(found.reset).toBe('API_CONNECTION_ERROR');
    expect(found.othersOk).toBe(true);
    expect(found.abort).toBe('API_CANCELLED');
    expect(found.timeout).toBe('API_TIMEOUT');
    expect(['a', 'b']).toContain(found.gzip);
    expect(found).toMatchObject({ h1Status: 200, h1Body: '{"ok":true}', h1Remembered: true, h1Upload: true });
  });
});
