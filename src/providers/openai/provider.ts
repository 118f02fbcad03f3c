/**
 * The OpenAI adapter as a {@link Provider} (`--provider openai`): any OpenAI-compatible chat/completions server —
 * OpenAI (`https://api.openai.com/v1`, the default), Gemini's compatibility endpoint
 * (`https://generativelanguage.googleapis.com/v1beta/openai/`), a gateway, or a local vLLM / Ollama (`--base-url
 * http://host:port/v1`) — through the official `openai` client (openai-caller.ts). Credentials are bearer keys
 * (OPENAI_API_KEY, or the keys file). Facts: docs/reference/batch-openai-vertex-facts.md §b; docs/providers.md.
 */
import type { Credential, Provider, ProviderConnection } from '../contract.js';
import { chatParams } from './chat-request.js';
import { openAiCatalog } from './catalog.js';
import { createOpenAiCaller } from './openai-caller.js';
import { ParamLadder } from './param-ladder.js';

/** OpenAI's API, where requests go without --base-url (the client's default). */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * Connects an OpenAI-compatible server. Every caller shares one request shape: a field the server refuses is stepped
 * down once for all of them, with one notice (`connection.notice`).
 */
export function createOpenAiProvider(connection: ProviderConnection): Provider {
  const baseUrl = connection.baseUrl ?? OPENAI_BASE_URL;
  const ladder = new ParamLadder((message) => connection.notice?.(`${describe(baseUrl)}: ${message}`));
  const secretOf = (credential: Credential): string => {
    if (credential.secret === undefined) throw new RangeError(`${credential.alias}: an OpenAI-compatible server needs an API key`);
    return credential.secret;
  };
  return {
    ...openAiCatalog,
    describeEndpoint: () => describe(baseUrl),
    identity: () => ({ provider: 'openai', endpoint: new URL(baseUrl).host }),
    // OpenAI-style servers charge the output cap to TPM up front: the cap this request goes out with now.
    quotaTokens: (request) => {
      const params = chatParams(request, ladder.current());
      return params.max_completion_tokens ?? params.max_tokens ?? 0;
    },
    outputRoom: (request) => {
      const params = chatParams(request, ladder.current());
      return params.max_completion_tokens ?? params.max_tokens;
    },
    caller: (credential) =>
      createOpenAiCaller({
        apiKey: secretOf(credential),
        baseUrl,
        timeoutMs: connection.timeoutMs,
        ladder,
        organization: connection.env.OPENAI_ORG_ID,
        project: connection.env.OPENAI_PROJECT_ID,
      }),
  };
}

/** The endpoint without credentials or query (a gateway's URL may carry a token in its query string). */
function describe(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  url.search = '';
  return url.toString().replace(/\/$/, '');
}
