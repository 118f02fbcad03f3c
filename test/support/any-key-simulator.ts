/**
 * The simulator the CLI and scheduler tests run against: over real HTTP on 127.0.0.1, one project that takes any API
 * key (`acceptAnyKey`), with the same RPM and TPM limits for every model.
 */
import { parseScenario, startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';

/** The project of {@link startAnyKeySimulator}: its id and its limits for every model (requests/min, tokens/min). */
export interface AnyKeyProject {
  id?: string;
  rpm?: number;
  tpm?: number;
}

/**
 * Starts a simulator whose scenario (named `name` in its errors) is one project, `p` unless `project.id` says otherwise,
 * taking any key, limited to 100,000 RPM and 100,000,000 TPM unless `project` says otherwise, and the default project;
 * `fields` adds the scenario's other top-level fields (scripts, latency, requestLog…). Throws what parseScenario
 * throws for a scenario it refuses.
 */
export function startAnyKeySimulator(name: string, fields: Record<string, unknown> = {}, project: AnyKeyProject = {}): Promise<SimulatorHandle> {
  const id = project.id ?? 'p';
  const limits = { '*': { rpm: project.rpm ?? 100_000, tpm: project.tpm ?? 100_000_000 } };
  return startSimulator(parseScenario({ acceptAnyKey: true, defaultProject: id, projects: [{ id, keys: [], limits }], ...fields }, name));
}
