/**
 * The secrets this process knows (API keys), so that text a server sends back can be cleaned of them before it is
 * stored or shown. A real 403 quotes the key it refused, in the message, in ErrorInfo.metadata.containerInfo and in
 * the LocalizedMessage (`Permission denied: Consumer 'api_key:AIza…' has been suspended.`, fixture
 * test/fixtures/gemini/403-consumer-suspended.json), and gemini-batch copies error messages into the journal, the
 * output's `error` column, notices, quota-usage.json and stderr.
 *
 * Every key made by `makeKey` (./api-keys.ts) is remembered here; {@link redactSecrets} replaces each occurrence of a
 * remembered value by its alias (`key-2 …x7Qa`).
 */

const aliases = new Map<string, string>();
let pattern: RegExp | null = null;

/**
 * Remembers a secret and the alias to show in its place. Values shorter than 4 characters are not remembered: they
 * would redact ordinary words, and no API accepts them as keys.
 */
export function rememberSecret(value: string, alias: string): void {
  if (value.length < 4 || aliases.get(value) === alias) return;
  aliases.set(value, alias);
  pattern = null;
}

/**
 * `text` with every remembered secret replaced by its alias (longest secret first, so a key that contains another is
 * replaced whole). One regular-expression pass; text without a secret is returned as is.
 */
export function redactSecrets(text: string): string {
  if (aliases.size === 0 || text.length === 0) return text;
  pattern ??= new RegExp(
    [...aliases.keys()]
      .sort((a, b) => b.length - a.length)
      .map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  pattern.lastIndex = 0;
  if (!pattern.test(text)) return text;
  pattern.lastIndex = 0;
  return text.replace(pattern, (value) => aliases.get(value) ?? '(a key)');
}

/** {@link redactSecrets} applied to every string inside a JSON-like value; returns a cleaned copy. */
export function redactSecretsDeep<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactSecretsDeep(v)) as T;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redactSecrets(k)] = redactSecretsDeep(v);
    return out as T;
  }
  return value;
}
