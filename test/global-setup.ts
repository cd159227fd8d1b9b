// Run once before any test file: builds the compiled copies of the runner and the snapshots
// that a spawned `node steps/run.mjs` loads (steps/fast-start.mjs, cached in
// node_modules/.cache). On a fresh clone each spawned run would otherwise find no copy and
// build one itself, and the first ones, spawned side by side by a concurrent block, all do:
// about 2 s of CPU each, for the same bundles. Built here, once, they are there for all.
//
// What it is not: a test. A build that fails is left to the runs, which fall back to
// running the TypeScript; cli.test.ts's fast-path test then fails, saying how it loaded.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain JavaScript, no type declarations
import { compiled } from '../steps/fast-start.mjs';

export default async function buildRunnerOnce(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  try {
    await compiled(root);
  } catch {
    // Left to the runs (above).
  }
}
