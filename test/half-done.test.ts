// A half-done exercise must not pass its check. For every chapter and every block its
// exercise stubs, the learner's folder is the reference with that one block still a TODO
// (every other one written): `--check` must fail and say which stub it ran into. A block
// no scenario reaches would pass here, and the chapter's check would not test it.
// (Plausible half-done solutions, a TODO filled in with a shortcut, and breakages of any
// line are the self-check's two catalogues: src/tooling/shortcuts.ts and mutations.ts, run
// by `npm run selfcheck`.)

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Chalk } from 'chalk';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir } from '../src/chapters.ts';
import { ROOT } from '../src/runner/scenarios.ts';
import { checkExercise } from '../src/runner/exercise-cli.ts';
import { hintsFor, exerciseHeader } from '../src/tooling/exercise.ts';
import { isEmptyBody, loadAgentSources } from '../src/tooling/generate.ts';
import { renderChapter, renderExercise } from '../src/tooling/markers.ts';
import { makeProjectScratch } from './temp-guard.ts';

const plain = new Chalk({ level: 0 });
const sources = await loadAgentSources(ROOT);   // parsed once: every test renders from the same src/agent/

for (const ch of WRITTEN_CHAPTERS) {
  describe(`chapter ${ch.n}: one TODO left, the rest written`, async () => {
    // One folder per chapter, the reference written once: each test writes its one stubbed
    // file over the reference's, and puts the reference's back when it ends. (The tests of a
    // describe run one after another; the check loads whatever the folder holds then.) A
    // folder of this run's own, in the project where the imports resolve: another run of the
    // tests in the same checkout at the same time has its own.
    let dir = '';
    const written = (name: string, body: string) => writeFileSync(path.join(dir, name), `${exerciseHeader(ch, name, path.relative(ROOT, dir))}\n${body}`);
    const reference = sources.filter((source) => !isEmptyBody(renderChapter(source.marked, ch.n)));
    beforeAll(() => {
      dir = makeProjectScratch(ROOT, `half-done-${chapterDir(ch)}-`);
      for (const source of reference) written(source.name, renderChapter(source.marked, ch.n));
    });
    afterAll(() => { if (dir !== '') rmSync(dir, { recursive: true, force: true }); });

    for (const block of await hintsFor(ROOT, ch.n)) {
      it(`TODO(${block.name}) left in ${block.file}: the check fails and names it`, async () => {
        const source = reference.find((s) => s.name === block.file)!;
        written(block.file, renderExercise(source.marked, ch.n, block.name));
        try {
          let report = '';
          const code = await checkExercise(ch, dir, (s) => { report += `${s}\n`; }, plain);
          expect(code, report).toBe(1);
          expect(report).toContain(`still a stub: TODO(${block.name})`);
          // A stub leaves type errors the learner never made: the check does not show them.
          expect(report).not.toContain('type errors');
        } finally {
          written(block.file, renderChapter(source.marked, ch.n));
        }
      }, 60_000);
    }
  });
}
