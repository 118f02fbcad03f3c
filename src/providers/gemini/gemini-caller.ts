/**
 * The one place that talks to Gemini: a thin wrapper around the official `@google/genai` client with its own retries
 * left OFF (its default; we own the retry loop, see schedule/) and our own per-request timeout, so that every outcome
 * comes back either as a neutral {@link ModelAnswer} or as a typed failure of ../failures.ts. Serves the Gemini
 * Developer API (an API key) and Vertex AI (`vertexai: true`, Application Default Credentials).
 * Facts: docs/providers.md (docs/reference/gemini-api-facts.md §5 SDK behaviour, §5.4 baseUrl, §5.7 Vertex mode, §4.5 response shape).
 */
import { GoogleGenAI, type GoogleGenAIOptions } from '@google/genai';
import type { GenerateOptions, ModelAnswer, ModelCaller, ModelRequest, UploadListener } from '../contract.js';
import { sendWithDeadline } from '../failures.js';
import { httpTransport } from '../http-transport.js';
import { classifyFailure } from './classify-failure.js';
import { geminiCall } from './gemini-request.js';
import { readAnswer } from './read-answer.js';

/** How the client authenticates and where it sends. */
export type GeminiAuth =
  /** The Gemini Developer API with an API key (x-goog-api-key). */
  | { kind: 'api-key'; apiKey: string }
  /**
   * Vertex AI (`vertexai: true`): project and location, credentials from google-auth-library — Application Default
   * Credentials unless `googleAuthOptions` says otherwise (a key file, or an auth client that supplies the token).
   */
  | { kind: 'vertex'; project: string; location: string; googleAuthOptions?: GoogleGenAIOptions['googleAuthOptions'] };

export interface GeminiCallerOptions {
  auth: GeminiAuth;
  /** API endpoint, e.g. the simulator's `http://127.0.0.1:PORT`; default the SDK's (env GOOGLE_GEMINI_BASE_URL / GOOGLE_VERTEX_BASE_URL, then Google). */
  baseUrl?: string;
  /** Abort a request that has not answered after this many ms, unless the call says otherwise (--timeout). */
  timeoutMs: number;
}

/** The SDK client for `options`; the key stays inside it and is never logged. */
export function geminiClient(options: Pick<GeminiCallerOptions, 'auth' | 'baseUrl'>): GoogleGenAI {
  const httpOptions = { ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), fetch: httpTransport };
  const auth = options.auth;
  return auth.kind === 'api-key'
    ? new GoogleGenAI({ apiKey: auth.apiKey, httpOptions })
    : new GoogleGenAI({ vertexai: true, project: auth.project, location: auth.location, httpOptions, ...(auth.googleAuthOptions ? { googleAuthOptions: auth.googleAuthOptions } : {}) });
}

/** Creates a caller bound to one credential. */
export function createGeminiCaller(options: GeminiCallerOptions): ModelCaller {
  const ai = geminiClient(options);
  const sharedQuota = options.auth.kind === 'vertex';
  return {
    generate(request: ModelRequest, { signal, onUploaded, timeoutMs = options.timeoutMs }: GenerateOptions = {}): Promise<ModelAnswer> {
      const call = geminiCall(request);
      // The SDK's documented per-request override: the same transport, told whom to report the upload to.
      if (onUploaded) call.config.httpOptions = { fetch: reportingTransport(onUploaded) };
      return sendWithDeadline(
        signal,
        timeoutMs,
        async (abortSignal) => {
          call.config.abortSignal = abortSignal;
          return readAnswer(await ai.models.generateContent(call));
        },
        (error) => classifyFailure(error, sharedQuota, request.serviceTier === 'flex'),
      );
    },
  };
}

function reportingTransport(onUploaded: UploadListener): typeof fetch {
  return (url, init) => httpTransport(url, init, onUploaded);
}
