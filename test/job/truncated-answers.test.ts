/**
 * Issue 11 item 3: a free-form answer cut by the output limit (finishReason MAX_TOKENS) is not `ok`. It ends
 * `invalid_output` with the reason, after one retry with more room where more room can help.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerJudge } from '../../src/answers/judge-answer.js';
import type { ModelAnswer } from '../../src/providers/contract.js';
import { runMain } from '../support/run-main.js';

const cut = (thoughts: number): ModelAnswer => ({
  text: 'Le service de livraison',
  finish: 'length',
  finishDetail: 'MAX_TOKENS',
  blocked: undefined,
  usage: { inputTokens: 40, outputTokens: 5, reasoningTokens: thoughts },
});

describe('judging a free-text answer cut at maxOutputTokens', () => {
  it('a cap the user gave, filled by the text alone: invalid_output at once, naming the cap', () => {
    const v = answerJudge({ kind: 'text', maxOutputTokens: 5 })(cut(0));
    expect(v).toMatchObject({ kind: 'final', outcome: { status: 'invalid_output', label: null, raw: 'Le service de livraison', finishReason: 'MAX_TOKENS' } });
    if (v.kind === 'final') expect(v.outcome.error).toMatch(/cut at maxOutputTokens .*raise --max-output-tokens \(now 5\)/);
  });

  it('thinking took the room, or the limit was not the user’s: one retry with more room, then invalid_output', () => {
    for (const v of [answerJudge({ kind: 'text', maxOutputTokens: 200 })(cut(190)), answerJudge({ kind: 'text' })(cut(0))]) {
      expect(v).toMatchObject({ kind: 'retry', retryKind: 'max-tokens', variant: { moreOutput: true }, fallback: { status: 'invalid_output' } });
    }
  });

  it('a whole answer is ok, as before', () => {
    expect(answerJudge({ kind: 'text', maxOutputTokens: 5 })({ ...cut(0), finish: 'stop', finishDetail: 'STOP' })).toMatchObject({ kind: 'final', outcome: { status: 'ok', label: 'Le service de livraison' } });
  });
});

describe('classify --max-output-tokens 5 without labels (the reported run)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-cut-'));
    fs.writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: 12 }, (_, i) => `${i},a long paragraph about delivery number ${i}`).join('\n')}\n`);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ends every cut row invalid_output with the reason, exit 1', async () => {
    const result = await runMain(['classify', 'rows.csv', '--prompt', 'Rewrite in French: {{text}}', '--max-output-tokens', '5', '--simulate', '-o', 'out.csv'], { cwd: dir });
    expect(result.code).toBe(1);
    const rows = parse<Record<string, string>>(fs.readFileSync(path.join(dir, 'out.csv'), 'utf8'), { columns: true, bom: true });
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      expect(row.status).toBe('invalid_output');
      expect(row.error).toContain('finishReason MAX_TOKENS');
    }
  });
});
