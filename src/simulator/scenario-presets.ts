/**
 * Built-in scenarios and scenario transformations used by the CLI (`classify --simulate`, `simulate --rpm …`).
 */
import { builtInCatalogue } from './model-catalogue.js';
import { defaultOpenAIOptions } from './scenario-parse.js';
import { FAULT_KINDS, type FaultKind, type ModelLimits, type Scenario } from './types.js';

/**
 * The scenario of `classify --simulate`: accepts ANY key (each unknown key is charged to project `default`),
 * 100,000 RPM and 100,000,000 TPM per model, no RPD, rolling window, no faults, latency 0, full-new 429s.
 */
export function generousScenario(): Scenario {
  return {
    description: 'generous: any key, 100,000 RPM, 100,000,000 TPM, no RPD, no faults, no latency',
    seed: 1,
    acceptAnyKey: true,
    defaultProject: 'default',
    projects: [
      { id: 'default', tier: 'paid', keys: [], limits: { '*': { rpm: 100_000, tpm: 100_000_000, limitZero: false, window: { kind: 'rolling' } } } },
    ],
    models: builtInCatalogue(),
    countRejected: false,
    quota429: { flavour: 'full-new', retryAfterHeader: false },
    faults: { rates: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>, countAgainstQuota: true },
    latency: { medianMs: 0, p99Ms: 0 },
    scripts: [],
    requestLog: false,
    openai: defaultOpenAIOptions(),
  };
}

/** New RPM/TPM/RPD values for every project and model. */
export interface LimitOverrides {
  rpm?: number;
  tpm?: number;
  rpd?: number;
}

/**
 * A copy of `scenario` whose every limits entry (of every project and model) takes the given values; a project
 * without limits gets a `*` entry. A bucket window's burst is kept. `limit: 0` entries are replaced too.
 */
export function withLimitOverrides(scenario: Scenario, over: LimitOverrides): Scenario {
  if (over.rpm === undefined && over.tpm === undefined && over.rpd === undefined) return scenario;
  const apply = (l: ModelLimits): ModelLimits => {
    const out: ModelLimits = { ...l, limitZero: false };
    if (l.limitZero) {
      delete out.rpm;
      delete out.tpm;
      delete out.rpd;
    }
    if (over.rpm !== undefined) out.rpm = over.rpm;
    if (over.tpm !== undefined) out.tpm = over.tpm;
    if (over.rpd !== undefined) out.rpd = over.rpd;
    return out;
  };
  return {
    ...scenario,
    projects: scenario.projects.map((p) => {
      const entries = Object.entries(p.limits);
      const limits =
        entries.length === 0
          ? { '*': apply({ limitZero: false, window: { kind: 'rolling' } }) }
          : Object.fromEntries(entries.map(([m, l]) => [m, apply(l)]));
      return { ...p, limits };
    }),
  };
}

/** The limits that apply to `model` in a project: its own entry, else `*`, else none (unlimited). */
export function limitsFor(limits: Record<string, ModelLimits>, model: string): ModelLimits | undefined {
  return limits[model] ?? limits['*'];
}
