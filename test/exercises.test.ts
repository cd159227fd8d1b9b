// Classroom mode, proved in both directions for every written chapter: the exercise
// (the chapter's own code as TODO stubs) fails its check and names a behaviour; the
// reference copied over it, in the same folder and process, passes the scenario the stub
// failed (the check loads the changed code). For the first chapter, the reference then
// passes the whole check as a learner runs it: the type check and every scenario. What the
// check does end to end is the same for every chapter, and the first one's costs least
// (measured: chapter 16's took about 1.5 s of CPU more).
//
// What the other chapters' references would repeat is tested once elsewhere, on the same
// files: every scenario passes on every snapshot (scenario-suite.ts, loaded the way an
// exercise folder is), and every snapshot type-checks under the compiler options --check
// uses (typecheck.test.ts, which also holds those options to tsconfig.json's).

import { describe, it, expect } from 'vitest';
import { Chalk } from 'chalk';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir, type Chapter } from '../src/chapters.ts';
import { ROOT, scenarioFile, snapshotDir } from '../src/runner/scenarios.ts';
import { makeExercise, checkExercise, exerciseProgress, gradeExercise } from '../src/runner/exercise-cli.ts';
import { hintsFor } from '../src/tooling/exercise.ts';
import { makeProjectScratch } from './temp-guard.ts';

const plain = new Chalk({ level: 0 });
const checkedWhole = WRITTEN_CHAPTERS[0]!;

for (const ch of WRITTEN_CHAPTERS) {
  describe(`chapter ${ch.n} exercise`, () => {
    it('has at least one hinted block to write', async () => {
      expect((await hintsFor(ROOT, ch.n)).length).toBeGreaterThan(0);
    });

    const whole = ch === checkedWhole ? '; the reference passes the whole check (types and every scenario), and --list marks the chapter started, then done' : '';
    it(`the stub fails its check with a named behaviour and a hint; the reference passes that scenario${whole}`, async () => {
      // In a folder of this test's own (another run in the same checkout has its own), and
      // alone in it: --list below reads every exercise beside it.
      const scratch = makeProjectScratch(ROOT, 'exercise-tests-');
      const dir = path.join(scratch, chapterDir(ch));
      try {
        const quiet = () => {};
        expect(await makeExercise(ch, dir, quiet)).toBe(0);
        let report = '';
        const stubCode = await checkExercise(ch, dir, (s) => { report += `${s}\n`; }, plain);
        expect(stubCode).toBe(1);
        expect(report).toMatch(/still a stub: TODO\(|missing behaviour: /);
        expect(report).toMatch(/hint: \S/);
        const failed = /^✖ (\S+): /m.exec(report)?.[1];
        expect(failed, report).toBeDefined();
        // --list reads the folders the way it reads exercises/: here, this chapter's alone.
        if (ch === checkedWhole) expect(await exerciseProgress(path.dirname(dir))).toEqual(new Map([[ch.n, 'started']]));

        // The reference copied over the stub, in the same folder and the same process: the
        // check must load the changed code, not the stub it loaded a moment ago.
        for (const f of readdirSync(snapshotDir(ch))) cpSync(path.join(snapshotDir(ch), f), path.join(dir, f));
        const verdicts = await gradeExercise(ch, dir, [scenarioFile(ch, failed!)], true);
        expect(verdicts.map((v) => [v.case, v.ok, v.stub ?? v.crash ?? v.failures[0] ?? v.expectations.find((e) => !e.ok)?.name ?? ''])).toEqual([[failed, true, '']]);
        if (ch === checkedWhole) {
          expect(await checkExercise(ch, dir, quiet, plain)).toBe(0);
          expect(await exerciseProgress(path.dirname(dir))).toEqual(new Map([[ch.n, 'done']]));
        }
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    }, 30_000);
  });
}

/**
 * The chapter's snapshot, copied into a scratch folder of the project's (where its imports
 * resolve) with `find` in `file` replaced: another way to write it, or a bug. The
 * replacement is checked to have happened: a `find` the code no longer holds would leave
 * the snapshot as it is, and the test would pass without testing anything. `test` runs on
 * the folder, which is removed after it.
 */
async function withChangedSnapshot(ch: Chapter, prefix: string, file: string, find: string, replace: string, test: (dir: string) => Promise<void>): Promise<void> {
  const dir = makeProjectScratch(ROOT, prefix);
  try {
    cpSync(snapshotDir(ch), dir, { recursive: true });
    const at = path.join(dir, file);
    const kept = readFileSync(at, 'utf8');
    writeFileSync(at, kept.replace(find, replace));
    expect(readFileSync(at, 'utf8'), `${file} holds no ${JSON.stringify(find)}`).not.toBe(kept);
    await test(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What `--check` prints for the folder against one scenario file, and its exit code. */
async function checkReport(ch: Chapter, dir: string, scenario: string): Promise<{ code: number; report: string }> {
  let report = '';
  const code = await checkExercise(ch, dir, (s) => { report += `${s}\n`; }, plain, { scenarios: [scenario] });
  return { code, report };
}

describe('grading', () => {
  // A module-level variable of the learner's code that one scenario leaves behind: graded
  // on a fresh load each, every scenario sees the code as a run of its own would, whatever
  // ran before it.
  it('each scenario runs on a fresh load of the code: what one run left in a module does not fail the next', async () => {
    const ch = WRITTEN_CHAPTERS[0]!;
    await withChangedSnapshot(ch, 'fresh-load-', 'main.ts',
      'export async function runSession(',
      "let sessions = 0;\nexport async function runSession(...args: Parameters<typeof runSessionOnce>): Promise<void> {\n  if (++sessions > 1) throw new Error('a second session in the same module');\n  return runSessionOnce(...args);\n}\nasync function runSessionOnce(",
      async (dir) => {
      const demo = scenarioFile(ch, 'demo');
      const verdicts = await gradeExercise(ch, dir, [demo, demo], true);
      expect(verdicts.map((v) => [v.ok, v.crash])).toEqual([[true, null], [true, null]]);
    });
  });

  // Some expectations are named as going on from the one before ("… not the workspace's
  // place on disk"): the check prints the failing one alone, so it says what it goes on from.
  it('a failing expectation named as going on from the one before is printed with that one\'s name first', async () => {
    const ch = WRITTEN_CHAPTERS.find((x) => x.n === 2)!;
    await withChangedSnapshot(ch, 'goes-on-', 'tools.ts', ".replaceAll(config.cwd + path.sep, '')", '', async (dir) => {
      const { code, report } = await checkReport(ch, dir, scenarioFile(ch, 'made-up-tool'));
      expect(code).toBe(1);
      expect(report).toContain("missing behaviour: a failure names the path as the model wrote it … not the workspace's place on disk\n");
      // One that goes on from one that goes on itself: every name back to the sentence's start.
      const chained = path.join(dir, 'chained.json');
      writeFileSync(chained, JSON.stringify({
        title: 'three steps of one sentence', prompts: ['go'], tracks: { main: { turns: [{ text: 'done' }] } },
        expect: [
          { name: 'the model is asked', requests: { track: 'main', count: 1 } },
          { name: '… once', requests: { track: 'main', count: 1 } },
          { name: '... and its answer says so', terminal: { includes: 'not done' } },
        ],
      }));
      expect((await checkReport(ch, dir, chained)).report).toContain('missing behaviour: the model is asked … once … and its answer says so\n');
    });
  });

  // A refusal the scenario asks for is the agent doing its job: the check does not list it
  // among the errors the agent's tools threw, beside the failure it is not the cause of.
  it('an error result the scenario expects is not named as a tool that threw', async () => {
    const ch = WRITTEN_CHAPTERS.find((x) => x.n === 6)!;
    await withChangedSnapshot(ch, 'asked-errors-', 'permissions.ts', 'reason: `${outside} is outside the workspace;', 'reason: `outside the workspace: ${outside};', async (dir) => {
      const { code, report } = await checkReport(ch, dir, scenarioFile(ch, 'demo'));
      expect(code).toBe(1);
      expect(report).toContain('missing behaviour: a path that climbs out of the workspace with ../ is refused\n');
      expect(report).not.toContain('a tool call threw');
    });
  });

  // A right solution need not send the reference's bytes: a sub-agent's prompt that keeps an
  // empty CLAUDE.md section costs a few tokens more, and its usage line still passes, as long
  // as it counts what the mock reported.
  it("the sub-agent's usage line is checked against the tokens the mock counted, not the reference's", async () => {
    const ch = WRITTEN_CHAPTERS.find((x) => x.n === 11)!;
    await withChangedSnapshot(ch, 'usage-line-', 'subagent.ts',
      "gitStatusSection(parts.gitStatus)].filter((s) => s !== '').join('\\n\\n')", "gitStatusSection(parts.gitStatus)].join('\\n\\n')", async (dir) => {
      const verdicts = await gradeExercise(ch, dir, [scenarioFile(ch, 'cache-ledger')], true);
      expect(verdicts.map((v) => [v.ok, v.expectations.filter((e) => !e.ok).map((e) => e.detail)])).toEqual([[true, []]]);
    });
  });

  // The words after /compact must reach the summariser; how the message frames them is the
  // learner's to choose.
  it("/compact's words are checked for reaching the summariser, not for the reference's framing of them", async () => {
    const ch = WRITTEN_CHAPTERS.find((x) => x.n === 7)!;
    await withChangedSnapshot(ch, 'compact-keep-', 'context.ts',
      "`Summarise this conversation${keep ? `, and keep in the summary: ${keep}` : ''}:\\n\\n${asText(old)}`", "`${keep ? `Keep: ${keep}\\n\\n` : ''}${asText(old)}`", async (dir) => {
      const verdicts = await gradeExercise(ch, dir, [scenarioFile(ch, 'manual')], true);
      expect(verdicts.map((v) => [v.ok, v.expectations.filter((e) => !e.ok).map((e) => e.detail)])).toEqual([[true, []]]);
    });
  });
});
