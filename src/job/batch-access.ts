/**
 * Reaching a job's batches from outside a classify run (`gemini-batch cancel`, `status --refresh`): the provider the
 * job's manifest names, at --base-url (else GOOGLE_GEMINI_BASE_URL, else Google), with the keys of --keys-file or the
 * environment; each batch is reached with the key it was created with (by alias: batches belong to the key's project).
 */
import { loadApiKeys } from '../config/api-keys.js';
import { checkBaseUrl } from '../config/base-url.js';
import { UsageError } from '../errors.js';
import type { Manifest } from '../journal/manifest.js';
import type { BatchService, Credential } from '../providers/contract.js';
import { createProvider } from '../providers/create-provider.js';
import { credentialByAlias } from '../batch/credential-alias.js';

/** Options of the commands that reach batches. */
export interface BatchAccessOptions {
  keysFile?: string;
  baseUrl?: string;
}

/** How to reach the job's batches: the service of the key a batch was created with. */
export interface BatchAccess {
  /** The service for the key of `alias` (the same alias, or the one key with the same last characters); undefined: none. */
  serviceFor(alias: string): BatchService | undefined;
  /** The endpoint, for messages. */
  endpoint: string;
}

/** A calling-out timeout of these commands, ms. */
const TIMEOUT_MS = 60_000;

/**
 * @throws UsageError `BATCH_NOT_REACHABLE` when the job ran against the built-in simulator (its batches ended with that
 *   run) or through a provider without a Batch API; `KEYS_MISSING` / InputError from the keys; `OPTION_INVALID` for
 *   a --base-url with credentials in it.
 */
export async function batchAccess(manifest: Manifest, options: BatchAccessOptions, env: NodeJS.ProcessEnv, command: string): Promise<BatchAccess> {
  const source = manifest.source;
  if (source?.kind === 'simulator') {
    throw new UsageError('BATCH_NOT_REACHABLE', `${command}: this job ran against the built-in simulator (--simulate), whose batches ended with that run.`);
  }
  const providerName = source?.provider ?? 'gemini';
  if (providerName !== 'gemini') throw new UsageError('BATCH_NOT_REACHABLE', `${command}: this job ran through --provider ${providerName}, which has no Batch API here.`);
  const baseUrl = options.baseUrl ?? env.GOOGLE_GEMINI_BASE_URL;
  if (baseUrl !== undefined) checkBaseUrl(baseUrl, options.baseUrl !== undefined ? '--base-url' : 'GOOGLE_GEMINI_BASE_URL');
  const keys = await loadApiKeys(options.keysFile, env, 'gemini');
  const provider = await createProvider('gemini', { ...(baseUrl !== undefined ? { baseUrl } : {}), timeoutMs: TIMEOUT_MS, env });
  const batches = provider.batches?.bind(provider);
  if (!batches) throw new UsageError('BATCH_NOT_REACHABLE', `${command}: the Gemini provider has no Batch API.`);
  const credentials: Credential[] = keys.map((k) => ({ alias: k.alias, project: k.project, secret: k.value }));
  const services = new Map<string, BatchService>();
  return {
    endpoint: provider.describeEndpoint(),
    serviceFor(alias) {
      const credential = credentialByAlias(credentials, alias);
      if (!credential) return undefined;
      let service = services.get(credential.alias);
      if (!service) {
        service = batches(credential);
        services.set(credential.alias, service);
      }
      return service;
    },
  };
}
