// Run around the whole test run: every test, and every process a test starts, gets a temp
// folder of the run's own (TMPDIR, which os.tmpdir() and the runner read), and at the end
// that folder must be empty. A test, or a run it made, that leaves a folder or a file behind
// fails the suite here, by name, whichever test it was.
//
// What it is not: a test of cleanup itself (cleanup.test.ts interrupts runs on purpose and
// looks in a TMPDIR of its own).

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function giveTheRunItsOwnTemp(): () => void {
  const before = process.env.TMPDIR;
  const temp = mkdtempSync(path.join(tmpdir(), 'subagents-tests-'));
  process.env.TMPDIR = temp;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    // tsx (the `npm run mock` tests start it) keeps a cache of its own there, on purpose.
    const left = readdirSync(temp).filter((name) => !/^tsx-\d+$/.test(name));
    rmSync(temp, { recursive: true, force: true });
    if (left.length === 0) return;
    // vitest reports an error thrown here but still exits 0: the exit code is set by hand.
    console.error(`✖ the tests left ${left.length} thing(s) in their temp folder: ${left.slice(0, 10).join(', ')}`);
    process.exitCode = 1;
  };
}
