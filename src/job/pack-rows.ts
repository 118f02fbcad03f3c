/**
 * Groups the rows to send into packs (--rows-per-request K): work items carrying several rows in one request
 * (../prompt/pack-request.ts), in input order. A pack closes at K rows, or earlier when one more row would take it past
 * --max-input-tokens (estimated as the dispatcher estimates it) or its answer past the output room (each row's item
 * needs about {@link PackerOptions.outputPerRow} output tokens, the answer at most {@link PackerOptions.outputRoom}), so a
 * pack of long rows is split automatically. A row whose prompt holds the item markers goes alone; so does the last row
 * of a pack of one. The dispatcher sends rows of a failed pack again through {@link Packer.pack}, in halves.
 */
import { canPack, itemBlock, packIds } from '../prompt/pack-request.js';
import { modelRequestFeatures } from '../prompt/request-features.js';
import type { CompiledTemplate } from '../prompt/template.js';
import type { ModelRequest } from '../providers/contract.js';
import { tokenFeatures, type TokenEstimator } from '../schedule/token-estimator.js';
import type { WorkItem } from '../schedule/work-item.js';

export interface PackerOptions {
  /** --rows-per-request, ≥ 2. */
  rowsPerRequest: number;
  template: CompiledTemplate;
  /** Builds a pack's request from its rows' prompts and ids (../prompt/pack-request.ts packRequestBuilder). */
  build(prompts: readonly string[], ids: readonly string[]): ModelRequest;
  /** The job's estimator: what the dispatcher reserves TPM with. */
  estimator: TokenEstimator;
  /** Input tokens one request may hold (--max-input-tokens). */
  maxInputTokens: number;
  /** Output tokens one row's item of the answer takes, about (> 0). */
  outputPerRow: number;
  /** Output tokens one answer may hold (the model's output limit, less a thinking budget). */
  outputRoom: number;
  /** Starts every pack id: unique per run (`<run tag>.<n>`). */
  runTag: string;
}

interface Member {
  row: WorkItem;
  prompt: string;
  features: Float64Array;
}

export class Packer {
  /** Rows a pack holds at most: K, or fewer when the answer's room allows fewer. */
  readonly maxRows: number;
  readonly #o: PackerOptions;
  readonly #fixed: Float64Array;
  #seq = 0;

  constructor(options: PackerOptions) {
    this.#o = options;
    this.maxRows = Math.max(1, Math.min(options.rowsPerRequest, Math.floor(options.outputRoom / Math.max(1, options.outputPerRow))));
    this.#fixed = modelRequestFeatures(options.build([], []));
  }

  /** Packs the rows of `source` in order: packs of two or more rows, or rows alone. @throws what `source` throws. */
  async *stream(source: AsyncIterable<WorkItem>): AsyncGenerator<WorkItem> {
    let open = this.#start();
    for await (const row of source) {
      const prompt = this.#o.template.render(row.cells);
      if (!canPack(prompt)) {
        yield row;
        continue;
      }
      const member = { row, prompt, features: blockFeatures(prompt) };
      if (!this.#fits(open, member, this.maxRows)) {
        yield this.#make(open.members);
        open = this.#start();
      }
      this.#add(open, member);
    }
    if (open.members.length > 0) yield this.#make(open.members);
  }

  /** Packs `rows` in order into packs of at most `size` rows (fewer when the budgets say so), or rows alone. */
  pack(rows: readonly WorkItem[], size: number): WorkItem[] {
    const limit = Math.max(1, Math.min(size, this.maxRows));
    const out: WorkItem[] = [];
    let open = this.#start();
    for (const row of rows) {
      const prompt = this.#o.template.render(row.cells);
      const member = { row, prompt, features: blockFeatures(prompt) };
      if (!this.#fits(open, member, limit)) {
        out.push(this.#make(open.members));
        open = this.#start();
      }
      this.#add(open, member);
    }
    if (open.members.length > 0) out.push(this.#make(open.members));
    return out;
  }

  #start(): { members: Member[]; sum: Float64Array } {
    return { members: [], sum: Float64Array.from(this.#fixed) };
  }

  /** Whether `member` joins the open pack: room for one more row, and the input estimate within the limit. */
  #fits(open: { members: Member[]; sum: Float64Array }, member: Member, limit: number): boolean {
    if (open.members.length === 0) return true;
    if (open.members.length >= limit) return false;
    const next = Float64Array.from(open.sum);
    for (let i = 1; i < next.length; i++) next[i]! += member.features[i] ?? 0;
    return this.#o.estimator.estimate(next) <= this.#o.maxInputTokens;
  }

  #add(open: { members: Member[]; sum: Float64Array }, member: Member): void {
    open.members.push(member);
    for (let i = 1; i < open.sum.length; i++) open.sum[i]! += member.features[i] ?? 0;
  }

  /** A row alone, or the work item of a pack of two or more. */
  #make(members: readonly Member[]): WorkItem {
    if (members.length === 1) return (members[0] as Member).row;
    const ids = packIds(members.length);
    const request = this.#o.build(
      members.map((m) => m.prompt),
      ids,
    );
    const first = (members[0] as Member).row;
    return {
      row: first.row,
      cells: [],
      fingerprint: '',
      features: modelRequestFeatures(request),
      attempts: 0,
      earlierAttempts: 0,
      notBefore: 0,
      variant: undefined,
      retriedFor: new Set(),
      usage: { input: 0, output: 0, thoughts: 0 },
      earlierUsage: { input: 0, output: 0, thoughts: 0 },
      lastError: null,
      key: null,
      pack: {
        id: `${this.#o.runTag}.${++this.#seq}`,
        rows: members.map((m) => m.row),
        ids,
        weights: members.map((m) => Math.max(1, this.#o.estimator.estimate(m.features))),
        request,
      },
    };
  }
}

/** Features of one row's item block and its id in the schema, without the constant term (one per request). */
function blockFeatures(prompt: string): Float64Array {
  const x = tokenFeatures(`\n\n${itemBlock('bc', prompt)}"bc",`);
  x[0] = 0;
  return x;
}
