/**
 * The one place that talks to Gemini: a thin wrapper around the official `@google/genai` client with its own retries
 * left OFF (its default; we own the retry loop, see schedule/) and our own per-request timeout, so that every outcome
 * comes back either as a neutral {@link ModelAnswer} or as a typed failure of ../failures.ts. Serves the Gemini
 * Developer API (an API key) and Vertex AI (`vertexai: true`, Application Default Credentials).
 * Facts: docs/providers.md (docs/reference/gemini-api-facts.md §5 SDK behaviour, §5.4 baseUrl, §5.7 Vertex mode, §4.5 response shape).
 */
import { GoogleGenAI, type GoogleGenAIOptions } from '@google/genai';
import type { GenerateOptions, ModelAnswer, ModelCaller, ModelRequest, UploadListener } from '../contract.js';
import { sendWithDeadline, type ServerFailure } from '../failures.js';
import { foreignBodyFailure, isJsonContentType } from '../foreign-body.js';
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
      // The SDK's documented per-request override: the same transport, told whom to report the upload to, and
      // watching for a successful status whose body is not JSON.
      const seen: SeenResponse = { status: undefined, contentType: null, foreign: undefined };
      call.config.httpOptions = { fetch: checkingTransport(seen, onUploaded) };
      return sendWithDeadline(
        signal,
        timeoutMs,
        async (abortSignal) => {
          call.config.abortSignal = abortSignal;
          return readAnswer(await ai.models.generateContent(call));
        },
        (error) => notAnAnswer(error, seen) ?? classifyFailure(error, sharedQuota, request.serviceTier === 'flex'),
      );
    },
  };
}

/** What the transport saw of one call's response. */
interface SeenResponse {
  status: number | undefined;
  contentType: string | null;
  /** Set when a successful status came with a body that is not JSON (an HTML page on 200). */
  foreign: ServerFailure | undefined;
}

const EXPECTED = 'a GenerateContentResponse';

/**
 * The shared transport for one call: reports the upload, and keeps the status and Content-Type of the response. A
 * successful response labelled as anything but JSON (rare: a proxy's page) is read here, so that the failure can say
 * what came back; it is then handed on, and the SDK's JSON parse fails on it.
 */
function checkingTransport(seen: SeenResponse, onUploaded: UploadListener | undefined): typeof fetch {
  return async (url, init) => {
    const response = await httpTransport(url, init, onUploaded);
    seen.status = response.status;
    seen.contentType = response.headers.get('content-type');
    if (!response.ok || isJsonContentType(seen.contentType)) return response;
    const text = await response.text();
    seen.foreign = foreignBodyFailure(response.status, seen.contentType, text, EXPECTED);
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * The failure of a successful response the SDK could not read: a body that is not JSON (../foreign-body.ts), or
 * JSON cut short (the SDK's SyntaxError). Undefined for anything else.
 */
function notAnAnswer(error: unknown, seen: SeenResponse): ServerFailure | undefined {
  if (seen.foreign) return seen.foreign;
  if (seen.status !== undefined && seen.status < 300 && error instanceof SyntaxError) return foreignBodyFailure(seen.status, seen.contentType, error.message, EXPECTED);
  return undefined;
}
