// Chapter runs shared by the test files that check the same run for different things:
// scenarios.*.test.ts (their expectations, the docs' transcripts, the same demo over HTTP),
// xray.analyse.test.ts (the facts read from the series' runs), transcript.test.ts and
// fork-arithmetic.test.ts. Test files that share a worker share this module
// (vitest.config.ts: isolate false), so a run one file made is not made again by the next.
// Runs are deterministic, so the second reader sees what a fresh run would show.
//
// What it is not: a cache of anything that changes a run. Only a scripted run of some code
// on some scenario is shared, keyed by the folder and the scenario's whole content; a run
// with other options (over HTTP, a model, an inspection of the workspace, a kept folder, a
// log file) is made fresh every time. A shared result is frozen: a test that changed it
// would change what the next one reads, and throws instead.

import { runChapter, type RunOptions, type RunResult } from '../src/runner/run-chapter.ts';

const runs = new Map<string, Promise<RunResult>>();

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}

/** runChapter, once per folder and scenario in this worker. */
export function runOnce(opts: RunOptions): Promise<RunResult> {
  const { codeDir, scenario, latencyScale, ...others } = opts;
  if (Object.keys(others).length > 0) return runChapter(opts);
  const key = `${codeDir}\0${latencyScale}\0${JSON.stringify(scenario)}`;
  let run = runs.get(key);
  if (!run) {
    run = runChapter(opts).then(deepFreeze);
    runs.set(key, run);
  }
  return run;
}
