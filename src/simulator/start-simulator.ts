/**
 * Starts a simulator for a scenario: a {@link SimEngine} behind the node:http server.
 */
import { startHttpServer, type ContentCoding, type TlsOptions } from './http-server.js';
import { warmTokenizer } from './tokenizer.js';
import { SimEngine } from './sim-engine.js';
import type { BatchEvent } from './batch-types.js';
import type { Scenario, SimClock, SimStats } from './types.js';

/** A running simulator. */
export interface SimulatorHandle {
  /** `http://127.0.0.1:PORT` (`https://` with `tls`), to pass as `--base-url` or the SDK's `httpOptions.baseUrl`. */
  url: string;
  port: number;
  /** The same ground truth as `GET /__sim/stats`. */
  stats(): SimStats;
  /**
   * Calls `listener` synchronously with each Batch API event (an upload started, a file or batch created, a create
   * rejected, a download started…), before any scripted reply delay; returns the function that stops it.
   */
  onBatchEvent(listener: (event: BatchEvent) => void): () => void;
  /** Stops the server: pending delayed answers are dropped, hanging requests and connections closed. */
  close(): Promise<void>;
}

/** Options of {@link startSimulator}. */
export interface StartOptions {
  /** TCP port; 0 (default) picks any free port. */
  port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** Time source for quota windows, RPD days and stats. @default performance.timeOrigin + performance.now() */
  clock?: SimClock;
  /**
   * Compress API answers with the first of these codings the request's Accept-Encoding accepts, as the real API
   * does for clients that ask (gzip). @default [] (never: compression costs the simulator CPU per request)
   */
  compress?: readonly ContentCoding[];
  /** Serve HTTPS with this certificate, offering HTTP/2 and HTTP/1.1 like the real endpoint. @default plain HTTP/1.1 */
  tls?: TlsOptions;
}

/** The default clock: epoch ms, monotonic within the process (never jumps back with wall-clock changes). */
export const monotonicClock: SimClock = { now: () => performance.timeOrigin + performance.now() };

/**
 * Serves `scenario` over HTTP. Resolves once listening.
 * @throws the listen error (e.g. code EADDRINUSE) when the port cannot be bound.
 */
export async function startSimulator(scenario: Scenario, options: StartOptions = {}): Promise<SimulatorHandle> {
  const host = options.host ?? '127.0.0.1';
  // Build the tokenizer (36–67 ms of CPU, Node 20) before accepting connections, so the first request is not the one that waits.
  warmTokenizer();
  const engine = new SimEngine(scenario, options.clock ?? monotonicClock);
  const running = await startHttpServer(engine, host, options.port ?? 0, options.compress ?? [], options.tls);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${urlHost}:${running.port}`,
    port: running.port,
    stats: () => engine.snapshot(),
    onBatchEvent: (listener) => engine.batches.onEvent(listener),
    close: () => running.close(),
  };
}
