// Run around the whole test run: every test, and every process a test starts, gets a temp
// folder of the run's own (TMPDIR, which os.tmpdir() and the runner read), and at the end
// that folder must be empty. A test, or a run it made, that leaves a folder or a file behind
// fails the suite here, by name, whichever test it was.
//
// What it is not: a test of cleanup itself (cleanup.test.ts interrupts runs on purpose and
// looks in a TMPDIR of its own).

import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

export default function giveTheRunItsOwnTemp(): () => void {
  const before = process.env.TMPDIR;
  const temp = mkdtempSync(path.join(tmpdir(), 'subagents-tests-'));
  // tsx (the runner's fallback starts it: SUBAGENTS_NO_BUNDLE=1) keeps its compile cache
  // in the temp folder, as tsx-<user>, on purpose. Left where it always is (a link to it), so
  // that a test run finds what the last one compiled, as a learner's runs do.
  const tsxCache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
  try {
    mkdirSync(path.join(tmpdir(), tsxCache), { recursive: true });
    symlinkSync(path.join(tmpdir(), tsxCache), path.join(temp, tsxCache), 'dir');
  } catch { /* no link: tsx then makes its cache afresh inside, and it goes with the folder */ }
  process.env.TMPDIR = temp;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    const left = readdirSync(temp).filter((name) => name !== tsxCache);
    rmSync(temp, { recursive: true, force: true });   // the link goes, not what it leads to
    if (left.length === 0) return;
    // vitest reports an error thrown here but still exits 0: the exit code is set by hand.
    console.error(`✖ the tests left ${left.length} thing(s) in their temp folder: ${left.slice(0, 10).join(', ')}`);
    process.exitCode = 1;
  };
}
