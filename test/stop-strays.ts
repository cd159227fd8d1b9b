// A setup file of every test worker: when a test file ends, a child process one of its tests
// started (through test/children.ts) and never saw end is stopped, and the file fails,
// naming it. A failed test then leaves nothing running behind the suite.

import { afterAll } from 'vitest';
import { cleanupNowSync } from '../src/runner/cleanup.ts';
import { killStraysNow, stopStrays } from './children.ts';

// Ctrl-C of the suite (or a SIGTERM) reaches the workers too, and a worker ends at once. A
// child started detached leads a process group of its own, which the terminal's Ctrl-C does
// not reach: it ran on after the suite, and a stand-in client of the x-ray tests that never
// finishes ran for ever. So each worker, once, stops what it started (the tests' own
// children, and what the runner's registry holds in this worker: an x-ray client, a temp
// folder), then ends as the signal would have ended it.
const ONCE = Symbol.for('subagents.test-worker-signals');
if (!(globalThis as Record<symbol, unknown>)[ONCE]) {
  (globalThis as Record<symbol, unknown>)[ONCE] = true;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killStraysNow();
      cleanupNowSync();
      process.kill(process.pid, sig);
    });
  }
}

afterAll(async () => {
  const strays = await stopStrays();
  if (strays.length > 0) throw new Error(`still running when this file's tests ended (stopped now): ${strays.join('; ')}`);
});
