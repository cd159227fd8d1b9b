// Test discovery: only test/. Scratch folders (.tmp/, learners' exercises/) can hold
// copies of the project and must never be picked up as tests.
import { basename } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The mutation self-check runs in a child process of its own (test/mutations.test.ts), the
 * longest single piece of the suite. Started first, it works alongside everything else;
 * vitest's own order (larger files first on a fresh clone) would start it last.
 */
class SelfCheckFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = sorted.filter((f) => basename(f.moduleId) === 'mutations.test.ts');
    return [...first, ...sorted.filter((f) => !first.includes(f))];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '.tmp/**', 'exercises/**', 'test/fixtures/**'],
    reporters: ['default', './test/summary-reporter.ts'],
    // Most tests run whole chapters against the mock; on a busy 2-core machine the
    // default 5 s is too tight for the ones that run dozens of them.
    testTimeout: 60_000,
    // Use both cores of a small machine (the default leaves one idle on two).
    maxWorkers: 2,
    // Test files in a worker share one module registry instead of re-importing the runner,
    // the mock and the SDK for each file (about a fifth of the suite's CPU time). The price:
    // a test that changes something global (process.env, console, process.platform) must
    // put it back, as the ones here do in afterEach or finally.
    isolate: false,
    sequence: { sequencer: SelfCheckFirst },
  },
});
