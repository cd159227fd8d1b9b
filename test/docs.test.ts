// Every written chapter has its doc, in the common shape, linked from the index and the
// README, and within the limits that keep it readable in one sitting. That the docs'
// generated regions (code, diff, transcript, tables) are fresh is checked in
// scenario-suite.ts, which shares its chapter runs with the transcripts.

import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir } from '../src/chapters.ts';
import { ROOT } from '../src/runner/scenarios.ts';

describe('chapter docs', () => {
  for (const ch of WRITTEN_CHAPTERS) {
    it(`chapter ${ch.n} has docs/${chapterDir(ch)}.md, linked from the index and the README`, () => {
      const doc = path.join(ROOT, 'docs', `${chapterDir(ch)}.md`);
      expect(existsSync(doc)).toBe(true);
      const text = readFileSync(doc, 'utf8');
      for (const heading of ['## The problem', '## Run the previous chapter', '## What this chapter adds', '## Run it', '## How it works', '## What the real Claude Code does', '## Exercises', '## What comes next']) {
        if (ch.n === 1 && heading === '## What this chapter adds') continue;
        expect(text, `${heading} in docs/${chapterDir(ch)}.md`).toContain(heading);
      }
      expect(readFileSync(path.join(ROOT, 'docs', 'README.md'), 'utf8')).toContain(`](${chapterDir(ch)}.md)`);
      expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(`](docs/${chapterDir(ch)}.md)`);
    });
  }
});

describe('the chapter tables', () => {
  for (const [file, toDocs] of [['README.md', 'docs/'], ['docs/README.md', '']] as const) {
    it(`${file} lists every written chapter, in order, with its title and line from src/chapters.ts`, () => {
      const rows = readFileSync(path.join(ROOT, file), 'utf8').split('\n').filter((l) => /^\| \d+ +\| \[/.test(l));
      expect(rows).toEqual(WRITTEN_CHAPTERS.map((ch) => `| ${String(ch.n).padEnd(2)} | [${ch.title}](${toDocs}${chapterDir(ch)}.md) | ${ch.canNow} |`));
    });
  }
});

// The limits of a chapter doc: one sitting's reading.
const MAX_LINES = 450;
const MAX_BLOCK = 60;        // lines inside one code or transcript block
const MAX_TRANSCRIPTS = 2;   // the previous chapter falling short, and this chapter's demo

/** What in one doc breaks the limits, one line each; [] when it keeps them. */
function overLimits(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();   // the last line's newline starts no line
  const problems: string[] = [];
  if (lines.length > MAX_LINES) problems.push(`${lines.length} lines (at most ${MAX_LINES})`);
  let transcripts = 0;
  let fence: { mark: string; at: number } | null = null;
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    const mark = /^(`{3,}|~{3,})/.exec(trimmed)?.[1];
    if (fence !== null) {
      if (mark !== undefined && mark[0] === fence.mark[0] && mark.length >= fence.mark.length && trimmed === mark) {
        const inside = i - fence.at - 1;
        if (inside > MAX_BLOCK) problems.push(`the block at line ${fence.at + 1} has ${inside} lines (at most ${MAX_BLOCK})`);
        fence = null;
      }
      return;
    }
    if (mark !== undefined) fence = { mark, at: i };
    else if (/^<!--\s*run:/.test(trimmed)) transcripts++;
  });
  if (transcripts > MAX_TRANSCRIPTS) problems.push(`${transcripts} transcripts (at most ${MAX_TRANSCRIPTS})`);
  return problems;
}

describe('chapter doc limits', () => {
  it('counts lines, long blocks and transcripts', () => {
    const block = (n: number) => ['```text', ...Array.from({ length: n }, () => 'x'), '```'];
    expect(overLimits(block(60).join('\n'))).toEqual([]);
    expect(overLimits(['intro', ...block(61)].join('\n'))).toEqual(['the block at line 2 has 61 lines (at most 60)']);
    const run = ['<!-- run: 1 demo -->', ...block(1), '<!-- /run -->'];
    expect(overLimits([...run, ...run].join('\n'))).toEqual([]);
    expect(overLimits([...run, ...run, ...run].join('\n'))).toEqual(['3 transcripts (at most 2)']);
    expect(overLimits(['````md', '<!-- run: 1 demo -->', '````'].join('\n'))).toEqual([]);   // shown, not a region
    expect(overLimits('x\n'.repeat(450))).toEqual([]);
    expect(overLimits('x\n'.repeat(451))).toEqual(['451 lines (at most 450)']);
  });
  for (const ch of WRITTEN_CHAPTERS) {
    const name = `docs/${chapterDir(ch)}.md`;
    const text = () => readFileSync(path.join(ROOT, ...name.split('/')), 'utf8');
    it(`${name}: at most ${MAX_LINES} lines, no block over ${MAX_BLOCK} lines, at most ${MAX_TRANSCRIPTS} transcripts`, () => {
      expect(overLimits(text())).toEqual([]);
    });
  }
});
