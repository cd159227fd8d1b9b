// Run once before any test file: builds the compiled copies of the runner and the snapshots
// that a spawned `node steps/run.mjs` loads (steps/fast-start.mjs, cached in
// node_modules/.cache). On a fresh clone each spawned run would otherwise find no copy and
// build one itself, and the first ones, spawned side by side by a concurrent block, all do:
// about 2 s of CPU each, for the same bundles. Built here, once, they are there for all.
//
// The same goes for the bundles' V8 code caches, which a process writes beside them when it
// exits having found none: the first runs, side by side, would each compile the runner and
// the SDK afresh (about 0.1 s of CPU more a process). So on a fresh clone one run of chapter 1
// goes first, here, and leaves the caches of the runner and the SDK for every run after it.
//
// What it is not: a test. A build that fails is left to the runs, which fall back to
// running the TypeScript; cli.test.ts's fast-path test then fails, saying how it loaded.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain JavaScript, no type declarations
import { compiled } from '../steps/fast-start.mjs';

export default async function buildRunnerOnce(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  let folder: string;
  try {
    ({ folder } = (await compiled(root)) as { folder: string });
  } catch {
    return;   // left to the runs (above)
  }
  if (existsSync(path.join(folder, 'cli.cjs.v8cache')) && existsSync(path.join(folder, 'sdk.cjs.v8cache'))) return;
  await new Promise((resolve) => {
    const run = spawn(process.execPath, [path.join(root, 'steps', 'run.mjs'), '1'], { cwd: root, stdio: 'ignore' });
    run.on('error', resolve);
    run.on('close', resolve);
  });
}
