/**
 * Vertex AI's paths, as @google/genai 2.32 calls them in `vertexai` mode (dist/node/index.mjs: API version `v1beta1`,
 * `projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`; express mode without the project
 * prefix): an OAuth bearer token (or an express-mode key), GenerateContentResponse answers as the Developer API's, and
 * Dynamic Shared Quota 429s — "Resource exhausted. Please try again later." with no QuotaFailure, no RetryInfo and no
 * Retry-After, whatever the scenario's flavour (docs/reference/gemini-api-facts.md §2.4, §5.7; docs/reference/batch-openai-vertex-facts.md §c.2;
 * fixture test/fixtures/gemini/429-vertex-capacity-inferred.json).
 */
import * as bodies from './error-bodies.js';
import type { BuiltAnswer } from './answer-builder.js';
import type { AnswerMeta, Dialect, Reply, SimFailure } from './dialect.js';
import type { ServedTier } from './types.js';
import { googleFailure, readGoogleRequest } from './gemini-dialect.js';

/** The DSQ 429 (fixture 429-vertex-capacity-inferred.json; gemini-cli#15911, #15498). */
function sharedCapacity(): Reply {
  return { status: 429, body: bodies.NAMED_ERROR_BODIES['429-vertex-capacity-inferred']!() };
}

const SIGN_IN = 'Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

/**
 * Vertex's own bodies for a missing or unknown token and an unknown model ([INFERRED]: Google's standard
 * UNAUTHENTICATED wording and Vertex's "Publisher Model … was not found"; no recorded fixture), else the Developer API's.
 */
function vertexFailure(f: SimFailure): Reply {
  switch (f.kind) {
    case 'missing-key':
      return {
        status: 401,
        body: bodies.rpcError(401, `Request is missing required authentication credential. ${SIGN_IN}`, 'UNAUTHENTICATED', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'CREDENTIALS_MISSING', domain: 'googleapis.com', metadata: { service: 'aiplatform.googleapis.com' } },
        ]),
      };
    case 'invalid-key':
      return { status: 401, body: bodies.rpcError(401, `Request had invalid authentication credentials. ${SIGN_IN}`, 'UNAUTHENTICATED') };
    case 'model-not-found': {
      const name = `${f.resource ? `${f.resource}/` : ''}publishers/google/models/${f.model}`;
      return {
        status: 404,
        body: bodies.rpcError(
          404,
          `Publisher Model \`${name}\` was not found or your project does not have access to it. Please ensure you are using a valid model version. For more information, see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions`,
        ),
      };
    }
    case 'fault':
      return f.fault === '429-bare' ? sharedCapacity() : googleFailure(f);
    default:
      return googleFailure(f);
  }
}

/** `usageMetadata.trafficType` of each served tier (the SDK's `TrafficType` enum; docs/service-tiers.md). */
export const TRAFFIC_TYPES: Readonly<Record<ServedTier, string>> = { standard: 'ON_DEMAND', flex: 'ON_DEMAND_FLEX', priority: 'ON_DEMAND_PRIORITY' };

/**
 * The Developer API's answer with `usageMetadata.trafficType` naming the tier that served it, as Vertex reports it
 * (docs/service-tiers.md). [INFERRED] that Vertex sends it on every answer, ON_DEMAND when no tier was named.
 */
function vertexAnswer(a: BuiltAnswer, meta: AnswerMeta): unknown {
  const usage = a.body.usageMetadata;
  if (typeof usage !== 'object' || usage === null) return a.body;
  return { ...a.body, usageMetadata: { ...usage, trafficType: TRAFFIC_TYPES[meta.servedTier] } };
}

/** The Vertex AI dialect. */
export const vertexDialect: Dialect = {
  name: 'vertex',
  read: readGoogleRequest,
  failure: vertexFailure,
  quota: sharedCapacity,
  answer: vertexAnswer,
};
