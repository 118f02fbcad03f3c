/**
 * The `--max-cost` budget: the dispatcher asks it before each request (schedule/dispatcher.ts `BudgetGate`), and it
 * refuses a request whose reservation would take the **projected spend** past the cap. Projected spend (USD, at list
 * price or --price-*):
 * - the job's spend before this run: the journal's tokens, each row's at the tier it is billed at (JournalEntry.tier);
 * - plus every answer of this run, its usageMetadata at the tier that served it (plan/price.ts `billedTier`) — rows
 *   finished or not (a row sent again after an unusable answer was billed for the first one too);
 * - plus, for each request in flight, its reservation: the estimated input tokens (the estimate raised by three times
 *   the estimator's relative error) and all the output room the request allows (its maxOutputTokens, thinking
 *   included, or {@link UNCAPPED_OUTPUT_TOKENS} when it sends no cap), at the tier it asks for. A request that ends
 *   without an answer (an error, a timeout) gives its reservation back: failed requests are not billed.
 * Facts and choices: docs/service-tiers.md "The budget cap".
 */
import type { Journal } from '../journal/journal.js';
import { BILLING_TIERS, billedTier, tierCost, type ModelPrice } from '../plan/price.js';
import type { ModelAnswer, ModelRequest } from '../providers/contract.js';
import type { BudgetGate, BudgetHold, BudgetRefusal } from '../schedule/dispatcher.js';
import type { WorkItem } from '../schedule/work-item.js';

/**
 * Output tokens reserved for a request that sends no output cap: the output limit of Gemini 2.5 Flash and Pro (65,536
 * tokens, https://ai.google.dev/gemini-api/docs/models), the most any request of a current model can be billed for.
 * --max-output-tokens reserves less.
 */
export const UNCAPPED_OUTPUT_TOKENS = 65_536;

/** The spend of every row in the journal (rows past --limit included: they were paid for), USD. */
export function journalSpend(journal: Journal, price: ModelPrice): number {
  const byTier = journal.tierTotals();
  return BILLING_TIERS.reduce((sum, tier) => sum + tierCost(price, tier, byTier[tier].input, byTier[tier].output + byTier[tier].thoughts), 0);
}

export interface SpendBudgetOptions {
  /** --max-cost, USD. */
  capUsd: number;
  /** What the job spent before this run (the journal's: {@link journalSpend}), USD. */
  earlierUsd: number;
  price: ModelPrice;
  /** The estimated input tokens of a row's request, and the estimate's relative error (schedule/token-estimator.ts). */
  estimate(item: WorkItem): { tokens: number; relativeError: number };
  /** The output room of a request (Provider.outputRoom); undefined: no cap is sent. */
  outputRoom(request: ModelRequest): number | undefined;
}

/** Keeps the projected spend of a run under its cap (see the file comment). */
export class SpendBudget implements BudgetGate {
  readonly capUsd: number;
  /** The journal's spend when the run started, USD. */
  readonly earlierUsd: number;
  /** This run's answers, at the tiers that served them, USD. */
  answeredUsd = 0;
  /** Reservations of the requests in flight, USD. */
  reservedUsd = 0;
  readonly #o: SpendBudgetOptions;

  constructor(options: SpendBudgetOptions) {
    this.#o = options;
    this.capUsd = options.capUsd;
    this.earlierUsd = options.earlierUsd;
  }

  /** Spent: the journal's before the run plus this run's answers, USD. */
  get spentUsd(): number {
    return this.earlierUsd + this.answeredUsd;
  }

  /** Spent plus the reservations in flight, USD. */
  get projectedUsd(): number {
    return this.spentUsd + this.reservedUsd;
  }

  /** The most `request` may cost, USD: its input estimate with a margin and its whole output room, at the tier it asks. */
  reservation(item: WorkItem, request: ModelRequest): number {
    const { tokens, relativeError } = this.#o.estimate(item);
    const input = Math.ceil(tokens * (1 + 3 * relativeError));
    const output = this.#o.outputRoom(request) ?? UNCAPPED_OUTPUT_TOKENS;
    return tierCost(this.#o.price, request.serviceTier ?? 'standard', input, output);
  }

  tryReserve(item: WorkItem, request: ModelRequest): { hold: BudgetHold } | { refused: BudgetRefusal } {
    const usd = this.reservation(item, request);
    if (this.projectedUsd + usd > this.capUsd) {
      return { refused: { capUsd: this.capUsd, spentUsd: this.spentUsd, inFlightUsd: this.reservedUsd, requestUsd: usd } };
    }
    this.reservedUsd += usd;
    let settled = false;
    return {
      hold: {
        settle: (answer: ModelAnswer | undefined) => {
          if (settled) return;
          settled = true;
          this.reservedUsd = Math.max(0, this.reservedUsd - usd);
          if (answer) this.answeredUsd += this.costOf(request, answer);
        },
      },
    };
  }

  /** What an answer is billed: its usage at the tier that served it, USD. */
  costOf(request: ModelRequest, answer: ModelAnswer): number {
    const u = answer.usage;
    return tierCost(this.#o.price, billedTier(request, answer), u.inputTokens, u.outputTokens + u.reasoningTokens);
  }
}

/** `$0.0123` under a dollar, `$12.35` above. */
export function usd(amount: number): string {
  return `$${amount.toFixed(amount < 1 ? 4 : 2)}`;
}
