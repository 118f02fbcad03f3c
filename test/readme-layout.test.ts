/**
 * Issue 17: the README's layout picture ("How it is built") names every folder of src/ (and of src/providers/) and
 * every file at the root of src/, and nothing that is not there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The names the picture gives, by indentation: `name/` or `name.ts` at two spaces (src/) and four (src/providers/). */
function pictured(readme: string): { src: string[]; providers: string[] } {
  const start = readme.indexOf('```\nsrc/\n');
  if (start < 0) return { src: [], providers: [] };
  const block = readme.slice(start + 4, readme.indexOf('```', start + 4));
  const at = (indent: number): string[] =>
    [...block.matchAll(new RegExp(`^ {${indent}}([\\w.-]+/|[\\w.-]+\\.ts)`, 'gm'))].map((m) => (m[1] ?? '').replace(/\/$/, '')).sort();
  return { src: at(2), providers: at(4) };
}

/** Folders and .ts files directly in `dir` (files only when `files`). */
function entries(dir: string, files: boolean): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() || (files && e.isFile() && e.name.endsWith('.ts')))
    .map((e) => e.name)
    .sort();
}

describe("the README's layout picture", () => {
  it('reads names at their indentation and nothing else', () => {
    const text = 'x\n```\nsrc/\n  a.ts        one\n  b/          two, see c/ and d.ts\n    e/        three\n```\n';
    expect(pictured(text)).toEqual({ src: ['a.ts', 'b'], providers: ['e'] });
    expect(pictured('no picture')).toEqual({ src: [], providers: [] });
  });

  it('is true of src/', () => {
    const picture = pictured(readFileSync(path.join(root, 'README.md'), 'utf8'));
    expect(picture.src).toEqual(entries('src', true));
    expect(picture.providers).toEqual(entries('src/providers', false));
  });
});
