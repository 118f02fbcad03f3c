/**
 * `--provider`, `--project`, `--location`: who answers and, for Vertex AI, where (../providers/create-provider.ts).
 * Vertex takes the Google Cloud project from --project, else GOOGLE_CLOUD_PROJECT, and the location from --location,
 * else GOOGLE_CLOUD_LOCATION, else `global` — the names and the default of @google/genai's Vertex mode (docs/providers.md
 * "Vertex AI"; docs/reference/gemini-api-facts.md §5.7).
 */
import { UsageError } from '../errors.js';
import type { ProviderName } from '../providers/contract.js';
import { DEFAULT_PROVIDER, PROVIDER_NAMES } from '../providers/create-provider.js';

export interface ProviderOptions {
  name: ProviderName;
  project: string | undefined;
  location: string | undefined;
  /** The environment variable that may give the endpoint when --base-url does not (the provider SDK's own name). */
  baseUrlEnv: string;
}

/** The environment variable each provider's SDK reads its endpoint from. */
const BASE_URL_ENV: Record<ProviderName, string> = {
  gemini: 'GOOGLE_GEMINI_BASE_URL',
  vertex: 'GOOGLE_VERTEX_BASE_URL',
  openai: 'OPENAI_BASE_URL',
};

/** A Google Cloud project id (6–30 characters) or number; a location such as `us-central1`, `europe-west4`, `global`. */
const PROJECT = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$|^\d{1,20}$/;
const LOCATION = /^[a-z][a-z0-9-]{1,40}$/;

/**
 * Reads and checks the provider options.
 * @throws UsageError `OPTION_INVALID` for an unknown provider, project or location; `OPTION_MISSING` for Vertex without a
 *   project; `OPTION_CONFLICT` for --project/--location without `--provider vertex`.
 */
export function providerOptions(raw: { provider?: string; project?: string; location?: string }, env: NodeJS.ProcessEnv): ProviderOptions {
  const given = raw.provider?.trim().toLowerCase() ?? DEFAULT_PROVIDER;
  if (!(PROVIDER_NAMES as readonly string[]).includes(given)) {
    throw new UsageError('OPTION_INVALID', `--provider must be one of ${PROVIDER_NAMES.join(', ')}, got ${JSON.stringify(raw.provider)}.`);
  }
  const name = given as ProviderName;
  const base = { name, baseUrlEnv: BASE_URL_ENV[name] };
  if (name !== 'vertex') {
    const stray = raw.project !== undefined ? '--project' : raw.location !== undefined ? '--location' : undefined;
    if (stray) throw new UsageError('OPTION_CONFLICT', `${stray} is for --provider vertex (the Google Cloud project and location of Vertex AI).`);
    return { ...base, project: undefined, location: undefined };
  }
  const project = (raw.project ?? env.GOOGLE_CLOUD_PROJECT)?.trim();
  if (!project) {
    throw new UsageError('OPTION_MISSING', '--provider vertex needs the Google Cloud project: give --project PROJECT_ID, or set GOOGLE_CLOUD_PROJECT.');
  }
  if (!PROJECT.test(project)) throw new UsageError('OPTION_INVALID', `--project must be a Google Cloud project id such as my-project-123, got ${JSON.stringify(project)}.`);
  const location = (raw.location ?? env.GOOGLE_CLOUD_LOCATION)?.trim() || 'global';
  if (!LOCATION.test(location)) throw new UsageError('OPTION_INVALID', `--location must be a Vertex AI location such as us-central1 or global, got ${JSON.stringify(location)}.`);
  return { ...base, project, location };
}
