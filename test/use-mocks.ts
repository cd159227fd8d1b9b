// Shared by the mock's test files: start mocks freely inside a test; every one of
// them is closed after the test, pass or fail.

import { afterEach } from 'vitest';
import type { MockServer } from '../src/mock/index.ts';
import { mockFor } from '../src/mock/testkit.ts';

export function useMocks(): (...args: Parameters<typeof mockFor>) => Promise<MockServer> {
  const open: MockServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
  });
  return async (...args) => {
    const m = await mockFor(...args);
    open.push(m);
    return m;
  };
}
