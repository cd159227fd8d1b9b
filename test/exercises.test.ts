// Classroom mode, proved in both directions for every written chapter: the exercise
// (the chapter's own code as TODO stubs) fails its check and names a behaviour; the
// reference snapshot copied in passes it.

import { describe, it, expect } from 'vitest';
import { Chalk } from 'chalk';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir } from '../src/chapters.ts';
import { ROOT, snapshotDir } from '../src/runner/scenarios.ts';
import { makeExercise, checkExercise } from '../src/runner/exercise-cli.ts';
import { hintsFor } from '../src/tooling/exercise.ts';

const plain = new Chalk({ level: 0 });

for (const ch of WRITTEN_CHAPTERS) {
  describe(`chapter ${ch.n} exercise`, () => {
    it('has at least one hinted block to write', async () => {
      expect((await hintsFor(ROOT, ch.n)).length).toBeGreaterThan(0);
    });

    it('the stub fails its check with a named behaviour and a hint; the reference passes', async () => {
      const dir = path.join(ROOT, '.tmp', 'exercise-tests', chapterDir(ch));
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(path.dirname(dir), { recursive: true });
      try {
        const quiet = () => {};
        expect(await makeExercise(ch, dir, quiet)).toBe(0);
        let report = '';
        const stubCode = await checkExercise(ch, dir, (s) => { report += `${s}\n`; }, plain);
        expect(stubCode).toBe(1);
        expect(report).toMatch(/still a stub: TODO\(|missing behaviour: /);
        expect(report).toMatch(/hint: \S/);

        // The reference copied over the stub, in the same folder and the same process: the
        // check must load the changed code, not the stub it loaded a moment ago.
        for (const f of readdirSync(snapshotDir(ch))) cpSync(path.join(snapshotDir(ch), f), path.join(dir, f));
        expect(await checkExercise(ch, dir, quiet, plain)).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 30_000);
  });
}
