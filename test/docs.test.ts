// The docs cannot drift from the code: every written chapter has its doc, the index
// links it, and every generated region (code, diff, transcript) is what the generator
// would write now.

import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir } from '../src/chapters.ts';
import { ROOT } from '../src/runner/scenarios.ts';
import { defaultResolvers, fillAllDocs } from '../src/tooling/docs.ts';
import { docTranscript } from '../src/runner/doc-transcript.ts';

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

  it('every generated region (code, diff, transcript) is fresh: run npm run gen if this fails', async () => {
    const stale = await fillAllDocs(ROOT, defaultResolvers(ROOT, docTranscript), { write: false });
    expect(stale.map((d) => `${d.path} ${d.firstDifference}`)).toEqual([]);
  });
});
