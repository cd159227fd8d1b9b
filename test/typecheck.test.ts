// Type-checking lives in the tests, not on the demo path: the runner loads TypeScript
// without checking it (fast), and this test holds every snapshot, the mock, the
// runner, the tooling and the tests to `strict`.

import { it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';

it('the whole project type-checks (tsc --noEmit, strict)', () => {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], { cwd: ROOT, encoding: 'utf8' });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
}, 120_000);
