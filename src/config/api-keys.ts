/**
 * API keys and the quota projects they belong to.
 *
 * Sources, in order (docs/design.md "Keys"): `--keys-file` (one key a line: `KEY` or `PROJECT KEY`; `#` comments),
 * else `GEMINI_API_KEYS` (comma-separated), else `GOOGLE_API_KEY`, else `GEMINI_API_KEY` (the SDK's names; GOOGLE_API_KEY
 * wins, docs/reference/gemini-api-facts.md §5.4). For `--provider openai`: `--keys-file`, else `OPENAI_API_KEY` (the
 * `openai` client's name). Keys of one PROJECT share its quota; a key without a project is a project of its own.
 *
 * A key's value is never printed, logged or written: everything user-facing shows {@link ApiKey.alias}.
 */
import { readFile } from 'node:fs/promises';
import { InputError, UsageError } from '../errors.js';
import { rememberSecret } from './known-secrets.js';

export interface ApiKey {
  /** The secret. Only the Gemini client may read it. */
  readonly value: string;
  /** `key-2 …x7Qa`: position in the list and the last four characters. */
  readonly alias: string;
  /** Quota project name (given, or `key-N` when the key stands alone). */
  readonly project: string;
}

/**
 * Loads the keys; see the module comment for the sources.
 * @param family whose environment variables to read: Gemini's, or OPENAI_API_KEY.
 */
export async function loadApiKeys(keysFile: string | undefined, env: NodeJS.ProcessEnv, family: 'gemini' | 'openai' = 'gemini'): Promise<ApiKey[]> {
  if (keysFile !== undefined) return parseKeysFile(await readKeysFile(keysFile), keysFile);
  if (family === 'openai') {
    const key = env.OPENAI_API_KEY?.trim();
    if (key) return [makeKey(key, 0, undefined)];
    throw new UsageError('KEYS_MISSING', 'No API key for --provider openai. Set OPENAI_API_KEY, or give --keys-file FILE (one key a line, or "PROJECT KEY"); or try --simulate.');
  }
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
 * @throws InputError `KEYS_FILE_INVALID` naming the line and never echoing a key: more than two fields; a comma or
 *   `=` in the line (`acme,AIza…` or `GEMINI_API_KEY=AIza…` would be taken as one key); a project field that looks
 *   like a key (`KEY PROJECT` written the wrong way round would show the key as the project's name in every message
 *   and in quota-usage.json); a key with characters no key has. `KEYS_MISSING` when it holds no key.
 */
export function parseKeysFile(text: string, file: string): ApiKey[] {
  const keys: ApiKey[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const values = new Set<string>();
  const parsed = lines.map((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return undefined;
    const where = { file, line: i + 1, column: 1 };
    const separator = /[,;=]/.exec(line);
    if (separator) {
      throw new InputError(
        'KEYS_FILE_INVALID',
        { ...where, column: raw.indexOf(separator[0]) + 1 },
        `expected "KEY" or "PROJECT KEY" separated by spaces, found "${separator[0]}" (the line is not shown: it may hold a key)`,
      );
    }
    const fields = line.split(/\s+/);
    if (fields.length > 2) {
      throw new InputError('KEYS_FILE_INVALID', where, `expected "KEY" or "PROJECT KEY", found ${fields.length} fields`);
    }
    const [project, value] = fields.length === 2 ? [fields[0], fields[1]] : [undefined, fields[0]];
    if (!value || !/^[\x21-\x7e]+$/.test(value)) {
      throw new InputError('KEYS_FILE_INVALID', where, 'the key has characters a Gemini API key cannot have');
    }
    values.add(value);
    return { where, project, value };
  });
  for (const entry of parsed) {
    if (!entry) continue;
    const { where, project, value } = entry;
    if (project !== undefined && (looksLikeKey(project) || values.has(project))) {
      throw new InputError(
        'KEYS_FILE_INVALID',
        where,
        `the first field looks like an API key (${project.length} characters${project.startsWith('AIza') ? ', starting AIza' : ''}), and it would be shown ` +
          'as the project\'s name in every message: write "PROJECT KEY", the project first, or the key alone',
      );
    }
    keys.push(makeKey(value, keys.length, project));
  }
  if (keys.length === 0) throw new InputError('KEYS_MISSING', { file }, 'the keys file holds no key');
  return dedupe(keys, file);
}

/**
 * True for a text shaped like an API key rather than a project name: a Google API key (`AIza` + 35 characters of
 * [A-Za-z0-9_-], https://cloud.google.com/docs/authentication/api-keys), an OpenAI-style secret (`sk-…`), or any
 * run of 32 or more key characters mixing upper case, lower case and digits (a Google Cloud project id has at most
 * 30 characters, lower case: https://cloud.google.com/resource-manager/docs/creating-managing-projects).
 */
export function looksLikeKey(text: string): boolean {
  if (/^AIza[\w-]{30,}$/.test(text) || /^sk-[\w-]{20,}$/.test(text)) return true;
  return /^[\w-]{32,}$/.test(text) && /[A-Z]/.test(text) && /[a-z]/.test(text) && /\d/.test(text);
}

/**
 * Makes the {@link ApiKey} of the `index`-th key (0-based) and remembers its value, so that any text a server sends
 * back is cleaned of it (./known-secrets.ts). The alias shows the last four characters of keys of 12 characters or
 * more, and none of a shorter one (which would show most of it).
 * @param project its quota project; undefined: the key is a project of its own (`key-N`).
 */
export function makeKey(value: string, index: number, project: string | undefined): ApiKey {
  const alias = value.length >= 12 ? `key-${index + 1} …${value.slice(-4)}` : `key-${index + 1}`;
  rememberSecret(value, alias);
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
