/**
 * What one value of --rows-per-request K makes of the rows `plan` reads: the requests classify would send and each
 * one's input and output tokens. The rows go through the job's own packer (../job/job-packer.ts, the one classify uses)
 * and each request's input is the estimate the scheduler reserves TPM with (the pack's whole request, or a row alone's
 * features), so plan's request count is classify's, not a second model of packing.
 */
import type { PackMember, Packer } from '../job/pack-rows.js';
import type { TokenEstimator } from '../schedule/token-estimator.js';
import type { WorkItem } from '../schedule/work-item.js';
import { GrowingArray } from './growing-array.js';

export interface PackedRequestsOptions {
  /** K; 1 sends each row alone (no packer). */
  rowsPerRequest: number;
  /** The job's packer for K (K ≥ 2). */
  packer?: Packer;
  estimator: TokenEstimator;
}

/** Output tokens of each kind of request. */
export interface OutputTokens {
  /** Of a row's answer sent alone (the longest label, the schema's JSON…). */
  alone: number;
  /** Of one row's item in a packed answer (its answer and the JSON around it: `{"id":"bc","label":…},`). */
  perItem: number;
  /** Of a packed answer besides its items (`{"items":[]}`). */
  perPack: number;
  /** Thinking tokens of one request (a budget bounds a request, not a row); undefined when unbounded. */
  thinkingPerRequest: number | undefined;
  /** The thinking bound is --max-output-tokens, which a pack gets once per row (../prompt/pack-request.ts). */
  thinkingPerRow: boolean;
}

/** A row plan would send: its work item (cells, whole-request features) and the estimate of its prompt part (tokens). */
export interface PlannedRow {
  item: WorkItem;
  promptPart: number;
  /** The row as a pack member, made once for every K (Packer.member); undefined to let each packer make it. */
  member?: PackMember | undefined;
}

/** The requests of one K, filled row by row ({@link PackedRequests.push}) then closed ({@link PackedRequests.end}). */
export class PackedRequests {
  readonly rowsPerRequest: number;
  /** Each request's input estimate (tokens), unscaled. */
  readonly inputs = new GrowingArray();
  /** Each request's prompt parts (tokens: what --count-tokens scales). */
  readonly promptParts = new GrowingArray();
  /** Each request's rows in a pack, 0 for a row sent alone. */
  readonly packRows = new GrowingArray();
  readonly #o: PackedRequestsOptions;
  readonly #open: { push(row: WorkItem, member?: PackMember): WorkItem[]; end(): WorkItem[] } | undefined;
  /** Prompt parts of the rows pushed and not yet in a closed request, by row. */
  readonly #pending = new Map<number, number>();

  constructor(o: PackedRequestsOptions) {
    this.#o = o;
    this.rowsPerRequest = o.rowsPerRequest;
    this.#open = o.rowsPerRequest > 1 && o.packer ? o.packer.open() : undefined;
  }

  get requests(): number {
    return this.inputs.length;
  }

  push(row: PlannedRow): void {
    if (!this.#open) return this.#add(row.item, row.promptPart, 0);
    this.#pending.set(row.item.row, row.promptPart);
    for (const item of this.#open.push(row.item, row.member)) this.#close(item);
  }

  end(): void {
    if (this.#open) for (const item of this.#open.end()) this.#close(item);
  }

  /** Input tokens of every request, the prompt parts scaled by `scale` (--count-tokens). */
  inputTokens(scale = 1): number {
    let n = 0;
    for (let i = 0; i < this.inputs.length; i++) n += this.inputs.at(i) + (scale - 1) * this.promptParts.at(i);
    return Math.round(n);
  }

  /** Each request's input tokens, the prompt parts scaled by `scale`. */
  scaledInputs(scale = 1): Float64Array {
    const out = new Float64Array(this.inputs.length);
    for (let i = 0; i < out.length; i++) out[i] = this.inputs.at(i) + (scale - 1) * this.promptParts.at(i);
    return out;
  }

  /** Output tokens (thinking apart) of every request. */
  outputTokens(o: OutputTokens): number {
    let n = 0;
    for (let i = 0; i < this.packRows.length; i++) n += this.#output(o, i);
    return n;
  }

  /** Each request's output and thinking tokens. */
  requestOutputs(o: OutputTokens): Float64Array {
    const out = new Float64Array(this.packRows.length);
    for (let i = 0; i < out.length; i++) out[i] = this.#output(o, i) + this.#thinking(o, i);
    return out;
  }

  /** Thinking tokens of every request at most, or undefined when unbounded. */
  thinkingTokens(o: OutputTokens): number | undefined {
    if (o.thinkingPerRequest === undefined) return undefined;
    let n = 0;
    for (let i = 0; i < this.packRows.length; i++) n += this.#thinking(o, i);
    return n;
  }

  #thinking(o: OutputTokens, i: number): number {
    return (o.thinkingPerRequest ?? 0) * (o.thinkingPerRow ? Math.max(1, this.packRows.at(i)) : 1);
  }

  /** Rows of the first `requests` requests. */
  rowsIn(requests: number): number {
    let n = 0;
    for (let i = 0; i < Math.min(requests, this.packRows.length); i++) n += Math.max(1, this.packRows.at(i));
    return n;
  }

  #output(o: OutputTokens, i: number): number {
    const rows = this.packRows.at(i);
    return rows === 0 ? o.alone : o.perPack + rows * o.perItem;
  }

  #close(item: WorkItem): void {
    const members = item.pack?.rows ?? [item];
    let prompt = 0;
    for (const m of members) {
      prompt += this.#pending.get(m.row) ?? 0;
      this.#pending.delete(m.row);
    }
    this.#add(item, prompt, item.pack ? members.length : 0);
  }

  #add(item: WorkItem, promptPart: number, packRows: number): void {
    this.inputs.push(this.#o.estimator.estimate(item.features));
    this.promptParts.push(promptPart);
    this.packRows.push(packRows);
  }
}
