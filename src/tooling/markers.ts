// Chapter markers: parse one marked source file (`//> N name`, `//! hint: …`, `//<`)
// and render it as a given chapter sees it — as a snapshot, as an exercise stub, or
// as one named block for a doc snippet.
// This file is pure text in, text out. It does not read files, know about chapter
// folders or write anything: generate.ts, exercise.ts and docs.ts do that.

import { CHAPTERS, findChapter } from '../chapters.ts';

/** A problem in a marked file. The message is one line: `file:line: what is wrong`. */
export class MarkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MarkerError';
  }
}

/** Chapters `first` to `last` inclusive; `last: null` means "to the last chapter". */
export interface ChapterRange {
  first: number;
  last: number | null;
}

export interface Block {
  name: string;
  range: ChapterRange;
  openLine: number;          // 1-based line of `//> …`
  closeLine: number;         // 1-based line of `//<`
  indent: string;            // the opener's leading whitespace, reused by exercise stubs
  hints: string[];
  parent: string | null;
  children: string[];        // directly nested blocks, in source order
}

export type LineKind = 'code' | 'open' | 'hint' | 'close';

export interface SourceLine {
  text: string;              // the line exactly as in the file, terminator included
  kind: LineKind;
  enclosing: readonly string[];  // names of the blocks holding this line, outermost first
  block: string | null;      // for open/hint/close lines: the block the marker belongs to
}

export interface MarkedFile {
  file: string;
  lines: readonly SourceLine[];
  blocks: readonly Block[];
}

// A block name is what docs write after `#`, so it stays simple: no spaces, no `#`.
const OPENER = /^\/\/>\s+(\d+)(?:-(\d+))?\s+([A-Za-z_][\w.-]*)$/;
const CLOSER = /^\/\/<(?:\s+([A-Za-z_][\w.-]*))?$/;
const HINT = /^\/\/!\s+hint:\s*(.*)$/;

export function inRange(range: ChapterRange, n: number): boolean {
  return n >= range.first && (range.last === null || n <= range.last);
}

export function formatRange(range: ChapterRange): string {
  if (range.last === null) return `${range.first}+`;
  return range.first === range.last ? `${range.first}` : `${range.first}-${range.last}`;
}

/** Split keeping each line's own terminator, so rendering can stay byte-exact. */
export function splitLinesKeepEnds(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function withoutTerminator(line: string): string {
  return line.replace(/\r?\n$/, '');
}

function chapterTableSpan(): string {
  return `${CHAPTERS[0]?.n ?? 1}-${CHAPTERS[CHAPTERS.length - 1]?.n ?? 1}`;
}

export function parseMarked(text: string, file: string): MarkedFile {
  const fail = (line: number, what: string): never => {
    throw new MarkerError(`${file}:${line}: ${what}`);
  };
  const lines: SourceLine[] = [];
  const blocks: Block[] = [];
  const byName = new Map<string, Block>();
  const open: Block[] = [];
  // Hints are only legal in the run of lines right after an opener.
  let hintsGoTo: Block | null = null;

  splitLinesKeepEnds(text).forEach((raw, index) => {
    const lineNo = index + 1;
    const content = withoutTerminator(raw);
    const marker = content.trim();
    const enclosingNow = (): string[] => open.map((b) => b.name);

    if (marker.startsWith('//>')) {
      const m = OPENER.exec(marker);
      if (!m) return fail(lineNo, `malformed opening marker '${marker}': expected '//> N name' or '//> N-M name'`);
      const first = Number(m[1]);
      const last = m[2] === undefined ? null : Number(m[2]);
      const name = m[3] as string;
      for (const n of [first, last]) {
        if (n !== null && !findChapter(n)) {
          fail(lineNo, `chapter ${n} in '${marker}' is not in the chapter table (${chapterTableSpan()})`);
        }
      }
      if (last !== null && last < first) fail(lineNo, `range ${first}-${last} of block '${name}' runs backwards`);
      const earlier = byName.get(name);
      if (earlier) fail(lineNo, `duplicate block name '${name}' (first opened at line ${earlier.openLine})`);
      const range: ChapterRange = { first, last };
      const parent = open[open.length - 1] ?? null;
      if (parent) checkNestedRange(parent, name, range, (what) => fail(lineNo, what));
      const block: Block = {
        name, range, openLine: lineNo, closeLine: 0,
        indent: /^\s*/.exec(content)?.[0] ?? '',
        hints: [], parent: parent?.name ?? null, children: [],
      };
      parent?.children.push(name);
      blocks.push(block);
      byName.set(name, block);
      open.push(block);
      lines.push({ text: raw, kind: 'open', enclosing: enclosingNow(), block: name });
      hintsGoTo = block;
      return;
    }

    if (marker.startsWith('//!')) {
      const m = HINT.exec(marker);
      if (!m) return fail(lineNo, `malformed hint '${marker}': expected '//! hint: text'`);
      if (!hintsGoTo) return fail(lineNo, `hint is not directly after an opening marker (hints go right below '//> N name')`);
      const hint = (m[1] as string).trim();
      if (hint === '') fail(lineNo, `empty hint for block '${hintsGoTo.name}'`);
      hintsGoTo.hints.push(hint);
      lines.push({ text: raw, kind: 'hint', enclosing: enclosingNow(), block: hintsGoTo.name });
      return;
    }
    hintsGoTo = null;

    if (marker.startsWith('//<')) {
      const m = CLOSER.exec(marker);
      if (!m) return fail(lineNo, `malformed closing marker '${marker}': expected '//<' or '//< name'`);
      const innermost = open[open.length - 1];
      if (!innermost) return fail(lineNo, `stray '//<': no block is open`);
      const named = m[1];
      if (named !== undefined && named !== innermost.name) {
        fail(lineNo, `'//< ${named}' does not match the open block '${innermost.name}' (opened at line ${innermost.openLine})`);
      }
      lines.push({ text: raw, kind: 'close', enclosing: enclosingNow(), block: innermost.name });
      innermost.closeLine = lineNo;
      open.pop();
      return;
    }

    lines.push({ text: raw, kind: 'code', enclosing: enclosingNow(), block: null });
  });

  const unclosed = open[open.length - 1];
  if (unclosed) fail(unclosed.openLine, `block '${unclosed.name}' is never closed (add '//<' before the end of the file)`);
  return { file, lines, blocks };
}

// A nested block shows only where its parent shows too. Chapters it names outside
// the parent's range could never appear, so saying them is a mistake. An open end
// ("from N on") is fine: it simply ends with the parent.
function checkNestedRange(parent: Block, name: string, range: ChapterRange, fail: (what: string) => void): void {
  const startsInside = inRange(parent.range, range.first);
  const endsInside = range.last === null || parent.range.last === null || range.last <= parent.range.last;
  if (!startsInside || !endsInside) {
    fail(
      `block '${name}' (chapters ${formatRange(range)}) lies outside its parent '${parent.name}' ` +
        `(chapters ${formatRange(parent.range)}): those chapters could never show it`,
    );
  }
}

function blockMap(m: MarkedFile): Map<string, Block> {
  return new Map(m.blocks.map((b) => [b.name, b]));
}

function allHold(names: readonly string[], byName: Map<string, Block>, n: number): boolean {
  return names.every((name) => {
    const block = byName.get(name);
    return block !== undefined && inRange(block.range, n);
  });
}

/** The file as chapter n sees it: code of every block whose ranges (all of them) hold. */
export function renderChapter(m: MarkedFile, n: number): string {
  const byName = blockMap(m);
  return m.lines
    .filter((line) => line.kind === 'code' && allHold(line.enclosing, byName, n))
    .map((line) => line.text)
    .join('');
}

function ancestry(block: Block, byName: Map<string, Block>): string[] {
  const names: string[] = [];
  for (let b: Block | undefined = block; b; b = b.parent === null ? undefined : byName.get(b.parent)) {
    names.unshift(b.name);
  }
  return names;
}

/**
 * The blocks chapter n's exercise leaves for the reader: present in chapter n,
 * opening exactly at n, with hints — and not inside another such block (that one's
 * stub already swallows it).
 */
export function exerciseBlocks(m: MarkedFile, n: number): Block[] {
  const byName = blockMap(m);
  const stubbed = new Set<string>();
  for (const block of m.blocks) {
    const path = ancestry(block, byName);
    if (!allHold(path, byName, n)) continue;
    if (block.range.first !== n || block.hints.length === 0) continue;
    if (path.slice(0, -1).some((name) => stubbed.has(name))) continue;
    stubbed.add(block.name);
  }
  return m.blocks.filter((b) => stubbed.has(b.name));
}

/**
 * Like renderChapter, but the chapter's own hinted blocks become TODO stubs (`only`: just
 * that one, the rest written: a half-done exercise, as the tests hand one to the check).
 */
export function renderExercise(m: MarkedFile, n: number, only?: string): string {
  const byName = blockMap(m);
  const stubbed = new Set(exerciseBlocks(m, n).map((b) => b.name).filter((name) => only === undefined || name === only));
  const out: string[] = [];
  let skipping: string | null = null;
  for (const line of m.lines) {
    if (skipping !== null) {
      if (line.kind === 'close' && line.block === skipping) skipping = null;
      continue;
    }
    if (line.kind === 'open' && line.block !== null && stubbed.has(line.block)) {
      const block = byName.get(line.block) as Block;
      const eol = line.text.endsWith('\r\n') ? '\r\n' : '\n';
      out.push(`${block.indent}// TODO(${block.name}): ${block.hints.join(' ')}${eol}`);
      out.push(`${block.indent}throw new Error('TODO(${block.name}): not implemented yet');${eol}`);
      skipping = block.name;
      continue;
    }
    if (line.kind === 'code' && allHold(line.enclosing, byName, n)) out.push(line.text);
  }
  return out.join('');
}

/** Every block in source order (nested ones included). */
export function blocks(m: MarkedFile): readonly Block[] {
  return m.blocks;
}

/** One block's code as chapter n sees it, dedented and without a trailing newline: a doc snippet. */
export function blockText(m: MarkedFile, name: string, n: number): string {
  const byName = blockMap(m);
  const block = byName.get(name);
  if (!block) throw new MarkerError(`${m.file}: no block named '${name}'`);
  if (!allHold(ancestry(block, byName), byName, n)) {
    throw new MarkerError(`${m.file}:${block.openLine}: block '${name}' is not part of chapter ${n}`);
  }
  const inside = m.lines
    .slice(block.openLine, block.closeLine - 1)
    .filter((line) => line.kind === 'code' && allHold(line.enclosing, byName, n))
    .map((line) => withoutTerminator(line.text));
  const text = dedent(inside);
  while (text[0] === '') text.shift();
  return text.join('\n').replace(/\s+$/, '');
}

/**
 * Where one block's code sits in renderChapter(m, n): the 0-based indices of its first
 * and last line there (`end` < `start` when the block has no code in chapter n).
 */
export function blockSpan(m: MarkedFile, name: string, n: number): { start: number; end: number } {
  const byName = blockMap(m);
  const block = byName.get(name);
  if (!block) throw new MarkerError(`${m.file}: no block named '${name}'`);
  if (!allHold(ancestry(block, byName), byName, n)) {
    throw new MarkerError(`${m.file}:${block.openLine}: block '${name}' is not part of chapter ${n}`);
  }
  let index = 0;
  let start = -1;
  let end = -2;
  for (const line of m.lines) {
    if (line.kind !== 'code' || !allHold(line.enclosing, byName, n)) continue;
    if (line.enclosing.includes(name)) {
      if (start === -1) start = index;
      end = index;
    }
    index++;
  }
  return start === -1 ? { start: 0, end: -1 } : { start, end };
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0);
  const cut = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((l) => (l.trim() === '' ? '' : l.slice(cut)));
}
