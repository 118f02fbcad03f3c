/**
 * Bad input as a newcomer meets it, through the CLI in-process: every case is exit 2 before any request, with a
 * message that names the file and says what to do (issue 12, "Input and prompts").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTestWorkbook } from '../input/make-xlsx.js';
import { runMain } from '../support/run-main.js';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-input-errors-'));
  writeFileSync(path.join(dir, 'header-only.csv'), 'id,topic\r\n');
  writeFileSync(path.join(dir, 'archive.csv'), gzipSync(Buffer.from('id,topic\n1,Invoices\n'.repeat(200))));
  writeFileSync(path.join(dir, 'titled.csv'), 'Tickets exported 2024-05-01\n\nid,subject,body\n1,Refund,Please refund\n2,Late,Where is it\n');
  writeFileSync(path.join(dir, 'ragged.csv'), 'id,subject,body\n1,a,b\n2,c\n3,d,e,f\n4,g,h\n5\n');
  await writeTestWorkbook(path.join(dir, 'book.xlsx'));
  writeFileSync(path.join(dir, 'rows.csv'), 'id,topic\n1,Invoices\n');
  writeFileSync(path.join(dir, 'empty-prompt.txt'), '');
  writeFileSync(path.join(dir, 'png-prompt.txt'), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(600, 1)]));
  writeFileSync(path.join(dir, 'latin1-prompt.txt'), Buffer.from('Is this about money?\nThème: {{topic}}\n', 'latin1'));
  writeFileSync(path.join(dir, 'unclosed-prompt.txt'), 'Is this about money?\nTopic: {{topic\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const classify = (input: string, ...rest: string[]) => runMain(['classify', input, '--labels', 'a,b', '--simulate', ...rest], { cwd: dir });

describe('input errors (exit 2, before any request)', () => {
  it('a file with a header and no data rows names the file; nothing is written', async () => {
    for (const command of ['classify', 'plan']) {
      const result = await runMain([command, 'header-only.csv', '--prompt', '{{topic}}', '--labels', 'a,b', '--simulate'], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('header-only.csv: the file has a header');
      expect(result.stderr).toContain('no data rows');
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(path.join(dir, 'header-only.classified.csv'))).toBe(false);
  });

  it('a binary file named .csv says what it looks like, not to try --encoding', async () => {
    const result = await classify('archive.csv', '--prompt', '{{topic}}');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('archive.csv: it looks like a gzip archive, not text');
    expect(result.stderr).not.toContain('--encoding');
  });

  it('every unknown placeholder at once, each with its nearest column, and --header-row N for a title row', async () => {
    const result = await classify('titled.csv', '--prompt', '{{id}} {{subject}}: {{bdy}}');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('3 names that are not columns');
    for (const name of ['{{id}}', '{{subject}}', '{{bdy}}']) expect(result.stderr).toContain(`${name}: no column is close`);
    expect(result.stderr).toContain('Line 3 holds "id", "subject", "body": if it is the header (with a title above it), pass --header-row 3.');
    const fixed = await classify('titled.csv', '--prompt', '{{id}} {{subject}}: {{body}}', '--header-row', '3');
    expect(fixed.code).toBe(0);
  });

  it('a prompt file that is empty, binary, not UTF-8 or opens {{ without closing it: named with the place, exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['--prompt-file', 'empty-prompt.txt'], '--prompt-file empty-prompt.txt is empty.'],
      [['--prompt-file', 'png-prompt.txt'], 'png-prompt.txt: the file given to --prompt-file looks like a PNG image, not text'],
      [['--prompt-file', 'latin1-prompt.txt'], 'latin1-prompt.txt:2:3: the file given to --prompt-file is not UTF-8 text (byte 0xe8)'],
      [['--prompt-file', 'unclosed-prompt.txt'], 'unclosed-prompt.txt:2:8: the prompt opens a placeholder with "{{" at line 2, column 8 and never closes it'],
      [['--prompt', '{{topic'], 'the prompt opens a placeholder with "{{" at line 1, column 1 and never closes it'],
      [['--prompt', '{{topic}}', '--system-file', 'png-prompt.txt'], 'png-prompt.txt: the file given to --system-file looks like a PNG image'],
    ];
    for (const [args, message] of cases) {
      const result = await classify('rows.csv', ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it('an unknown option or command is named in two lines, not followed by the whole help', async () => {
    for (const args of [['classify', 'rows.csv', '--prompt', '{{topic}}', '--labels', 'a,b', '--frobnicate'], ['frob']]) {
      const result = await runMain(args, { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: unknown (option '--frobnicate'|command 'frob')\n\(add --help to see the options\)\n$/);
      expect(result.stdout).toBe('');
    }
  });

  it('an XLSX sheet with a title row gets the same advice, by sheet row', async () => {
    const result = await classify('book.xlsx', '--sheet', 'Data', '--prompt', '{{Code}} {{Nmae}}');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Row 3 holds "Code", "Name"');
    expect(result.stderr).toContain('pass --header-row 3.');
  });

  it('a ragged file names each bad line with its field count', async () => {
    const result = await classify('ragged.csv', '--prompt', '{{subject}}');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ragged.csv:3: 3 records have another number of fields than the header (line 1, 3 fields): line 3 has 2, line 4 has 4, line 6 has 1.');
  });
});
