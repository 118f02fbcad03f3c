/**
 * Prompt templates: `{{Column Name}}` inserts that column of the row (docs/design.md, `--prompt`).
 * A placeholder must name a column exactly (spaces just inside the braces aside); otherwise the job stops before any
 * API call (exit 2) naming every unknown placeholder with its nearest column, and the real columns.
 */
import { UsageError } from '../errors.js';

/** A template checked against the input's columns. */
export interface CompiledTemplate {
  /** The template text as given. */
  source: string;
  /** Column names used, in order of first use. */
  columns: string[];
  /** Position of a used column in the cells `render` takes. */
  columnIndex(column: string): number;
  /**
   * Renders the prompt of one row.
   * @param cells the row's cells, indexed like the columns the template was compiled against.
   */
  render(cells: readonly string[]): string;
}

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/**
 * A placeholder that names no column, and the column nearest to it (undefined when none is close); `line` and
 * `column` (1-based; the column counts characters of the line) are where its first `{{` stands in the prompt.
 */
export interface UnknownPlaceholder {
  name: string;
  nearest: string | undefined;
  line: number;
  column: number;
}

/**
 * The prompt names columns the input does not have: every such placeholder, each with its nearest column, so that one
 * edit fixes them all. Code `TEMPLATE_UNKNOWN_COLUMN`, exit 2.
 */
export class UnknownColumnsError extends UsageError {
  /** In order of first use, each name once. */
  readonly unknown: readonly UnknownPlaceholder[];
  /** Every placeholder name of the prompt (known or not), in order of first use. */
  readonly placeholders: readonly string[];
  readonly columns: readonly string[];
  readonly hint: string | undefined;
  /** The --prompt-file the prompt came from, as the user named it; the message then starts `file:line:column:`. */
  readonly file: string | undefined;

  constructor(unknown: readonly UnknownPlaceholder[], placeholders: readonly string[], columns: readonly string[], hint?: string, file?: string) {
    super('TEMPLATE_UNKNOWN_COLUMN', unknownColumnsMessage(unknown, columns, file) + (hint ? `\n${hint}` : ''));
    this.unknown = unknown;
    this.placeholders = placeholders;
    this.columns = columns;
    this.hint = hint;
    this.file = file;
  }

  /** The same error with one more line of advice (e.g. {@link headerRowHint}). */
  withHint(hint: string | undefined): UnknownColumnsError {
    return hint ? new UnknownColumnsError(this.unknown, this.placeholders, this.columns, hint, this.file) : this;
  }

  /** The same error naming the file the prompt was read from (`--prompt-file`), with each placeholder's line and column. */
  inFile(file: string | undefined): UnknownColumnsError {
    return file !== undefined ? new UnknownColumnsError(this.unknown, this.placeholders, this.columns, this.hint, file) : this;
  }
}

/**
 * The prompt opens a placeholder with `{{` and never closes it with `}}` (e.g. `{{text`): the place of that `{{`, so
 * that the user finds it. Code `TEMPLATE_UNCLOSED_PLACEHOLDER`, exit 2.
 */
export class UnclosedPlaceholderError extends UsageError {
  /** 1-based line and column (characters of the line) of the `{{`. */
  readonly line: number;
  readonly column: number;
  /** The --prompt-file the prompt came from; the message then starts `file:line:column:`. */
  readonly file: string | undefined;

  constructor(line: number, column: number, file?: string) {
    const where = file !== undefined ? `${file}:${line}:${column}: ` : '';
    super('TEMPLATE_UNCLOSED_PLACEHOLDER', `${where}the prompt opens a placeholder with "{{" at line ${line}, column ${column} and never closes it with "}}". Write {{Column}}.`);
    this.line = line;
    this.column = column;
    this.file = file;
  }

  /** The same error naming the file the prompt was read from (`--prompt-file`). */
  inFile(file: string | undefined): UnclosedPlaceholderError {
    return file !== undefined ? new UnclosedPlaceholderError(this.line, this.column, file) : this;
  }
}

/**
 * Compiles `source` against `columns`.
 * @param ambiguous names that stood for more than one column in the input's header (before `_2` suffixes were added);
 *   a placeholder naming one is ambiguous.
 * @throws UnclosedPlaceholderError (`TEMPLATE_UNCLOSED_PLACEHOLDER`) for a `{{` with no `}}` after it;
 *   UnknownColumnsError (`TEMPLATE_UNKNOWN_COLUMN`) naming every placeholder that is not a column, each with the
 *   nearest column, and listing the columns; UsageError `TEMPLATE_AMBIGUOUS_COLUMN`, `TEMPLATE_NO_PLACEHOLDER` when
 *   the template uses no column at all.
 */
export function compileTemplate(source: string, columns: readonly string[], ambiguous: ReadonlySet<string> = new Set()): CompiledTemplate {
  const opened = source.lastIndexOf('{{');
  if (opened >= 0 && !source.includes('}}', opened + 2)) {
    const at = positionOf(source, opened);
    throw new UnclosedPlaceholderError(at.line, at.column);
  }
  const pieces: Array<string | number> = [];
  const used: string[] = [];
  const named: string[] = [];
  const unknown: UnknownPlaceholder[] = [];
  let firstAmbiguous: string | undefined;
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    // `{{ Name }}` is `{{Name}}`: column names are trimmed, and spaces inside the braces are a common style.
    const written = match[1] ?? '';
    const name = columns.includes(written) ? written : written.trim();
    if (!named.includes(name)) named.push(name);
    const index = columns.indexOf(name);
    if (index < 0) {
      if (!unknown.some((u) => u.name === name)) unknown.push({ name, nearest: nearestName(name, columns), ...positionOf(source, match.index) });
      continue;
    }
    if (ambiguous.has(name)) firstAmbiguous ??= name;
    pieces.push(source.slice(last, match.index), index);
    if (!used.includes(name)) used.push(name);
    last = match.index + match[0].length;
  }
  if (unknown.length > 0) throw new UnknownColumnsError(unknown, named, columns);
  if (firstAmbiguous !== undefined) {
    const name = firstAmbiguous;
    const twins = columns.filter((c) => c === name || c.startsWith(`${name}_`));
    throw new UsageError(
      'TEMPLATE_AMBIGUOUS_COLUMN',
      `{{${name}}} is ambiguous: the header has ${twins.length} columns named "${name}" (now ${twins.map((c) => `"${c}"`).join(', ')}). Use one of those names.`,
    );
  }
  pieces.push(source.slice(last));
  if (used.length === 0) {
    throw new UsageError(
      'TEMPLATE_NO_PLACEHOLDER',
      `The prompt uses no column, so every row would get the same answer. Insert columns with {{Column}}; the columns are: ${listColumns(columns)}.`,
    );
  }
  return {
    source,
    columns: used,
    columnIndex: (column) => columns.indexOf(column),
    render(cells) {
      let out = '';
      for (const piece of pieces) out += typeof piece === 'number' ? (cells[piece] ?? '') : piece;
      return out;
    },
  };
}

/** 1-based line and column (in characters of the line) of `index` in `text`; a CRLF ends a line like an LF. */
export function positionOf(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: index - lineStart + 1 };
}

function unknownColumnsMessage(unknown: readonly UnknownPlaceholder[], columns: readonly string[], file: string | undefined): string {
  const all = `The columns are: ${listColumns(columns)}.`;
  const at = (u: UnknownPlaceholder) => (file !== undefined ? `${file}:${u.line}:${u.column}: ` : '');
  const [only] = unknown;
  if (unknown.length === 1 && only) {
    const hint = only.nearest !== undefined ? ` Did you mean {{${only.nearest}}}?` : '';
    return `${at(only)}The prompt uses {{${only.name}}}, but the input has no column "${only.name}".${hint} ${all}`;
  }
  const lines = unknown.map((u) => `  ${at(u)}{{${u.name}}}: ${u.nearest !== undefined ? `did you mean {{${u.nearest}}}?` : 'no column is close'}`);
  const first = unknown[0];
  return `${first ? at(first) : ''}The prompt uses ${unknown.length} names that are not columns of the input:\n${lines.join('\n')}\n${all}`;
}

/**
 * When the prompt's placeholders are cells of a later record (the header sits under a title row), the advice to
 * read that record as the header: `Line 3 holds "id", "topic": if it is the header (a title above it), pass
 * --header-row 3.` Picks the record that holds the most placeholder names, among those holding an unknown one.
 * @param records records after the header as read (`InputSource.sampleRecords`), in file order.
 * @param unit what a record's position is called: `line` (CSV) or `row` (XLSX sheet row).
 * @returns undefined when no record holds an unknown placeholder's name.
 */
export function headerRowHint(error: UnknownColumnsError, records: ReadonlyArray<{ line: number; cells: readonly string[] }>, unit: 'line' | 'row' = 'line'): string | undefined {
  const fold = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
  const unknown = new Set(error.unknown.map((u) => fold(u.name)));
  const wanted = new Set(error.placeholders.map(fold));
  let best: { line: number; cells: readonly string[]; score: number } | undefined;
  for (const record of records) {
    const cells = new Set(record.cells.map(fold));
    if (![...unknown].some((name) => cells.has(name))) continue;
    const score = [...wanted].filter((name) => cells.has(name)).length;
    if (!best || score > best.score) best = { ...record, score };
  }
  if (!best) return undefined;
  const shown = best.cells.filter((c) => c.trim() !== '').slice(0, 8).map((c) => JSON.stringify(c.trim()));
  const more = best.cells.filter((c) => c.trim() !== '').length > 8 ? ', …' : '';
  const Unit = unit === 'line' ? 'Line' : 'Row';
  return `${Unit} ${best.line} holds ${shown.join(', ')}${more}: if it is the header (with a title above it), pass --header-row ${best.line}.`;
}

function listColumns(columns: readonly string[]): string {
  return columns.map((c) => JSON.stringify(c)).join(', ');
}

/** The column closest to `name`: same after trimming and case-folding, else the smallest edit distance within a third of its length. */
export function nearestName(name: string, columns: readonly string[]): string | undefined {
  const fold = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
  const exactish = columns.find((c) => fold(c) === fold(name));
  if (exactish !== undefined) return exactish;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const column of columns) {
    const d = editDistance(fold(name), fold(column));
    if (d < bestDistance) {
      best = column;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.ceil(name.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
