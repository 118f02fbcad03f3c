// Watching a `gemini-batch classify` process a bench spawned: its peak RSS, and when the simulator saw its first
// request (Linux: /proc/PID/status).
import { readFileSync } from 'node:fs';

/** Peak resident set size of process `pid` so far (VmHWM), in MB; 0 once it is gone or where /proc is not. */
export function peakRss(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples `child` every `everyMs` ms until it closes. Resolves to its exit code, its peak RSS (MB), and the seconds from
 * `t0` (performance.now()) to the first sample at which the simulator's request count (`requests()`) was above `before`
 * (undefined if it never was).
 * @returns {Promise<{ code: number | null, peakMb: number, firstRequestS: number | undefined }>}
 */
export async function watchRun(child, { t0, before, requests, everyMs }) {
  let firstRequestS;
  let peakMb = 0;
  const code = await new Promise((resolve) => {
    const timer = setInterval(async () => {
      peakMb = Math.max(peakMb, peakRss(child.pid));
      if (firstRequestS === undefined && (await requests()) > before) firstRequestS = (performance.now() - t0) / 1000;
    }, everyMs);
    child.on('close', (c) => {
      clearInterval(timer);
      resolve(c);
    });
  });
  return { code, peakMb, firstRequestS };
}
