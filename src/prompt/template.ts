/**
 * Prompt templates: `{{Column Name}}` inserts that column of the row (../shared/DESIGN.md, `--prompt`).
 * A placeholder must name a column exactly (spaces just inside the braces aside); otherwise the job stops before any
 * API call (exit 2) with the real columns and the nearest name.
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
 * Compiles `source` against `columns`.
 * @param ambiguous names that stood for more than one column in the input's header (before `_2` suffixes were added);
 *   a placeholder naming one is ambiguous.
 * @throws UsageError `TEMPLATE_UNKNOWN_COLUMN` (lists the columns and suggests the nearest),
 *   `TEMPLATE_AMBIGUOUS_COLUMN`, `TEMPLATE_NO_PLACEHOLDER` when the template uses no column at all.
 */
export function compileTemplate(source: string, columns: readonly string[], ambiguous: ReadonlySet<string> = new Set()): CompiledTemplate {
  const pieces: Array<string | number> = [];
  const used: string[] = [];
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    // `{{ Name }}` is `{{Name}}`: column names are trimmed, and spaces inside the braces are a common style.
    const written = match[1] ?? '';
    const name = columns.includes(written) ? written : written.trim();
    const index = columns.indexOf(name);
    if (index < 0) throw unknownColumn(name, columns);
    if (ambiguous.has(name)) {
      const twins = columns.filter((c) => c === name || c.startsWith(`${name}_`));
      throw new UsageError(
        'TEMPLATE_AMBIGUOUS_COLUMN',
        `{{${name}}} is ambiguous: the header has ${twins.length} columns named "${name}" (now ${twins.map((c) => `"${c}"`).join(', ')}). Use one of those names.`,
      );
    }
    pieces.push(source.slice(last, match.index), index);
    if (!used.includes(name)) used.push(name);
    last = match.index + match[0].length;
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

function unknownColumn(name: string, columns: readonly string[]): UsageError {
  const nearest = nearestName(name, columns);
  const hint = nearest ? ` Did you mean {{${nearest}}}?` : '';
  return new UsageError('TEMPLATE_UNKNOWN_COLUMN', `The prompt uses {{${name}}}, but the input has no column "${name}".${hint} The columns are: ${listColumns(columns)}.`);
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
