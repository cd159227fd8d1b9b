// The files test/long-files-first.ts starts first are test files that exist: a file renamed
// or removed would otherwise simply drop out of the list, and the suite start in another order.

import { it, expect } from 'vitest';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { LONG_FILES } from './long-files-first.ts';

it('names only test files that exist, each once', () => {
  const files = readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts'));
  expect(LONG_FILES.filter((f) => !files.includes(f))).toEqual([]);
  expect(new Set(LONG_FILES).size).toBe(LONG_FILES.length);
});
