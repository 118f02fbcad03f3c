/**
 * The one place that talks to an OpenAI-compatible server: the official `openai` client (6.x) with its retries OFF
 * (`maxRetries: 0`: we own the retry loop, see schedule/), its logging off, and our keep-alive transport
 * (../http-transport.ts) as its `fetch`. Every outcome comes back as a neutral {@link ModelAnswer} or a typed failure
 * of ../failures.ts.
 *
 * The transport wrapper sees each response before the client does: an error response's body is read and kept for
 * classify-failure.ts (openai-node drops a body that is not `{error: …}`, such as the JSON array Gemini's compatibility
 * endpoint answers with), then handed on unchanged. Which call a response belongs to is carried by an
 * AsyncLocalStorage slot, so one client serves every request of a credential. A 400 refusing a field this tool sends
 * steps the provider's {@link ParamLadder} down and the request goes again, once per step.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import OpenAI from 'openai';
import type { GenerateOptions, ModelAnswer, ModelCaller, ModelRequest, UploadListener } from '../contract.js';
import { RequestFailure, sendWithDeadline } from '../failures.js';
import { foreignBodyFailure } from '../foreign-body.js';
import { httpTransport } from '../http-transport.js';
import { chatParams, type RequestShape } from './chat-request.js';
import { classifyFailure, refusalOf, type CapturedError } from './classify-failure.js';
import type { ParamLadder } from './param-ladder.js';
import { readAnswer, type ChatCompletionLike } from './read-answer.js';

/** The longest timer node accepts, ms: openai-node's own timeout is set to it, ours (sendWithDeadline) rules. */
const NO_CLIENT_TIMEOUT_MS = 2_147_483_647;

/** What the transport wrapper learns of one call. */
interface CallSlot {
  onUploaded: UploadListener | undefined;
  error: CapturedError | undefined;
  /** The status and Content-Type of a successful response, to name what came back when its JSON does not parse. */
  ok: { status: number; contentType: string | null } | undefined;
}

const calls = new AsyncLocalStorage<CallSlot>();

/** The `fetch` given to the client: the keep-alive transport, an error response's body kept in the call's slot. */
async function capturingFetch(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  const slot = calls.getStore();
  const response = await httpTransport(url, init, slot?.onUploaded);
  if (!slot) return response;
  if (response.ok) {
    slot.ok = { status: response.status, contentType: response.headers.get('content-type') };
    return response;
  }
  const text = await response.text();
  slot.error = { status: response.status, headers: response.headers, text };
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export interface OpenAiCallerOptions {
  /** The bearer token (OPENAI_API_KEY, or a key of the keys file). Stays inside the client; never logged. */
  apiKey: string;
  /** `https://api.openai.com/v1`, a gateway's or a local server's `…/v1`, Gemini's `…/v1beta/openai/`. */
  baseUrl: string;
  /** Abort a request that has not answered after this many ms, unless the call says otherwise (--timeout). */
  timeoutMs: number;
  /** The provider's request shape (shared by its callers). */
  ladder: ParamLadder;
  /** OPENAI_ORG_ID / OPENAI_PROJECT_ID of the job's environment, sent as the client sends them. */
  organization?: string | undefined;
  project?: string | undefined;
}

/** The client for `options`, retries and logging off, our transport as `fetch`. */
export function openAiClient(options: Pick<OpenAiCallerOptions, 'apiKey' | 'baseUrl' | 'organization' | 'project'>): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseUrl,
    organization: options.organization ?? null,
    project: options.project ?? null,
    maxRetries: 0,
    timeout: NO_CLIENT_TIMEOUT_MS,
    logLevel: 'off',
    fetch: capturingFetch,
  });
}

/**
 * The chat completion a successful response carried. openai-node hands back the body as text when its Content-Type
 * is not JSON: text that parses to a completion is taken (a server that labels JSON `text/plain`); anything else (an
 * HTML page on 200, a JSON value without `choices`) is not an answer.
 * @throws ServerFailure (../foreign-body.ts): the body is not a chat completion; retried as a transport failure.
 */
export function completionOf(data: unknown, status: number, contentType: string | null): ChatCompletionLike {
  let body = data;
  if (typeof data === 'string') {
    try {
      body = JSON.parse(data);
    } catch {
      body = undefined;
    }
  }
  if (typeof body === 'object' && body !== null && Array.isArray((body as { choices?: unknown }).choices)) return body;
  throw foreignBodyFailure(status, contentType, typeof data === 'string' ? data : (JSON.stringify(data) ?? ''), 'a chat completion');
}

/** Creates a caller bound to one credential. */
export function createOpenAiCaller(options: OpenAiCallerOptions): ModelCaller {
  const client = openAiClient(options);

  const sendOnce = (request: ModelRequest, shape: RequestShape, generate: GenerateOptions, timeoutMs: number): Promise<ModelAnswer> => {
    const slot: CallSlot = { onUploaded: generate.onUploaded, error: undefined, ok: undefined };
    const params = chatParams(request, shape);
    return sendWithDeadline(
      generate.signal,
      timeoutMs,
      (signal) =>
        calls.run(slot, async () => {
          const { data, response } = await client.chat.completions.create(params as OpenAI.ChatCompletionCreateParamsNonStreaming, { signal }).withResponse();
          return readAnswer(completionOf(data, response.status, response.headers.get('content-type')), response.headers, request.output, shape);
        }),
      (error) =>
        // JSON cut short on a successful status: the client's parse failed (a SyntaxError), the body is not an answer.
        slot.ok && error instanceof SyntaxError ? foreignBodyFailure(slot.ok.status, slot.ok.contentType, error.message, 'a chat completion') : classifyFailure(error, slot.error),
    );
  };

  return {
    async generate(request: ModelRequest, generate: GenerateOptions = {}): Promise<ModelAnswer> {
      const timeoutMs = generate.timeoutMs ?? options.timeoutMs;
      for (;;) {
        const shape = options.ladder.current();
        try {
          return await sendOnce(request, shape, generate, timeoutMs);
        } catch (failure) {
          const refused = failure instanceof RequestFailure && (failure.httpStatus === 400 || failure.httpStatus === 422);
          if (!refused || !options.ladder.stepDown(refusalOf(failure), shape)) throw failure;
        }
      }
    },
  };
}
