/**
 * `gemini-batch plan <input> [classify options]`: what the job will take, before spending anything. Sends nothing,
 * apart from one countTokens call for the fixed part of the request with `--count-tokens`.
 */
import { existsSync } from 'node:fs';
import type { RawClassifyOptions } from '../config/classify-config.js';
import { loadApiKeys } from '../config/api-keys.js';
import { classifyFailure } from '../gemini/classify-failure.js';
import { defaultJobDir, jobFiles } from '../journal/job-dir.js';
import { Journal } from '../journal/journal.js';
import { readManifest, sha256File } from '../journal/manifest.js';
import { estimateJob } from '../plan/estimate-job.js';
import { formatPlan } from '../plan/format-plan.js';
import { resolveEndpoint } from './endpoint.js';
import { prepareJob } from './prepare-job.js';

export interface PlanOptions extends RawClassifyOptions {
  countTokens?: boolean;
}

/** @returns exit code 0. @throws UsageError / InputError (exit 2). */
export async function runPlan(input: string, raw: PlanOptions, io: { stdout: NodeJS.WritableStream; env: NodeJS.ProcessEnv }): Promise<number> {
  const prepared = await prepareJob(input, raw, io.env);
  const { config } = prepared;

  // Rows finished by an earlier run of the same input are not planned again (read only: no lock, nothing written).
  const jobDir = config.jobDir ?? defaultJobDir(config.input);
  let journal: Journal | undefined;
  const manifest = await readManifest(jobDir);
  if (manifest && existsSync(jobFiles(jobDir).journal) && manifest.input.sha256 === (await sha256File(config.input)).sha256) {
    journal = await Journal.open(jobFiles(jobDir).journal);
  }

  let projects = 1;
  if (config.keysFile !== undefined || io.env.GEMINI_API_KEYS) {
    projects = new Set((await loadApiKeys(config.keysFile, io.env)).map((k) => k.project)).size;
  }

  let endpoint: Awaited<ReturnType<typeof resolveEndpoint>> | undefined;
  try {
    if (raw.countTokens) endpoint = await resolveEndpoint(config, io.env);
    const estimate = await estimateJob({
      prepared,
      isDone: (row) => journal?.has(row) ?? false,
      projects,
      ...(endpoint ? { countTokens: countWith(endpoint, config.model) } : {}),
    });
    const mode = config.labels ? `enum output (${config.labels.length} labels)` : config.schema ? `structured output (${config.schema.properties.join(', ')})` : 'free text';
    io.stdout.write(`${formatPlan(estimate, { input: config.input, description: prepared.source.describe(), model: config.model, mode }).join('\n')}\n`);
    return 0;
  } finally {
    await journal?.close();
    await endpoint?.close();
  }
}

/** One countTokens call with each prompt as its own user turn. @throws ApiFailure subclasses. */
function countWith(endpoint: Awaited<ReturnType<typeof resolveEndpoint>>, model: string): (prompts: string[]) => Promise<number> {
  return async (prompts) => {
    const { GoogleGenAI } = await import('@google/genai');
    const key = endpoint.keys[0];
    if (!key) return 0;
    const ai = new GoogleGenAI({ apiKey: key.value, ...(endpoint.baseUrl ? { httpOptions: { baseUrl: endpoint.baseUrl } } : {}) });
    try {
      const response = await ai.models.countTokens({ model, contents: prompts.map((text) => ({ role: 'user', parts: [{ text }] })) });
      return response.totalTokens ?? 0;
    } catch (error) {
      throw classifyFailure(error);
    }
  };
}
