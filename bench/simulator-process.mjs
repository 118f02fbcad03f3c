// Starts `gemini-batch simulate` in its own process on a free port and resolves its URL once it listens.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'gemini-batch.js');

/** @returns {Promise<{ child: import('node:child_process').ChildProcess, url: string }>} */
export function startSimulatorProcess(scenarioFile) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'simulate', '--port', '0', '--config', scenarioFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(text);
      if (m) resolve({ child, url: m[0] });
    });
    child.on('exit', (code) => reject(new Error(`simulator exited ${code}: ${text}`)));
  });
}
