// A half-done solution must not pass its check. Each shortcut in test/half-done-shortcuts.ts
// is a learner's plausible way to fill in one TODO so that the demo looks right while a
// behaviour the chapter teaches is skipped. The learner's folder is the reference with that
// shortcut taken inside the TODO (every other TODO written): the check must fail, and on the
// expectation that names the skipped behaviour.
//
// In process, one scenario per shortcut, all at once: each folder is bundled and run on its
// own mock, so nothing is shared but the CPU.

import { describe, it, expect } from 'vitest';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findChapter, chapterDir } from '../src/chapters.ts';
import { ROOT, scenarioFile } from '../src/runner/scenarios.ts';
import { gradeExercise } from '../src/runner/exercise-cli.ts';
import { exerciseHeader } from '../src/tooling/exercise.ts';
import { isEmptyBody, loadAgentSources } from '../src/tooling/generate.ts';
import { exerciseBlocks, renderChapter, renderExercise } from '../src/tooling/markers.ts';
import { SHORTCUTS, type Shortcut } from './half-done-shortcuts.ts';

const sources = await loadAgentSources(ROOT);

/** The chapter's reference files, by name, with the shortcut's edits made in the file that holds its TODO. */
function shortcutFiles(s: Shortcut): Map<string, string> {
  const files = new Map<string, string>();
  for (const source of sources) {
    const body = renderChapter(source.marked, s.chapter);
    if (!isEmptyBody(body)) files.set(source.name, body);
  }
  const source = sources.find((x) => exerciseBlocks(x.marked, s.chapter).some((b) => b.name === s.todo));
  if (!source) throw new Error(`chapter ${s.chapter}'s exercise has no TODO(${s.todo})`);
  let text = files.get(source.name)!;
  // The edit must fall inside the TODO: the text it replaces is what the stub takes away.
  const stubbed = renderExercise(source.marked, s.chapter, s.todo);
  for (const [find, replace] of [[s.find, s.replace], ...(s.and ?? [])] as const) {
    const count = text.split(find).length - 1;
    if (count !== 1) throw new Error(`the find text occurs ${count} times in chapter ${s.chapter}'s ${source.name} (must be once): ${find}`);
    if (stubbed.includes(find)) throw new Error(`the find text is not inside TODO(${s.todo}): ${find}`);
    text = text.replace(find, () => replace);
  }
  files.set(source.name, text);
  return files;
}

describe.concurrent('a shortcut inside a TODO fails the check, on the behaviour it skips', () => {
  for (const s of SHORTCUTS) {
    it(`chapter ${s.chapter}, TODO(${s.todo}): ${s.shortcut}`, async () => {
      const ch = findChapter(s.chapter)!;
      const dir = path.join(ROOT, '.tmp', 'shortcuts', `${chapterDir(ch)}-${s.todo}-${SHORTCUTS.indexOf(s)}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      try {
        const rel = path.relative(ROOT, dir);
        for (const [name, body] of shortcutFiles(s)) writeFileSync(path.join(dir, name), `${exerciseHeader(ch, name, rel)}\n${body}`);
        const [verdict] = await gradeExercise(ch, dir, [scenarioFile(ch, s.case)], true);
        const failed = verdict!.expectations.filter((e) => !e.ok).map((e) => e.name);
        // An expectation by name, or a scenario problem the run ran into (a question the script has no answer for).
        const named = failed.includes(s.fails) || verdict!.failures.some((f) => f.includes(s.fails));
        expect(verdict!.stub).toBeNull();
        expect(named, `the ${s.case} case ${verdict!.ok ? 'passes' : `fails on: ${[...failed, ...verdict!.failures].join('; ') || verdict!.crash}`}`).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
