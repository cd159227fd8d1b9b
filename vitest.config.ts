// Test discovery: only test/. Scratch folders (.tmp/, learners' exercises/) can hold
// copies of the project and must never be picked up as tests.
import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/long-files-first.ts';

/** The flag that delays TurboFan, in this Node's V8's terms (below). */
function laterTurbofan(): string[] {
  return Number(process.versions.v8.split('.')[0]) <= 11 ? ['--interrupt-budget=1000000'] : ['--invocation-count-for-turbofan=45000'];
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '.tmp/**', 'exercises/**', 'test/fixtures/**'],
    reporters: ['default', './test/summary-reporter.ts'],
    // The run's own temp folder (test/temp-guard.ts); no extra certificates for the processes
    // it starts, which never leave loopback (test/no-extra-certificates.ts); the runner's
    // compiled copies, built once before the tests spawn it (test/global-setup.ts).
    globalSetup: ['./test/temp-guard.ts', './test/no-extra-certificates.ts', './test/global-setup.ts'],
    // In each worker, chapter code loaded on the spot gets the SDK from that compiled copy too;
    // and a child process a test started is not left running when its file ends.
    setupFiles: ['./test/sdk-bundle.ts', './test/stop-strays.ts'],
    // Most tests run whole chapters against the mock; on a busy 2-core machine the
    // default 5 s is too tight for the ones that run dozens of them.
    testTimeout: 60_000,
    // Two workers more than this 2-core machine has cores: many files spend part of their
    // time waiting on a child process, a terminal, a timer or a retry, and the extra workers
    // fill that time. Three pairs of whole suites taken in turn on the same tree: a median of
    // 23.6 s wall with four workers, 25.4 s with three, for about 1 s more CPU (of about 43 s).
    // Six and eight gained nothing more: both cores are then busy throughout. Taken again once
    // the waiting tests of each file ran side by side (three pairs): 19.6-20.6 s with four,
    // 20.9-21.3 s with three. On a machine where every fork of a worker is dear (page faults
    // at about 11 µs; see the young generation below), three came out ahead instead: quicker
    // in four pairs of five, a median of 54.4 s against 58.4 s and 8 % less CPU (103 s against
    // 112 s). Four stay: on the machine where the suite can fit in 20 s, they are what fits.
    maxWorkers: 4,
    // V8's own young generation (16 MB semi-spaces on Node 20), not a larger one. With 64 MB
    // semi-spaces a worker scavenged less often (156 scavenges in 1.9 s against 68 in 1.3 s,
    // in one whole run with three workers), but each worker then held about 90 MB more (its
    // new space grew to about 120 MB of a 250-400 MB resident set), and every process a worker
    // starts (about 1,500 a run: git, shells, runners) is a fork of it, whose cost grows with
    // what it holds: here, 100 spawns of /bin/true took 0.4 s of CPU from a 48 MB process and
    // 1.9 s from a 350 MB one. Eight pairs of whole suites taken in turn on a machine where
    // that shows (page faults at about 11 µs): the default was quicker in six, a median of
    // 55 s of wall time against 59 s, with 4 % fewer faults. (On a machine with cheap faults,
    // 8 MB and 64 MB semi-spaces had come out even.)
    // One GC thread per worker (the collection itself runs on the worker's own thread): the
    // workers and the processes they start already keep both cores busy, so V8's helper
    // threads for marking and scavenging only compete with them for the same two cores. Eight
    // pairs of runs taken in turn with and without: a median of 7 % less CPU.
    // TurboFan, V8's optimizing compiler, takes up a function later than by default (an
    // interrupt budget of 1,000,000 instead of 67,584: roughly, how much bytecode the function
    // must run through first). A worker runs hundreds of short chapter runs, and TurboFan took
    // about a fifth of the workers' CPU time (perf, over one whole run) optimizing code that
    // was soon done with. Eleven pairs of whole suites taken in turn with and without: a
    // median of 13 % less CPU and 11 % less wall time, less in nine pairs of the eleven.
    // That flag is V8 11's (Node 20): V8 12 (Node 22) and later stop a process started with it
    // ("bad option"). They count calls instead: a function goes to TurboFan after 3,000 by
    // default, 45,000 here (the same fifteenfold delay). Whole suites taken in turn with and
    // without: on Node 22, less CPU in six pairs of seven (a median of 3.3 s of about 93);
    // on Node 24, in two of three (about 4 %). Node 26 knows the flag too; not timed there.
    // V8's memory reducer stays on: with --no-memory-reducer the workers took as many page
    // faults (670-674 thousand against 673-693 thousand, two pairs of whole suites on the
    // machine of dear faults) and no less CPU, so freeing heap while a worker waits is not
    // what makes its pages fresh again.
    execArgv: ['--single-threaded-gc', ...laterTurbofan()],
    // Test files in a worker share one module registry instead of re-importing the runner,
    // the mock and the SDK for each file (about a fifth of the suite's CPU time). The price:
    // a test that changes something global (process.env, console, process.platform) must
    // put it back, as the ones here do in afterEach or finally. A fresh worker per file would
    // also be a smaller process to fork (above), but that does not pay either: two pairs of
    // whole suites on the machine of dear forks, 78-80 s with isolation against 58 s without.
    isolate: false,
    // The test files and the modules they import, as vite transformed them, kept between runs
    // beside everything else the project keeps (node_modules/.cache), keyed by each file's
    // contents and the configuration: a run after an edit transforms only what changed. Runs
    // in turn on the same tree: about 1-2 s of CPU less. A fresh clone transforms everything.
    experimental: { fsModuleCache: true, fsModuleCachePath: 'node_modules/.cache/vitest-modules' },
    // The longest test files start first, in a fixed order (test/long-files-first.ts).
    sequence: { sequencer: LongFilesFirst },
  },
});
