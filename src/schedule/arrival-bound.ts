/**
 * The latest time the server can have received a request, from what the transport measured while sending it. A request
 * holds its place in our rolling windows from its sending until 60 s after this bound (./project-limiter.ts), so the
 * bound must never be earlier than the real arrival, and every millisecond it is later costs rate
 * (a window of 60 s + g sustains 60/(60 + g) of the limit).
 *
 * The evidence the bound rests on:
 * - The transport reports `flushedAt` at the request's `finish` event: the last byte handed to the operating system.
 *   That already includes our own event-loop delays, the SDK's work, and connection set-up — measured on this
 *   project's machine (node 20, TLS server whose handshake was held 300 ms): `finish` came 333.9 ms after the request
 *   started, 0.5 ms after `secureConnect`; on the reused keep-alive socket 0.8 ms.
 * - After `finish` the bytes need one one-way trip. The TCP connect of the request's socket took one round trip
 *   (SYN → SYN-ACK), which we take whole for the one way: the return path and queueing are then covered twice.
 * - {@link ARRIVAL_MARGIN_MS} on top absorbs jitter between that round trip and this one. A segment lost and resent
 *   (Linux RTO ≥ 200 ms) can still arrive later; such requests are rare (the loss rate) and the 1 % headroom under
 *   each limit absorbs one counted a little early.
 * A fixed bound instead would have to cover a far client (a satellite link's 600 ms round trip) for everyone, and cost
 * a nearby one 1 % of its rate for nothing; measuring costs one timestamp per socket.
 */
import type { UploadTiming } from '../providers/contract.js';

/** Added to the measured round trip, ms. */
export const ARRIVAL_MARGIN_MS = 25;

/** Round trip assumed when the socket's connect was not measured, ms (a distant client; rarely used). */
export const UNMEASURED_RTT_MS = 300;

/** The latest time (ms since epoch) the server can have received the request whose upload `timing` describes. */
export function arrivalBound(timing: UploadTiming): number {
  return timing.flushedAt + (timing.connectRttMs ?? UNMEASURED_RTT_MS) + ARRIVAL_MARGIN_MS;
}
