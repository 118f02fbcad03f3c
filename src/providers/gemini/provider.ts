/**
 * The Gemini adapter as a {@link Provider}: the Gemini Developer API (`--provider gemini`, API keys) and Vertex AI
 * (`--provider vertex`, Application Default Credentials with --project and --location), both through `@google/genai`.
 * Facts and sources: docs/providers.md.
 */
import type { Credential, ModelRequest, Provider, ProviderConnection } from '../contract.js';
import { geminiCatalog, vertexCatalog } from './catalog.js';
import { OAuth2Client, type GoogleAuthOptions } from 'google-auth-library';
import { rememberSecret } from '../../config/known-secrets.js';
import { classifyFailure } from './classify-failure.js';
import { createGeminiCaller, geminiClient, type GeminiAuth } from './gemini-caller.js';
import { geminiCall } from './gemini-request.js';
import { createGeminiBatchService } from './batch-service.js';

/** The Gemini API's host, where requests go without --base-url (the SDK's default). */
export const GEMINI_API_HOST = 'generativelanguage.googleapis.com';

/** The Gemini Developer API. Credentials are API keys. */
export function createGeminiProvider(connection: ProviderConnection): Provider {
  const host = connection.baseUrl !== undefined ? new URL(connection.baseUrl).host : GEMINI_API_HOST;
  const authOf = (credential: Credential): GeminiAuth => {
    if (credential.secret === undefined) throw new RangeError(`${credential.alias}: the Gemini API needs an API key`);
    return { kind: 'api-key', apiKey: credential.secret };
  };
  return {
    ...geminiCatalog,
    describeEndpoint: () => connection.baseUrl ?? `https://${GEMINI_API_HOST}`,
    identity: () => ({ provider: 'gemini', endpoint: host }),
    caller: (credential) => createGeminiCaller({ auth: authOf(credential), ...baseUrlOf(connection), timeoutMs: connection.timeoutMs }),
    outputRoom,
    countTokens: (credential, model, prompts) => countTokens(authOf(credential), connection, model, prompts),
    batches: (credential) => {
      const auth = authOf(credential);
      return createGeminiBatchService({ apiKey: auth.kind === 'api-key' ? auth.apiKey : '', ...baseUrlOf(connection), timeoutMs: connection.timeoutMs });
    },
  };
}

/**
 * Vertex AI: `https://{location}-aiplatform.googleapis.com` (`aiplatform.googleapis.com` for `global`), path
 * `v1beta1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`, a bearer token
 * from Application Default Credentials (google-auth-library: GOOGLE_APPLICATION_CREDENTIALS, gcloud's
 * application-default login, the metadata server), or the connection's fixed access token.
 * @throws RangeError when project or location is missing (config checks them first, exit 2).
 */
export function createVertexProvider(connection: ProviderConnection): Provider {
  const { project, location } = connection;
  if (!project || !location) throw new RangeError('Vertex AI needs a project and a location');
  const auth: GeminiAuth = { kind: 'vertex', project, location, googleAuthOptions: vertexAuthOptions(connection) };
  const host = connection.baseUrl !== undefined ? new URL(connection.baseUrl).host : vertexHost(location);
  return {
    ...vertexCatalog,
    describeEndpoint: () => `${connection.baseUrl ?? `https://${vertexHost(location)}`} (project ${project}, ${location})`,
    identity: () => ({ provider: 'vertex', endpoint: host }),
    // One client for every pool: ADC gives one identity, and google-auth-library caches and refreshes its token.
    caller: () => createGeminiCaller({ auth, ...baseUrlOf(connection), timeoutMs: connection.timeoutMs }),
    outputRoom,
    countTokens: (_credential, model, prompts) => countTokens(auth, connection, model, prompts),
  };
}

/**
 * How google-auth-library finds Vertex's credentials: the connection's fixed token (an auth client that already holds
 * it, so nothing is fetched), else Application Default Credentials with GOOGLE_APPLICATION_CREDENTIALS read from
 * `connection.env` (the job's environment, which may differ from the process's in tests), else ADC's own discovery.
 */
export function vertexAuthOptions(connection: Pick<ProviderConnection, 'env' | 'accessToken'>): GoogleAuthOptions {
  if (connection.accessToken !== undefined) {
    rememberSecret(connection.accessToken, 'the access token');
    const client = new OAuth2Client();
    client.setCredentials({ access_token: connection.accessToken, token_type: 'Bearer', expiry_date: Number.MAX_SAFE_INTEGER });
    return { authClient: client };
  }
  const keyFile = connection.env.GOOGLE_APPLICATION_CREDENTIALS;
  return keyFile ? { keyFilename: keyFile } : {};
}

/** Vertex AI's host for a location (docs/providers.md "Vertex AI"; docs/reference/gemini-api-facts.md §5.7). */
export function vertexHost(location: string): string {
  if (location === 'global') return 'aiplatform.googleapis.com';
  if (location === 'us' || location === 'eu') return `aiplatform.${location}.rep.googleapis.com`;
  return `${location}-aiplatform.googleapis.com`;
}

/** The request's generationConfig.maxOutputTokens (thinking included), or undefined when it sends none. */
function outputRoom(request: ModelRequest): number | undefined {
  return geminiCall(request).config.maxOutputTokens;
}

function baseUrlOf(connection: ProviderConnection): { baseUrl?: string } {
  return connection.baseUrl !== undefined ? { baseUrl: connection.baseUrl } : {};
}

/** One countTokens call with each prompt as its own user turn. @throws ApiFailure subclasses. */
async function countTokens(auth: GeminiAuth, connection: ProviderConnection, model: string, prompts: string[]): Promise<number> {
  const ai = geminiClient({ auth, ...baseUrlOf(connection) });
  try {
    const response = await ai.models.countTokens({ model, contents: prompts.map((text) => ({ role: 'user', parts: [{ text }] })) });
    return response.totalTokens ?? 0;
  } catch (error) {
    throw classifyFailure(error, auth.kind === 'vertex');
  }
}
