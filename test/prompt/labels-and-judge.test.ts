import { describe, expect, it } from 'vitest';
import { answerJudge } from '../../src/answers/judge-answer.js';
import type { ModelAnswer } from '../../src/providers/contract.js';
import { neutralFinish } from '../../src/providers/gemini/finish-reason.js';
import { geminiCall } from '../../src/providers/gemini/gemini-request.js';
import { readAnswer } from '../../src/providers/gemini/read-answer.js';
import { matchLabel, parseLabelList } from '../../src/prompt/labels.js';
import { compileSchema } from '../../src/prompt/structured-output.js';
import { requestBuilder } from '../../src/prompt/build-request.js';
import { compileTemplate, headerRowHint, UnknownColumnsError } from '../../src/prompt/template.js';
import { fixtureJson } from '../support/fixtures.js';

/** A neutral answer whose finish is Gemini's `finishReason` mapped by the adapter's one small file. */
const answer = (text: string | undefined, finishReason: string | undefined = 'STOP', extra: Partial<ModelAnswer> = {}): ModelAnswer => ({
  text,
  finish: neutralFinish(finishReason),
  finishDetail: finishReason,
  blocked: undefined,
  usage: { inputTokens: 10, outputTokens: 1, reasoningTokens: 0 },
  ...extra,
});

describe('label normalization', () => {
  const labels = ['yes', 'no', 'Needs review'];
  it.each([
    ['yes', 'yes'],
    ['Yes', 'yes'],
    ['  YES.  ', 'yes'],
    ['Label: **Yes**.', 'yes'],
    ['"no"', 'no'],
    ['`no`', 'no'],
    ['```\nno\n```', 'no'],
    ['Answer: needs  review!', 'Needs review'],
    ['_No_', 'no'],
  ])('%j → %s', (raw, label) => {
    expect(matchLabel(raw, labels)).toBe(label);
  });
  it.each(['maybe', 'yes and no', 'Yes, because it aligns', ''])('%j is no label', (raw) => {
    expect(matchLabel(raw, labels)).toBeNull();
  });
  it('refuses label sets with duplicates once normalized, and single labels', () => {
    expect(() => parseLabelList('yes,Yes.')).toThrow(/same label/);
    expect(() => parseLabelList('yes')).toThrow(/at least two/);
  });
});

describe('answerJudge', () => {
  const judge = answerJudge({ kind: 'labels', labels: ['yes', 'no'] });

  it('a valid label is ok', () => {
    expect(judge(answer('Yes.'))).toMatchObject({ kind: 'final', outcome: { status: 'ok', label: 'yes', raw: 'Yes.' } });
  });

  it('an answer outside the labels is retried once, then invalid_label with the raw answer kept', () => {
    const v = judge(answer('Probably'));
    expect(v).toMatchObject({ kind: 'retry', retryKind: 'invalid-label', fallback: { status: 'invalid_label', raw: 'Probably', label: null } });
  });

  it("the recorded thinking answer (200, no text, MAX_TOKENS) is never ok: retried with more output and thinking off", () => {
    const recorded = readAnswer(fixtureJson('200-thinking-max-tokens-no-text.json'));
    expect(recorded.text).toBeUndefined();
    const v = judge(recorded);
    expect(v).toMatchObject({ kind: 'retry', retryKind: 'max-tokens', variant: { moreOutput: true }, fallback: { status: 'failed' } });
    if (v.kind === 'retry') expect(v.fallback.error).toContain('MAX_TOKENS');
  });

  it('SAFETY and a prompt blockReason are blocked, not retried', () => {
    expect(judge(answer(undefined, 'SAFETY'))).toMatchObject({ kind: 'final', outcome: { status: 'blocked' } });
    expect(judge(answer(undefined, undefined, { blocked: 'PROHIBITED_CONTENT' }))).toMatchObject({
      kind: 'final',
      outcome: { status: 'blocked', finishReason: 'PROHIBITED_CONTENT' },
    });
  });

  it('RECITATION is retried once, then blocked', () => {
    expect(judge(answer(undefined, 'RECITATION'))).toMatchObject({ kind: 'retry', retryKind: 'recitation', fallback: { status: 'blocked' } });
  });

  it('OTHER, or no candidate at all, is failed with the reason', () => {
    expect(judge(answer(undefined, 'OTHER'))).toMatchObject({ kind: 'final', outcome: { status: 'failed', error: 'no answer text: finishReason OTHER' } });
    expect(judge(answer('yes', 'OTHER'))).toMatchObject({ kind: 'final', outcome: { status: 'failed' } });
    expect(judge(answer(undefined, undefined))).toMatchObject({ kind: 'final', outcome: { status: 'failed' } });
  });

  it('free text is kept trimmed', () => {
    expect(answerJudge({ kind: 'text' })(answer('  A short summary.\n'))).toMatchObject({ kind: 'final', outcome: { status: 'ok', label: 'A short summary.' } });
  });

  it('structured output: each property becomes a field; invalid JSON is retried once, then invalid_output', () => {
    const schema = compileSchema(
      { type: 'object', properties: { label: { type: 'string', enum: ['yes', 'no'] }, confidence: { type: 'number' }, reason: { type: 'string' } }, required: ['label'] },
      'schema.json',
    );
    const j = answerJudge({ kind: 'schema', schema });
    expect(j(answer('{"label":"yes","confidence":0.9,"reason":"fits"}'))).toMatchObject({
      kind: 'final',
      outcome: { status: 'ok', label: 'yes', fields: { label: 'yes', confidence: '0.9', reason: 'fits' } },
    });
    expect(j(answer('{"label":"maybe"}'))).toMatchObject({ kind: 'retry', retryKind: 'invalid-output', fallback: { status: 'invalid_output' } });
    expect(j(answer('{"label": "yes", "confid'))).toMatchObject({ kind: 'retry', fallback: { status: 'invalid_output' } });
    expect(() => compileSchema({ type: 'array' }, 's.json')).toThrow(/top-level "type" must be "object"/);
  });
});

describe('Gemini requests per model (https://ai.google.dev/gemini-api/docs/thinking)', () => {
  const template = compileTemplate('Topic: {{t}}', ['t']);
  const build = (model: string, extra: { thinkingBudget?: number } = {}) =>
    (cells: string[], variant?: { moreOutput?: boolean }) => {
      const request = requestBuilder({ model, template, system: 'sys', labels: ['a', 'b'], schema: undefined, temperature: 0, maxOutputTokens: undefined, thinkingBudget: extra.thinkingBudget })(cells, variant);
      return { prompt: request.prompt, config: geminiCall(request).config };
    };

  it('enum output with thinking off on 2.5 Flash and Flash-Lite', () => {
    for (const model of ['gemini-2.5-flash', 'gemini-2.5-flash-lite']) {
      const r = build(model)(['x']);
      expect(r.config).toMatchObject({ responseMimeType: 'text/x.enum', responseSchema: { enum: ['a', 'b'] }, thinkingConfig: { thinkingBudget: 0 }, systemInstruction: 'sys' });
      expect(r.prompt).toBe('Topic: x');
    }
  });

  it('2.5 Pro cannot turn thinking off: its smallest budget; --thinking-budget overrides', () => {
    expect(build('gemini-2.5-pro')(['x']).config.thinkingConfig).toEqual({ thinkingBudget: 128 });
    expect(build('gemini-2.5-pro', { thinkingBudget: 1024 })(['x']).config.thinkingConfig).toEqual({ thinkingBudget: 1024 });
  });

  it('after MAX_TOKENS the retry asks for 4× the output and turns thinking off where allowed', () => {
    const flash = build('gemini-2.5-flash', { thinkingBudget: 512 })(['x'], { moreOutput: true });
    expect(flash.config.thinkingConfig).toEqual({ thinkingBudget: 0 });
    expect(flash.config.maxOutputTokens).toBeGreaterThanOrEqual(2048);
    const pro = build('gemini-2.5-pro')(['x'], { moreOutput: true });
    expect(pro.config.thinkingConfig).toEqual({ thinkingBudget: 128 });
  });
});

describe('templates', () => {
  it('{{ Name }} with spaces inside the braces names the column Name; exact names win', () => {
    const t = compileTemplate('[{{ Name }}] [{{ Code}}]', ['Name', 'Code', ' Code']);
    expect(t.render(['n', 'c', 'x'])).toBe('[n] [x]');
  });
  it('from a --prompt-file, names the file, line and column of each unknown placeholder (as other bad input)', () => {
    const compile = (source: string) => {
      try {
        compileTemplate(source, ['CIPTitle', 'CIPDefinition']);
      } catch (e) {
        return (e as UnknownColumnsError).inFile('badp.txt').message;
      }
      throw new Error('compiled');
    };
    expect(compile('Is this STEM?\r\n{{CIPTitle}}\r\nDefinition: {{CIPDefinitoin}}\n')).toMatch(/^badp\.txt:3:13: The prompt uses \{\{CIPDefinitoin\}\}.* Did you mean \{\{CIPDefinition\}\}\?/);
    const two = compile('{{Title}}\n  {{CIPDefinitoin}}');
    expect(two).toMatch(/^badp\.txt:1:1: The prompt uses 2 names/);
    expect(two).toContain('  badp.txt:2:3: {{CIPDefinitoin}}: did you mean {{CIPDefinition}}?');
  });

  it('an unknown placeholder suggests the nearest column', () => {
    expect(() => compileTemplate('{{Nmae}}', ['Name', 'Code'])).toThrow(/Did you mean \{\{Name\}\}/);
  });
});

describe('unknown placeholders', () => {
  it('are all reported at once, each with its nearest column, in order of first use', () => {
    let error: unknown;
    try {
      compileTemplate('{{Nmae}} {{Cdoe}} {{Nmae}} {{Zebra}} {{Price}}', ['Name', 'Code', 'Price']);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnknownColumnsError);
    const e = error as UnknownColumnsError;
    expect(e.code).toBe('TEMPLATE_UNKNOWN_COLUMN');
    expect(e.unknown).toEqual([
      { name: 'Nmae', nearest: 'Name', line: 1, column: 1 },
      { name: 'Cdoe', nearest: 'Code', line: 1, column: 10 },
      { name: 'Zebra', nearest: undefined, line: 1, column: 28 },
    ]);
    expect(e.message).toContain('3 names that are not columns');
    expect(e.message).toContain('{{Nmae}}: did you mean {{Name}}?');
    expect(e.message).toContain('{{Zebra}}: no column is close');
    expect(e.message).toContain('"Name", "Code", "Price"');
  });

  it('suggest --header-row N when a later record holds the placeholder names (a title row above the header)', () => {
    const error = (() => {
      try {
        compileTemplate('{{id}}: {{Topic}} {{notes}}', ['Quarterly report']);
      } catch (e) {
        return e as UnknownColumnsError;
      }
      throw new Error('no error');
    })();
    const records = [
      { line: 2, cells: ['printed 2024-01-01'] },
      { line: 3, cells: ['id', 'topic', ' notes '] },
      { line: 4, cells: ['1', 'id', ''] },
    ];
    expect(headerRowHint(error, records)).toBe('Line 3 holds "id", "topic", "notes": if it is the header (with a title above it), pass --header-row 3.');
    expect(headerRowHint(error, records, 'row')).toMatch(/^Row 3 holds/);
    expect(headerRowHint(error, [{ line: 2, cells: ['1', '2'] }])).toBeUndefined();
    expect(error.withHint('extra advice').message).toMatch(/\nextra advice$/);
  });
});
