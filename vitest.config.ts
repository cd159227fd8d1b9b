// Test discovery: only test/. Scratch folders (.tmp/, learners' exercises/) can hold
// copies of the project and must never be picked up as tests.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '.tmp/**', 'exercises/**', 'test/fixtures/**'],
    reporters: ['default', './test/summary-reporter.ts'],
    // The runner's compiled copies, built once before the tests spawn it (test/global-setup.ts).
    globalSetup: ['./test/temp-guard.ts', './test/global-setup.ts'],
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
  },
});
