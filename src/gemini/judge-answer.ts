/**
 * Makes sense of an HTTP 200 answer: a valid label, structured fields or free text (`ok`), or why not.
 *
 * finishReason and blockReason handling (values: @google/genai 2.32 `FinishReason`/`BlockedReason` enums,
 * ../shared/reference/gemini-api-facts.md §4.5; the empty-text pitfall §4.6, fixture 200-thinking-max-tokens-no-text.json):
 * | answer                                        | row                                                            |
 * |-----------------------------------------------|----------------------------------------------------------------|
 * | promptFeedback.blockReason                    | `blocked`, not retried                                          |
 * | SAFETY, PROHIBITED_CONTENT, BLOCKLIST, SPII…   | `blocked`, not retried                                          |
 * | RECITATION                                    | retried once, then `blocked`                                    |
 * | MAX_TOKENS with no text                       | retried once with 4× maxOutputTokens and thinking off where allowed, then `failed` |
 * | OTHER, unknown, no candidate                  | `failed` with the reason                                       |
 * | text not among --labels (after normalizing)   | retried once, then `invalid_label` with the raw answer kept     |
 * | --schema JSON that does not parse or validate | retried once, then `invalid_output`                             |
 * | free text cut by MAX_TOKENS                   | retried once with more room, then `invalid_output`; not retried when the text alone filled a --max-output-tokens the user gave |
 *
 * A free-text answer cut at maxOutputTokens is `invalid_output`, the status of an answer that came but cannot be used
 * as the row's output — as a --schema answer cut the same way already is; `failed` is for rows with no answer at all.
 */
import { matchLabel } from '../prompt/labels.js';
import { validateStructured, type StructuredSchema } from '../prompt/structured-output.js';
import type { RowOutcome, Verdict } from '../schedule/work-item.js';
import type { GenerateAnswer } from './gemini-client.js';

/** What kind of answer the job expects. */
export type AnswerMode =
  | { kind: 'labels'; labels: readonly string[] }
  | { kind: 'schema'; schema: StructuredSchema }
  /** Free text. `maxOutputTokens`: the --max-output-tokens the user gave (tokens), undefined when not given. */
  | { kind: 'text'; maxOutputTokens?: number | undefined };

const BLOCKING_FINISH = new Set(['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'LANGUAGE']);

/** Returns the judge of answers for a mode. */
export function answerJudge(mode: AnswerMode): (answer: GenerateAnswer) => Verdict {
  return (answer) => {
    const raw = answer.text ?? null;
    const finishReason = answer.finishReason ?? null;
    const outcome = (status: RowOutcome['status'], error: string | null, label: string | null = null, fields?: Record<string, string>): RowOutcome => ({
      status,
      label,
      ...(fields ? { fields } : {}),
      raw,
      finishReason: answer.blockReason ?? finishReason,
      error,
    });

    if (answer.blockReason) return final(outcome('blocked', `prompt blocked: blockReason ${answer.blockReason}`));
    if (finishReason && BLOCKING_FINISH.has(finishReason)) return final(outcome('blocked', `answer blocked: finishReason ${finishReason}`));
    if (finishReason === 'RECITATION') {
      return { kind: 'retry', retryKind: 'recitation', variant: undefined, fallback: outcome('blocked', 'answer blocked: finishReason RECITATION') };
    }
    if (raw === null || raw.trim() === '') {
      if (finishReason === 'MAX_TOKENS') {
        const thoughts = answer.usage.thoughtsTokenCount;
        return {
          kind: 'retry',
          retryKind: 'max-tokens',
          variant: { moreOutput: true },
          fallback: outcome('failed', `no answer text: finishReason MAX_TOKENS${thoughts ? ` (${thoughts} thinking tokens)` : ''}`),
        };
      }
      return final(outcome('failed', `no answer text${finishReason ? `: finishReason ${finishReason}` : ': no candidate'}`));
    }
    if (finishReason && finishReason !== 'STOP' && finishReason !== 'MAX_TOKENS') {
      return final(outcome('failed', `finishReason ${finishReason}`));
    }

    switch (mode.kind) {
      case 'labels': {
        const label = matchLabel(raw, mode.labels);
        if (label !== null) return final(outcome('ok', null, label));
        const cut = finishReason === 'MAX_TOKENS' ? ' (cut at maxOutputTokens: finishReason MAX_TOKENS)' : '';
        return {
          kind: 'retry',
          retryKind: 'invalid-label',
          variant: cut ? { moreOutput: true } : undefined,
          fallback: outcome('invalid_label', `answer ${JSON.stringify(clip(raw))} is not one of the labels${cut}`),
        };
      }
      case 'schema': {
        const result = validateStructured(raw, mode.schema);
        if (result.ok) return final(outcome('ok', null, result.fields.label ?? null, result.fields));
        const moreOutput = finishReason === 'MAX_TOKENS';
        return {
          kind: 'retry',
          retryKind: 'invalid-output',
          variant: moreOutput ? { moreOutput: true } : undefined,
          fallback: outcome('invalid_output', moreOutput ? `${result.error} (cut at maxOutputTokens: finishReason MAX_TOKENS)` : result.error),
        };
      }
      case 'text': {
        if (finishReason !== 'MAX_TOKENS') return final(outcome('ok', null, raw.trim()));
        const spent = answer.usage.candidatesTokenCount;
        const thoughts = answer.usage.thoughtsTokenCount;
        const cut = outcome(
          'invalid_output',
          `answer cut at maxOutputTokens (finishReason MAX_TOKENS after ${spent} output${thoughts ? ` and ${thoughts} thinking` : ''} tokens); ` +
            `raise --max-output-tokens${mode.maxOutputTokens !== undefined ? ` (now ${mode.maxOutputTokens})` : ''} and run again with --retry-errors`,
        );
        // More room helps when thinking took it, or when the limit was not the user's; a cap the user set and the
        // text alone filled is theirs to raise.
        if (mode.maxOutputTokens !== undefined && thoughts === 0) return final(cut);
        return { kind: 'retry', retryKind: 'max-tokens', variant: { moreOutput: true }, fallback: cut };
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
