/**
 * Where a JSON path points in JSON text, and where JSON text stops being JSON, so that a scenario error names line and
 * column. Only used on the error path. jsonc-parser reads the text (`parseTree` + `findNodeAtLocation`, with comments
 * and trailing commas refused, as JSON.parse refuses them): https://github.com/microsoft/node-jsonc-parser.
 */
import { findNodeAtLocation, parseTree, type Node, type ParseError } from 'jsonc-parser';

/** One step of a JSON path: an object key or an array index. */
export type PathSegment = string | number;

/** Strict JSON: what JSON.parse accepts. */
const STRICT = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false } as const;

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
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1 };
}

/**
 * Line and column (1-based) of what `target` names in `text`: an object member's key, an array element's value; for a
 * path whose last key does not exist, of the nearest ancestor that does. Undefined when the text is not JSON or no
 * part of the path exists.
 */
export function locateJsonPath(text: string, target: readonly PathSegment[]): { line: number; column: number } | undefined {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, STRICT);
  if (root === undefined || errors.length > 0) return undefined;
  for (let depth = target.length; depth >= 0; depth--) {
    const node: Node | undefined = findNodeAtLocation(root, [...target.slice(0, depth)]);
    if (node === undefined) continue;
    // A member's value: point at its key, where the eye looks for the field.
    return lineColumn(text, node.parent?.type === 'property' ? node.parent.offset : node.offset);
  }
  return undefined;
}

/**
 * 1-based line and column of the first JSON syntax error in `text`, or undefined when the text is JSON. Used because
 * V8's JSON.parse messages do not always carry a position.
 */
export function locateSyntaxError(text: string): { line: number; column: number } | undefined {
  const errors: ParseError[] = [];
  parseTree(text, errors, STRICT);
  const first = errors[0];
  return first === undefined ? undefined : lineColumn(text, first.offset);
}
