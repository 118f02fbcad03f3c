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
import { freshWorkItem, type WorkItem } from '../schedule/work-item.js';

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

/** A row ready to join a pack: its rendered prompt and the token features of that prompt alone (no constant term). */
export interface PackMember {
  row: WorkItem;
  prompt: string;
  features: Float64Array;
}

export class Packer {
  /** Rows a pack holds at most: K, or fewer when the answer's room allows fewer. */
  readonly maxRows: number;
  readonly #o: PackerOptions;
  readonly #fixed: Float64Array;
  /** Features of a row's item block and its id in the schema, the row's prompt apart (see {@link Packer.member}). */
  readonly #block: Float64Array;
  /** Features of a pack's request of n rows, their prompts apart (empty prompts), by n. */
  readonly #frames = new Map<number, Float64Array>();
  #seq = 0;

  constructor(options: PackerOptions) {
    this.#o = options;
    this.maxRows = Math.max(1, Math.min(options.rowsPerRequest, Math.floor(options.outputRoom / Math.max(1, options.outputPerRow))));
    this.#fixed = modelRequestFeatures(options.build([], []));
    this.#block = tokenFeatures(`\n\n${itemBlock('bc', '')}"bc",`);
    this.#block[0] = 0;
  }

  /**
   * `row` ready to join a pack (its prompt rendered, the prompt's features counted once), or undefined when its prompt
   * holds the item markers and it must go alone. Packers of one job (same template) may share a member.
   */
  member(row: WorkItem): PackMember | undefined {
    const prompt = this.#o.template.render(row.cells);
    if (!canPack(prompt)) return undefined;
    const features = tokenFeatures(prompt);
    features[0] = 0;
    return { row, prompt, features };
  }

  /** Packs the rows of `source` in order: packs of two or more rows, or rows alone. @throws what `source` throws. */
  async *stream(source: AsyncIterable<WorkItem>): AsyncGenerator<WorkItem> {
    const open = this.open();
    for await (const row of source) yield* open.push(row);
    yield* open.end();
  }

  /** Packs `rows` in order into packs of at most `size` rows (fewer when the budgets say so), or rows alone. */
  pack(rows: readonly WorkItem[], size: number): WorkItem[] {
    const open = this.open(size);
    return [...rows.flatMap((row) => open.push(row)), ...open.end()];
  }

  /**
   * Packing driven row by row (what {@link Packer.stream} and {@link Packer.pack} use, and `plan`, which runs several
   * packers over one reading of the input, sharing each row's {@link Packer.member}): `push` takes the next row and returns the work items it closes — none, the
   * open pack (the row did not fit), or the row itself (it cannot be packed); `end` closes the last pack.
   * @param size rows a pack holds at most (default {@link Packer.maxRows}; never more).
   */
  open(size: number = this.maxRows): { push(row: WorkItem, member?: PackMember): WorkItem[]; end(): WorkItem[] } {
    const limit = Math.max(1, Math.min(size, this.maxRows));
    let open = this.#start();
    return {
      push: (row, given) => {
        const member = given ?? this.member(row);
        if (!member) return [row];
        const out: WorkItem[] = [];
        if (!this.#fits(open, member, limit)) {
          out.push(this.#make(open.members));
          open = this.#start();
        }
        this.#add(open, member);
        return out;
      },
      end: () => {
        const last = open.members.length > 0 ? [this.#make(open.members)] : [];
        open = this.#start();
        return last;
      },
    };
  }

  #start(): { members: PackMember[]; sum: Float64Array } {
    return { members: [], sum: Float64Array.from(this.#fixed) };
  }

  /** Whether `member` joins the open pack: room for one more row, and the input estimate within the limit. */
  #fits(open: { members: PackMember[]; sum: Float64Array }, member: PackMember, limit: number): boolean {
    if (open.members.length === 0) return true;
    if (open.members.length >= limit) return false;
    const next = Float64Array.from(open.sum);
    for (let i = 1; i < next.length; i++) next[i]! += (member.features[i] ?? 0) + (this.#block[i] ?? 0);
    return this.#o.estimator.estimate(next) <= this.#o.maxInputTokens;
  }

  #add(open: { members: PackMember[]; sum: Float64Array }, member: PackMember): void {
    open.members.push(member);
    for (let i = 1; i < open.sum.length; i++) open.sum[i]! += (member.features[i] ?? 0) + (this.#block[i] ?? 0);
  }

  /** Features of a member's item block and its id in the schema (what it adds to a pack's request). */
  #blockOf(m: PackMember): Float64Array {
    const x = Float64Array.from(m.features);
    for (let i = 1; i < x.length; i++) x[i]! += this.#block[i] ?? 0;
    return x;
  }

  /**
   * Features of the request of a pack of `members`, as ../prompt/request-features.ts modelRequestFeatures counts the
   * request ../prompt/pack-request.ts builds: the request of as many empty prompts (counted once per pack size) plus
   * each prompt's own. Exact, since each prompt sits between two line breaks and a line break is a piece of its own for
   * tokenFeatures (test/job/pack-rows.test.ts compares the two).
   */
  #requestFeatures(members: readonly PackMember[]): Float64Array {
    const n = members.length;
    let frame = this.#frames.get(n);
    if (!frame) {
      frame = modelRequestFeatures(this.#o.build(new Array<string>(n).fill(''), packIds(n)));
      this.#frames.set(n, frame);
    }
    const x = Float64Array.from(frame);
    for (const m of members) for (let i = 1; i < x.length; i++) x[i]! += m.features[i] ?? 0;
    return x;
  }

  /** A row alone, or the work item of a pack of two or more. */
  #make(members: readonly PackMember[]): WorkItem {
    if (members.length === 1) return (members[0] as PackMember).row;
    const ids = packIds(members.length);
    const request = this.#o.build(
      members.map((m) => m.prompt),
      ids,
    );
    const first = (members[0] as PackMember).row;
    return {
      ...freshWorkItem(first.row, [], '', this.#requestFeatures(members)),
      pack: {
        id: `${this.#o.runTag}.${++this.#seq}`,
        rows: members.map((m) => m.row),
        ids,
        weights: members.map((m) => Math.max(1, this.#o.estimator.estimate(this.#blockOf(m)))),
        request,
      },
    };
  }
}
