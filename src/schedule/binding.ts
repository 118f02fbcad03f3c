/**
 * What holds the run back, now and over the run: the quota (RPM, TPM, RPD), the number of requests in flight, this
 * process's own CPU (./load-guard.ts), a 429
 * pause, retries waiting out their backoff, the input (rows not read yet), the last answers of the job, or the --max-cost
 * budget (requests in flight must answer before the next one fits under it). The
 * dispatcher says which each time it stops sending; time is charged to the state it was in.
 */

/** What the dispatcher waits for. */
export type Binding = 'rpm' | 'tpm' | 'rpd' | 'concurrency' | 'cpu' | 'pause' | 'backoff' | 'input' | 'finishing' | 'budget';

/** How each binding is named in the progress line and the summary. */
export const BINDING_LABELS: Readonly<Record<Binding, string>> = {
  rpm: 'RPM',
  tpm: 'TPM',
  rpd: 'RPD',
  concurrency: 'concurrency',
  cpu: 'CPU',
  pause: '429 pause',
  backoff: 'retry backoff',
  input: 'input',
  finishing: 'last answers',
  budget: '--max-cost',
};

/** The state now: what binds, and until when when that is known (a pause, a park), ms. */
export interface BindingNow {
  binding: Binding | undefined;
  until: number | undefined;
}

export class BindingMeter {
  #current: Binding | undefined;
  #until: number | undefined;
  #since: number;
  readonly #totals = new Map<Binding, number>();

  /** @param now when the run started, ms. */
  constructor(now: number) {
    this.#since = now;
  }

  /** The dispatcher waits for `binding` from `now` on (until `until`, when known). */
  set(binding: Binding, now: number, until?: number): void {
    this.#until = until;
    if (binding === this.#current) return;
    this.#charge(now);
    this.#current = binding;
  }

  /** What binds now. */
  get now(): BindingNow {
    return { binding: this.#current, until: this.#until };
  }

  /** Each binding's share of the time so far, largest first (shares of 0 left out). */
  shares(now: number): Array<{ binding: Binding; share: number }> {
    this.#charge(now);
    const total = [...this.#totals.values()].reduce((a, b) => a + b, 0);
    if (total <= 0) return [];
    return [...this.#totals]
      .map(([binding, ms]) => ({ binding, share: ms / total }))
      .filter((s) => s.share > 0)
      .sort((a, b) => b.share - a.share);
  }

  #charge(now: number): void {
    if (this.#current !== undefined && now > this.#since) this.#totals.set(this.#current, (this.#totals.get(this.#current) ?? 0) + (now - this.#since));
    this.#since = Math.max(this.#since, now);
  }
}
