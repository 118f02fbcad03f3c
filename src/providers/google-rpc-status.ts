/**
 * Shared by the Gemini adapter and the OpenAI adapter (Gemini's compatibility endpoint): no SDK here.
 *
 * Reading Google's error envelope (google.rpc.Status as JSON) from whatever text carried it.
 *
 * Quirks handled, each seen in real traffic (docs/reference/gemini-api-facts.md §2.1, §5.2, §7):
 * - the body may be a JSON array `[{"error": {...}}]` (OpenAI-compatible endpoint, some streaming paths);
 * - `@type` keys may carry a leading space (`" @type"`, gemini-cli googleErrors.test.ts);
 * - `@google/genai` puts the body, JSON-stringified, in `ApiError.message`; when the server answered with a non-JSON
 *   content type it wraps the raw text once more: `{"error":{"message":"<body text>","code":502,"status":"Bad Gateway"}}`.
 */

/** A `details[]` entry: `type` is the part after `type.googleapis.com/google.rpc.` (e.g. `RetryInfo`). */
export interface RpcDetail {
  type: string;
  [field: string]: unknown;
}

/** The parsed envelope. `code` is the HTTP status; `status` the canonical code name (`RESOURCE_EXHAUSTED`). */
export interface RpcStatus {
  code: number;
  message: string;
  status: string;
  details: RpcDetail[];
}

/**
 * Parses an error body into an {@link RpcStatus}.
 * @param text the response body, or an `ApiError.message` of `@google/genai`.
 * @returns null when the text holds no Google error envelope (e.g. an HTML page from a proxy).
 */
export function parseRpcStatus(text: string): RpcStatus | null {
  const outer = envelopeOf(tryParseJson(text));
  if (!outer) return null;
  // Double-wrapped: the SDK stuffed a JSON body into message.
  const inner = envelopeOf(tryParseJson(outer.message));
  return inner ?? outer;
}

function envelopeOf(value: unknown): RpcStatus | null {
  const body: unknown = Array.isArray(value) ? value[0] : value;
  if (!isObject(body) || !isObject(body.error)) return null;
  const error = body.error;
  const details = Array.isArray(error.details) ? error.details.flatMap(detailOf) : [];
  return {
    code: typeof error.code === 'number' ? error.code : Number(error.code) || 0,
    message: typeof error.message === 'string' ? error.message : '',
    status: typeof error.status === 'string' ? error.status : '',
    details,
  };
}

function detailOf(raw: unknown): RpcDetail[] {
  if (!isObject(raw)) return [];
  const fields: Record<string, unknown> = {};
  let type = '';
  for (const [key, value] of Object.entries(raw)) {
    if (key.trim() === '@type') type = String(value).replace(/^type\.googleapis\.com\/google\.rpc\./, '');
    else fields[key] = value;
  }
  return [{ ...fields, type }];
}

function tryParseJson(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
