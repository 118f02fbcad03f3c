/**
 * Finds where a JSON path points in JSON text, so that a scenario error names line and column.
 * Only used on the error path; a small scanner, not a validating parser.
 */

/** One step of a JSON path: an object key or an array index. */
export type PathSegment = string | number;

/** `$.projects[0].limits["gemini-2.5-flash"].rpm` */
export function formatJsonPath(path: readonly PathSegment[]): string {
  let out = '$';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** 1-based line and column of offset `at` in `text`. */
function lineColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart + 1 };
}

class Found {
  constructor(readonly at: number) {}
}

/**
 * Line and column (1-based) of the value at `target` in `text` (of the key, for a path whose last key does
 * not exist), or undefined when the text is not JSON or the path is absent.
 */
export function locateJsonPath(text: string, target: readonly PathSegment[]): { line: number; column: number } | undefined {
  let i = 0;
  const path: PathSegment[] = [];
  const sameAs = (p: readonly PathSegment[]): boolean => p.length === target.length && p.every((s, k) => s === target[k]);
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): void => {
    ws();
    if (sameAs(path)) throw new Found(i);
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        const keyAt = i;
        const key = str();
        path.push(key);
        if (sameAs(path)) throw new Found(keyAt);
        ws();
        i++; // ':'
        value();
        path.pop();
        ws();
        if (text[i++] !== ',') return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (let k = 0; ; k++) {
        path.push(k);
        value();
        path.pop();
        ws();
        if (text[i++] !== ',') return;
      }
    }
    if (c === '"') return void str();
    while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
  };
  try {
    value();
  } catch (e) {
    if (e instanceof Found) return lineColumn(text, e.at);
    return undefined;
  }
  // The path's last key is absent: point at its parent.
  if (target.length > 0) return locateJsonPath(text, target.slice(0, -1));
  return undefined;
}

/**
 * Offset of the first JSON syntax error in `text` (a strict recursive-descent check), or undefined when the
 * text is valid. Used because V8's JSON.parse messages do not always carry a position.
 */
export function syntaxErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new Found(i);
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= text.length) fail();
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c.charCodeAt(0) < 0x20) fail();
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail();
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail();
      } else i++;
    }
  };
  const number = (): void => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '' || m[0] === '-') fail();
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    return number();
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return undefined;
  } catch (e) {
    if (e instanceof Found) return e.at;
    throw e;
  }
}

/** 1-based line and column of the first JSON syntax error in `text`, if any. */
export function locateSyntaxError(text: string): { line: number; column: number } | undefined {
  const at = syntaxErrorOffset(text);
  return at === undefined ? undefined : lineColumn(text, at);
}
