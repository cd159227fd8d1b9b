// A strict JSON reader for scenario files. It accepts exactly what JSON.parse accepts and
// builds the same values, and it tells two things JSON.parse cannot: where a mistake is
// (V8's messages often name no position: "Unexpected token '}'"), and a key written twice
// in one object, which JSON.parse merges silently (the last wins, the first is lost).
// Every error carries the character offset and, for a repeated key, the JSON path of the
// object that holds it.
//
// What it is not: a general JSON library. No reviver, no comments, no trailing commas (JSON
// has none), no streaming; nesting deeper than MAX_DEPTH is refused rather than run into
// the call stack's limit.

export class JsonError extends Error {
  /** Character offset (UTF-16 index) of the mistake. */
  readonly pos: number;
  /** For a repeated key: the JSON path of the object that holds it. */
  readonly path?: string;
  readonly key?: string;
  constructor(message: string, pos: number, path?: string, key?: string) {
    super(message);
    this.name = 'JsonError';
    this.pos = pos;
    this.path = path;
    this.key = key;
  }
}

export const MAX_DEPTH = 256;

/** `$.tracks.main` or `$.files["src/a.ts"]`: JSON path spelling of one more step. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
/** A whole well-formed string literal. */
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
/** What ends a run of plain string characters: a quote, a backslash, a control character. */
const SPECIAL = /["\\\u0000-\u001f]/g;

/** Parses `text` as JSON. Throws JsonError naming the first mistake. */
export function parseStrictJson(text: string): unknown {
  let i = 0;

  const describe = (at: number): string => {
    if (at >= text.length) return 'the end of the text';
    const c = text.codePointAt(at)!;
    const shown = String.fromCodePoint(c);
    return c < 0x20 || c === 0x7f || (c >= 0x80 && /\p{C}|\p{Z}/u.test(shown)) ? `U+${c.toString(16).toUpperCase().padStart(4, '0')}` : JSON.stringify(shown);
  };
  const fail = (what: string, at = i): never => {
    throw new JsonError(what, at);
  };
  const space = (): void => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else return;
    }
  };

  const string = (): string => {
    const start = i;   // at the opening quote
    // The usual case in one native match: a well-formed literal.
    STRING.lastIndex = i;
    let whole: RegExpExecArray | null = null;
    try { whole = STRING.exec(text); } catch { /* a string of megabytes: too long for the regex engine's stack */ }
    if (whole) {
      i += whole[0].length;
      return whole[0].includes('\\') ? (JSON.parse(whole[0]) as string) : whole[0].slice(1, -1);
    }
    // Otherwise walk it to name the first mistake.
    i++;
    let escaped = false;
    for (;;) {
      // Jump to the next character that needs a look (native regex search: scenario files
      // hold strings of a few hundred kilobytes).
      SPECIAL.lastIndex = i;
      if (!SPECIAL.test(text)) fail('a string that never ends (missing closing ")', start);
      i = SPECIAL.lastIndex - 1;
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail(`a raw control character (${describe(i)}) inside a string: write it as an escape such as \\n or \\t`);
      if (c === 0x5c) {
        escaped = true;
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('\\u must be followed by four hex digits');
          i += 6;
          continue;
        }
        if (e === undefined || !ESCAPES.has(e)) fail(`an unknown escape \\${e ?? ''} (JSON knows \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)`);
        i += 2;
        continue;
      }
      i++;
    }
    i++;   // the closing quote
    // The literal is valid by now: JSON.parse turns its escapes into characters exactly.
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };

  const value = (path: string, depth: number): unknown => {
    space();
    const c = text[i];
    if (c === '{') return object(path, depth + 1);
    if (c === '[') return array(path, depth + 1);
    if (c === '"') return string();
    if (c === 't' && text.startsWith('true', i)) { i += 4; return true; }
    if (c === 'f' && text.startsWith('false', i)) { i += 5; return false; }
    if (c === 'n' && text.startsWith('null', i)) { i += 4; return null; }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) fail('a malformed number');
      const after = text[i + m![0].length];
      if (after !== undefined && /[0-9.eE+-]/.test(after)) fail(`a malformed number (${JSON.stringify(text.slice(i, i + m![0].length + 1))}: no leading zeros, digits after "." and "e")`);
      i += m![0].length;
      return Number(m![0]);
    }
    return fail(i >= text.length ? 'the text ends where a value should be' : `expected a value (an object, array, string, number, true, false or null), found ${describe(i)}`);
  };

  const object = (path: string, depth: number): Record<string, unknown> => {
    if (depth > MAX_DEPTH) fail(`nested more than ${MAX_DEPTH} levels deep`);
    i++;   // {
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    space();
    if (text[i] === '}') { i++; return out; }
    for (;;) {
      space();
      if (text[i] !== '"') fail(text[i] === '}' ? 'a comma before "}" (JSON allows no trailing comma)' : `expected a key in double quotes, found ${describe(i)}`);
      const at = i;
      const key = string();
      if (seen.has(key)) throw new JsonError(`duplicate key ${JSON.stringify(key)}`, at, path, key);
      seen.add(key);
      space();
      if (text[i] !== ':') fail(`expected ":" after the key ${JSON.stringify(key)}, found ${describe(i)}`);
      i++;
      const v = value(childPath(path, key), depth);
      // A key named __proto__ is an own property in JSON.parse's result, not the prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
      else out[key] = v;
      space();
      if (text[i] === ',') { i++; continue; }
      if (text[i] === '}') { i++; return out; }
      fail(`expected "," or "}" after the value of ${JSON.stringify(key)}, found ${describe(i)}`);
    }
  };

  const array = (path: string, depth: number): unknown[] => {
    if (depth > MAX_DEPTH) fail(`nested more than ${MAX_DEPTH} levels deep`);
    i++;   // [
    const out: unknown[] = [];
    space();
    if (text[i] === ']') { i++; return out; }
    for (;;) {
      space();
      if (text[i] === ']') fail('a comma before "]" (JSON allows no trailing comma)');
      out.push(value(childPath(path, out.length), depth));
      space();
      if (text[i] === ',') { i++; continue; }
      if (text[i] === ']') { i++; return out; }
      fail(`expected "," or "]" after element ${out.length - 1}, found ${describe(i)}`);
    }
  };

  const result = value('$', 0);
  space();
  if (i < text.length) fail(`unexpected ${describe(i)} after the end of the JSON value`);
  return result;
}
