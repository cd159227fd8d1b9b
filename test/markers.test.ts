// Tests for the chapter-marker parser and renderers (src/tooling/markers.ts), on the
// small fake sources in test/fixtures/markers/. Not the generator's file handling:
// that is generate.test.ts.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHAPTERS } from '../src/chapters.ts';
import {
  MarkerError, blockText, blocks, exerciseBlocks, parseMarked, renderChapter, renderExercise,
} from '../src/tooling/markers.ts';

// The table's last chapter: the messages name the table's span, which grows with the series.
const LAST = CHAPTERS.at(-1)!.n;

// Fixtures end in .ts.txt so the type-checker leaves these deliberately odd files alone.
function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/markers/${name}.ts.txt`, import.meta.url), 'utf8');
}

function parseFixture(name: string) {
  return parseMarked(fixture(name), `${name}.ts`);
}

function parseError(name: string): string {
  try {
    parseFixture(name);
  } catch (err) {
    expect(err).toBeInstanceOf(MarkerError);
    return (err as Error).message;
  }
  throw new Error(`${name} parsed without error`);
}

describe('renderChapter', () => {
  it('drops a block before its first chapter and keeps it from then on', () => {
    const m = parseFixture('single');
    const without = '// A fixture with one block: b exists from chapter 3 on.\nconst a = 1;\nexport { a };\n';
    const withB = '// A fixture with one block: b exists from chapter 3 on.\nconst a = 1;\nconst b = 2;\nexport { a };\n';
    expect(renderChapter(m, 1)).toBe(without);
    expect(renderChapter(m, 2)).toBe(without);
    expect(renderChapter(m, 3)).toBe(withB);
    expect(renderChapter(m, 14)).toBe(withB);
  });

  it('honours both ends of a range block', () => {
    const m = parseFixture('range');
    expect(renderChapter(m, 1)).toBe('export const always = true;\n');
    for (const n of [2, 3, 4]) {
      expect(renderChapter(m, n)).toBe("export const always = true;\nexport const middle = 'chapters 2 to 4';\n");
    }
    expect(renderChapter(m, 5)).toBe("export const always = true;\nexport const middle = 'chapter 5 on';\n");
  });

  it('shows a nested block only where its own and its parent range hold', () => {
    const m = parseFixture('nested');
    const lineSets: Record<number, string[]> = {
      1: [],
      2: ['  total += 1;\n'],
      3: ['  total += 1;\n', '    total += 10;\n'],
      4: ['  total += 1;\n', '    total += 10;\n'],
      5: ['  total += 1;\n'],
      6: ['  total += 1;\n', '    total += 100;\n'],
      10: ['  total += 1;\n', '    total += 100;\n'],
      11: [], // the open-ended inner block ends with its parent
    };
    for (const [n, inner] of Object.entries(lineSets)) {
      const expected = ['export function outer(): number {\n', '  let total = 0;\n', ...inner, '  return total;\n', '}\n'].join('');
      expect(renderChapter(m, Number(n)), `chapter ${n}`).toBe(expected);
    }
  });

  it('strips hint lines and markers, indented or not', () => {
    const out = renderChapter(parseFixture('hints'), 14);
    expect(out).not.toMatch(/\/\/[<>!]/);
    expect(out).toContain("  const trimmed = input.trim();\n  const parts: string[] = [];\n");
    expect(out).toContain('    parts.sort();\n');
  });

  it('keeps every other byte as it was (CRLF, tabs, no final newline)', () => {
    const text = 'a\r\n\t//> 2 b\r\n\tkeep\t \r\n\t//<\r\nlast';
    const m = parseMarked(text, 'crlf.ts');
    expect(renderChapter(m, 1)).toBe('a\r\nlast');
    expect(renderChapter(m, 2)).toBe('a\r\n\tkeep\t \r\nlast');
  });
});

describe('blocks and blockText', () => {
  it('lists blocks with range, lines, hints and nesting', () => {
    const list = blocks(parseFixture('nested'));
    expect(list.map((b) => b.name)).toEqual(['outer-block', 'inner-early', 'inner-late']);
    expect(list[0]).toMatchObject({
      range: { first: 2, last: 10 }, openLine: 3, closeLine: 11, parent: null, children: ['inner-early', 'inner-late'],
    });
    expect(list[1]).toMatchObject({ range: { first: 3, last: 4 }, openLine: 5, closeLine: 7, parent: 'outer-block' });
    expect(list[2]).toMatchObject({ range: { first: 6, last: null }, indent: '    ' });
    const hinted = blocks(parseFixture('hints')).find((b) => b.name === 'split');
    expect(hinted?.hints).toEqual(['Split on commas,', 'and drop empty parts.']);
  });

  it('returns a block as one chapter sees it, dedented, markers gone', () => {
    const m = parseFixture('nested');
    expect(blockText(m, 'outer-block', 3)).toBe('total += 1;\n  total += 10;');
    expect(blockText(m, 'outer-block', 6)).toBe('total += 1;\n  total += 100;');
    expect(blockText(parseFixture('hints'), 'split', 4)).toBe(
      "for (const p of trimmed.split(',')) if (p) parts.push(p);\n  parts.sort();",
    );
  });

  it('refuses an unknown block or a chapter that does not have it', () => {
    const m = parseFixture('nested');
    expect(() => blockText(m, 'nope', 3)).toThrow("nested.ts: no block named 'nope'");
    expect(() => blockText(m, 'inner-late', 11)).toThrow("nested.ts:8: block 'inner-late' is not part of chapter 11");
  });
});

describe('renderExercise', () => {
  it("stubs exactly the hinted blocks that open in the chapter, keeping indentation and scaffolding", () => {
    const m = parseFixture('hints');
    expect(renderExercise(m, 4)).toBe(
      [
        '// Exercise fixture: what chapter 4 leaves to the reader.',
        'export function solve(input: string): string {',
        '  const trimmed = input.trim();',
        '  const parts: string[] = [];',
        '  // TODO(split): Split on commas, and drop empty parts.',
        "  throw new Error('TODO(split): not implemented yet');",
        '  // TODO(join): Join with a dash.',
        "  throw new Error('TODO(join): not implemented yet');",
        '}',
        '',
      ].join('\n'),
    );
    expect(exerciseBlocks(m, 4).map((b) => b.name)).toEqual(['split', 'join']);
  });

  it('stubs an earlier chapter\'s block in that chapter only, and a top-level one unindented', () => {
    const m = parseFixture('hints');
    const two = renderExercise(m, 2);
    expect(two).toContain("  // TODO(parse): Trim the input.\n  throw new Error('TODO(parse): not implemented yet');\n");
    expect(two).not.toContain('parts');
    expect(renderExercise(m, 6)).toContain("// TODO(extra-tool): Chapter 6 adds this.\nthrow new Error('TODO(extra-tool): not implemented yet');\n");
    expect(renderExercise(m, 6)).toContain("for (const p of trimmed.split(','))");
  });

  it('equals the snapshot when the chapter has no hinted blocks', () => {
    const m = parseFixture('hints');
    expect(renderExercise(m, 5)).toBe(renderChapter(m, 5));
    expect(exerciseBlocks(m, 5)).toEqual([]);
  });
});

describe('marker errors: one line, file:line: what is wrong', () => {
  const cases: Array<[string, string]> = [
    ['err-unclosed', "err-unclosed.ts:1: block 'open-one' is never closed (add '//<' before the end of the file)"],
    ['err-stray-close', "err-stray-close.ts:2: stray '//<': no block is open"],
    ['err-close-mismatch', "err-close-mismatch.ts:4: '//< first' does not match the open block 'second' (opened at line 2)"],
    ['err-backwards', "err-backwards.ts:2: range 5-3 of block 'backwards' runs backwards"],
    ['err-no-range', "err-no-range.ts:1: malformed opening marker '//> x': expected '//> N name' or '//> N-M name'"],
    ['err-no-name', "err-no-name.ts:1: malformed opening marker '//> 3': expected '//> N name' or '//> N-M name'"],
    ['err-chapter-0', `err-chapter-0.ts:1: chapter 0 in '//> 0 too-early' is not in the chapter table (1-${LAST})`],
    ['err-chapter-99', `err-chapter-99.ts:1: chapter 99 in '//> 2-99 too-late' is not in the chapter table (1-${LAST})`],
    ['err-duplicate', "err-duplicate.ts:4: duplicate block name 'twice' (first opened at line 1)"],
    [
      'err-nested-before',
      "err-nested-before.ts:2: block 'child' (chapters 3+) lies outside its parent 'parent' (chapters 5-8): those chapters could never show it",
    ],
    [
      'err-nested-after',
      "err-nested-after.ts:2: block 'child' (chapters 6-9) lies outside its parent 'parent' (chapters 5-8): those chapters could never show it",
    ],
    [
      'err-nested-outside',
      "err-nested-outside.ts:2: block 'child' (chapters 7+) lies outside its parent 'parent' (chapters 2-3): those chapters could never show it",
    ],
    ['err-hint-misplaced', "err-hint-misplaced.ts:3: hint is not directly after an opening marker (hints go right below '//> N name')"],
    ['err-hint-malformed', "err-hint-malformed.ts:2: malformed hint '//! note: not a hint': expected '//! hint: text'"],
  ];
  for (const [name, message] of cases) {
    it(name, () => {
      const got = parseError(name);
      expect(got).toBe(message);
      expect(got).not.toContain('\n');
    });
  }

  it('rejects a hint after a closing marker and a malformed closer', () => {
    expect(() => parseMarked('//> 2 a\n//<\n//! hint: x\n', 'f.ts')).toThrow('f.ts:3: hint is not directly after');
    expect(() => parseMarked('//> 2 a\n//< a b\n', 'f.ts')).toThrow("f.ts:2: malformed closing marker '//< a b'");
  });
});
