// A small line diff: Myers' O(ND) shortest edit script, printed as a unified diff
// (`---`/`+++` headers, `@@` hunks with context). Used for the chapter-to-chapter
// diffs in the docs. It is not a general diff tool: no options besides the context
// size and the lines a file has above the diffed text, no word diffs, no patch application. Same input, same output, always.

import { splitLinesKeepEnds } from './markers.ts';

export type EditKind = ' ' | '-' | '+';

export interface Edit {
  kind: EditKind;
  line: string;       // with its terminator, if it had one
  oldIndex: number;   // 0-based count of old lines before this edit
  newIndex: number;   // 0-based count of new lines before this edit
}

/** The shortest edit script turning `a` into `b`; deletions come before insertions. */
export function diffLines(a: readonly string[], b: readonly string[]): Edit[] {
  const trace = shortestEditTrace(a, b);
  return backtrack(trace, a, b);
}

// Myers' forward search. v[k] is the furthest x reached on diagonal k = x - y;
// we keep a copy of v per edit distance d so the path can be walked back.
function shortestEditTrace(a: readonly string[], b: readonly string[]): Int32Array[] {
  const max = a.length + b.length;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      const fromAbove = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number));
      let x = fromAbove ? (v[offset + k + 1] as number) : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= a.length && y >= b.length) return trace;
    }
  }
  return trace;
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[]): Edit[] {
  const offset = a.length + b.length + 1;
  const reversed: Array<{ kind: EditKind; x: number; y: number }> = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d] as Int32Array;
    const k = x - y;
    const fromAbove = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number));
    const prevK = fromAbove ? k + 1 : k - 1;
    const prevX = v[offset + prevK] as number;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      reversed.push({ kind: ' ', x: x - 1, y: y - 1 });
      x--;
      y--;
    }
    if (d === 0) break;
    if (x === prevX) {
      reversed.push({ kind: '+', x, y: y - 1 });
      y--;
    } else {
      reversed.push({ kind: '-', x: x - 1, y });
      x--;
    }
  }
  return reversed.reverse().map(({ kind, x: ox, y: oy }) => ({
    kind,
    line: (kind === '+' ? b[oy] : a[ox]) as string,
    oldIndex: ox,
    newIndex: oy,
  }));
}

/** Group edits into hunks: each change with `context` unchanged lines around it, close ones merged. */
export function hunks(edits: readonly Edit[], context: number): Edit[][] {
  const result: Edit[][] = [];
  let i = 0;
  while (i < edits.length) {
    if ((edits[i] as Edit).kind === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let lastChange = i;
    let j = i;
    while (j < edits.length) {
      if ((edits[j] as Edit).kind !== ' ') {
        lastChange = j;
        j++;
        continue;
      }
      let runEnd = j;
      while (runEnd < edits.length && (edits[runEnd] as Edit).kind === ' ') runEnd++;
      // Two changes separated by at most 2×context equal lines share one hunk.
      if (runEnd < edits.length && runEnd - j <= 2 * context) j = runEnd;
      else break;
    }
    const stop = Math.min(edits.length, lastChange + 1 + context);
    result.push(edits.slice(start, stop));
    i = stop;
  }
  return result;
}

/**
 * Lines each side's file has above the text that was diffed (a snapshot's GENERATED header,
 * left out of the diff by design): added to the hunks' line numbers, so that they point at
 * the lines of the file the reader opens.
 */
export interface LinesAbove { old: number; new: number }
const NONE_ABOVE: LinesAbove = { old: 0, new: 0 };

function hunkHeader(hunk: readonly Edit[], above: LinesAbove): string {
  const first = hunk[0] as Edit;
  const oldCount = hunk.filter((e) => e.kind !== '+').length;
  const newCount = hunk.filter((e) => e.kind !== '-').length;
  // An empty side names the line before it (0 for "before the first line").
  const oldStart = above.old + (oldCount === 0 ? first.oldIndex : first.oldIndex + 1);
  const newStart = above.new + (newCount === 0 ? first.newIndex : first.newIndex + 1);
  const span = (start: number, count: number): string => (count === 1 ? `${start}` : `${start},${count}`);
  return `@@ -${span(oldStart, oldCount)} +${span(newStart, newCount)} @@\n`;
}

function printEdit(edit: Edit): string {
  if (edit.line.endsWith('\n')) return edit.kind + edit.line;
  return `${edit.kind}${edit.line}\n\\ No newline at end of file\n`;
}

/**
 * Only the hunks of the diff from `oldText` to `newText` that change lines `start`..`end`
 * (0-based, of the new text): the `@@` hunks with their context, no file headers, or ''
 * when none of those lines changed. For showing how one block replaced earlier code.
 */
export function hunksTouching(oldText: string, newText: string, start: number, end: number, above = NONE_ABOVE, context = 3): string {
  const edits = diffLines(splitLinesKeepEnds(oldText), splitLinesKeepEnds(newText));
  let out = '';
  for (const hunk of hunks(edits, context)) {
    if (!hunk.some((e) => e.kind !== ' ' && e.newIndex >= start && e.newIndex <= end)) continue;
    out += hunkHeader(hunk, above);
    for (const edit of hunk) out += printEdit(edit);
  }
  return out;
}

/**
 * A unified diff of two texts, or '' when they are equal. An added or removed file
 * is just an empty side; the caller picks the labels (e.g. `/dev/null`).
 */
export function unifiedDiff(oldText: string, newText: string, oldLabel: string, newLabel: string, above = NONE_ABOVE, context = 3): string {
  if (oldText === newText) return '';
  const edits = diffLines(splitLinesKeepEnds(oldText), splitLinesKeepEnds(newText));
  let out = `--- ${oldLabel}\n+++ ${newLabel}\n`;
  for (const hunk of hunks(edits, context)) {
    out += hunkHeader(hunk, above);
    for (const edit of hunk) out += printEdit(edit);
  }
  return out;
}
