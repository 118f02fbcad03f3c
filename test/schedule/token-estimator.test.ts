/**
 * The token estimator calibrates itself from usageMetadata.promptTokenCount: after 20 answers its estimate is within
 * ±10 % for 95 % of rows, on English, German and Japanese text. The simulator's tokenizer (o200k, a real subword
 * tokenizer) stands in for Gemini's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { TokenEstimator, tokenFeatures } from '../../src/schedule/token-estimator.js';
import { countTokens } from '../../src/simulator/tokenizer.js';
import { repoRoot } from '../support/fixtures.js';

const template = (text: string) => `Does this skill group directly align with our company's purpose (a B2B software company)?\nSkill: ${text}\nAnswer yes or no.`;

function lines(name: string): string[] {
  return readFileSync(path.join(repoRoot, 'test', 'fixtures', 'text', name), 'utf8').trim().split('\n');
}

const english = parse<Record<string, string>>(readFileSync(path.join(repoRoot, 'samples', 'topics.csv')), { columns: true })
  .map((r) => `${r['Level 3 preferred term'] || r['Level 2 preferred term']}: ${r.Description}`)
  .filter((t) => t.length > 20)
  .slice(0, 120);

describe.each([
  ['English (ESCO descriptions)', english],
  ['German', lines('de-skills.txt')],
  ['Japanese', lines('ja-skills.txt')],
])('TokenEstimator on %s', (_name, texts) => {
  it('after 20 answers, estimates are within ±10 % of promptTokenCount for at least 95 % of the other rows', () => {
    const rows = texts.map((t) => {
      const prompt = template(t);
      return { x: tokenFeatures(prompt), y: countTokens(prompt) };
    });
    const estimator = new TokenEstimator();
    for (const r of rows.slice(0, 20)) estimator.observe(r.x, r.y);
    const rest = rows.slice(20);
    expect(rest.length).toBeGreaterThanOrEqual(40);
    const within = rest.filter((r) => Math.abs(estimator.estimate(r.x) - r.y) <= 0.1 * r.y).length;
    expect(within / rest.length).toBeGreaterThanOrEqual(0.95);
  });

  it('calibration improves on the prior', () => {
    const rows = texts.map((t) => ({ x: tokenFeatures(template(t)), y: countTokens(template(t)) }));
    const prior = new TokenEstimator();
    const calibrated = new TokenEstimator();
    for (const r of rows.slice(0, 20)) calibrated.observe(r.x, r.y);
    const error = (e: TokenEstimator) => rows.slice(20).reduce((s, r) => s + Math.abs(e.estimate(r.x) - r.y) / r.y, 0);
    expect(error(calibrated)).toBeLessThan(error(prior));
  });
});
