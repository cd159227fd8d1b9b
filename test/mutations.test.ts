// The mutation catalogue (src/tooling/mutations.ts), checked without running it: every
// mutation applies to the source (its find text occurs exactly once in its file) and names a
// case of its own chapter as the one that catches it. Then the verdict cache of --cached.
//
// Running the catalogue, every mutation against its chapter's scenarios, is a step of its
// own: `npm run selfcheck` (CI runs it after `npm test`, .ci/run). Each mutant is a full run
// of its chapter, one for each entry of the catalogue: as long as the rest of the suite put together.

import { describe, it, expect } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MUTATIONS } from '../src/tooling/mutations.ts';
import { applyMutation, harnessDigest, mutantFiles, runMutation, runSelfcheck, verdictKey, withMutant, type MutationOutcome } from '../src/tooling/selfcheck.ts';
import { loadAgentSources } from '../src/tooling/generate.ts';
import { findChapter } from '../src/chapters.ts';
import { ROOT, casesOf } from '../src/runner/scenarios.ts';
import { cleanupNow } from '../src/runner/cleanup.ts';

const sources = await loadAgentSources(ROOT);

describe('the mutation catalogue', () => {
  for (const m of MUTATIONS) {
    it(`${m.id} applies to src/agent/${m.file} and names a case of chapter ${m.chapter}`, () => {
      expect(() => applyMutation(sources, m)).not.toThrow();
      expect(mutantFiles(sources, m).size, `chapter ${m.chapter} has no files`).toBeGreaterThan(0);
      const chapter = findChapter(m.chapter);
      expect(chapter, `chapter ${m.chapter} is not written`).toBeDefined();
      expect(casesOf(chapter!)).toContain(m.caughtBy);
    });
  }

  it('ids are unique', () => {
    const ids = MUTATIONS.map((m) => m.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
});

describe('a mutation caught by another case than the one it names', () => {
  // The docs quote the catalogue's caughtBy ("the mutation X turns the case Y red"): a case
  // that catches it instead proves the mutation caught and the catalogue wrong.
  it('is not counted as caught: the verdict names both cases', async () => {
    const m = MUTATIONS.find((x) => x.id === 'results-not-fed-back')!;
    expect(m.caughtBy).toBe('demo');
    const right = await runMutation(ROOT, m, sources);
    expect([right.killed, right.detail.split(':')[0]]).toEqual([true, 'demo']);
    // A case of chapter 1 that makes no tool call, so a tool_result left out breaks nothing there.
    const wrong = await runMutation(ROOT, { ...m, caughtBy: 'empty-answer' }, sources);
    expect(wrong.killed).toBe(false);
    expect(wrong.detail).toMatch(/^empty-answer still passes; demo fails instead \(/);
  });
});

describe("a mutant's scratch folder", () => {
  // In a made-up project: the real one's .tmp is shared with the other test files' mutants.
  it('is .tmp/mutants/ID-PID-N while in use, N new each time; afterwards it is gone, and so are the folders that held only it', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'mutant-scratch-'));
    try {
      const m = MUTATIONS[0]!;
      const seen = await withMutant(root, m, async (dir) => ({ dir, files: readdirSync(dir) }), sources);
      expect(path.dirname(seen.dir)).toBe(path.join(root, '.tmp', 'mutants'));
      expect(path.basename(seen.dir)).toMatch(new RegExp(`^${m.id}-${process.pid}-\\d+$`));
      expect(seen.files).toContain('main.ts');
      expect(readdirSync(root)).toEqual([]);
      // Another process's mutant beside it keeps the holder.
      mkdirSync(path.join(root, '.tmp', 'mutants', 'other-1'), { recursive: true });
      // The same mutant twice at once: two folders, so neither removes the other's files.
      const twice = await Promise.all([0, 1].map(() => withMutant(root, m, async (dir) => dir, sources)));
      expect(new Set(twice).size).toBe(2);
      expect(readdirSync(path.join(root, '.tmp', 'mutants'))).toEqual(['other-1']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a mutant's scratch folder, interrupted", () => {
  // cleanupNow is what Ctrl-C runs: it empties the registry of this whole test worker; the
  // runs of other test files have released what they made by the time they returned.
  it('goes with the folders that held only it (a Ctrl-C left an empty .tmp/mutants)', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'mutant-interrupted-'));
    try {
      const left = await withMutant(root, MUTATIONS[0]!, async () => {
        await cleanupNow();
        return readdirSync(root);
      }, sources);
      expect(left).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the kept verdicts (--cached)', () => {
  it('keeps a kill and reuses it; never keeps a survivor', async () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'selfcheck-cache-'));
    try {
      const real = MUTATIONS.find((m) => m.chapter === 1)!;
      // A mutation that changes nothing survives every scenario.
      const noop = { ...real, id: 'changes-nothing', replace: real.find };
      const run = async () => {
        let out = '';
        const code = await runSelfcheck(ROOT, (l) => { out += l; }, { json: true, cached: true, cacheDir, mutations: [real, noop], shortcuts: [] });
        return { code, outcomes: JSON.parse(out) as MutationOutcome[] };
      };
      const first = await run();
      expect(first.code).toBe(1);
      expect(first.outcomes.map((o) => [o.id, o.killed, o.cached ?? false])).toEqual([[real.id, true, false], [noop.id, false, false]]);
      expect(readdirSync(cacheDir)).toHaveLength(1);
      const second = await run();
      expect(second.outcomes.map((o) => [o.id, o.killed, o.cached ?? false])).toEqual([[real.id, true, true], [noop.id, false, false]]);
    } finally { rmSync(cacheDir, { recursive: true, force: true }); }
  });

  it('a changed mutant, harness or mutation is another key', async () => {
    const sources = await loadAgentSources(ROOT);
    const m = MUTATIONS.find((x) => x.chapter === 11)!;
    const files = mutantFiles(sources, m);
    const harness = harnessDigest(ROOT);
    const key = await verdictKey(ROOT, harness, m, files);
    expect(await verdictKey(ROOT, harness, m, new Map(files))).toBe(key);
    const [name, body] = [...files][0]!;
    expect(await verdictKey(ROOT, harness, m, new Map([...files, [name, `${body} `]]))).not.toBe(key);
    expect(await verdictKey(ROOT, `${harness}x`, m, files)).not.toBe(key);
    expect(await verdictKey(ROOT, harness, { ...m, caughtBy: `${m.caughtBy}-other` }, files)).not.toBe(key);
    // The harness is the code around the agent, not the agent (that is in the files).
    expect(harness).toBe(harnessDigest(ROOT));
  });
});
