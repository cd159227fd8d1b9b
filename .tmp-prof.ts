import { WRITTEN_CHAPTERS } from './src/chapters.ts';
import { casesOf, scenarioFile, snapshotDir, loadScenarioFile } from './src/runner/scenarios.ts';
import { runChapter } from './src/runner/run-chapter.ts';
const t0 = performance.now();
let n = 0;
for (const ch of WRITTEN_CHAPTERS) {
  for (const name of casesOf(ch)) {
    const scenario = await loadScenarioFile(scenarioFile(ch, name));
    const r = await runChapter({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
    n++;
    if (!r.ok) console.log('FAIL', ch.n, name);
  }
}
console.log(n, 'runs', Math.round(performance.now() - t0), 'ms', process.cpuUsage());
