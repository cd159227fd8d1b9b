// A setup file of every test worker: the chapter code the tests load on the spot
// (src/runner/load-folder.ts: every snapshot, exercise and mutant run in process) gets the
// SDK from its compiled bundle, as `node steps/run.mjs` hands it to an exercise it checks
// (steps/run.mjs, steps/fast-start.mjs), instead of Node loading the SDK's few hundred
// CommonJS files in each worker. The bundles are built before any worker starts
// (test/global-setup.ts); should that have failed, Node's require loads the SDK as before.
//
// What it is not: a test, or a stand-in for the SDK: the bundle is the installed package's
// own code, bundled.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain JavaScript, no type declarations
import { compiled } from '../steps/fast-start.mjs';

const KEY = Symbol.for('subagents.packageCopies');
const global = globalThis as Record<symbol, unknown>;

// Set up files run before each test file; the copies are looked up once per worker.
if (global[KEY] === undefined) {
  try {
    global[KEY] = ((await compiled(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'))) as { packages: unknown }).packages;
  } catch {
    global[KEY] = null;   // no bundles: Node's require
  }
}
