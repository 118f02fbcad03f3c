/**
 * The seam (issue 13): no file outside a provider adapter (src/providers/<adapter>/) imports a provider SDK
 * (`@google/genai`, `openai`, `google-auth-library`) or an adapter's module — static, type-only and dynamic imports
 * alike. Only src/providers/create-provider.ts, which maps --provider names to adapters, may import adapters; and an
 * adapter imports no other adapter. Imports are read with a parser (test/support/module-imports.ts), not a regex.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers } from '../support/module-imports.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SDKS = ['@google/genai', 'openai', 'google-auth-library'];
/** The one file that knows every adapter. */
const FACTORY = 'src/providers/create-provider.ts';

/** The adapter a repository path belongs to (`gemini` for src/providers/gemini/…), or undefined. */
function adapterOf(file: string): string | undefined {
  return /^src\/providers\/([^/]+)\//.exec(file)?.[1];
}

/** The rule, over files given as repository path → text. Returns one line per breach. */
function boundaryBreaches(files: ReadonlyMap<string, string>): string[] {
  const breaches: string[] = [];
  for (const [file, text] of files) {
    const own = adapterOf(file);
    for (const spec of importSpecifiers(file, text)) {
      const sdk = SDKS.find((name) => spec === name || spec.startsWith(`${name}/`));
      if (sdk && own === undefined) breaches.push(`${file} imports the provider SDK ${spec}`);
      if (!spec.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      const theirs = adapterOf(target);
      if (theirs !== undefined && theirs !== own && file !== FACTORY) breaches.push(`${file} imports ${target}, a module of the ${theirs} adapter`);
    }
  }
  return breaches;
}

function sourceFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) for (const [k, v] of sourceFiles(rel)) out.set(k, v);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) out.set(rel, readFileSync(path.join(root, rel), 'utf8'));
  }
  return out;
}

describe('the provider seam', () => {
  it('no file outside an adapter imports a provider SDK or an adapter module', () => {
    const files = sourceFiles('src');
    expect(files.size).toBeGreaterThan(100);
    // The adapters exist and do use their SDK: the rule is not vacuous.
    expect([...files].some(([f, t]) => adapterOf(f) === 'gemini' && importSpecifiers(f, t).includes('@google/genai'))).toBe(true);
    expect(boundaryBreaches(files)).toEqual([]);
  });

  it('catches each kind of breach: SDK, SDK types, a dynamic import, another adapter, a neutral file reaching into one', () => {
    const files = new Map([
      ['src/schedule/a.ts', "import { GoogleGenAI } from '@google/genai';"],
      ['src/answers/b.ts', "import type { GenerateContentResponse } from '@google/genai';"],
      ['src/job/c.ts', "const m = await import('openai');"],
      ['src/job/d.ts', "import { readAnswer } from '../providers/gemini/read-answer.js';"],
      ['src/providers/openai/e.ts', "import { geminiCall } from '../gemini/gemini-request.js';"],
      ['src/simulator/f.ts', "import { OAuth2Client } from 'google-auth-library';"],
      // Allowed: an adapter using its SDK and the neutral contract; the factory loading adapters; neutral imports.
      ['src/providers/gemini/g.ts', "import { GoogleGenAI } from '@google/genai';\nimport type { ModelAnswer } from '../contract.js';"],
      [FACTORY, "const g = await import('./gemini/provider.js');"],
      ['src/schedule/h.ts', "import type { ModelCaller } from '../providers/contract.js';"],
    ]);
    expect(boundaryBreaches(files)).toEqual([
      'src/schedule/a.ts imports the provider SDK @google/genai',
      'src/answers/b.ts imports the provider SDK @google/genai',
      'src/job/c.ts imports the provider SDK openai',
      'src/job/d.ts imports src/providers/gemini/read-answer.js, a module of the gemini adapter',
      'src/providers/openai/e.ts imports src/providers/gemini/gemini-request.js, a module of the gemini adapter',
      'src/simulator/f.ts imports the provider SDK google-auth-library',
    ]);
  });
});
