// What chapter code must not do to the process that runs it, turned into a failure of the
// run it was doing. A scripted run (a demo, a --check of a learner's folder, a mutant of
// the self-check) loads that code into the runner's own process, so without this:
//
// - a call to process.exit() ended the whole command with the code's own status: a --check
//   whose code called process.exit(0) exited 0, a pass, with no verdict printed;
// - an exception thrown from a timer, or a promise rejected with nobody to catch it, ended
//   the command through its crash handler, with one line and no scenario named;
// - code that never finished (a promise nothing resolves) kept the command waiting forever.
//
// guardRun(work) runs `work` and settles with the first of: its own result, a call to
// process.exit, an uncaught error (only where the command line's crash handlers are
// installed: cleanup.ts hands such an error here first), or the time limit. The code may
// still have work pending after that; the run goes on to clean up all the same.
//
// What it is not: a sandbox. Code that never yields (`while (true) {}`) holds the thread,
// and no timer here can fire until it lets go: watchdog.ts ends such a run from another
// thread.

import { catchCrashes, exitHandlersInstalled } from './cleanup.ts';
import { watchRun } from './watchdog.ts';

/** The longest a scripted run may take: no scenario of the series needs a tenth of it. */
export const RUN_TIME_LIMIT_MS = 60_000;

interface Guard { stop: (err: Error) => void }
const active: Guard[] = [];
let realExit: typeof process.exit | undefined;
let ranCode = false;
/** Batches of runs under way whose leftovers are absorbed (absorbingStrays). */
let batches = 0;

/**
 * For the command line, once its command is done and its verdict printed: whether this
 * process ran chapter code under the guard, and if it did, an error that code throws from now
 * on is ignored. What it left pending would otherwise keep the process alive (a timer or a
 * socket of a run that was stopped, an interval a passing run never cleared), or end a
 * passed check with exit 1 (a promise it never awaited, rejected after the verdict). So the
 * command line then ends the process itself, with the verdict's status (steps/run.mjs).
 */
export function leaveChapterCodeBehind(): boolean {
  if (ranCode && active.length === 0 && batches === 0) catchCrashes(() => true);
  return ranCode;
}

/** The run most recently started among those still running: the one a stray call or error is put down to. */
const current = (): Guard | undefined => active.at(-1);

function install(): void {
  realExit = process.exit;
  process.exit = ((code?: number | string | null) => {
    const guard = current();
    if (!guard && batches > 0) throw new Error('process.exit() called by code whose run has ended');   // absorbed, below
    if (!guard) return realExit!(code ?? undefined);
    guard.stop(new Error(`the code called process.exit(${code ?? ''}): a run cannot end the process it runs in; return from runSession instead`));
    // The caller expects never to come back: stop its synchronous work here too.
    throw new Error('process.exit() called during a scripted run');
  }) as typeof process.exit;
  catchCrashes((what, err) => {
    const guard = current();
    if (!guard) return batches > 0;   // a leftover of a run that has ended, in a batch: no run's verdict
    const stopped = new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    if (err instanceof Error && err.stack) stopped.stack = `${stopped.name}: ${stopped.message}\n${err.stack.split('\n').slice(1).join('\n')}`;
    guard.stop(stopped);
    return true;
  });
}

function uninstall(): void {
  if (realExit) process.exit = realExit;
  realExit = undefined;
  catchCrashes(undefined);
}

/**
 * Runs `work` under the guard (see the header); `limitMs`: the time limit. In a command-line
 * process, the main thread is watched meanwhile too (watchdog.ts): `label` names the run
 * there, and `paths` are its temp folders, removed should the watchdog have to end it.
 */
export async function guardRun<T>(work: () => Promise<T>, o: { limitMs?: number; label?: string; paths?: string[]; lastWords?: string } = {}): Promise<T> {
  const limitMs = o.limitMs ?? RUN_TIME_LIMIT_MS;
  const unwatch = exitHandlersInstalled() ? watchRun(o.label ?? 'a scripted run', o.paths ?? [], o.lastWords) : undefined;
  if (active.length === 0 && batches === 0) install();
  let timer: NodeJS.Timeout | undefined;
  let guard: Guard | undefined;
  const stopped = new Promise<never>((_, reject) => {
    guard = { stop: reject };
    timer = setTimeout(() => reject(new Error(`the run did not finish within ${limitMs / 1000} s (a promise that never settles?)`)), limitMs);
  });
  stopped.catch(() => {});   // settled by the race, or too late to matter
  active.push(guard!);
  ranCode = true;
  try {
    return await Promise.race([Promise.resolve().then(work), stopped]);
  } finally {
    unwatch?.();
    clearTimeout(timer);
    active.splice(active.indexOf(guard!), 1);
    if (active.length === 0 && batches === 0) uninstall();
  }
}

/**
 * Runs `work`, a batch of guarded runs of code known to be broken (the self-check's mutants
 * and half-done solutions), with what their code leaves behind absorbed. An error thrown or
 * a promise rejected after its run has ended (a sub-agent nobody awaited, whose request fails
 * once that run's mock has closed) is no verdict of any run, and would otherwise end the whole
 * batch through the crash handler. One that arrives while another run is under way is put
 * down to that run, as ever: nothing tells the two apart.
 */
export async function absorbingStrays<T>(work: () => Promise<T>): Promise<T> {
  if (active.length === 0 && batches === 0) install();
  batches++;
  try {
    return await work();
  } finally {
    batches--;
    if (active.length === 0 && batches === 0) uninstall();
  }
}
