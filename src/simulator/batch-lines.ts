/**
 * The lines of a batch's input, read at create time: a JSONL file (`{"key": …, "request": GenerateContentRequest}` per
 * line) or inline requests (`{"request": …, "metadata": {"key": …}}`). A request must use the REST field names: a field
 * GenerateContentRequest does not have (an SDK-flattened `thinking_config`, say) refuses the whole create with a 400,
 * as the real API does ("Error on line 1: invalid JSON, near column 1032: no such field: 'thinking_config'",
 * UKGovernmentBEIS/inspect_ai#3257; docs/batch-api.md "Input").
 */

/** One request of a batch. */
export interface BatchLine {
  /** 1-based line of the file, or position of the inline request. */
  index: number;
  /** The file line's `key`, or the inline request's `metadata.key`. */
  key?: string;
  /** An inline request's metadata, echoed on its response. */
  metadata?: Record<string, unknown>;
  /** The GenerateContentRequest (not yet validated beyond its field names). */
  request: unknown;
}

/** The lines, or the message of the 400 that refuses the create. */
export type LinesResult = { ok: true; lines: BatchLine[] } | { ok: false; message: string };

/** GenerateContentRequest's fields (REST reference), camelCase and snake_case. */
const REQUEST_FIELDS = new Set(
  ['model', 'contents', 'tools', 'toolConfig', 'safetySettings', 'systemInstruction', 'generationConfig', 'cachedContent', 'serviceTier', 'labels', 'store'].flatMap(
    (f) => [f, f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)],
  ),
);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The first field of `request` that GenerateContentRequest does not have, if any. */
function unknownField(request: Record<string, unknown>): string | undefined {
  return Object.keys(request).find((k) => !REQUEST_FIELDS.has(k));
}

/** Reads a JSONL input file. Blank lines are skipped; every bad line is named in the one 400 message. */
export function readJsonlLines(text: string): LinesResult {
  const lines: BatchLine[] = [];
  const errors: string[] = [];
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const n = i + 1;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      errors.push(`Error on line ${n}: invalid JSON: ${(err as Error).message}`);
      continue;
    }
    if (!isObj(parsed) || !isObj(parsed.request)) {
      errors.push(`Error on line ${n}: invalid JSON, expected an object with a "request" object`);
      continue;
    }
    const bad = unknownField(parsed.request);
    if (bad !== undefined) {
      errors.push(`Error on line ${n}: invalid JSON, near column ${raw.indexOf(`"${bad}"`) + 1}: no such field: '${bad}'`);
      continue;
    }
    const line: BatchLine = { index: n, request: parsed.request };
    if (typeof parsed.key === 'string') line.key = parsed.key;
    lines.push(line);
  }
  if (errors.length > 0) return { ok: false, message: errors.join('\n') };
  if (lines.length === 0) return { ok: false, message: 'The input file has no requests.' };
  return { ok: true, lines };
}

/** Reads `inputConfig.requests.requests[]` of a create body. */
export function readInlineLines(requests: unknown): LinesResult {
  if (!Array.isArray(requests) || requests.length === 0) {
    return { ok: false, message: '* BatchGenerateContentRequest.batch.input_config.requests.requests: requests is not specified' };
  }
  const lines: BatchLine[] = [];
  for (let i = 0; i < requests.length; i++) {
    const item: unknown = requests[i];
    const at = `'batch.input_config.requests.requests[${i}]'`;
    if (!isObj(item) || !isObj(item.request)) return { ok: false, message: `Invalid JSON payload received. Expected a "request" object at ${at}.` };
    const bad = unknownField(item.request);
    if (bad !== undefined) return { ok: false, message: `Invalid JSON payload received. Unknown name "${bad}" at ${at.slice(0, -1)}.request': Cannot find field.` };
    const line: BatchLine = { index: i + 1, request: item.request };
    if (isObj(item.metadata)) {
      line.metadata = item.metadata;
      if (typeof item.metadata.key === 'string') line.key = item.metadata.key;
    }
    lines.push(line);
  }
  return { ok: true, lines };
}
