/**
 * The scheduler's parts for one run: a ProjectLimiter and its 429 policy per quota project (shared by the project's
 * keys), and a worker pool per key.
 */
import type { ClassifyConfig } from '../config/classify-config.js';
import { createGeminiClient } from '../gemini/gemini-client.js';
import { modelProfile } from '../prompt/model-profile.js';
import type { KeyPool, ProjectGate } from '../schedule/dispatcher.js';
import { ProjectLimiter, type DailyUsageStore } from '../schedule/project-limiter.js';
import type { ProjectLimits, QuotaLimit } from '../schedule/quota-limits.js';
import { RateLimitPolicy, type Notice } from '../schedule/rate-limit-policy.js';
import type { Endpoint } from './endpoint.js';

export function buildPools(
  config: ClassifyConfig,
  endpoint: Endpoint,
  daily: DailyUsageStore,
  notify: (notice: Notice) => void,
): { gates: Map<string, ProjectGate>; pools: KeyPool[] } {
  const defaults = modelProfile(config.model).defaultLimits;
  const gates = new Map<string, ProjectGate>();
  const now = Date.now();
  for (const key of endpoint.keys) {
    if (gates.has(key.project)) continue;
    const limiter = new ProjectLimiter({
      project: key.project,
      model: config.model,
      limits: startingLimits(config, endpoint.limits, defaults),
      headroom: config.headroom,
      daily,
      now,
    });
    gates.set(key.project, { limiter, policy: new RateLimitPolicy(limiter, notify, now) });
  }
  const pools: KeyPool[] = endpoint.keys.map((key) => ({
    alias: key.alias,
    project: key.project,
    client: createGeminiClient({ apiKey: key.value, ...(endpoint.baseUrl ? { baseUrl: endpoint.baseUrl } : {}), timeoutMs: config.timeoutMs }),
    concurrency: config.workersPerKey,
  }));
  return { gates, pools };
}

/**
 * The limits a project starts from: --rpm/--tpm/--rpd, else what the endpoint is known to allow (the generous
 * simulator), else the model's defaults — which 429s then correct. A daily limit is enforced only when given or learned
 * from a 429: parking a job on a guessed RPD would stop work the account may well allow.
 */
export function startingLimits(config: ClassifyConfig, endpointLimits: Endpoint['limits'], defaults: { rpm: number; tpm: number }): ProjectLimits {
  const pick = (given: number | undefined, fromEndpoint: number | undefined, fallback: number): QuotaLimit =>
    given !== undefined ? { value: given, source: 'given' } : fromEndpoint !== undefined ? { value: fromEndpoint, source: 'given' } : { value: fallback, source: 'default' };
  const rpd = config.rpd ?? endpointLimits?.rpd;
  return {
    rpm: pick(config.rpm, endpointLimits?.rpm, defaults.rpm),
    tpm: pick(config.tpm, endpointLimits?.tpm, defaults.tpm),
    rpd: rpd === undefined ? undefined : { value: rpd, source: 'given' },
  };
}
