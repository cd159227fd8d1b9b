// Every written chapter × every scenario in its folder: run the snapshot against the
// mock and require every expectation to hold. The expectations themselves read the
// mock's event log and the workspace (src/runner/expectations.ts), never the script.

import { describe, it, expect } from 'vitest';
import { WRITTEN_CHAPTERS } from '../src/chapters.ts';
import { casesOf, scenarioFile, snapshotDir, loadScenarioFile } from '../src/runner/scenarios.ts';
import { runChapter } from '../src/runner/run-chapter.ts';

for (const ch of WRITTEN_CHAPTERS) {
  describe(`chapter ${ch.n} (${ch.slug})`, () => {
    it('has a demo scenario', () => {
      expect(casesOf(ch)).toContain('demo');
    });
    for (const name of casesOf(ch)) {
      it(`scenario ${name}: every expectation holds`, async () => {
        const scenario = await loadScenarioFile(scenarioFile(ch, name));
        expect(scenario.expect?.length ?? 0, 'a scenario must expect something').toBeGreaterThan(0);
        const result = await runChapter({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
        expect(result.failures, 'scenario problems reported by the mock').toEqual([]);
        expect(result.crash, 'the agent crashed').toBeUndefined();
        expect(result.expectations.filter((e) => !e.ok).map((e) => `${e.name}: ${e.detail}`)).toEqual([]);
      });
    }
  });
}
