/**
 * The neutral request as chat/completions parameters (src/providers/openai/chat-request.ts) at each rung of the
 * request shape: messages in order, the label schema strict-ready (checked by the simulator's OpenAI rules, written
 * apart), the wanted shape said in the system message when response_format cannot carry it, reasoning_effort and the
 * output cap (small for labels: OpenAI-style servers charge it to TPM up front).
 */
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/providers/contract.js';
import { chatParams, FULL_SHAPE, LABEL_ROOM, strictReady } from '../../../src/providers/openai/chat-request.js';
import { strictSchemaProblem } from '../../../src/simulator/openai-request.js';

const labels: ModelRequest = {
  model: 'gpt-test',
  system: 'Label the sentiment.',
  examples: [{ prompt: 'great!', answer: 'positive' }],
  prompt: 'late and crushed',
  output: { kind: 'labels', labels: ['positive', 'negative'] },
  reasoning: 'least',
};

describe('chatParams', () => {
  it('labels, full shape: system, example turns, prompt; a strict json_schema enum in a root object; reasoning none; a label-sized cap', () => {
    const p = chatParams(labels, FULL_SHAPE);
    expect(p.messages).toEqual([
      { role: 'system', content: 'Label the sentiment.' },
      { role: 'user', content: 'great!' },
      { role: 'assistant', content: 'positive' },
      { role: 'user', content: 'late and crushed' },
    ]);
    expect(p.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'label',
        strict: true,
        schema: { type: 'object', properties: { label: { type: 'string', enum: ['positive', 'negative'] } }, required: ['label'], additionalProperties: false },
      },
    });
    expect(strictSchemaProblem((p.response_format as { json_schema: { schema: unknown } }).json_schema.schema, 'label')).toBeUndefined();
    expect(p.reasoning_effort).toBe('none');
    expect(p.max_completion_tokens).toBe(LABEL_ROOM);
    expect(p.max_tokens).toBeUndefined();
  });

  it('json_object and none: the labels said in the system message (json_object mentions JSON, as OpenAI requires)', () => {
    const obj = chatParams(labels, { ...FULL_SHAPE, format: 'json_object' });
    expect(obj.response_format).toEqual({ type: 'json_object' });
    expect(obj.messages[0]!.content).toBe('Label the sentiment.\n\nAnswer with a JSON object {"label": L} where L is exactly one of: "positive", "negative".');
    const none = chatParams(labels, { ...FULL_SHAPE, format: 'none' });
    expect(none.response_format).toBeUndefined();
    expect(none.messages[0]!.content).toBe('Label the sentiment.\n\nAnswer with exactly one of these labels and nothing else: "positive", "negative".');
  });

  it('reasoning budgets map to efforts (Gemini compat: 1,024 / 8,192 / 24,576), -1 sends none; the cap holds the budget', () => {
    const at = (budgetTokens: number) => chatParams({ ...labels, reasoning: { budgetTokens } }, FULL_SHAPE);
    expect([at(0).reasoning_effort, at(1024).reasoning_effort, at(5000).reasoning_effort, at(30_000).reasoning_effort, at(-1).reasoning_effort]).toEqual([
      'none',
      'low',
      'medium',
      'high',
      undefined,
    ]);
    expect(at(5000).max_completion_tokens).toBe(LABEL_ROOM + 8192);
  });

  it('moreRoom: 4× the room (at least 2,048) with the least reasoning; the cap field steps to max_tokens, then is left out', () => {
    const more = chatParams({ ...labels, reasoning: { budgetTokens: 5000 }, moreRoom: true }, FULL_SHAPE);
    expect(more.reasoning_effort).toBe('none');
    expect(more.max_completion_tokens).toBe(2048);
    expect(chatParams({ ...labels, maxOutputTokens: 300 }, { ...FULL_SHAPE, cap: 'max_tokens' })).toMatchObject({ max_tokens: 300 });
    const omitted = chatParams(labels, { ...FULL_SHAPE, cap: 'omit', leastEffort: 'omit' });
    expect(omitted.max_tokens ?? omitted.max_completion_tokens ?? omitted.reasoning_effort).toBeUndefined();
  });

  it('a JSON schema goes as given, strict only when it meets strict mode\'s rules; free text sends no response_format or cap', () => {
    const ready = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    const loose = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] };
    expect(strictReady(ready)).toBe(true);
    expect(strictReady(loose)).toBe(false);
    const json = (schema: Record<string, unknown>) => chatParams({ ...labels, output: { kind: 'json', schema, name: 'row' } }, FULL_SHAPE).response_format;
    expect(json(ready)).toEqual({ type: 'json_schema', json_schema: { name: 'row', schema: ready, strict: true } });
    expect(json(loose)).toEqual({ type: 'json_schema', json_schema: { name: 'row', schema: loose } });
    const text = chatParams({ ...labels, output: { kind: 'text' } }, FULL_SHAPE);
    expect([text.response_format, text.max_completion_tokens]).toEqual([undefined, undefined]);
  });
});
