import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { jobFiles } from '../../src/journal/job-dir.js';
import { readManifest, sha256File, writeManifest, type AnswerSource, type Manifest } from '../../src/journal/manifest.js';
import { diffManifest } from '../../src/journal/manifest-diff.js';
import { tempDir } from './entries.js';

let dir: string;
let remove: () => void;
beforeEach(() => ({ dir, remove } = tempDir('gb-manifest-')));
afterEach(() => remove());

const PROMPT = 'We are a renewable-energy engineering firm. Would graduates of {{CIPTitle}} be a hiring target for us? Answer yes, no or maybe.';

function manifest(over: { input?: Partial<Manifest['input']>; settings?: Record<string, unknown>; version?: string } = {}): Manifest {
  return {
    format: 1,
    tool: { name: 'gemini-batch', version: over.version ?? '0.1.0' },
    createdAt: '2025-06-01T12:00:00.000Z',
    input: {
      path: 'data/topics.csv',
      size: 315_980,
      sha256: `3f2a${'0'.repeat(60)}`,
      records: 2848,
      columns: ['CIPCode', 'CIPTitle'],
      ...over.input,
    },
    settings: over.settings ?? {
      model: 'gemini-2.5-flash',
      prompt: PROMPT,
      system: null,
      labels: ['yes', 'no'],
      generationConfig: { temperature: 0, maxOutputTokens: 16 },
    },
  };
}

describe('manifest files', () => {
  it('reads back what it wrote, atomically replacing the old one', async () => {
    expect(await readManifest(dir)).toBeNull();
    expect(await readManifest(path.join(dir, 'missing'))).toBeNull();
    await writeManifest(dir, manifest());
    await writeManifest(dir, manifest({ version: '0.2.0' }));
    expect(await readManifest(dir)).toEqual(manifest({ version: '0.2.0' }));
    expect(fs.readdirSync(dir)).toEqual(['manifest.json']);
  });

  it.each([
    ['not JSON', '{"format":1,'],
    ['not an object', '[1]'],
    ['a newer format', JSON.stringify({ ...manifest(), format: 2 })],
    ['a bad sha256', JSON.stringify({ ...manifest(), input: { ...manifest().input, sha256: 'abc' } })],
    ['no settings', JSON.stringify({ ...manifest(), settings: undefined })],
  ])('refuses a manifest that is %s', async (_what, text) => {
    fs.writeFileSync(jobFiles(dir).manifest, text);
    const error = await readManifest(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe('JOURNAL_MANIFEST_INVALID');
    expect((error as InputError).exitCode).toBe(2);
    expect((error as InputError).file).toBe(jobFiles(dir).manifest);
  });

  it('says to upgrade for a manifest of a newer format', async () => {
    fs.writeFileSync(jobFiles(dir).manifest, JSON.stringify({ ...manifest(), format: 2 }));
    await expect(readManifest(dir)).rejects.toThrow(/newer gemini-batch/);
  });
});

describe('sha256File', () => {
  it('hashes a file in chunks like crypto does at once', async () => {
    const file = path.join(dir, 'big.bin');
    const data = Buffer.alloc(1_000_003);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) & 0xff;
    fs.writeFileSync(file, data);
    expect(await sha256File(file)).toEqual({ sha256: createHash('sha256').update(data).digest('hex'), size: data.length });
  });

  it('hashes an empty file', async () => {
    const file = path.join(dir, 'empty.csv');
    fs.writeFileSync(file, '');
    expect(await sha256File(file)).toEqual({ sha256: createHash('sha256').digest('hex'), size: 0 });
  });

  it('names a missing file', async () => {
    await expect(sha256File(path.join(dir, 'nope.csv'))).rejects.toMatchObject({ code: 'INPUT_UNREADABLE', exitCode: 2 });
  });
});

describe('diffManifest', () => {
  it('finds no difference between equal manifests, whatever the key order', () => {
    const a = manifest();
    const b = manifest({ settings: { generationConfig: { maxOutputTokens: 16, temperature: 0 }, labels: ['yes', 'no'], system: null, prompt: PROMPT, model: 'gemini-2.5-flash' } });
    expect(diffManifest(a, b)).toEqual({ blocking: [], notes: [] });
  });

  it('does not block on a changed input, other records or columns: rows are matched to answers by fingerprint (issue 12)', () => {
    const b = manifest({ input: { size: 316_002, sha256: `9b1c${'0'.repeat(60)}`, records: 2847, columns: ['CIPCode', 'Title'] } });
    expect(diffManifest(manifest(), b)).toEqual({ blocking: [], notes: [] });
  });

  it('notes an input read differently', () => {
    const reading = { format: 'csv', delimiter: ';', headerRow: 1 };
    const a = manifest({ input: { reading } });
    const b = manifest({ input: { reading: { ...reading, delimiter: ',' } } });
    expect(diffManifest(a, b).notes).toEqual(['input read differently (reading.delimiter: ";" → ","): rows are matched to their answers by their prompt inputs']);
  });

  it('blocks on each setting that changes answers, by path', () => {
    const a = manifest();
    const b = manifest({
      settings: {
        model: 'gemini-2.5-pro',
        prompt: PROMPT.replace('{{CIPTitle}}', '{{CIPDefinition}}'),
        system: 'Be brief.',
        labels: ['yes', 'no', 'maybe'],
        generationConfig: { temperature: 0.2, maxOutputTokens: 16 },
        schema: { type: 'object' },
      },
    });
    expect(diffManifest(a, b).blocking).toEqual([
      'model: "gemini-2.5-flash" → "gemini-2.5-pro"',
      'prompt changed at character 69: "…Would graduates of {{CIPTitle}} be a hiring targ…" → "…Would graduates of {{CIPDefinition}} be a hiring…"',
      'system: null → "Be brief."',
      'labels: yes,no → yes,no,maybe',
      'generationConfig.temperature: 0 → 0.2',
      'schema: (none) → {"type":"object"}',
    ]);
  });

  it('shows multi-line prompts with escaped line breaks', () => {
    const a = manifest({ settings: { prompt: 'Classify:\n{{Name}}\nAnswer yes or no.' } });
    const b = manifest({ settings: { prompt: 'Classify:\n{{Name}}\nAnswer yes, no or maybe.' } });
    expect(diffManifest(a, b).blocking).toEqual(['prompt changed at character 30: "…ify:\\n{{Name}}\\nAnswer yes or no." → "…ify:\\n{{Name}}\\nAnswer yes, no or maybe."']);
  });

  it('summarizes long label lists by what was added and removed', () => {
    const labels = Array.from({ length: 40 }, (_, i) => `category ${i}`);
    const a = manifest({ settings: { labels } });
    const b = manifest({ settings: { labels: [...labels.slice(1), 'other'] } });
    expect(diffManifest(a, b).blocking).toEqual(['labels: 40 → 40 items; added "other"; removed "category 0"']);
  });

  it('compares examples item by item', () => {
    const a = manifest({ settings: { examples: [{ input: 'a', output: 'yes' }, { input: 'b', output: 'no' }] } });
    const b = manifest({ settings: { examples: [{ input: 'a', output: 'yes' }, { input: 'b', output: 'yes' }] } });
    const c = manifest({ settings: { examples: [{ input: 'a', output: 'yes' }] } });
    expect(diffManifest(a, b).blocking).toEqual(['examples[1].output: "no" → "yes"']);
    expect(diffManifest(a, c).blocking).toEqual(['examples: 2 items → 1 items']);
  });

  it('only notes a moved input and another tool version', () => {
    const b = manifest({ input: { path: 'archive/topics.csv' }, version: '0.2.0' });
    expect(diffManifest(manifest(), b)).toEqual({
      blocking: [],
      notes: ['input moved: data/topics.csv → archive/topics.csv', 'written by gemini-batch 0.1.0, this is 0.2.0'],
    });
  });

  describe('where the answers come from (issue 11 item 1)', () => {
    const api: AnswerSource = { kind: 'api', provider: 'gemini', endpoint: 'generativelanguage.googleapis.com', model: 'gemini-2.5-flash' };
    const simulated: AnswerSource = { kind: 'simulator', provider: 'gemini', endpoint: 'built-in', model: 'gemini-2.5-flash' };
    const withSource = (source: AnswerSource | undefined): Manifest => ({ ...manifest(), source, input: { ...manifest().input, rowFingerprint: 'prompt-columns' } });

    it('blocks simulated answers from being taken for real ones, and says so plainly', () => {
      expect(diffManifest(withSource(simulated), withSource(api)).blocking).toEqual([
        'answers came from the built-in simulator (--simulate: made-up answers); this run would send to the Gemini API at generativelanguage.googleapis.com: simulated answers are never mixed with real ones',
      ]);
    });

    it('blocks another endpoint host and another model', () => {
      const other = { ...api, endpoint: '127.0.0.1:8765', model: 'gemini-2.5-pro' };
      expect(diffManifest(withSource(api), withSource(other)).blocking).toEqual([
        'answers came from the Gemini API at generativelanguage.googleapis.com; this run would send to the Gemini API at 127.0.0.1:8765',
        'model: "gemini-2.5-flash" → "gemini-2.5-pro"',
      ]);
    });

    it('blocks a manifest that does not say where its answers came from', () => {
      expect(diffManifest(withSource(undefined), withSource(api)).blocking).toEqual([
        'the manifest does not say where its answers came from (written by an earlier gemini-batch); this run would send to the Gemini API at generativelanguage.googleapis.com',
      ]);
    });

    it('compares fields added later one by one', () => {
      const flex = { ...api, serviceTier: 'flex' } as AnswerSource;
      expect(diffManifest(withSource(api), withSource(flex)).blocking).toEqual(['source.serviceTier: (none) → "flex"']);
      expect(diffManifest(withSource(api), withSource({ ...api })).blocking).toEqual([]);
    });
  });
});
