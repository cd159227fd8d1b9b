// A test file's own scratch folder, made before its first test and removed after its last.
//
// Why not at the file's top level: a run that selects none of the file's tests (`npx vitest
// run -t NAME` for a test in another file) still loads the file, but runs none of its hooks,
// afterAll included. A folder made as the file loaded was then left behind, and the temp
// guard (temp-guard.ts) failed that run for it, naming folders of files that had not run.

import { afterAll, beforeAll } from 'vitest';
import { rmSync } from 'node:fs';

/**
 * The folder `make` makes, once this file's tests begin (beforeAll); removed once they end.
 * Call the function a test gets back for its path: before any test has begun, there is none.
 */
export function scratchFolder(make: () => string): () => string {
  let dir: string | undefined;
  beforeAll(() => { dir = make(); });
  afterAll(() => { if (dir !== undefined) rmSync(dir, { recursive: true, force: true }); });
  return () => {
    if (dir === undefined) throw new Error('the scratch folder is made when the tests begin: ask for it in a test or a hook');
    return dir;
  };
}
