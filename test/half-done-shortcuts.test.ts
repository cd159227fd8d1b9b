// The half-done shortcuts (src/tooling/shortcuts.ts), checked without running them: each one
// applies to its chapter's reference inside the TODO it names, and names a case of its chapter
// and an expectation of that case (or a problem the runner reports for it). That each one
// really fails its check, on that expectation, is the self-check's job (`npm run selfcheck`,
// a CI step of its own, src/tooling/selfcheck.ts): a full run of a chapter per shortcut.

import { describe, it, expect } from 'vitest';
import { findChapter } from '../src/chapters.ts';
import { ROOT, casesOf, loadScenarioFile, scenarioFile } from '../src/runner/scenarios.ts';
import { loadAgentSources } from '../src/tooling/generate.ts';
import { SHORTCUTS, shortcutFiles, shortcutId } from '../src/tooling/shortcuts.ts';
import { runSelfcheck, type MutationOutcome } from '../src/tooling/selfcheck.ts';

const sources = await loadAgentSources(ROOT);

// Scenario problems the runner itself reports (src/runner/run-chapter.ts), which a shortcut
// may name instead of an expectation: a permission question the script did not foresee, or
// one that hid what its answer's "shows" names, or did not name the sub-agent its "asker" names.
const RUNNER_PROBLEMS = [
  /^the scenario's answer for \S+ \(allow: (true|false)\) was never asked for$/,
  /^the agent asked permission for \S+, but the scenario has no answer left$/,
  /^the agent asked permission for \S+, but the next scripted answer is for \S+$/,
  /^the agent asked permission for \S+ without showing$/,
  /^the agent asked permission for \S+ without naming$/,
  /^the agent asked permission for \S+ and did not withdraw the question$/,
];

describe('every half-done shortcut', () => {
  for (const s of SHORTCUTS) {
    it(`${shortcutId(s)}: ${s.shortcut}`, async () => {
      expect(() => shortcutFiles(sources, s)).not.toThrow();
      const chapter = findChapter(s.chapter)!;
      for (const named of [{ case: s.case, fails: s.fails }, ...(s.or ? [s.or] : [])]) {
        expect(casesOf(chapter)).toContain(named.case);
        const scenario = await loadScenarioFile(scenarioFile(chapter, named.case));
        const names = (scenario.expect ?? []).map((e) => e.name);
        expect(names.includes(named.fails) || RUNNER_PROBLEMS.some((p) => p.test(named.fails)), `"${named.fails}" is no expectation of ${named.case}`).toBe(true);
      }
      // An alternative comes later in --check's order: the case that fails only by chance goes first.
      if (s.or) expect(casesOf(chapter).indexOf(s.or.case)).toBeGreaterThan(casesOf(chapter).indexOf(s.case));
    });
  }

  it('ids are unique', () => {
    const ids = SHORTCUTS.map(shortcutId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
});

describe('the self-check runs a shortcut', () => {
  // Chapter 1 and the first cases of chapter 4's --check order: a shortcut's grading runs
  // the cases in turn up to the first that fails, each on a fresh load of the code.
  it('a real one fails its named expectation (caught); one that changes nothing passes (reported)', async () => {
    const real = SHORTCUTS.find((s) => s.chapter === 1)!;
    // The reference text written back: no shortcut at all.
    const none = { ...real, shortcut: 'nothing skipped', replace: real.find };
    let out = '';
    const code = await runSelfcheck(ROOT, (l) => { out += l; }, { json: true, mutations: [], shortcuts: [real, none] });
    expect(code).toBe(1);
    const outcomes = JSON.parse(out) as MutationOutcome[];
    expect(outcomes.map((o) => [o.kind, o.killed])).toEqual([['shortcut', true], ['shortcut', false]]);
    expect(outcomes[0]!.detail).toBe(`${real.case}: ${real.fails}`);
    expect(outcomes[1]!.detail).toBe('every case of chapter 1 passes');
  });

  it('one named by a case --check never reaches: reported, naming the case that fails first', async () => {
    // The permission mode unchecked: it fails bad-mode, the second case. Named by a later
    // case, the learner would never see the failure the catalogue promises.
    const real = SHORTCUTS.find((s) => s.chapter === 4 && s.case === 'bad-mode')!;
    const later = { ...real, case: 'resume-twice', fails: '--resume given twice is refused, naming it' };
    let out = '';
    const code = await runSelfcheck(ROOT, (l) => { out += l; }, { json: true, mutations: [], shortcuts: [real, later] });
    expect(code).toBe(1);
    const outcomes = JSON.parse(out) as MutationOutcome[];
    expect(outcomes.map((o) => o.killed)).toEqual([true, false]);
    expect(outcomes[1]!.detail).toMatch(new RegExp(`^--check shows ${real.case} failing first \\(on: .*\\), before resume-twice$`));
  });

  it('one whose named case passes on this run: caught where --check stops instead, when that is its `or`', async () => {
    // The session id unchecked: bad-mode comes first and passes, and --check stops at bad-session-id.
    const real = SHORTCUTS.find((s) => s.chapter === 4 && s.case === 'bad-session-id')!;
    const first = { case: 'bad-mode', fails: 'an unknown permission mode is refused with a line that names it' };
    const withOr = { ...real, ...first, or: { case: real.case, fails: real.fails } };
    const without = { ...real, ...first };
    let out = '';
    expect(await runSelfcheck(ROOT, (l) => { out += l; }, { json: true, mutations: [], shortcuts: [withOr, without] })).toBe(1);
    const outcomes = JSON.parse(out) as MutationOutcome[];
    expect(outcomes.map((o) => [o.killed, o.detail.split(' (on:')[0]])).toEqual([[true, `${real.case}: ${real.fails}`], [false, `--check shows ${real.case} failing first`]]);
  });
});
