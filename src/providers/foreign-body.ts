/**
 * A successful HTTP status whose body is not the API's JSON: a proxy's or captive portal's HTML page on 200, a body
 * cut short. The request did not reach the model, or its answer did not reach us: a transient transport failure,
 * retried like a 502 page (a {@link ServerFailure}, ./failures.ts table), never read as an answer without text.
 * The message says what came back, e.g. `HTTP 200 with a text/html body, not a chat completion: oops`.
 */
import { redactSecrets } from '../config/known-secrets.js';
import { describeHttpFailure, ServerFailure } from './failures.js';

/** True when a Content-Type names JSON (`application/json`, `…+json`, with parameters); an absent one is not judged. */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (contentType === null || contentType === undefined || contentType.trim() === '') return true;
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}

/**
 * The failure of a response whose body is not the API's JSON.
 * @param status the HTTP status (a 2xx).
 * @param contentType the response's Content-Type, null when it had none.
 * @param body what came back: its text, or for JSON that is not the expected object, that JSON as text.
 * @param expected what the API answers, for the message: `a chat completion`, `a GenerateContentResponse`.
 */
export function foreignBodyFailure(status: number, contentType: string | null, body: string, expected: string): ServerFailure {
  const media = contentType?.split(';')[0]?.trim() || 'untyped';
  const text = redactSecrets(body);
  const article = /^[aeiou]/i.test(media) ? 'an' : 'a';
  return new ServerFailure(describeHttpFailure(status, `with ${article} ${media} body, not ${expected}`, text), status, text, `foreign-body|${media}`);
}
