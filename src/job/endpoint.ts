/**
 * Where requests go and with which keys: the Gemini API (or `--base-url`), or with `--simulate` the built-in simulator
 * started in-process on 127.0.0.1 (generous quotas, or the scenario of `--simulate-config`).
 */
import type { ClassifyConfig } from '../config/classify-config.js';
import { loadApiKeys, makeKey, type ApiKey } from '../config/api-keys.js';
import type { AnswerSource } from '../journal/manifest.js';

/** The Gemini API's host, where requests go without --base-url (the SDK's default). */
export const GEMINI_API_HOST = 'generativelanguage.googleapis.com';

/**
 * Where this run's answers come from (the manifest's `source`): the built-in simulator with --simulate, else the
 * API at --base-url's host (GOOGLE_GEMINI_BASE_URL's; never its credentials, which config refuses) or Google's.
 */
export function answerSourceOf(config: Pick<ClassifyConfig, 'simulate' | 'baseUrl' | 'model'>): AnswerSource {
  if (config.simulate) return { kind: 'simulator', provider: 'gemini', endpoint: 'built-in', model: config.model };
  return { kind: 'api', provider: 'gemini', endpoint: config.baseUrl !== undefined ? new URL(config.baseUrl).host : GEMINI_API_HOST, model: config.model };
}

export interface Endpoint {
  keys: ApiKey[];
  /** undefined: the SDK's default (GOOGLE_GEMINI_BASE_URL, then Google). */
  baseUrl: string | undefined;
  /**
   * Per-project limits the endpoint is known to have (the generous simulator's), used when no --rpm/--tpm/--rpd is
   * given. undefined: unknown; the model's defaults apply and 429s teach the rest.
   */
  limits: { rpm?: number; tpm?: number; rpd?: number } | undefined;
  /** For the run's header: `simulator http://127.0.0.1:PORT`, or the API host. */
  description: string;
  close(): Promise<void>;
}

/**
 * @throws UsageError KEYS_MISSING / InputError KEYS_FILE_INVALID, or the scenario's InputError, before any API call.
 */
export async function resolveEndpoint(config: ClassifyConfig, env: NodeJS.ProcessEnv): Promise<Endpoint> {
  if (!config.simulate) {
    const keys = await loadApiKeys(config.keysFile, env);
    return {
      keys,
      baseUrl: config.baseUrl,
      limits: undefined,
      description: config.baseUrl ?? `https://${GEMINI_API_HOST}`,
      close: async () => undefined,
    };
  }
  const sim = await import('../simulator/index.js');
  const scenario = config.simulateConfig !== undefined ? sim.loadScenario(config.simulateConfig) : sim.generousScenario();
  const scenarioKeys = scenario.projects.flatMap((p) => p.keys.filter((k) => !k.leaked).map((k) => ({ value: k.key, project: p.id })));
  const apiKeys: ApiKey[] =
    config.keysFile !== undefined
      ? await loadApiKeys(config.keysFile, env)
      : scenarioKeys.length > 0
        ? scenarioKeys.map((k, i) => makeKey(k.value, i, k.project))
        : [makeKey('simulated-key-1', 0, scenario.defaultProject)];
  const handle = await sim.startSimulator(scenario, { port: 0 });
  const generous = config.simulateConfig === undefined;
  // The generous simulator's quota is known, so the client may use all of it; a scenario is a rehearsal of a real
  // account, so its limits are learned the way they would be there.
  const known = generous ? scenario.projects.find((p) => p.id === scenario.defaultProject)?.limits['*'] : undefined;
  return {
    keys: apiKeys,
    baseUrl: handle.url,
    limits: known ? { ...(known.rpm !== undefined ? { rpm: known.rpm } : {}), ...(known.tpm !== undefined ? { tpm: known.tpm } : {}), ...(known.rpd !== undefined ? { rpd: known.rpd } : {}) } : undefined,
    description: `simulator ${handle.url}${generous ? ' (generous quota)' : ` (${config.simulateConfig})`}`,
    close: () => handle.close(),
  };
}
