// The child processes tests start, tracked until they exit, so that none outlives its test
// file. A test that passes has seen each of its children end; one that fails or times out
// may not have (an expectation failed while a watch was still waiting for a change), and
// that child would go on running after the suite. test/stop-strays.ts, a setup file, stops
// whatever is still running when a file ends, and fails the file, naming each one.
//
// What it is not: the check that the runner itself leaves nothing running. That is
// cleanup.test.ts's, which reads /proc for what a run left behind.

import type { ChildProcess } from 'node:child_process';

interface Stray { what: string; group: boolean }
const running = new Map<ChildProcess, Stray>();

/**
 * Track `child`, described as `what`, until it exits; `group`: it was started detached, in a
 * process group of its own, which is stopped as a whole. Returns the child.
 */
export function tracked<T extends ChildProcess>(child: T, what: string, o: { group?: boolean } = {}): T {
  if (child.pid === undefined) return child;   // never started (spawn reports it as an error)
  running.set(child, { what, group: o.group === true });
  child.once('exit', () => running.delete(child));
  return child;
}

function signal(child: ChildProcess, how: NodeJS.Signals, group: boolean): void {
  try {
    if (group) process.kill(-child.pid!, how);
    else child.kill(how);
  } catch { /* gone meanwhile */ }
}

/**
 * Stop every tracked child that is still running: SIGTERM first, so that a runner can remove
 * its temp folders, then SIGKILL for one still there after `graceMs`. Returns what was stopped.
 */
export async function stopStrays(graceMs = 2000): Promise<string[]> {
  const strays = [...running];
  await Promise.all(strays.map(([child, { group }]) => new Promise<void>((resolve) => {
    const late = setTimeout(() => { signal(child, 'SIGKILL', group); resolve(); }, graceMs);
    child.once('exit', () => { clearTimeout(late); resolve(); });
    signal(child, 'SIGTERM', group);
  })));
  for (const [child] of strays) running.delete(child);
  return strays.map(([, { what }]) => what);
}

/** SIGKILL every tracked child still running (its group, if it leads one), at once: for a worker on its way out. */
export function killStraysNow(): void {
  for (const [child, { group }] of running) signal(child, 'SIGKILL', group);
  running.clear();
}
