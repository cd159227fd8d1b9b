// Every written chapter × every scenario in its folder: run the snapshot against the
// mock and require every expectation to hold. The expectations themselves read the
// mock's event log and the workspace (src/runner/expectations.ts), never the script.
//
// Then the docs: every generated region (code, diff, transcript, cases table) must be what
// `npm run gen` would write now. A transcript in a doc is one of the runs just checked, so the
// same run serves both (runs are deterministic: the transcript is rendered in a
// timing-free order); a region with a mutation, or another chapter's scenario, runs anew.

import { describe, it, expect } from 'vitest';
import { WRITTEN_CHAPTERS } from '../src/chapters.ts';
import { ROOT, casesOf, scenarioFile, snapshotDir, loadScenarioFile } from '../src/runner/scenarios.ts';
import { runChapter, type RunOptions, type RunResult } from '../src/runner/run-chapter.ts';
import { docTranscript, docVerdicts } from '../src/runner/doc-transcript.ts';
import { defaultResolvers, fillAllDocs } from '../src/tooling/docs.ts';

const runs = new Map<string, Promise<RunResult>>();
function runOnce(opts: RunOptions): Promise<RunResult> {
  const key = `${opts.codeDir}\0${opts.scenario.file}\0${opts.latencyScale}`;
  if (!runs.has(key)) runs.set(key, runChapter(opts));
  return runs.get(key)!;
}

for (const ch of WRITTEN_CHAPTERS) {
  describe(`chapter ${ch.n} (${ch.slug})`, () => {
    it('has a demo scenario', () => {
      expect(casesOf(ch)).toContain('demo');
    });
    for (const name of casesOf(ch)) {
      it(`scenario ${name}: every expectation holds`, async () => {
        const scenario = await loadScenarioFile(scenarioFile(ch, name));
        expect(scenario.expect?.length ?? 0, 'a scenario must expect something').toBeGreaterThan(0);
        const result = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
        expect(result.failures, 'scenario problems reported by the mock').toEqual([]);
        expect(result.crash, 'the agent crashed').toBeUndefined();
        expect(result.expectations.filter((e) => !e.ok).map((e) => `${e.name}: ${e.detail}`)).toEqual([]);
      });
    }
  });
}

describe('the docs', () => {
  it('every generated region (code, diff, transcript) is fresh: run npm run gen if this fails', async () => {
    const transcript = (n: number, caseName: string, options?: Parameters<typeof docTranscript>[2]) => docTranscript(n, caseName, options, runOnce);
    const stale = await fillAllDocs(ROOT, defaultResolvers(ROOT, transcript, (n) => docVerdicts(n, runOnce)), { write: false });
    expect(stale.map((d) => `${d.path} ${d.firstDifference}`)).toEqual([]);
  });
});
