/**
 * Test helper: transpiles source files to runnable ESM JavaScript in a temporary directory (typescript's
 * transpileModule, no type check), so a child process can run them without a build.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** Writes `<outDir>/src/<file>.js` for each path relative to `src/` (e.g. `journal/journal.ts`). */
export function transpileSources(outDir: string, files: string[]): void {
  fs.writeFileSync(path.join(outDir, 'package.json'), '{"type":"module"}\n');
  for (const file of files) {
    const source = fs.readFileSync(path.join(repoRoot, 'src', file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      fileName: file,
    });
    const out = path.join(outDir, 'src', file.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, outputText);
  }
}
