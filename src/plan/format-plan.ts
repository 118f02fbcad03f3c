/**
 * The text `gemini-batch plan` prints.
 */
import { formatCount, formatDuration } from '../report/progress-snapshot.js';
import type { JobEstimate, LimitUsed } from './estimate-job.js';
import type { RequestFigures } from './suggest-rows-per-request.js';
import type { BillingTier } from './price.js';

/** Lines of the plan, for a terminal or a log. */
export function formatPlan(e: JobEstimate, head: { input: string; description: string; model: string; mode: string }): string[] {
  const limit = (name: string, l: LimitUsed | undefined) => `${name} ${l === undefined || !Number.isFinite(l.value) ? 'unlimited' : formatCount(l.value)}`;
  const perProject = e.projects === 1 ? '1 project' : `${e.projects} projects`;
  const lines = [
    `plan: ${head.input} (${head.description})`,
    `model ${head.model} · ${head.mode}`,
    `rows: ${formatCount(e.rows)}${e.done > 0 ? ` · ${formatCount(e.done)} already done` : ''}${e.tooLong > 0 ? ` · ${formatCount(e.tooLong)} over the input limit (would be skipped)` : ''}${e.empty > 0 ? ` · ${formatCount(e.empty)} empty (would be skipped)` : ''}`,
    `input limit per request: ${formatCount(e.maxInputTokens.value)} tokens (${e.maxInputTokens.source === 'given' ? '--max-input-tokens' : `${head.model}'s own limit; --max-input-tokens sets a lower one`})`,
    e.rowsPerRequest > 1
      ? `requests: ${formatCount(e.requests)} for ${formatCount(e.rowsToSend)} rows, packs of up to ${e.rowsPerRequest} (--rows-per-request; ${e.requests > 0 ? (e.rowsToSend / e.requests).toFixed(1) : 0} rows a request; retries not included)`
      : `requests: ${formatCount(e.requests)} (retries not included)`,
    `input tokens: ≈ ${formatCount(e.inputTokens)} (${e.requests > 0 ? formatCount(e.inputTokens / e.requests) : 0} per request; ${e.countTokensScale !== undefined ? `local estimate × ${e.countTokensScale.toFixed(3)}, the ratio countTokens gave on a sample of rows` : e.canCountTokens ? 'local estimate; --count-tokens checks it on a sample of rows with the API' : 'local estimate'})`,
    `output tokens: ≈ ${formatCount(e.outputTokens)} (${e.outputBasis}${e.rowsPerRequest > 1 ? '; in a pack, each inside its JSON item {"id":…}' : ''})`,
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
    lines.push(...compareLines(e), ...suggestionLines(e));
  }
  lines.push(costLine(e));
  const cap = capLine(e);
  if (cap) lines.push(cap);
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

/**
 * With --rows-per-request K > 1: K beside one row a request — requests, quota days under RPD, time under RPM, input
 * tokens and cost.
 */
function compareLines(e: JobEstimate): string[] {
  if (!e.alone) return [];
  const k = figuresOf(e, e.rowsPerRequest);
  return table(e, [k, e.alone]);
}

/** The estimate's own request figures (its requests, tokens, times and cost), labelled as `rowsPerRequest` rows a request. */
function figuresOf(e: JobEstimate, rowsPerRequest: number): RequestFigures {
  return {
    rowsPerRequest,
    requests: e.requests,
    inputTokens: e.inputTokens,
    outputTokens: e.outputTokens,
    minutesUnderRpm: e.minutesUnderRpm,
    minutesUnderTpm: e.minutesUnderTpm,
    daysUnderRpd: e.daysUnderRpd,
    costUsd: e.costUsd,
  };
}

/** The figures of each K in columns: `K = 20` then `K = 1`. */
function table(e: JobEstimate, columns: RequestFigures[]): string[] {
  const rows: Array<[string, (f: RequestFigures) => string]> = [
    ['requests', (f) => formatCount(f.requests)],
    ...(e.limits.rpd ? [[`${e.dayZone === 'PT' ? 'Pacific' : e.dayZone} days under RPD`, (f: RequestFigures) => days(f.daysUnderRpd)] as [string, (f: RequestFigures) => string]] : []),
    ['time under RPM', (f) => formatDuration(f.minutesUnderRpm * 60_000)],
    ['time under TPM', (f) => formatDuration(f.minutesUnderTpm * 60_000)],
    ['input tokens', (f) => `≈ ${formatCount(f.inputTokens)}`],
    ['output tokens', (f) => `≈ ${formatCount(f.outputTokens)}`],
    ...(e.costUsd !== undefined && e.billed !== false ? [[`cost (${TIER_NAMES[e.costTier]})`, (f: RequestFigures) => (f.costUsd === undefined ? '?' : `≈ ${money(f.costUsd)}`)] as [string, (f: RequestFigures) => string]] : []),
  ];
  const head = ['rows per request', ...columns.map((f) => `K = ${f.rowsPerRequest}`)];
  const body = rows.map(([name, cell]) => [`  ${name}`, ...columns.map(cell)]);
  const widths = head.map((_, i) => Math.max(...[head, ...body].map((r) => (r[i] ?? '').length)));
  return [head, ...body].map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number))).join('   ').trimEnd());
}

/** Quota days: `2`, `40`, or `0.4` under one day. */
function days(d: number | undefined): string {
  if (d === undefined) return '–';
  return d <= 1 ? d.toFixed(d < 0.1 ? 2 : 1) : formatCount(Math.ceil(d));
}

/** At K = 1 when RPD or RPM binds: the suggested K, its figures beside K = 1's, and the accuracy caveat. */
function suggestionLines(e: JobEstimate): string[] {
  const s = e.suggestion;
  if (!s) return [];
  const k = s.figures.rowsPerRequest;
  const why =
    s.because === 'RPD'
      ? `requests, not tokens, bind: ${formatCount(e.requests)} requests need ${days(e.daysUnderRpd)} quota days at the RPD`
      : `requests, not tokens, pace the job: ${formatDuration(e.minutesUnderRpm * 60_000)} under RPM against ${formatDuration(e.minutesUnderTpm * 60_000)} under TPM`;
  const gain =
    s.because === 'RPD'
      ? `${formatCount(s.figures.requests)} requests, ${days(s.figures.daysUnderRpd)} quota day${(s.figures.daysUnderRpd ?? 0) > 1 ? 's' : ''}`
      : `${formatCount(s.figures.requests)} requests, ${formatDuration(Math.max(s.figures.minutesUnderRpm, s.figures.minutesUnderTpm) * 60_000)} at the quota's full rate`;
  const alone = figuresOf(e, 1);
  return [
    `suggestion: --rows-per-request ${k} (${why}; at ${k} rows a request: ${gain}${s.notEnough ? `; a larger K cuts more, at more risk to accuracy` : ''})`,
    ...table(e, [s.figures, alone]),
    `  caveat: the model reads ${k} rows at once, so one row can sway another's answer and a row's place in the pack can change it; answers missing, doubled or invalid are caught and sent again, a valid label given to the wrong row is not. Compare a sample at K = 1 and at ${k} first; rather not for long rows, when TPM binds, or when each row needs its own reasoning (README "Several rows per request").`,
  ];
}

function costLine(e: JobEstimate): string {
  if (!e.price || e.costUsd === undefined) return 'cost: unknown for this model (give --price-input and --price-output, USD per 1M tokens)';
  const amount = money(e.costUsd);
  const rates = `$${e.price.input} per 1M input, $${e.price.output} per 1M output and thinking tokens; ${e.price.source}`;
  const thinking = e.thinkingTokens === undefined ? ', thinking not included' : '';
  if (e.billed === false) return `cost: $0 — the free tier is not billed (the paid tiers would charge ≈ ${amount} at list price: ${rates}${thinking})`;
  // The tier the job asks for first, then the others side by side (docs/service-tiers.md).
  const others = e.tierCosts.filter((c) => c.tier !== e.costTier).map((c) => `${TIER_NAMES[c.tier]} ≈ ${range(c.usd, c.lowUsd)}`);
  const asked = e.costTier === 'standard' ? 'standard, online' : `${TIER_NAMES[e.costTier]}, as --service-tier asks`;
  return `cost: ≈ ${amount} at list price (${asked})${others.length > 0 ? ` · ${others.join(' · ')}` : ''} — ${rates}${factors(e)}${thinking}`;
}

/** `; flex ×0.5, Batch API ×0.5, priority ×1.75–2 of standard (docs/service-tiers.md)`, from the price's tier factors. */
function factors(e: JobEstimate): string {
  const tiers = e.price?.tiers;
  if (!tiers) return '';
  const parts = e.tierCosts
    .filter((c) => c.tier !== 'standard')
    .map((c) => {
      const f = tiers[c.tier as Exclude<BillingTier, 'standard'>];
      return f ? `${TIER_NAMES[c.tier]} ×${f.low !== undefined ? `${f.low}–${f.factor}` : f.factor}` : '';
    })
    .filter((p) => p !== '');
  return parts.length > 0 ? `; ${parts.join(', ')} of standard (docs/service-tiers.md)` : '';
}

/** How plan names each billing tier. */
const TIER_NAMES: Readonly<Record<BillingTier, string>> = { standard: 'standard', flex: 'flex', batch: 'Batch API', priority: 'priority' };

/** `$0.0123`, or `$0.0430–$0.0492` for a range (low end first). */
function range(usd: number, lowUsd: number | undefined): string {
  return lowUsd === undefined ? money(usd) : `${money(lowUsd)}–${money(usd)}`;
}

function money(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/**
 * --max-cost's effect: how many of the rows to send fit under the cap, less what the job has spent, at each tier —
 * `about 266 of 656 rows at standard · 532 at flex · …`.
 */
function capLine(e: JobEstimate): string | undefined {
  if (!e.cap) return undefined;
  const { capUsd, spentUsd, rows } = e.cap;
  const count = (n: number) => (n >= e.rowsToSend ? `all ${formatCount(e.rowsToSend)}` : formatCount(n));
  const fits = rows.map((r, i) => `${r.lowRows !== undefined && r.lowRows !== r.rows ? `${formatCount(r.rows)}–${count(r.lowRows)}` : count(r.rows)}${i === 0 ? ' fit' : ''} at ${TIER_NAMES[r.tier]}`);
  const spent = spentUsd > 0 ? `, less the ${money(spentUsd)} the job has spent` : '';
  return (
    `--max-cost ${money(capUsd)}${spent}: of the ${formatCount(e.rowsToSend)} rows to send, ${fits.join(' · ')} (estimates; rows in input order); ` +
    'a run stops somewhat sooner: it counts each request in flight at its most (all the output room it allows)'
  );
}
