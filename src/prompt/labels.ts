/**
 * The label set (`--labels a,b,c` or `--labels-file`) and the normalization that maps a model's answer onto it.
 * Enum output (`text/x.enum`) should already return a bare label, but structured output is known to drift
 * (docs/reference/gemini-api-facts.md §4.3), so every answer is validated.
 */
import { UsageError } from '../errors.js';

/**
 * Parses `--labels` text: comma-separated, trimmed, empty entries dropped.
 * @throws UsageError `LABELS_INVALID` for fewer than two labels or labels equal after normalization.
 */
export function parseLabelList(text: string, source = '--labels'): string[] {
  const labels = text.split(',').map((l) => l.trim());
  const empty = labels.findIndex((l) => l.length === 0);
  if (empty >= 0 && labels.length > 1) {
    throw new UsageError('LABELS_INVALID', `${source}: label ${empty + 1} of ${JSON.stringify(text)} is empty (two commas in a row, or one at an end).`);
  }
  return checkLabels(labels.filter((l) => l.length > 0), source);
}

/** Parses a labels file: one label a line; blank lines and `#` comment lines are skipped. */
export function parseLabelLines(text: string, source: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  return checkLabels(lines.map((l) => l.trim()).filter((l) => l.length > 0 && !l.startsWith('#')), source);
}

function checkLabels(labels: string[], source: string): string[] {
  if (labels.length < 2) throw new UsageError('LABELS_INVALID', `${source}: give at least two labels (got ${labels.length}).`);
  const seen = new Map<string, string>();
  for (const label of labels) {
    const key = foldLabel(label);
    const twin = seen.get(key);
    if (twin !== undefined) throw new UsageError('LABELS_INVALID', `${source}: "${twin}" and "${label}" are the same label once case and punctuation are ignored.`);
    seen.set(key, label);
  }
  return labels;
}

/**
 * Maps an answer onto a label, or returns null when it is none of them.
 * Tolerated around the label: whitespace, case, surrounding quotes or backticks, markdown emphasis (`**Yes**`),
 * code fences, a `Label:`/`Answer:`/`Category:` prefix, trailing punctuation (`Yes.`).
 */
export function matchLabel(answer: string, labels: readonly string[]): string | null {
  const exact = labels.find((l) => l === answer);
  if (exact !== undefined) return exact;
  const key = foldLabel(answer);
  return labels.find((l) => foldLabel(l) === key) ?? null;
}

function foldLabel(text: string): string {
  let s = text.normalize('NFKC').trim();
  s = s.replace(/^```[a-z]*\s*/i, '').replace(/\s*```$/, '');
  for (let i = 0; i < 3; i++) {
    s = s.trim()
      .replace(/^(?:label|answer|category|class|classification)\s*[:=-]\s*/i, '')
      .replace(/^[*_~`"'“”‘’«»]+|[*_~`"'“”‘’«»]+$/g, '')
      .replace(/[.!?。,;:]+$/u, '');
  }
  return s.trim().replace(/\s+/g, ' ').toLowerCase();
}
