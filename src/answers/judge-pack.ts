/**
 * Makes sense of a packed answer (../prompt/pack-request.ts): joins its items to the pack's rows **by id only** — never
 * by position — and checks each row's part. A row gets a result only when the answer holds exactly one item with its
 * id and that item is valid (a label among --labels, the --schema's properties, or a non-empty free-text `answer`);
 * otherwise it is sent again in a smaller pack, with the reason kept as its last error:
 *
 * | answer                                                   | each row of the pack                               |
 * |----------------------------------------------------------|----------------------------------------------------|
 * | blocked, filtered, recitation, no text, finishReason other | sent again                                       |
 * | not JSON, or no `items` list (cut at the output limit…)  | sent again                                         |
 * | no item with the row's id                                | sent again ("no item for id bc")                   |
 * | two or more items with the row's id                      | sent again, whatever they say ("2 items for id bc") |
 * | its one item invalid (label not in the set…)             | sent again                                         |
 * | its one item valid                                       | `ok`: label / fields from the item, raw = the item's JSON |
 *
 * Items with ids the pack does not have are ignored. A row alone is judged by ./judge-answer.ts as any row.
 */
import { matchLabel } from '../prompt/labels.js';
import { validateObject } from '../prompt/structured-output.js';
import type { ModelAnswer } from '../providers/contract.js';
import type { PackRowVerdict } from '../schedule/work-item.js';
import type { AnswerMode } from './judge-answer.js';

/** Returns the judge of packed answers for a mode: one verdict per id of `ids`, in their order. */
export function packJudge(mode: AnswerMode): (answer: ModelAnswer, ids: readonly string[]) => PackRowVerdict[] {
  return (answer, ids) => {
    const detail = answer.finishDetail ?? answer.finish ?? null;
    const all = (reason: string): PackRowVerdict[] => ids.map(() => ({ kind: 'again', reason }));
    if (answer.blocked) return all(`pack blocked: blockReason ${answer.blocked}`);
    if (answer.finish === 'content-filter' || answer.finish === 'recitation') return all(`pack answer blocked: finishReason ${detail}`);
    const text = answer.text ?? '';
    if (text.trim() === '') return all(`no answer text for the pack${detail ? `: finishReason ${detail}` : ': no candidate'}`);
    if (answer.finish === 'other') return all(`pack answer: finishReason ${detail}`);
    const items = itemsOf(text);
    if (typeof items === 'string') return all(`${items}${answer.finish === 'length' ? ` (cut at the output limit: finishReason ${detail})` : ''}`);

    const byId = new Map<string, Array<Record<string, unknown>>>();
    for (const item of items) {
      const id = item.id;
      if (typeof id !== 'string') continue;
      const list = byId.get(id);
      if (list) list.push(item);
      else byId.set(id, [item]);
    }
    return ids.map((id): PackRowVerdict => {
      const found = byId.get(id) ?? [];
      if (found.length === 0) return { kind: 'again', reason: `the pack's answer has no item for id ${id}` };
      if (found.length > 1) return { kind: 'again', reason: `the pack's answer has ${found.length} items for id ${id}` };
      const item = found[0] as Record<string, unknown>;
      const raw = JSON.stringify(item);
      const ok = (label: string | null, fields?: Record<string, string>): PackRowVerdict => ({
        kind: 'done',
        outcome: { status: 'ok', label, ...(fields ? { fields } : {}), raw, finishReason: detail, error: null },
      });
      switch (mode.kind) {
        case 'labels': {
          const label = typeof item.label === 'string' ? matchLabel(item.label, mode.labels) : null;
          return label !== null ? ok(label) : { kind: 'again', reason: `the pack's item ${id}: label ${JSON.stringify(item.label ?? null)} is not one of the labels` };
        }
        case 'schema': {
          const result = validateObject(item, mode.schema);
          return result.ok ? ok(result.fields.label ?? null, result.fields) : { kind: 'again', reason: `the pack's item ${id}: ${result.error}` };
        }
        case 'text': {
          const answerText = typeof item.answer === 'string' ? item.answer.trim() : '';
          return answerText !== '' ? ok(answerText) : { kind: 'again', reason: `the pack's item ${id} has no answer text` };
        }
      }
    });
  };
}

/** The items of a packed answer (`{"items": [...]}`, or a bare list), or why there are none. */
function itemsOf(text: string): Array<Record<string, unknown>> | string {
  const body = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return `the pack's answer is not valid JSON: ${JSON.stringify(body.length > 80 ? `${body.slice(0, 79)}…` : body)}`;
  }
  const list = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? (value as { items?: unknown }).items : undefined;
  if (!Array.isArray(list)) return `the pack's answer has no "items" list`;
  return list.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x));
}
