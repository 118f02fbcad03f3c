/**
 * Reading a request body with a size cap, for the simulator's two HTTP front ends (http-server.ts for the model
 * endpoints, batch-http.ts for Files and batches): past the cap the API answers 400 "Request payload size exceeds the
 * limit" (docs/reference/gemini-api-facts.md).
 */
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { rpcError, type RpcErrorBody } from './error-bodies.js';

/**
 * Collects the body of `req` and, when it ends, calls `onBody` with its chunks in order, or, when it was larger than
 * `maxBytes` (bytes; nothing past the cap is kept), `onTooLarge` with the API's 400 error body naming the limit.
 */
export function readCappedBody(req: IncomingMessage | Http2ServerRequest, maxBytes: number, onTooLarge: (body: RpcErrorBody) => void, onBody: (chunks: Buffer[]) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > maxBytes) onTooLarge(rpcError(400, `Request payload size exceeds the limit: ${maxBytes} bytes.`));
    else onBody(chunks);
  });
}
