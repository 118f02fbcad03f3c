/**
 * Few-shot examples (`--examples file.csv`): rows with the columns the prompt uses and the expected answer in a
 * `label` column, sent before each row as earlier turns of the conversation — the example's prompt as a `user` turn,
 * its label as the `model` turn — so the model sees the task answered the way it should be.
 */
import { InputError, UsageError } from '../errors.js';
import { openInput } from '../input/open-input.js';
import { matchLabel } from './labels.js';
import type { CompiledTemplate } from './template.js';

export interface FewShotExample {
  /** The template rendered with the example's cells. */
  prompt: string;
  /** The expected answer (a label of the set, when there is one). */
  answer: string;
}

/** Examples beyond this many make every request long and costly; refuse rather than surprise. */
export const MAX_EXAMPLES = 50;

/**
 * Reads and checks an examples file.
 * @param template the job's template: every column it uses must be in the examples file.
 * @param labels the label set, when there is one: every example's label must be in it.
 * @throws InputError `EXAMPLES_INVALID` naming the file and line; UsageError for a file with no `label` column.
 */
export async function loadExamples(file: string, template: CompiledTemplate, labels: readonly string[] | undefined): Promise<FewShotExample[]> {
  const source = await openInput(file, {});
  const labelIndex = source.columns.findIndex((c) => c.toLowerCase() === 'label');
  if (labelIndex < 0) {
    throw new UsageError('EXAMPLES_INVALID', `${file}: the examples need a "label" column with the expected answer; its columns are ${source.columns.map((c) => JSON.stringify(c)).join(', ')}.`);
  }
  const missing = template.columns.filter((c) => !source.columns.includes(c));
  if (missing.length > 0) {
    throw new UsageError('EXAMPLES_INVALID', `${file}: the prompt uses ${missing.map((c) => `{{${c}}}`).join(', ')}, which the examples file has no column for.`);
  }
  // Render with the job template: map the template's columns onto the examples file's columns by name.
  const positions = template.columns.map((c) => source.columns.indexOf(c));
  const examples: FewShotExample[] = [];
  for await (const record of source.records()) {
    const raw = record.cells[labelIndex]?.trim() ?? '';
    if (raw === '') throw new InputError('EXAMPLES_INVALID', { file, line: record.line, column: labelIndex + 1 }, 'the example has an empty label');
    const answer = labels ? matchLabel(raw, labels) : raw;
    if (answer === null) {
      throw new InputError('EXAMPLES_INVALID', { file, line: record.line, column: labelIndex + 1 }, `"${raw}" is not one of the labels (${labels?.join(', ')})`);
    }
    const cells: string[] = [];
    template.columns.forEach((column, i) => {
      cells[template.columnIndex(column)] = record.cells[positions[i] as number] ?? '';
    });
    examples.push({ prompt: template.render(cells), answer });
    if (examples.length > MAX_EXAMPLES) throw new InputError('EXAMPLES_INVALID', { file, line: record.line }, `more than ${MAX_EXAMPLES} examples; each one is sent with every row`);
  }
  if (examples.length === 0) throw new InputError('EXAMPLES_INVALID', { file }, 'the examples file has no example rows');
  return examples;
}
