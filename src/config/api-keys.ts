/**
 * API keys and the quota projects they belong to.
 *
 * Sources, in order (../shared/DESIGN.md "Keys"): `--keys-file` (one key a line: `KEY` or `PROJECT KEY`; `#` comments),
 * else `GEMINI_API_KEYS` (comma-separated), else `GOOGLE_API_KEY`, else `GEMINI_API_KEY` (the SDK's names; GOOGLE_API_KEY
 * wins, ../shared/reference/gemini-api-facts.md §5.4). Keys of one PROJECT share its quota; a key without a project is
 * a project of its own.
 *
 * A key's value is never printed, logged or written: everything user-facing shows {@link ApiKey.alias}.
 */
import { readFile } from 'node:fs/promises';
import { InputError, UsageError } from '../errors.js';

export interface ApiKey {
  /** The secret. Only the Gemini client may read it. */
  readonly value: string;
  /** `key-2 …x7Qa`: position in the list and the last four characters. */
  readonly alias: string;
  /** Quota project name (given, or `key-N` when the key stands alone). */
  readonly project: string;
}

/** Loads the keys; see the module comment for the sources. */
export async function loadApiKeys(keysFile: string | undefined, env: NodeJS.ProcessEnv): Promise<ApiKey[]> {
  if (keysFile !== undefined) return parseKeysFile(await readKeysFile(keysFile), keysFile);
  const list = env.GEMINI_API_KEYS?.split(',').map((k) => k.trim()).filter((k) => k.length > 0);
  if (list && list.length > 0) return dedupe(list.map((value, i) => makeKey(value, i, undefined)), 'GEMINI_API_KEYS');
  const single = env.GOOGLE_API_KEY?.trim() || env.GEMINI_API_KEY?.trim();
  if (single) return [makeKey(single, 0, undefined)];
  throw new UsageError(
    'KEYS_MISSING',
    'No API key. Give --keys-file FILE (one key a line, or "PROJECT KEY"), or set GEMINI_API_KEYS, GOOGLE_API_KEY or GEMINI_API_KEY; or try --simulate.',
  );
}

async function readKeysFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError('KEYS_FILE_UNREADABLE', { file }, `cannot read the keys file (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
}

/**
 * Parses a keys file's text.
 * @throws InputError `KEYS_FILE_INVALID` naming the line (never echoing a key), `KEYS_MISSING` when it holds none.
 */
export function parseKeysFile(text: string, file: string): ApiKey[] {
  const keys: ApiKey[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    const fields = line.split(/\s+/);
    if (fields.length > 2) {
      throw new InputError('KEYS_FILE_INVALID', { file, line: i + 1, column: 1 }, `expected "KEY" or "PROJECT KEY", found ${fields.length} fields`);
    }
    const [project, value] = fields.length === 2 ? [fields[0], fields[1]] : [undefined, fields[0]];
    if (!value || !/^[\x21-\x7e]+$/.test(value)) {
      throw new InputError('KEYS_FILE_INVALID', { file, line: i + 1, column: 1 }, 'the key has characters a Gemini API key cannot have');
    }
    keys.push(makeKey(value, keys.length, project));
  });
  if (keys.length === 0) throw new InputError('KEYS_MISSING', { file }, 'the keys file holds no key');
  return dedupe(keys, file);
}

/**
 * Makes the {@link ApiKey} of the `index`-th key (0-based).
 * @param project its quota project; undefined: the key is a project of its own (`key-N`).
 */
export function makeKey(value: string, index: number, project: string | undefined): ApiKey {
  const alias = `key-${index + 1} …${value.slice(-4)}`;
  return { value, alias, project: project ?? `key-${index + 1}` };
}

function dedupe(keys: ApiKey[], source: string): ApiKey[] {
  const seen = new Map<string, ApiKey>();
  for (const key of keys) {
    const twin = seen.get(key.value);
    if (twin) throw new UsageError('KEYS_DUPLICATE', `${source}: ${key.alias} is the same key as ${twin.alias}.`);
    seen.set(key.value, key);
  }
  return keys;
}
