/**
 * What the Gemini adapter knows without connecting: model profiles, prices, and the Pacific-midnight day of daily
 * quotas — for the Developer API and for Vertex AI. Imports no SDK code at run time (config, plan and status load it).
 */
import type { ModelInfo, ProviderCatalog } from '../contract.js';
import { geminiModelInfo } from './model-profiles.js';
import { PACIFIC_DAY } from './quota-day.js';

/** What is known of Gemini models on the Developer API. */
export const geminiCatalog: ProviderCatalog = {
  name: 'gemini',
  quotaDay: PACIFIC_DAY,
  usageTiers: true,
  countsTokens: true,
  serviceTiers: true,
  reasoningOff: 'thinkingBudget 0',
  model: geminiModelInfo,
};

/**
 * What is known of Gemini models on Vertex AI. Dynamic Shared Quota: no per-project RPM/TPM and no daily quota
 * (docs/providers.md "Vertex AI"), so the start is the Developer API's Tier 1 figure as a modest first rate (Vertex asks
 * to ramp up gradually), probed upward while no 429 comes and slowed by each one; no daily limit.
 */
export const vertexCatalog: ProviderCatalog = {
  name: 'vertex',
  quotaDay: PACIFIC_DAY,
  usageTiers: false,
  countsTokens: true,
  serviceTiers: true,
  reasoningOff: 'thinkingBudget 0',
  model(id: string): ModelInfo {
    const info = geminiModelInfo(id);
    return {
      ...info,
      defaultLimits: { ...info.defaultLimits, rpd: undefined },
      defaultLimitsSource: `starting rate, raised while no 429 comes (Vertex AI's Dynamic Shared Quota has no per-project limit; this is the Gemini API's ${info.defaultLimitsSource})`,
    };
  },
};

