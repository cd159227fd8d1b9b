// A setup file of every test worker: when a test file ends, a child process one of its tests
// started (through test/children.ts) and never saw end is stopped, and the file fails,
// naming it. A failed test then leaves nothing running behind the suite.

import { afterAll } from 'vitest';
import { stopStrays } from './children.ts';

afterAll(async () => {
  const strays = await stopStrays();
  if (strays.length > 0) throw new Error(`still running when this file's tests ended (stopped now): ${strays.join('; ')}`);
});
