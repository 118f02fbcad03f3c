/**
 * The scheduler's parts for one run: a ProjectLimiter and its 429 policy per quota project (shared by the project's
 * keys), and a worker pool per key.
 */
import { createHash } from 'node:crypto';
import type { ClassifyConfig } from '../config/classify-config.js';
import { UsageError } from '../errors.js';
import { startingLimitsFor, type StartingLimits } from '../plan/starting-limits.js';
import type { KeyPool, ProjectGate } from '../schedule/dispatcher.js';
import { ProjectLimiter } from '../schedule/project-limiter.js';
import type { ProjectLimits, QuotaLimit } from '../schedule/quota-limits.js';
import { RateLimitPolicy, type Notice } from '../schedule/rate-limit-policy.js';
import type { Endpoint } from './endpoint.js';
import type { QuotaStateFile } from '../journal/quota-state-file.js';

/**
 * @param state what earlier runs learned (quota-usage.json): limits from quotaValues override the starting ones when
 *   lower (or when they were only defaults); keys refused in the last 24 hours are left out, said once.
 */
export function buildPools(
  config: ClassifyConfig,
  endpoint: Endpoint,
  state: QuotaStateFile,
  notify: (notice: Notice) => void,
): { gates: Map<string, ProjectGate>; pools: KeyPool[]; onKeyRefused: (alias: string, reason: string) => void } {
  const provider = endpoint.provider;
  const defaults = startingLimitsFor(provider, config.model, config.tier);
  const gates = new Map<string, ProjectGate>();
  const now = Date.now();
  const idOf = (alias: string) => keyId(endpoint.secretOf(alias) ?? alias);
  const keys = endpoint.credentials.filter((key) => {
    const refusal = state.refusal(idOf(key.alias));
    if (refusal) {
      notify({
        key: `key-remembered:${key.alias}`,
        text: `${key.alias} was refused by the API in an earlier run (${refusal.reason}); it is left out. Remove it from the keys, or delete quota-usage.json in the job directory to try it again.`,
      });
    }
    return !refusal;
  });
  if (keys.length === 0) {
    throw new UsageError(
      'KEYS_ALL_REFUSED',
      'every key was refused by the API in an earlier run of this job (see above); give other keys, or delete quota-usage.json in the job directory to try them again.',
    );
  }
  for (const key of keys) {
    if (gates.has(key.project)) continue;
    const limits = withLearned(startingLimits(config, endpoint.limits, defaults), state.learnedLimits(key.project, config.model));
    const limiter = new ProjectLimiter({ project: key.project, model: config.model, limits, headroom: config.headroom, daily: state, quotaDay: provider.quotaDay, now });
    const project = key.project;
    gates.set(key.project, {
      limiter,
      policy: new RateLimitPolicy(limiter, notify, now, Math.random, (dimension, value) => state.learn(project, config.model, dimension, value)),
    });
  }
  const ids = new Map(keys.map((k) => [k.alias, idOf(k.alias)]));
  const onKeyRefused = (alias: string, reason: string) => {
    const id = ids.get(alias);
    if (id) state.refuse(id, alias, reason);
  };
  const pools: KeyPool[] = keys.map((key) => ({
    alias: key.alias,
    project: key.project,
    client: provider.caller(key),
    maxInFlight: config.workersPerKey,
  }));
  return { gates, pools, onKeyRefused };
}

/** A key's identity in the job directory: the first 16 hex digits of its SHA-256, never the key (the alias's, for ADC). */
function keyId(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

/** Starting limits with what a 429's quotaValue taught in an earlier run: the server's figure wins when lower, or over a default. */
function withLearned(limits: ProjectLimits, learned: Partial<Record<'rpm' | 'tpm' | 'rpd', number>>): ProjectLimits {
  for (const dimension of ['rpm', 'tpm'] as const) {
    const value = learned[dimension];
    if (value !== undefined && (value < limits[dimension].value || limits[dimension].source === 'default')) limits[dimension] = { value, source: 'learned' };
  }
  if (learned.rpd !== undefined && (limits.rpd === undefined || learned.rpd < limits.rpd.value)) limits.rpd = { value: learned.rpd, source: 'learned' };
  return limits;
}

/**
 * The limits a project starts from: --rpm/--tpm/--rpd, else what the endpoint is known to allow (the generous
 * simulator), else the published limits of --tier or the model's defaults (plan/starting-limits.ts) — which 429s then
 * correct. A daily limit is enforced only when given, published for the --tier given, or learned from a 429: parking a
 * job on a guessed RPD would stop work the account may well allow.
 */
export function startingLimits(config: ClassifyConfig, endpointLimits: Endpoint['limits'], start: StartingLimits): ProjectLimits {
  const pick = (given: number | undefined, fromEndpoint: number | undefined, fallback: number): QuotaLimit =>
    given !== undefined ? { value: given, source: 'given' } : fromEndpoint !== undefined ? { value: fromEndpoint, source: 'given' } : { value: fallback, source: 'default' };
  const rpd = config.rpd ?? endpointLimits?.rpd;
  const tierRpd = start.fromTier && endpointLimits === undefined ? start.limits.rpd : undefined;
  return {
    rpm: pick(config.rpm, endpointLimits?.rpm, start.limits.rpm),
    tpm: pick(config.tpm, endpointLimits?.tpm, start.limits.tpm),
    rpd: rpd !== undefined ? { value: rpd, source: 'given' } : tierRpd !== undefined ? { value: tierRpd, source: 'default' } : undefined,
  };
}
