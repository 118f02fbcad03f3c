/**
 * The text `gemini-batch plan` prints.
 */
import { formatCount, formatDuration } from '../report/progress-snapshot.js';
import type { JobEstimate, LimitUsed } from './estimate-job.js';

/** Lines of the plan, for a terminal or a log. */
export function formatPlan(e: JobEstimate, head: { input: string; description: string; model: string; mode: string }): string[] {
  const limit = (name: string, l: LimitUsed | undefined) => (l ? `${name} ${formatCount(l.value)}${l.source === 'default' ? ' (model default; pass --' + name.toLowerCase() + ')' : ''}` : `${name} –`);
  const perProject = e.projects === 1 ? '1 project' : `${e.projects} projects`;
  const dims: Array<[string, number]> = [
    ['RPM', e.minutesUnderRpm],
    ['TPM', e.minutesUnderTpm],
  ];
  const binding = dims.reduce((a, b) => (b[1] > a[1] ? b : a));
  const lines = [
    `plan: ${head.input} (${head.description})`,
    `model ${head.model} · ${head.mode}`,
    `rows: ${formatCount(e.rows)}${e.done > 0 ? ` · ${formatCount(e.done)} already done` : ''}${e.tooLong > 0 ? ` · ${formatCount(e.tooLong)} over --max-input-tokens (would be skipped)` : ''}`,
    `requests: ${formatCount(e.requests)} (retries not included)`,
    `input tokens: ≈ ${formatCount(e.inputTokens)} (${e.requests > 0 ? formatCount(e.inputTokens / e.requests) : 0} per request; ${e.countTokensScale !== undefined ? `local estimate × ${e.countTokensScale.toFixed(3)}, the ratio countTokens gave on a sample of rows` : 'local estimate; --count-tokens checks it on a sample of rows with the API'})`,
    `output tokens: ≈ ${formatCount(e.outputTokens)} (${e.outputBasis})`,
    `thinking tokens: ${e.thinkingTokens === undefined ? 'unknown' : e.thinkingTokens === 0 ? '0' : `≤ ${formatCount(e.thinkingTokens)}`}: ${e.thinkingBasis}`,
    `limits per project (${perProject}, ${Math.round(e.headroom * 100)} % headroom): ${limit('RPM', e.limits.rpm)} · ${limit('TPM', e.limits.tpm)} · ${limit('RPD', e.limits.rpd)}`,
    `time under RPM: ${formatDuration(e.minutesUnderRpm * 60_000)} · under TPM: ${formatDuration(e.minutesUnderTpm * 60_000)}` +
      (e.daysUnderRpd !== undefined ? ` · days under RPD: ${e.daysUnderRpd.toFixed(e.daysUnderRpd < 10 ? 2 : 0)}` : ''),
    `binding: ${binding[0]} → about ${formatDuration(binding[1] * 60_000)} at the quota's full rate` +
      (e.daysUnderRpd !== undefined && e.daysUnderRpd > 1 ? `, spread over ${Math.ceil(e.daysUnderRpd)} Pacific days by RPD` : ''),
  ];
  if (e.price && e.costUsd !== undefined) {
    lines.push(
      `cost: ≈ $${e.costUsd.toFixed(e.costUsd < 1 ? 4 : 2)} at list price ($${e.price.input} per 1M input, $${e.price.output} per 1M output and thinking tokens; ${e.price.source})` +
        (e.thinkingTokens === undefined ? ', thinking not included' : ''),
    );
  } else {
    lines.push('cost: unknown for this model (give --price-input and --price-output, USD per 1M tokens)');
  }
  return lines;
}
