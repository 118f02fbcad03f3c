/**
 * How many requests this process can hold in flight without running out of file descriptors: every request in flight
 * over HTTP/1.1 holds one socket (two when the simulator runs in this same process: its end of the connection too), and
 * a socket is a file descriptor. Opening one more than the soft RLIMIT_NOFILE fails with EMFILE.
 *
 * Node raises the soft limit to the hard limit at start-up (src/node.cc, PlatformInit), so what this process has is what
 * counts: read from /proc/self/limits (Linux), else from `ulimit -n` in a child shell (which inherits it: macOS, BSD),
 * else {@link ASSUMED_FD_LIMIT} is assumed. Over HTTP/2 (providers/http-transport.ts) requests share a few
 * connections, so the budget is then generous; it is kept for HTTP/1.1 endpoints.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The soft limit assumed when it cannot be read: the usual Linux default `ulimit -n`, low enough for any system. */
export const ASSUMED_FD_LIMIT = 1_024;
/** Descriptors kept for everything else: input, output, journal, manifest, stdio, the simulator's listener. */
export const FD_RESERVE = 64;
/**
 * At most this many requests in flight in one process, whatever the descriptors allow, so that memory stays bounded
 * (what each request in flight costs is measured in bench/RESULTS.md, "Many requests in flight").
 */
export const MAX_IN_FLIGHT_PER_PROCESS = 10_000;

/** The file-descriptor budget of this process. */
export interface FdBudget {
  /** Soft RLIMIT_NOFILE. */
  softLimit: number;
  /** Where {@link softLimit} came from. */
  source: 'rlimit' | 'ulimit' | 'assumed';
  /** Descriptors open when it was read. */
  open: number;
}

/** Reads the soft RLIMIT_NOFILE and the descriptors open now; falls back to {@link ASSUMED_FD_LIMIT}. */
export function readFdBudget(): FdBudget {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    const softLimit = soft === 'unlimited' ? Infinity : Number(soft);
    if (softLimit > 0) return { softLimit, source: 'rlimit', open: readdirSync('/proc/self/fd').length };
  } catch {
    // no /proc: ask a shell below
  }
  try {
    const text = execFileSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const softLimit = text === 'unlimited' ? Infinity : Number(text);
    if (softLimit > 0) return { softLimit, source: 'ulimit', open: 32 };
  } catch {
    // no shell: assume below
  }
  return { softLimit: ASSUMED_FD_LIMIT, source: 'assumed', open: 32 };
}

/**
 * Requests this process may hold in flight: the descriptors left after {@link FD_RESERVE}, divided by the descriptors
 * each request holds, at most {@link MAX_IN_FLIGHT_PER_PROCESS}, at least 1.
 * @param fdsPerRequest 1 over the network; 2 when the server is in this process (--simulate).
 */
export function processCeiling(budget: FdBudget, fdsPerRequest: number): number {
  const free = budget.softLimit - budget.open - FD_RESERVE;
  return Math.max(1, Math.min(MAX_IN_FLIGHT_PER_PROCESS, Math.floor(free / fdsPerRequest)));
}
