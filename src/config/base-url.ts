/**
 * `--base-url` and `GOOGLE_GEMINI_BASE_URL`: the API endpoint. The URL is shown in the run's banner, in outage
 * messages and in the resume hint, and recorded in the job's manifest, so it must not carry a credential: a
 * `user:password@` part, a query (`?key=…`) or a fragment is refused, and the refusal never echoes the value.
 * Keys go in `--keys-file` or the environment; the SDK sends them in the `x-goog-api-key` header.
 */
import { UsageError } from '../errors.js';

/**
 * Checks an endpoint URL.
 * @param value the URL as given.
 * @param source where it came from, for the message: `--base-url` or `GOOGLE_GEMINI_BASE_URL`.
 * @returns the URL, unchanged.
 * @throws UsageError `OPTION_INVALID` (exit 2) when it is not an http(s) URL; `BASE_URL_CREDENTIALS` when it holds
 *   a user name, password, query or fragment. Neither message shows the value, only its scheme and host.
 */
export function checkBaseUrl(value: string, source: string): string {
  let url: URL | undefined;
  try {
    url = /^https?:\/\/[^\s]+$/i.test(value) ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(
      'OPTION_INVALID',
      `${source} must be an http(s) URL such as https://generativelanguage.googleapis.com (the value is not shown: it may hold a key).`,
    );
  }
  const parts = [
    url.username !== '' || url.password !== '' ? 'a user name or password (user:password@)' : '',
    url.search !== '' || value.includes('?') ? 'a query (?…)' : '',
    url.hash !== '' || value.includes('#') ? 'a fragment (#…)' : '',
  ].filter(Boolean);
  if (parts.length > 0) {
    throw new UsageError(
      'BASE_URL_CREDENTIALS',
      `${source} (${url.protocol}//${url.host}/…) holds ${parts.join(' and ')}, which may be a credential and would be shown in messages and recorded in the job directory. ` +
        'Give the endpoint alone (scheme, host, path), and the key in --keys-file, GEMINI_API_KEYS, GOOGLE_API_KEY or GEMINI_API_KEY.',
    );
  }
  return value;
}
