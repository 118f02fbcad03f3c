/**
 * The text `gemini-batch plan` prints.
 */
import { formatCount, formatDuration } from '../report/progress-snapshot.js';
import type { JobEstimate, LimitUsed } from './estimate-job.js';

/** Lines of the plan, for a terminal or a log. */
export function formatPlan(e: JobEstimate, head: { input: string; description: string; model: string; mode: string }): string[] {
  const limit = (name: string, l: LimitUsed | undefined) => `${name} ${l === undefined || !Number.isFinite(l.value) ? 'unlimited' : formatCount(l.value)}`;
  const perProject = e.projects === 1 ? '1 project' : `${e.projects} projects`;
  const lines = [
    `plan: ${head.input} (${head.description})`,
    `model ${head.model} · ${head.mode}`,
    `rows: ${formatCount(e.rows)}${e.done > 0 ? ` · ${formatCount(e.done)} already done` : ''}${e.tooLong > 0 ? ` · ${formatCount(e.tooLong)} over the input limit (would be skipped)` : ''}`,
    `input limit per request: ${formatCount(e.maxInputTokens.value)} tokens (${e.maxInputTokens.source === 'given' ? '--max-input-tokens' : `${head.model}'s own limit; --max-input-tokens sets a lower one`})`,
    `requests: ${formatCount(e.requests)} (retries not included)`,
    `input tokens: ≈ ${formatCount(e.inputTokens)} (${e.requests > 0 ? formatCount(e.inputTokens / e.requests) : 0} per request; ${e.countTokensScale !== undefined ? `local estimate × ${e.countTokensScale.toFixed(3)}, the ratio countTokens gave on a sample of rows` : e.canCountTokens ? 'local estimate; --count-tokens checks it on a sample of rows with the API' : 'local estimate'})`,
    `output tokens: ≈ ${formatCount(e.outputTokens)} (${e.outputBasis})`,
    `thinking tokens: ${e.thinkingTokens === undefined ? 'unknown' : e.thinkingTokens === 0 ? '0' : `≤ ${formatCount(e.thinkingTokens)}`}: ${e.thinkingBasis}`,
  ];
  if (!e.noQuota) {
    const guessed = e.limits.rpm.source === 'default' || e.limits.rpm.source === 'tier' || e.limits.tpm.source === 'default' || e.limits.tpm.source === 'tier';
    lines.push(
      `limits per project (${perProject}, ${Math.round(e.headroom * 100)} % headroom): ${limit('RPM', e.limits.rpm)} · ${limit('TPM', e.limits.tpm)} · ${limit('RPD', e.limits.rpd)}`,
      `  ${e.limitsWhy}${guessed ? `; ${e.hasUsageTiers ? '--tier free|1|2|3 or ' : ''}--rpm/--tpm/--rpd give yours` : ''}`,
    );
  }
  if (e.noQuota) {
    lines.push(`no quota: ${e.noQuota}; classify would stop at the first answer (exit 2). Choose another --model or tier.`);
  } else {
    lines.push(
      `time under RPM: ${formatDuration(e.minutesUnderRpm * 60_000)} · under TPM: ${formatDuration(e.minutesUnderTpm * 60_000)}` +
        (e.daysUnderRpd !== undefined ? ` · days under RPD: ${e.daysUnderRpd.toFixed(e.daysUnderRpd < 10 ? 2 : 0)}` : ''),
      bindingLine(e),
    );
  }
  lines.push(costLine(e));
  return lines;
}

/** What bounds the job's duration, in the unit it bounds it in (RPD → the provider's quota days: Pacific for Gemini). */
function bindingLine(e: JobEstimate): string {
  const b = e.binding;
  if (b.dimension === 'RPD') {
    const perDay = formatCount((e.limits.rpd?.value ?? 0) * e.projects);
    return `binding: RPD → the job spans ${formatCount(b.days)} ${e.dayZone === 'PT' ? 'Pacific' : e.dayZone} days (${perDay} requests a day across ${e.projects === 1 ? 'the project' : `${e.projects} projects`}; the per-minute limits alone would take ${formatDuration(b.minutes * 60_000)})`;
  }
  return `binding: ${b.dimension} → about ${formatDuration(b.minutes * 60_000)} at the quota's full rate`;
}

function costLine(e: JobEstimate): string {
  if (!e.price || e.costUsd === undefined) return 'cost: unknown for this model (give --price-input and --price-output, USD per 1M tokens)';
  const amount = `$${e.costUsd.toFixed(e.costUsd < 1 ? 4 : 2)}`;
  const rates = `$${e.price.input} per 1M input, $${e.price.output} per 1M output and thinking tokens; ${e.price.source}`;
  const thinking = e.thinkingTokens === undefined ? ', thinking not included' : '';
  if (e.billed === false) return `cost: $0 — the free tier is not billed (the paid tiers would charge ≈ ${amount} at list price: ${rates}${thinking})`;
  return `cost: ≈ ${amount} at list price (${rates})${thinking}`;
}
