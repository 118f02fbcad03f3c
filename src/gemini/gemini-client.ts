/**
 * The one place that talks to the Gemini API: a thin wrapper around the official `@google/genai` client with its own
 * retries left OFF (its default; we own the retry loop, see schedule/) and our own per-request timeout, so that every
 * outcome comes back either as a {@link GenerateAnswer} or as a typed {@link ApiFailure}.
 * Facts: ../shared/reference/gemini-api-facts.md §5 (SDK behaviour), §5.4 (baseUrl), §4.5 (response shape).
 */
import { GoogleGenAI, type Content, type GenerateContentConfig, type GenerateContentResponse } from '@google/genai';
import type { ApiFailure } from './api-failures.js';
import { classifyFailure, type AbortReason } from './classify-failure.js';
import { redactSecrets } from '../config/known-secrets.js';
import { httpTransport, type UploadListener } from './http-transport.js';

/** One generateContent call: the rendered prompt and the config (system instruction, schema, thinking…). */
export interface GenerateRequest {
  model: string;
  /** The user turn's text. */
  prompt: string;
  /** Few-shot examples, sent as earlier user/model turns before the prompt. */
  examples?: ReadonlyArray<{ prompt: string; answer: string }>;
  config: Omit<GenerateContentConfig, 'abortSignal' | 'httpOptions'>;
}

/** The request's `contents`: the prompt alone, or the examples' turns followed by it. */
export function contentsOf(request: GenerateRequest): string | Content[] {
  if (!request.examples || request.examples.length === 0) return request.prompt;
  return [
    ...request.examples.flatMap((e): Content[] => [
      { role: 'user', parts: [{ text: e.prompt }] },
      { role: 'model', parts: [{ text: e.answer }] },
    ]),
    { role: 'user', parts: [{ text: request.prompt }] },
  ];
}

/** usageMetadata of one answer, in tokens; zero when the server omitted a counter. */
export interface AnswerUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  thoughtsTokenCount: number;
}

/** An HTTP 200 answer, whatever it holds. Interpreting it (label, blocked, MAX_TOKENS) is the caller's job. */
export interface GenerateAnswer {
  /** Text of candidate 0's non-thought parts, or undefined when there is none (role-only content, no candidates). */
  text: string | undefined;
  /** candidates[0].finishReason (`STOP`, `MAX_TOKENS`, `SAFETY`…), when there is a candidate. */
  finishReason: string | undefined;
  /** promptFeedback.blockReason when the prompt was blocked (then there are no candidates). */
  blockReason: string | undefined;
  usage: AnswerUsage;
}

/** How one request is sent. */
export interface GenerateOptions {
  /** Aborts the request (job interrupted); it then rejects with CancelledFailure. */
  signal?: AbortSignal;
  /**
   * Told when the request's bytes were handed to the operating system (the scheduler bounds its arrival from it); a
   * caller that cannot tell never calls it.
   */
  onUploaded?: UploadListener;
  /** Abort after this many ms without an answer (TimeoutFailure); default the client's `timeoutMs`. */
  timeoutMs?: number;
}

/** Anything that can answer a {@link GenerateRequest}; tests and benchmarks may pass their own. */
export interface GeminiCaller {
  /**
   * Sends one request.
   * @throws ApiFailure subclasses only (RateLimitFailure, ServerFailure, ConnectionFailure, TimeoutFailure, KeyFailure,
   *   ModelFailure, RequestFailure, CancelledFailure).
   */
  generate(request: GenerateRequest, options?: GenerateOptions): Promise<GenerateAnswer>;
}

export interface GeminiClientOptions {
  apiKey: string;
  /** API endpoint, e.g. the simulator's `http://127.0.0.1:PORT`; default the SDK's (env GOOGLE_GEMINI_BASE_URL, then Google). */
  baseUrl?: string;
  /** Abort a request that has not answered after this many ms, unless the request says otherwise (--timeout). */
  timeoutMs: number;
}

/** Creates a caller bound to one API key. The key stays inside the SDK client; it is never logged. */
export function createGeminiClient(options: GeminiClientOptions): GeminiCaller {
  const ai = new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: { ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), fetch: httpTransport },
  });
  return {
    async generate(request, { signal, onUploaded, timeoutMs = options.timeoutMs } = {}) {
      const controller = new AbortController();
      let abortReason: AbortReason | undefined;
      const timer = setTimeout(() => {
        abortReason = { kind: 'timeout', timeoutMs };
        controller.abort();
      }, timeoutMs);
      const onCancel = () => {
        abortReason ??= { kind: 'cancel' };
        controller.abort();
      };
      if (signal?.aborted) onCancel();
      signal?.addEventListener('abort', onCancel, { once: true });
      try {
        const response = await ai.models.generateContent({
          model: request.model,
          contents: contentsOf(request),
          config: {
            ...request.config,
            abortSignal: controller.signal,
            // The SDK's documented per-request override: the same transport, told whom to report the upload to.
            ...(onUploaded ? { httpOptions: { fetch: (url: string | URL | Request, init?: RequestInit) => httpTransport(url, init, onUploaded) } } : {}),
          },
        });
        return readAnswer(response);
      } catch (error) {
        throw classifyFailure(error, abortReason) satisfies ApiFailure;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onCancel);
      }
    },
  };
}

/**
 * Reads a response the way `response.text` does (non-thought text parts of candidate 0), without the SDK's console
 * warnings, with the known keys replaced by their aliases (../config/known-secrets.ts). Source: §4.5 and the
 * recordings in test/fixtures/gemini/200-*.json.
 */
export function readAnswer(response: GenerateContentResponse): GenerateAnswer {
  const candidate = response.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  const texts = parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text as string);
  const usage = response.usageMetadata;
  return {
    text: texts.length > 0 ? redactSecrets(texts.join('')) : undefined,
    finishReason: candidate?.finishReason ?? undefined,
    blockReason: response.promptFeedback?.blockReason ?? undefined,
    usage: {
      promptTokenCount: usage?.promptTokenCount ?? 0,
      candidatesTokenCount: usage?.candidatesTokenCount ?? 0,
      thoughtsTokenCount: usage?.thoughtsTokenCount ?? 0,
    },
  };
}
