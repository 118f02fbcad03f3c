/**
 * The Gemini adapter's request mapping: the neutral ModelRequest becomes generateContent parameters — enum output as
 * text/x.enum, structured output as responseJsonSchema, thinking from the model's profile, room for thinking in
 * maxOutputTokens, a retry with more room, few-shot turns, the service tier.
 */
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/providers/contract.js';
import { geminiCall } from '../../../src/providers/gemini/gemini-request.js';
import { compileTemplate } from '../../../src/prompt/template.js';
import { requestBuilder } from '../../../src/prompt/build-request.js';

const labels = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'gemini-2.5-flash',
  prompt: 'Is it late?',
  output: { kind: 'labels', labels: ['yes', 'no'] },
  temperature: 0,
  reasoning: 'least',
  ...over,
});

describe('geminiCall', () => {
  it('labels become enum output; the least thinking of 2.5 Flash is off; a label gets 512 tokens of room', () => {
    expect(geminiCall(labels())).toEqual({
      model: 'gemini-2.5-flash',
      contents: 'Is it late?',
      config: {
        temperature: 0,
        responseMimeType: 'text/x.enum',
        responseSchema: { type: 'STRING', enum: ['yes', 'no'] },
        thinkingConfig: { thinkingBudget: 0 },
        maxOutputTokens: 512,
      },
    });
  });

  it('a thinking budget gets room in maxOutputTokens on top of the label (no MAX_TOKENS by construction)', () => {
    const max = (reasoning: ModelRequest['reasoning'], model = 'gemini-2.5-flash') => geminiCall(labels({ reasoning, model })).config.maxOutputTokens;
    expect(max({ budgetTokens: 1024 })).toBe(512 + 1024);
    expect(max({ budgetTokens: -1 })).toBeUndefined();
    expect(max('least', 'gemini-2.5-pro')).toBe(512 + 128);
    // Gemini 3 thinks by level: no budget to add, so no cap.
    expect(geminiCall(labels({ model: 'gemini-3-flash-preview' })).config).toMatchObject({ thinkingConfig: { thinkingLevel: 'MINIMAL' } });
    expect(max('least', 'gemini-3-flash-preview')).toBeUndefined();
    // The user's cap is sent as given.
    expect(geminiCall(labels({ maxOutputTokens: 40 })).config.maxOutputTokens).toBe(40);
  });

  it('more room: 4x the cap (at least 2,048), thinking off where it can be, else the smallest budget', () => {
    expect(geminiCall(labels({ moreRoom: true })).config).toMatchObject({ maxOutputTokens: 2048, thinkingConfig: { thinkingBudget: 0 } });
    expect(geminiCall(labels({ moreRoom: true, reasoning: { budgetTokens: 1024 } })).config).toMatchObject({ maxOutputTokens: 4 * 1536, thinkingConfig: { thinkingBudget: 0 } });
    expect(geminiCall(labels({ moreRoom: true, model: 'gemini-2.5-pro', reasoning: { budgetTokens: 4000 } })).config).toMatchObject({
      maxOutputTokens: 4 * 4512,
      thinkingConfig: { thinkingBudget: 128 },
    });
  });

  it('a JSON schema becomes responseJsonSchema; text asks for nothing; system, examples and the service tier are mapped', () => {
    const schema = { type: 'object', properties: { label: { type: 'string' } } };
    const call = geminiCall({
      model: 'gemini-2.5-flash',
      prompt: 'Row 3',
      system: 'Be brief.',
      examples: [{ prompt: 'Row 1', answer: '{"label":"a"}' }],
      output: { kind: 'json', schema, name: 'answer' },
      reasoning: 'least',
      serviceTier: 'flex',
    });
    expect(call.config).toMatchObject({ systemInstruction: 'Be brief.', responseMimeType: 'application/json', responseJsonSchema: schema, serviceTier: 'flex' });
    expect(call.config.maxOutputTokens).toBeUndefined();
    expect(call.contents).toEqual([
      { role: 'user', parts: [{ text: 'Row 1' }] },
      { role: 'model', parts: [{ text: '{"label":"a"}' }] },
      { role: 'user', parts: [{ text: 'Row 3' }] },
    ]);
    const text = geminiCall({ model: 'gemini-2.5-flash', prompt: 'x', output: { kind: 'text' }, reasoning: 'least' }).config;
    expect(text.responseMimeType).toBeUndefined();
    expect(text.temperature).toBeUndefined();
  });

  it('the job builds neutral requests the adapter maps: a retry after a cut answer asks for more room', () => {
    const build = requestBuilder({
      model: 'gemini-2.5-flash',
      template: compileTemplate('{{t}}', ['t']),
      system: undefined,
      labels: ['a', 'b'],
      schema: undefined,
      temperature: 0,
      maxOutputTokens: undefined,
      thinkingBudget: 1024,
    });
    expect(build(['x'])).toEqual({ model: 'gemini-2.5-flash', prompt: 'x', output: { kind: 'labels', labels: ['a', 'b'] }, temperature: 0, reasoning: { budgetTokens: 1024 }, moreRoom: false });
    expect(build(['x'], { moreOutput: true }).moreRoom).toBe(true);
    expect(geminiCall(build(['x'])).config.maxOutputTokens).toBe(512 + 1024);
  });
});
