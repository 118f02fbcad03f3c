/**
 * What a simulator scenario (`--simulate --simulate-config scenario.json`) allows a job: the per-project limits of the
 * projects its keys belong to, for the job's model. plan estimates with them (the scenario is the account being
 * rehearsed, so its limits are the real ones); classify names them in its header, since it learns them from 429s the
 * way it would on a real account.
 */
import path from 'node:path';
import type { Scenario } from '../simulator/types.js';

/** One project of the scenario and its limits for the model. */
export interface ScenarioProjectLimits {
  project: string;
  /** The scenario's tier for the project: `free` projects are not billed. */
  tier: 'free' | 'paid';
  /** undefined dimensions are unlimited; `noQuota` is the scenario's `limit: 0` (every request a 429). */
  rpm: number | undefined;
  tpm: number | undefined;
  rpd: number | undefined;
  noQuota: boolean;
}

export interface ScenarioLimits {
  /** The scenario file's name, for messages (`free-tier.json`). */
  name: string;
  projects: ScenarioProjectLimits[];
}

/**
 * The limits for `model` of each project a job would send to: the scenario's projects that have usable (not leaked)
 * keys, or its default project when it has none (a scenario that accepts any key).
 * @param file the scenario file as given (undefined: the generous built-in scenario of `--simulate`).
 * @throws InputError from reading the file (`SIM_SCENARIO_*`).
 */
export async function scenarioLimits(file: string | undefined, model: string): Promise<ScenarioLimits> {
  const { loadScenario } = await import('../simulator/scenario-parse.js');
  const { generousScenario, limitsFor } = await import('../simulator/scenario-presets.js');
  const scenario: Scenario = file !== undefined ? loadScenario(file) : generousScenario();
  const used = scenario.projects.filter((p) => p.keys.some((k) => !k.leaked));
  const projects = used.length > 0 ? used : scenario.projects.filter((p) => p.id === scenario.defaultProject);
  return {
    name: file !== undefined ? path.basename(file) : 'the generous built-in scenario',
    projects: projects.map((p) => {
      const l = limitsFor(p.limits, model);
      return { project: p.id, tier: p.tier, rpm: l?.rpm, tpm: l?.tpm, rpd: l?.rpd, noQuota: l?.limitZero ?? false };
    }),
  };
}

/** `RPM 10 · TPM 250,000 · RPD 250` (or `no quota (limit: 0)`), for messages. */
export function describeScenarioProject(p: ScenarioProjectLimits): string {
  if (p.noQuota) return 'no quota (limit: 0)';
  const one = (name: string, v: number | undefined) => `${name} ${v === undefined ? 'unlimited' : v.toLocaleString('en-US')}`;
  return [one('RPM', p.rpm), one('TPM', p.tpm), one('RPD', p.rpd)].join(' · ');
}

/**
 * The limits plan estimates with under a scenario: the projects with a quota for the model, each at its own limits
 * (their average when they differ, which gives the same total rate), and why.
 * @returns `projects` to plan for, and the limits; `noQuota` when no project has any quota for the model.
 */
export function plannedScenarioLimits(s: ScenarioLimits, simulated: 'scenario' | 'generous'): {
  projects: number;
  limits: { rpm?: number; tpm?: number; rpd?: number; why: string; noQuota?: string };
  /** false when every project is a free-tier one (not billed). */
  billed: boolean;
} {
  const usable = s.projects.filter((p) => !p.noQuota);
  const names = s.projects.map((p) => p.project).join(', ');
  const billed = !s.projects.every((p) => p.tier === 'free');
  if (usable.length === 0) return { projects: 1, billed, limits: { why: `the scenario's limits (${s.name})`, noQuota: `${s.name} gives project ${names} no quota (limit: 0) for this model` } };
  const average = (pick: (p: ScenarioProjectLimits) => number | undefined): number | undefined => {
    const values = usable.map(pick);
    return values.some((v) => v === undefined) ? undefined : (values as number[]).reduce((a, b) => a + b, 0) / values.length;
  };
  const same = usable.every((p) => describeScenarioProject(p) === describeScenarioProject(usable[0] as ScenarioProjectLimits));
  const why =
    simulated === 'generous'
      ? "the built-in simulator's generous quota (--simulate): known, so classify uses all of it"
      : `the scenario's limits (${s.name}, ${usable.length === 1 ? 'project' : 'projects'} ${usable.map((p) => p.project).join(', ')}${same ? '' : '; they differ, so their average'}): the simulated account's own, which classify learns from its 429s unless --tier or --rpm/--tpm/--rpd start it there`;
  const limits: { rpm?: number; tpm?: number; rpd?: number; why: string } = { why };
  const rpm = average((p) => p.rpm);
  const tpm = average((p) => p.tpm);
  const rpd = average((p) => p.rpd);
  if (rpm !== undefined) limits.rpm = rpm;
  if (tpm !== undefined) limits.tpm = tpm;
  if (rpd !== undefined) limits.rpd = rpd;
  return { projects: usable.length, limits, billed };
}
