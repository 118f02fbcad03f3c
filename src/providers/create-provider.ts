/**
 * `--provider` name → adapter: the only file that knows every adapter. Everything else holds a {@link Provider} or a
 * {@link ProviderCatalog} and never imports an adapter (test/providers/import-boundary.test.ts).
 *
 * | name     | adapter                         | credentials                                        |
 * |----------|---------------------------------|----------------------------------------------------|
 * | `gemini` | ./gemini/ (@google/genai)       | API keys: --keys-file, GEMINI_API_KEYS, GOOGLE_API_KEY / GEMINI_API_KEY |
 * | `vertex` | ./gemini/ (`vertexai: true`)    | Application Default Credentials; --project, --location |
 * | `openai` | ./openai/ (the `openai` client) | OPENAI_API_KEY (a bearer token); --base-url …/v1   |
 *
 * Adapters are loaded when asked for, so a run loads only its own provider's client.
 */
import type { Provider, ProviderCatalog, ProviderConnection, ProviderName } from './contract.js';
import { geminiCatalog, vertexCatalog } from './gemini/catalog.js';
import { openAiCatalog } from './openai/catalog.js';

/** The names `--provider` accepts, the default first. */
export const PROVIDER_NAMES: readonly ProviderName[] = ['gemini', 'openai', 'vertex'];

/** The default of --provider. */
export const DEFAULT_PROVIDER: ProviderName = 'gemini';

/**
 * What is known of a provider's models, its daily-quota calendar and prices, without connecting.
 *
 */
export function providerCatalog(name: ProviderName): ProviderCatalog {
  switch (name) {
    case 'gemini':
      return geminiCatalog;
    case 'vertex':
      return vertexCatalog;
    case 'openai':
      return openAiCatalog;
  }
}

/**
 * Connects a provider.
 * @throws RangeError when the connection lacks what the provider needs (config checks it first, exit 2).
 */
export async function createProvider(name: ProviderName, connection: ProviderConnection): Promise<Provider> {
  switch (name) {
    case 'gemini':
      return (await import('./gemini/provider.js')).createGeminiProvider(connection);
    case 'vertex':
      return (await import('./gemini/provider.js')).createVertexProvider(connection);
    case 'openai':
      return (await import('./openai/provider.js')).createOpenAiProvider(connection);
  }
}
