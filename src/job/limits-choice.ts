/**
 * The line of a classify run's header that says which limits the run starts from and why: given on the command line,
 * the generous simulator's, the published limits of --tier or of the model's Tier 1 default — and under a simulator
 * scenario, the scenario's own limits, which the run learns from 429s as it would on a real account.
 */
import type { ClassifyConfig } from '../config/classify-config.js';
import { describeScenarioProject, scenarioLimits } from '../plan/scenario-limits.js';
import { startingLimitsFor } from '../plan/starting-limits.js';
import { providerCatalog } from '../providers/create-provider.js';

/**
 * `limits: …` for the header, and a warning when --tier names a tier without quota for the model.
 * @throws InputError from reading the scenario (already read once by then, so in practice never).
 */
export async function describeLimitsChoice(config: ClassifyConfig, endpointKnowsLimits: boolean): Promise<{ line: string; warning: string | undefined }> {
  const start = startingLimitsFor(providerCatalog(config.provider), config.model, config.tier);
  const unbilled = start.billed === false ? '; the free tier is not billed (costs shown are the paid list price)' : '';
  const warning = start.tierHasNoQuota ? `${start.why}; the run will stop at the first answer. Choose another --model or --tier.` : undefined;
  if (config.rpm !== undefined && config.tpm !== undefined) return { line: `limits: as given (--rpm, --tpm${config.rpd !== undefined ? ', --rpd' : ''})${unbilled}`, warning };
  if (endpointKnowsLimits) return { line: `limits: the built-in simulator's generous quota, known, so used in full${config.tier !== undefined ? ' (--tier applies to a real account)' : ''}`, warning: undefined };
  const from = `limits: starting from ${start.why}; a 429's quotaValue corrects them`;
  if (config.simulate && config.simulateConfig !== undefined) {
    const scenario = await scenarioLimits(config.simulateConfig, config.model);
    const own = scenario.projects.map((p) => `project ${p.project}: ${describeScenarioProject(p)}`).join('; ');
    return {
      line: `${from}. The scenario's own limits (${scenario.name}, ${own}) are learned from its 429s, as a real account's would be; --tier or --rpm/--tpm/--rpd start from known ones${unbilled}`,
      warning,
    };
  }
  return { line: `${from}${start.fromTier || config.tier !== undefined ? '' : '; --tier free|1|2|3 or --rpm/--tpm/--rpd start from yours'}${unbilled}`, warning };
}
