// A last line for machines: "N passed, N failed" (", N skipped" when there are any),
// after vitest's own report. CI tools that read a run's closing line understand it.

import type { Reporter, TestModule } from 'vitest/node';

/** The closing line for these test files. A file that failed outside its tests (it did not
 *  load, or a beforeAll or afterAll of it threw) counts as one failure more, even though
 *  its tests were only skipped: otherwise a run where nothing ran would say "0 failed". */
export function summaryLine(testModules: ReadonlyArray<TestModule>): string {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const module of testModules) {
    let failedHere = 0;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') passed++;
      else if (state === 'failed') failedHere++;
      else skipped++;
    }
    failed += failedHere;
    if (module.state() === 'failed' && failedHere === 0) failed++;
  }
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    console.log(`\n${summaryLine(testModules)}`);
  }
}
