import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { jobFiles } from '../../src/journal/job-dir.js';
import { diffManifest, readManifest, sha256File, writeManifest, type Manifest } from '../../src/journal/manifest.js';
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

  it('blocks on a changed input file, with sizes and hash prefixes', () => {
    const b = manifest({ input: { size: 316_002, sha256: `9b1c${'0'.repeat(60)}` } });
    expect(diffManifest(manifest(), b).blocking).toEqual(['input file changed: size 315,980 → 316,002 bytes, sha256 3f2a… → 9b1c…']);
    const same = manifest({ input: { sha256: `9b1c${'0'.repeat(60)}` } });
    expect(diffManifest(manifest(), same).blocking).toEqual(['input file changed: same size (315,980 bytes), sha256 3f2a… → 9b1c…']);
  });

  it('blocks when the same file is read into other records or columns', () => {
    const b = manifest({ input: { records: 2847, columns: ['CIPCode', 'Title'] } });
    expect(diffManifest(manifest(), b).blocking).toEqual(['input records: 2,848 → 2,847', 'input columns: CIPCode,CIPTitle → CIPCode,Title']);
    expect(diffManifest(manifest(), manifest({ input: { records: null } })).blocking).toEqual([]);
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
});
