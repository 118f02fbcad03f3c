/**
 * Issue 17: no import cycle in src/, type-only imports included (a type lives in the file that produces it; a file
 * that only reads it imports it from there). Imports are read with a parser (test/support/module-imports.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers } from './support/module-imports.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The src/ files a source imports by relative path (`./x.js` → `src/…/x.ts`), `import type` and re-exports included. */
function localImports(file: string, text: string): string[] {
  return importSpecifiers(file, text)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts'));
}

/** Every cycle's files (strongly connected components of more than one file, or a file importing itself), sorted. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    const at = index.size;
    index.set(v, at);
    low.set(v, at);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? at, low.get(w) ?? at));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? at, index.get(w) ?? at));
    }
    if (low.get(v) !== at) return;
    const component = stack.splice(stack.lastIndexOf(v));
    for (const w of component) onStack.delete(w);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function sourceGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const entry of readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    graph.set(file, localImports(file, readFileSync(path.join(root, file), 'utf8')));
  }
  return graph;
}

describe('import cycles', () => {
  it('finds a type-only cycle, a longer one and a self-import, and nothing in a chain', () => {
    const files = new Map([
      ['src/a/x.ts', "import type { Y } from './y.js';"],
      ['src/a/y.ts', "export { f } from './x.js';"],
      ['src/b/p.ts', "import { q } from './q.js';"],
      ['src/b/q.ts', "import { r } from '../c/r.js';"],
      ['src/c/r.ts', "import { p } from '../b/p.js';"],
      ['src/d/s.ts', "import { s } from './s.js';"],
      ['src/e/u.ts', "import { v } from './v.js'; import fs from 'node:fs';"],
      ['src/e/v.ts', 'export const v = 1;'],
    ]);
    const graph = new Map([...files].map(([file, text]) => [file, localImports(file, text)]));
    expect(cycles(graph).sort()).toEqual([['src/a/x.ts', 'src/a/y.ts'], ['src/b/p.ts', 'src/b/q.ts', 'src/c/r.ts'], ['src/d/s.ts']]);
  });

  it('src/ has none', () => {
    const graph = sourceGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });
});
