/**
 * The Gemini Batch API for one API key (`--batch`, docs/batch-runner.md): input files uploaded through the Files API and
 * batches created, listed and cancelled through @google/genai; a batch's state read from the raw REST operation
 * (`GET /v1beta/batches/{id}`: the SDK's view drops batchStats and the failure's reason) and its responses file
 * streamed from `GET /download/v1beta/{file}:download?alt=media` (the SDK's files.download writes to disk only).
 * Its own retries: none; the batch runner (src/batch/) owns them. Every failure is a typed one of ../failures.ts.
 *
 * The SDK client here uses the platform's fetch, not ../http-transport.ts: a handful of calls per batch, the upload's
 * Blob bodies, and a download that must stream rather than be held in memory.
 */
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { GoogleGenAI } from '@google/genai';
import type { BatchInfo, BatchResult, BatchService, BatchUpload, ModelRequest } from '../contract.js';
import { CancelledFailure, connectionFailureOf, sendWithDeadline, ServerFailure } from '../failures.js';
import { parseRpcStatus } from '../google-rpc-status.js';
import { batchInfoOfJob, batchInfoOfOperation } from './batch-info.js';
import { batchResultOf, batchResultOfLine } from './batch-results.js';
import { classifyFailure, failureForStatus } from './classify-failure.js';
import { geminiCall } from './gemini-request.js';
import { restRequest } from './rest-request.js';

/** The Gemini API's origin. */
const DEFAULT_BASE = 'https://generativelanguage.googleapis.com';
/** The most bytes of one input file: 2 GB (docs/batch-runner.md "Limits"). */
export const GEMINI_BATCH_FILE_BYTES = 2_000_000_000;
/** MIME type of the JSONL input: the SDK's Node uploader knows no `.jsonl` (docs/batch-runner.md "Upload"). */
const JSONL_MIME = 'jsonl';
/** Clocks differ: a batch created up to this long before our intent's time is still looked at by find(), ms. */
const CLOCK_SKEW_MS = 10 * 60_000;

export interface GeminiBatchOptions {
  apiKey: string;
  /** API endpoint (the simulator's `http://127.0.0.1:PORT`); default Google's. */
  baseUrl?: string;
  /** Abort a call (not the upload or the download, which take their time) after this many ms. */
  timeoutMs: number;
}

/** The batch service of one API key. */
export function createGeminiBatchService(options: GeminiBatchOptions): BatchService {
  const base = (options.baseUrl ?? DEFAULT_BASE).replace(/\/+$/, '');
  const ai = new GoogleGenAI({ apiKey: options.apiKey, ...(options.baseUrl ? { httpOptions: { baseUrl: options.baseUrl } } : {}) });
  const call = <T>(signal: AbortSignal | undefined, timeoutMs: number, send: (signal: AbortSignal) => Promise<T>) => sendWithDeadline(signal, timeoutMs, send, (error) => classifyFailure(error));
  const rest = async (path: string, signal: AbortSignal): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, { headers: { 'x-goog-api-key': options.apiKey }, signal });
    } catch (error) {
      if ((error as { name?: string } | null)?.name === 'AbortError') throw error;
      throw connectionFailureOf(error);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw failureForStatus(response.status, parseRpcStatus(text), text);
    }
    return response;
  };
  const getOperation = (name: string, signal?: AbortSignal): Promise<unknown> => call(signal, options.timeoutMs, async (s) => (await rest(`/v1beta/${name}`, s)).json());

  return {
    maxFileBytes: GEMINI_BATCH_FILE_BYTES,

    requestLine(key: string, request: ModelRequest): string {
      return JSON.stringify({ key, request: restRequest(geminiCall(request)) });
    },

    async upload(path: string, displayName: string, signal?: AbortSignal): Promise<BatchUpload> {
      // No config.httpOptions: with it, @google/genai 2.32 drops the upload headers (docs/batch-runner.md "Upload").
      const file = await call(signal, Math.max(options.timeoutMs, 30 * 60_000), () => ai.files.upload({ file: path, config: { mimeType: JSONL_MIME, displayName } }));
      if (!file.name) throw new ServerFailure('the Files API answered the upload without a file name', 200);
      const expires = file.expirationTime ? Date.parse(file.expirationTime) : NaN;
      return { file: file.name, expiresAt: Number.isFinite(expires) ? expires : undefined };
    },

    async create(model: string, file: string, displayName: string, signal?: AbortSignal): Promise<BatchInfo> {
      const job = await call(signal, options.timeoutMs, (s) => ai.batches.create({ model, src: file, config: { displayName, abortSignal: s } }));
      const info = batchInfoOfJob(job);
      if (!info) throw new ServerFailure('the Batch API answered the create without a batch name', 200);
      return info;
    },

    async get(name: string, signal?: AbortSignal): Promise<BatchInfo> {
      const info = batchInfoOfOperation(await getOperation(name, signal));
      if (!info) throw new ServerFailure(`the Batch API answered GET ${name} without a batch name`, 200);
      return info;
    },

    async find(displayName: string, since: number, signal?: AbortSignal): Promise<BatchInfo | undefined> {
      return call(signal, Math.max(options.timeoutMs, 5 * 60_000), async (s) => {
        const pager = await ai.batches.list({ config: { pageSize: 100, abortSignal: s } });
        for await (const job of pager) {
          const info = batchInfoOfJob(job);
          if (info?.displayName === displayName) return info;
          const created = job.createTime ? Date.parse(job.createTime) : NaN;
          // Newest first: past this point every batch is older than our intent.
          if (Number.isFinite(created) && created < since - CLOCK_SKEW_MS) return undefined;
        }
        return undefined;
      });
    },

    async cancel(name: string, signal?: AbortSignal): Promise<void> {
      await call(signal, options.timeoutMs, (s) => ai.batches.cancel({ name, config: { abortSignal: s } }));
    },

    async *results(batch: BatchInfo, signal?: AbortSignal): AsyncIterable<BatchResult> {
      if (batch.output?.kind === 'inline') {
        const op = (await getOperation(batch.name, signal)) as { response?: { inlinedResponses?: { inlinedResponses?: unknown[] } }; metadata?: { output?: { inlinedResponses?: { inlinedResponses?: unknown[] } } } };
        const items = op.response?.inlinedResponses?.inlinedResponses ?? op.metadata?.output?.inlinedResponses?.inlinedResponses ?? [];
        for (const item of items) yield batchResultOf(item);
        return;
      }
      if (batch.output?.kind !== 'file') return;
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const response = await rest(`/download/v1beta/${batch.output.file}:download?alt=media`, controller.signal);
        if (!response.body) return;
        const lines = createInterface({ input: Readable.fromWeb(response.body as never), crlfDelay: Infinity });
        for await (const line of lines) if (line.trim() !== '') yield batchResultOfLine(line);
      } catch (error) {
        if (signal?.aborted) throw new CancelledFailure();
        throw error instanceof Error && error.name !== 'AbortError' && !('httpStatus' in error) ? connectionFailureOf(error) : error;
      } finally {
        signal?.removeEventListener('abort', onAbort);
        controller.abort();
      }
    },
  };
}
