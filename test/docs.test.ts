// Every written chapter has its doc, in the common shape, linked from the index and the
// README. That the docs' generated regions (code, diff, transcript) are fresh is checked
// in scenarios.test.ts, which shares its chapter runs with the transcripts.

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
