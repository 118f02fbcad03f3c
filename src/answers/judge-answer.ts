/**
 * Makes sense of an HTTP 200 answer: a valid label, structured fields or free text (`ok`), or why not. Reads only the
 * neutral fields of {@link ModelAnswer} — `blocked`, `finish`, `text`, `usage` — and quotes the provider's own finish
 * value (`finishDetail`: STOP, MAX_TOKENS, length…) in messages and in the journal's finishReason.
 *
 * | answer                                        | row                                                            |
 * |-----------------------------------------------|----------------------------------------------------------------|
 * | blocked (Gemini promptFeedback.blockReason)   | `blocked`, not retried                                          |
 * | finish `content-filter`                       | `blocked`, not retried                                          |
 * | finish `recitation`                           | retried once, then `blocked`                                    |
 * | finish `length` with no text                  | retried once with more room and the least thinking, then `failed` |
 * | finish `other`, no candidate                  | `failed` with the reason                                       |
 * | text not among --labels (after normalizing)   | retried once, then `invalid_label` with the raw answer kept     |
 * | --schema JSON that does not parse or validate | retried once, then `invalid_output`                             |
 * | free text cut (finish `length`)               | retried once with more room, then `invalid_output`; not retried when the text alone filled a --max-output-tokens the user gave |
 *
 * The empty-text pitfall (thinking spends the output budget: HTTP 200, no text, MAX_TOKENS) is
 * test/fixtures/gemini/200-thinking-max-tokens-no-text.json. A free-text answer cut at the output limit is
 * `invalid_output`, the status of an answer that came but cannot be used as the row's output — as a --schema answer cut
 * the same way already is; `failed` is for rows with no answer at all.
 */
import { matchLabel } from '../prompt/labels.js';
import { validateStructured, type StructuredSchema } from '../prompt/structured-output.js';
import type { ModelAnswer } from '../providers/contract.js';
import type { RowOutcome, Verdict } from '../schedule/work-item.js';

/** What kind of answer the job expects. */
export type AnswerMode =
  | { kind: 'labels'; labels: readonly string[] }
  | { kind: 'schema'; schema: StructuredSchema }
  /** Free text. `maxOutputTokens`: the --max-output-tokens the user gave (tokens), undefined when not given. */
  | { kind: 'text'; maxOutputTokens?: number | undefined };

/** Returns the judge of answers for a mode. */
export function answerJudge(mode: AnswerMode): (answer: ModelAnswer) => Verdict {
  return (answer) => {
    const raw = answer.text ?? null;
    const finish = answer.finish;
    /** The provider's own value, for messages and the journal. */
    const detail = answer.finishDetail ?? finish ?? null;
    const cutAt = `finishReason ${detail ?? 'length'}`;
    const outcome = (status: RowOutcome['status'], error: string | null, label: string | null = null, fields?: Record<string, string>): RowOutcome => ({
      status,
      label,
      ...(fields ? { fields } : {}),
      raw,
      finishReason: answer.blocked ?? detail,
      error,
    });

    if (answer.blocked) return final(outcome('blocked', `prompt blocked: blockReason ${answer.blocked}`));
    if (finish === 'content-filter') return final(outcome('blocked', `answer blocked: finishReason ${detail}`));
    if (finish === 'recitation') {
      return { kind: 'retry', retryKind: 'recitation', variant: undefined, fallback: outcome('blocked', `answer blocked: finishReason ${detail}`) };
    }
    if (raw === null || raw.trim() === '') {
      if (finish === 'length') {
        const thoughts = answer.usage.reasoningTokens;
        return {
          kind: 'retry',
          retryKind: 'max-tokens',
          variant: { moreOutput: true },
          fallback: outcome('failed', `no answer text: ${cutAt}${thoughts ? ` (${thoughts} thinking tokens)` : ''}`),
        };
      }
      return final(outcome('failed', `no answer text${detail ? `: finishReason ${detail}` : ': no candidate'}`));
    }
    if (finish === 'other') return final(outcome('failed', `finishReason ${detail}`));
    const cut = finish === 'length';

    switch (mode.kind) {
      case 'labels': {
        const label = matchLabel(raw, mode.labels);
        if (label !== null) return final(outcome('ok', null, label));
        return {
          kind: 'retry',
          retryKind: 'invalid-label',
          variant: cut ? { moreOutput: true } : undefined,
          fallback: outcome('invalid_label', `answer ${JSON.stringify(clip(raw))} is not one of the labels${cut ? ` (cut at maxOutputTokens: ${cutAt})` : ''}`),
        };
      }
      case 'schema': {
        const result = validateStructured(raw, mode.schema);
        if (result.ok) return final(outcome('ok', null, result.fields.label ?? null, result.fields));
        return {
          kind: 'retry',
          retryKind: 'invalid-output',
          variant: cut ? { moreOutput: true } : undefined,
          fallback: outcome('invalid_output', cut ? `${result.error} (cut at maxOutputTokens: ${cutAt})` : result.error),
        };
      }
      case 'text': {
        if (!cut) return final(outcome('ok', null, raw.trim()));
        const spent = answer.usage.outputTokens;
        const thoughts = answer.usage.reasoningTokens;
        const cutOutcome = outcome(
          'invalid_output',
          `answer cut at maxOutputTokens (${cutAt} after ${spent} output${thoughts ? ` and ${thoughts} thinking` : ''} tokens); ` +
            `raise --max-output-tokens${mode.maxOutputTokens !== undefined ? ` (now ${mode.maxOutputTokens})` : ''} and run again with --retry-errors`,
        );
        // More room helps when thinking took it, or when the limit was not the user's; a cap the user set and the
        // text alone filled is theirs to raise.
        if (mode.maxOutputTokens !== undefined && thoughts === 0) return final(cutOutcome);
        return { kind: 'retry', retryKind: 'max-tokens', variant: { moreOutput: true }, fallback: cutOutcome };
      }
    }
  };
}

function final(outcome: RowOutcome): Verdict {
  return { kind: 'final', outcome };
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
