/** Keys files, secret redaction and endpoint URLs (issue 11 items 5–7), unit by unit. */
import { describe, expect, it } from 'vitest';
import { looksLikeKey, makeKey, parseKeysFile } from '../../src/config/api-keys.js';
import { checkBaseUrl } from '../../src/config/base-url.js';
import { redactSecrets, redactSecretsDeep } from '../../src/config/known-secrets.js';
import { InputError, UsageError } from '../../src/errors.js';
import { failureForStatus } from '../../src/providers/gemini/classify-failure.js';
import { parseRpcStatus } from '../../src/providers/google-rpc-status.js';
import { fixtureText } from '../support/fixtures.js';

const KEY = 'AIzaSyQ9unitTestKeyValueForRedaction-0Zq';

describe('looksLikeKey', () => {
  it('tells keys from project names', () => {
    for (const key of [KEY, 'sk-proj-abcdefghijklmnopqrstuvwxyz012345', 'Ab3dEfGhIjKlMnOpQrStUvWxYz012345']) expect(looksLikeKey(key), key).toBe(true);
    for (const name of ['acme-prod', 'my-free-project', 'project-a', 'p1', 'a-very-long-but-lowercase-project-name-2026', 'key-1']) expect(looksLikeKey(name), name).toBe(false);
  });
});

describe('parseKeysFile', () => {
  const refusal = (text: string): InputError => {
    try {
      parseKeysFile(text, 'keys.txt');
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).code).toBe('KEYS_FILE_INVALID');
      expect((error as InputError).message).not.toContain(KEY);
      return error as InputError;
    }
    throw new Error('expected a refusal');
  };

  it('reads PROJECT KEY and KEY lines', () => {
    const keys = parseKeysFile(`# comment\nacme ${KEY}\n\nside-proj AIzaSyOtherKeyValue000000000000000000000\n`, 'keys.txt');
    expect(keys.map((k) => k.project)).toEqual(['acme', 'side-proj']);
  });

  it('refuses KEY PROJECT, naming the line', () => {
    expect(refusal(`acme AIzaSyOtherKeyValue000000000000000000000\n${KEY} acme-prod\n`).line).toBe(2);
  });

  it('refuses a project that is another line’s key', () => {
    expect(refusal(`short-key-value-1\nshort-key-value-1 short-key-value-2\n`).message).toContain('looks like an API key');
  });

  it('refuses commas, semicolons and = with the column, never echoing the line', () => {
    expect(refusal(`acme,${KEY}\n`).column).toBe(5);
    expect(refusal(`GEMINI_API_KEY=${KEY}\n`).column).toBe(15);
    expect(refusal(`${KEY};\n`).line).toBe(1);
  });
});

describe('redactSecrets', () => {
  it('replaces every remembered key by its alias, in text and in parsed error bodies, before they are cut to length', () => {
    const alias = makeKey(KEY, 4, 'p').alias;
    expect(alias).toBe('key-5 …-0Zq');
    expect(redactSecrets(`a ${KEY} b ${KEY}`)).toBe(`a ${alias} b ${alias}`);
    expect(redactSecretsDeep({ x: [KEY, { [KEY]: 1 }] })).toEqual({ x: [alias, { [alias]: 1 }] });
    const body = fixtureText('403-consumer-suspended.json').replaceAll('{{API_KEY}}', KEY);
    const long = `${'x'.repeat(280)}${KEY}`;
    for (const failure of [failureForStatus(403, parseRpcStatus(body), body), failureForStatus(400, null, long)]) {
      expect(JSON.stringify({ m: failure.message, raw: failure.raw })).not.toContain(KEY.slice(0, 12));
    }
  });

  it('shows no tail of a short key in its alias', () => {
    expect(makeKey('abc12345', 0, undefined).alias).toBe('key-1');
  });
});

describe('checkBaseUrl', () => {
  it('accepts an endpoint, refuses credentials without echoing them', () => {
    expect(checkBaseUrl('https://generativelanguage.googleapis.com', '--base-url')).toBe('https://generativelanguage.googleapis.com');
    expect(checkBaseUrl('http://127.0.0.1:8765/gateway/v1', '--base-url')).toBe('http://127.0.0.1:8765/gateway/v1');
    for (const url of [`https://h.example/?key=${KEY}`, `https://u:${KEY}@h.example`, `https://${KEY}@h.example/`, `https://h.example/#${KEY}`, `ftp://h/${KEY}`, KEY]) {
      let error: unknown;
      try {
        checkBaseUrl(url, 'GOOGLE_GEMINI_BASE_URL');
      } catch (e) {
        error = e;
      }
      expect(error, url).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).not.toContain(KEY);
      expect((error as UsageError).message).toContain('GOOGLE_GEMINI_BASE_URL');
    }
  });
});
