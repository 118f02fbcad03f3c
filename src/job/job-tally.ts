/**
 * The running count of a job: rows by status (rows without a result are `pending`), tokens and cost, for the progress
 * display and the summary. Starts from what the journal already holds and follows each row as it finishes.
 */
import type { Journal } from '../journal/journal.js';
import type { RowTokens } from '../journal/journal-entry.js';
import { BILLING_TIERS, tierCost, type BillingTier, type ModelPrice } from '../plan/price.js';
import type { TokenTotals } from '../report/progress-snapshot.js';
import { ROW_STATUSES, type RowStatus } from '../row-status.js';

/** See {@link JobTally.sendPlan}. Counts of rows. */
export interface SendPlan {
  kept: number;
  toSend: number;
  again: { skipped: number; errors: number };
  keptNotOk: number;
}

export class JobTally {
  readonly total: number;
  readonly byStatus: Record<RowStatus, number>;
  readonly tokens: TokenTotals;
  /** Rows with a result (this run and earlier ones). */
  done = 0;
  /** Rows that already had a result when the run started. */
  readonly resumed: number;
  /** Rows finished by this run. */
  finishedThisRun = 0;
  /** USD at list price, each row's tokens at the tier that served them (JournalEntry.tier), when the model's price is known. */
  costUsd: number | undefined;
  /** Rows with a result by the billing tier their tokens are counted at (this run and earlier ones). */
  readonly byTier: Record<BillingTier, number>;
  readonly #price: ModelPrice | undefined;

  /** @param total rows of the job (records, or --limit); journal rows past it are not counted. */
  constructor(journal: Journal, total: number, price: ModelPrice | undefined) {
    this.total = total;
    this.#price = price;
    this.byStatus = Object.fromEntries(ROW_STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>;
    for (const row of journal.rows()) {
      if (row >= total) continue;
      this.byStatus[journal.status(row) as RowStatus]++;
      this.done++;
    }
    this.byStatus.pending = total - this.done;
    this.resumed = this.done;
    const t = journal.totals();
    this.tokens = { input: t.input, output: t.output, thoughts: t.thoughts };
    const byTier = journal.tierTotals();
    // With --limit, results of rows past it (an earlier, longer run) are not this job's: take their tokens out.
    if (journal.size > this.done) {
      for (const row of journal.rows()) {
        if (row < total) continue;
        const entry = journal.get(row);
        if (!entry) continue;
        const tier = byTier[entry.tier ?? 'standard'];
        for (const sums of [this.tokens, tier]) {
          sums.input -= entry.tokens.input;
          sums.output -= entry.tokens.output;
          sums.thoughts -= entry.tokens.thoughts;
        }
        tier.rows--;
      }
    }
    this.byTier = Object.fromEntries(BILLING_TIERS.map((tier) => [tier, byTier[tier].rows])) as Record<BillingTier, number>;
    this.costUsd = price ? BILLING_TIERS.reduce((sum, tier) => sum + tierCost(price, tier, byTier[tier].input, byTier[tier].output + byTier[tier].thoughts), 0) : undefined;
  }

  /**
   * What a run starting now does with each row: keeps its result, or sends it. `kept + toSend = total`; `again` counts
   * the rows to send that had a result before (skipped ones, and with --retry-errors those that ended in an error);
   * `keptNotOk` the kept results that are not ok (sent again only with --retry-errors).
   */
  sendPlan(retryErrors: boolean): SendPlan {
    const s = this.byStatus;
    const errors = s.failed + s.blocked + s.invalid_label + s.invalid_output;
    const toSend = s.pending + s.skipped + (retryErrors ? errors : 0);
    return {
      kept: this.total - toSend,
      toSend,
      again: { skipped: s.skipped, errors: retryErrors ? errors : 0 },
      keptNotOk: retryErrors ? 0 : errors,
    };
  }

  /**
   * A row finished: `previous` is its status before (undefined when it had none) and `previousTier` the tier its earlier
   * result was counted at; `usage` are this run's tokens of the row, billed at `tier`. `earlier`, the tokens of the
   * earlier result, are counted at `tier` from now on (the journal line holds them all under one tier).
   */
  finish(previous: RowStatus | undefined, status: RowStatus, usage: RowTokens, tier: BillingTier = 'standard', previousTier?: BillingTier, earlier?: RowTokens): void {
    if (previous === undefined) {
      this.byStatus.pending--;
      this.done++;
    } else {
      this.byStatus[previous]--;
      this.byTier[previousTier ?? 'standard']--;
    }
    this.byStatus[status]++;
    this.byTier[tier]++;
    this.tokens.input += usage.input;
    this.tokens.output += usage.output;
    this.tokens.thoughts += usage.thoughts;
    if (this.#price && this.costUsd !== undefined) {
      this.costUsd += tierCost(this.#price, tier, usage.input, usage.output + usage.thoughts);
      const was = previousTier ?? 'standard';
      if (earlier && was !== tier) {
        this.costUsd += tierCost(this.#price, tier, earlier.input, earlier.output + earlier.thoughts) - tierCost(this.#price, was, earlier.input, earlier.output + earlier.thoughts);
      }
    }
    this.finishedThisRun++;
  }
}
