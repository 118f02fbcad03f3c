/**
 * Who answers and with which credentials: the provider of --provider (../providers/create-provider.ts) at its default
 * endpoint or --base-url, or with `--simulate` the built-in simulator started in-process on 127.0.0.1 (generous quotas,
 * or the scenario of `--simulate-config`).
 *
 * Credentials: for `gemini` the API keys (--keys-file, GEMINI_API_KEYS, GOOGLE_API_KEY / GEMINI_API_KEY; one pool
 * per key); for `openai` bearer keys (--keys-file, else OPENAI_API_KEY); for `vertex` Application Default Credentials
 * (one pool, `adc`, in the --project quota project). With --simulate and `openai`, the simulator's OpenAI dialect at
 * `http://127.0.0.1:PORT/v1`.
 */
import type { ClassifyConfig } from '../config/classify-config.js';
import { loadApiKeys, makeKey, type ApiKey } from '../config/api-keys.js';
import type { AnswerSource } from '../journal/manifest.js';
import type { Credential, Provider } from '../providers/contract.js';
import { createProvider } from '../providers/create-provider.js';
import { DEFAULT_TIMEOUT_MS } from '../schedule/request-timeout.js';

/**
 * Where this run's answers come from (the manifest's `source`): the built-in simulator with --simulate, else the
 * provider's endpoint host (--base-url's or the environment's; never its credentials, which config refuses).
 * @param identity the provider's (Provider.identity()).
 */
export function answerSourceOf(config: Pick<ClassifyConfig, 'simulate' | 'model'>, identity: ReturnType<Provider['identity']>): AnswerSource {
  if (config.simulate) return { kind: 'simulator', provider: identity.provider, endpoint: 'built-in', model: config.model };
  return { kind: 'api', provider: identity.provider, endpoint: identity.endpoint, model: config.model };
}

export interface Endpoint {
  provider: Provider;
  /** One pool each: API keys, or Vertex's ADC. */
  credentials: Credential[];
  /** The secret of each credential's alias, for the job's memory of refused keys (hashed, never stored). */
  secretOf(alias: string): string | undefined;
  /**
   * Per-project limits the endpoint is known to have (the generous simulator's), used when no --rpm/--tpm/--rpd is
   * given. undefined: unknown; the model's defaults apply and 429s teach the rest.
   */
  limits: { rpm?: number; tpm?: number; rpd?: number } | undefined;
  /** For the run's header: `simulator http://127.0.0.1:PORT`, or the provider's endpoint. */
  description: string;
  /** Sends the provider's notices (../providers/contract.ts ProviderConnection.notice) to `listener` from now on. */
  onNotice(listener: (text: string) => void): void;
  close(): Promise<void>;
}

/** Holds the provider's notices until the run says where they go. */
function noticeRelay(): { notice: (text: string) => void; onNotice: (listener: (text: string) => void) => void } {
  let target: ((text: string) => void) | undefined;
  const held: string[] = [];
  return {
    notice: (text) => (target ? target(text) : held.push(text)),
    onNotice: (listener) => {
      target = listener;
      for (const text of held.splice(0)) listener(text);
    },
  };
}

/** The provider of `config` at `baseUrl`, not started yet (plan reads its identity and counts tokens with it). */
export function connectProvider(
  config: ClassifyConfig,
  env: NodeJS.ProcessEnv,
  baseUrl: string | undefined,
  accessToken?: string,
  notice?: (text: string) => void,
): Promise<Provider> {
  return createProvider(config.provider, {
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(config.project !== undefined ? { project: config.project } : {}),
    ...(config.location !== undefined ? { location: config.location } : {}),
    timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    env,
    ...(accessToken !== undefined ? { accessToken } : {}),
    ...(notice ? { notice } : {}),
  });
}


/**
 * @throws UsageError KEYS_MISSING / InputError KEYS_FILE_INVALID, or the scenario's InputError, before any API call.
 */
export async function resolveEndpoint(config: ClassifyConfig, env: NodeJS.ProcessEnv): Promise<Endpoint> {
  if (!config.simulate) {
    const keys = config.provider === 'vertex' ? [] : await loadApiKeys(config.keysFile, env, config.provider === 'openai' ? 'openai' : 'gemini');
    const relay = noticeRelay();
    const provider = await connectProvider(config, env, config.baseUrl, undefined, relay.notice);
    return { provider, ...credentialsOf(config, keys), limits: undefined, description: provider.describeEndpoint(), onNotice: relay.onNotice, close: async () => undefined };
  }
  const sim = await import('../simulator/index.js');
  const scenario = config.simulateConfig !== undefined ? sim.loadScenario(config.simulateConfig) : sim.generousScenario();
  const scenarioKeys = scenario.projects.flatMap((p) => p.keys.filter((k) => !k.leaked).map((k) => ({ value: k.key, project: p.id })));
  const apiKeys: ApiKey[] =
    config.keysFile !== undefined
      ? await loadApiKeys(config.keysFile, env, config.provider === 'openai' ? 'openai' : 'gemini')
      : scenarioKeys.length > 0
        ? scenarioKeys.map((k, i) => makeKey(k.value, i, k.project))
        : [makeKey('simulated-key-1', 0, scenario.defaultProject)];
  const handle = await sim.startSimulator(scenario, { port: 0 });
  const generous = config.simulateConfig === undefined;
  // The generous simulator's quota is known, so the client may use all of it; a scenario is a rehearsal of a real
  // account, so its limits are learned the way they would be there.
  const known = generous ? scenario.projects.find((p) => p.id === scenario.defaultProject)?.limits['*'] : undefined;
  const relay = noticeRelay();
  // Vertex sends the simulator a bearer token instead of Application Default Credentials': a key the scenario knows.
  // The simulator serves every dialect on one port; the OpenAI client's base URL ends in /v1 (POST /v1/chat/completions).
  const accessToken = config.provider === 'vertex' ? (apiKeys[0]?.value ?? 'simulated-access-token') : undefined;
  const provider = await connectProvider(config, env, config.provider === 'openai' ? `${handle.url}/v1` : handle.url, accessToken, relay.notice);
  return {
    provider,
    ...credentialsOf(config, apiKeys),
    limits: known ? { ...(known.rpm !== undefined ? { rpm: known.rpm } : {}), ...(known.tpm !== undefined ? { tpm: known.tpm } : {}), ...(known.rpd !== undefined ? { rpd: known.rpd } : {}) } : undefined,
    description: `simulator ${handle.url}${generous ? ' (generous quota)' : ` (${config.simulateConfig})`}`,
    onNotice: relay.onNotice,
    close: () => handle.close(),
  };
}

/** The pools' credentials: one per API key, or Vertex's Application Default Credentials in the --project project. */
function credentialsOf(config: ClassifyConfig, keys: ApiKey[]): Pick<Endpoint, 'credentials' | 'secretOf'> {
  if (config.provider === 'vertex') {
    return { credentials: [{ alias: 'adc', project: config.project as string, secret: undefined }], secretOf: () => undefined };
  }
  const secrets = new Map(keys.map((k) => [k.alias, k.value]));
  return { credentials: keys.map((k) => ({ alias: k.alias, project: k.project, secret: k.value })), secretOf: (alias) => secrets.get(alias) };
}
