/**
 * Cleaning of header names: what a `{{Column}}` template and the output header see.
 *
 * Rules (documented in samples/README.md and the CLI help):
 * - Leading and trailing whitespace (spaces, tabs, NBSP, line breaks) is trimmed, and a note says so, because the
 *   spaces are invisible in a spreadsheet and a user cannot be expected to type them in a template. The output's
 *   header keeps the cell as it was (`headerCells`).
 * - Everything inside the name is kept exactly, including double spaces and line breaks (a note points them out).
 * - A blank name becomes `column_N`, N the 1-based position of the column.
 * - A repeated name (exact, case-sensitive comparison after trimming) becomes `name_2`, `name_3`… in order of
 *   appearance; a suffix already used by another column is skipped.
 */

/** The cleaned header. */
export interface CleanHeader {
  /** One name per column, unique: what `{{Column}}` templates use. */
  columns: string[];
  /**
   * One header cell per column for the output: the cell exactly as in the file (outer whitespace kept) when only
   * trimming set its name apart, else the new name (`column_N` for a blank cell, `name_2` for a repeat).
   */
  headerCells: string[];
  /** One human-readable line per column whose name was changed or deserves attention. */
  notes: string[];
  /** Names given to more than one column (before `_2`, `_3` were added): a `{{name}}` naming one is ambiguous. */
  ambiguous: string[];
}

/**
 * Cleans raw header cells into unique, non-blank column names.
 * @param cells the header record's cells as read from the file.
 * @returns the names and the output's header cells (same length as `cells`), and notes for the run's header.
 */
export function cleanHeader(cells: readonly string[]): CleanHeader {
  const notes: string[] = [];
  const trimmed = cells.map((cell) => cell.trim());
  const taken = new Set<string>(trimmed.filter((name) => name !== ''));
  const seen = new Set<string>();
  const columns: string[] = [];
  const headerCells: string[] = [];
  const ambiguous = new Set<string>();

  trimmed.forEach((name, i) => {
    const position = i + 1;
    const raw = cells[i] ?? '';
    let result: string;
    if (name === '') {
      result = uniqueName(`column_${position}`, taken);
      notes.push(`column ${position} has no name; called it ${result}`);
    } else if (seen.has(name)) {
      ambiguous.add(name);
      result = uniqueName(name, taken, 2);
      notes.push(`column ${position} repeats the name ${quote(name)}; called it ${quote(result)}`);
    } else {
      result = name;
      if (raw !== name) {
        notes.push(`column ${position} name ${quote(raw)} has spaces around it; called it ${quote(name)}`);
      }
    }
    if (/\s\s|[\r\n\t]/.test(result)) {
      notes.push(`column ${position} name ${quote(result)} contains a line break, tab or double space; type it exactly in {{...}}`);
    }
    seen.add(result);
    taken.add(result);
    columns.push(result);
    headerCells.push(result === name ? raw : result);
  });
  return { columns, headerCells, notes, ambiguous: [...ambiguous] };
}

/** `base` itself when `from` is not given and no column uses it, else `base_K` for the first free K >= `from` (2). */
function uniqueName(base: string, taken: Set<string>, from?: number): string {
  if (from === undefined && !taken.has(base)) return base;
  for (let k = from ?? 2; ; k += 1) {
    const candidate = `${base}_${k}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** A name shown in a note: JSON quoting makes spaces and line breaks visible. */
function quote(name: string): string {
  return JSON.stringify(name);
}
