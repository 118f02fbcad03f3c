/**
 * The Gemini API simulator of gemini-batch: a local HTTP server answering like
 * generativelanguage.googleapis.com (`generateContent`, `countTokens`), Vertex AI's paths and OpenAI-compatible
 * `chat/completions` servers, and the Files and Batch APIs, with per-project RPM/TPM/RPD quotas, the real 429/503/400 bodies of each, faults and
 * scripted answers. Every test and benchmark runs against it, and
 * `gemini-batch simulate` offers it to users. Scenario format and behaviour: ./README.md.
 */
export { startSimulator, monotonicClock } from './start-simulator.js';
export type { SimulatorHandle, StartOptions } from './start-simulator.js';
export type { ContentCoding } from './http-server.js';
export { loadScenario, parseScenario } from './scenario-parse.js';
export { generousScenario, withLimitOverrides } from './scenario-presets.js';
export type { LimitOverrides } from './scenario-presets.js';
export { runSimulateCommand } from './simulate-command.js';
export type { SimulateCommandOptions } from './simulate-command.js';
export { countTokens } from './tokenizer.js';
export type { BatchEnd, BatchEvent, BatchRecord, BatchScenario, BatchState, BatchStats } from './batch-types.js';
export type {
  ModelLimits,
  ModelSpec,
  OpenAIOptions,
  OpenAIStyle,
  Peaks60s,
  QuotaFlavour,
  Scenario,
  ScenarioKey,
  ScenarioProject,
  ScriptResponse,
  ScriptRule,
  SimClock,
  SimCounters,
  SimLogEntry,
  SimStats,
  Tier,
  WindowPolicy,
} from './types.js';
