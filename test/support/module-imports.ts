/**
 * The module specifiers a TypeScript source imports, read with a real parser (oxc-parser's module record), not a
 * regex: static imports (`import type` included), re-exports (`export … from`, `export * from`) and `import('…')`
 * with a string literal. Used by the tests of the import graph (test/import-cycles.test.ts,
 * test/providers/import-boundary.test.ts). oxc-parser loads in ~10 ms; the TypeScript compiler's `preProcessFile`,
 * used before, cost ~0.7 s of CPU to load in each test worker and gave the same specifiers for every file of src/ and
 * test/ (checked on all 397), save a `require('../package.json')` that is no ESM import.
 */
import { parseSync } from 'oxc-parser';

/**
 * Every distinct specifier `text` imports, in first-seen order.
 * @param file the file's name (its extension picks the syntax: `.ts`, `.tsx`, `.mts`…).
 * @throws Error when the source does not parse (a test's own synthetic source with a typo, say).
 */
export function importSpecifiers(file: string, text: string): string[] {
  const parsed = parseSync(file, text);
  const error = parsed.errors[0];
  if (error) throw new Error(`${file} does not parse: ${error.message}`);
  const { staticImports, staticExports, dynamicImports } = parsed.module;
  const specs = [
    ...staticImports.map((i) => i.moduleRequest.value),
    ...staticExports.flatMap((e) => e.entries.flatMap((entry) => (entry.moduleRequest ? [entry.moduleRequest.value] : []))),
    ...dynamicImports.flatMap((d) => {
      const literal = /^(['"`])([^'"`$]*)\1$/.exec(text.slice(d.moduleRequest.start, d.moduleRequest.end));
      return literal ? [literal[2] as string] : [];
    }),
  ];
  return [...new Set(specs)];
}
