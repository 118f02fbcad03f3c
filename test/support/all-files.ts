/** Every file below a folder, for tests that read all a command wrote (e.g. to check that no key is in any of it). */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The paths of every file below `root`, in sub-folders too (folders themselves are not listed). */
export function allFiles(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const file = path.join(root, name);
    return statSync(file).isDirectory() ? allFiles(file) : [file];
  });
}
