/** The version of gemini-batch, from package.json (recorded in manifests, shown by --version). */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const TOOL_VERSION: string = (require('../package.json') as { version: string }).version;
