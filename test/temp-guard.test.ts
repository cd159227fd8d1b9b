// Where the test run's own temp folder goes (test/temp-guard.ts): in memory where Linux has
// a tmpfs the tests can use, never against what TMPDIR says, never where programs cannot run
// (nor where there is too little room: that one is read from the machine's own /dev/shm).

import { it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectScratch, scratchBefore, scratchLeftBehind, sweepOnExit, tempBase } from './temp-guard.ts';

const shm = (type: string, options: string[]) => [{ dir: '/', type: 'ext4', options: ['rw'] }, { dir: '/dev/shm', type, options }];

it('a set TMPDIR is kept, whatever is mounted', () => {
  expect(tempBase({ TMPDIR: '/somewhere' }, shm('tmpfs', ['rw']))).toBe(tmpdir());
});

it('without TMPDIR: /dev/shm when it is a tmpfs programs may run from, else the system temp folder', () => {
  expect(tempBase({}, shm('tmpfs', ['rw', 'noexec']))).toBe(tmpdir());
  expect(tempBase({}, shm('ext4', ['rw']))).toBe(tmpdir());
  expect(tempBase({}, [])).toBe(tmpdir());
  // Usable here only where the machine really has one, writable, with a gigabyte free.
  let usable = true;
  try {
    accessSync('/dev/shm', constants.W_OK);
    const { bavail, bsize } = statfsSync('/dev/shm');
    usable = bavail * bsize >= 1024 ** 3;
  } catch { usable = false; }
  expect(tempBase({}, shm('tmpfs', ['rw', 'nosuid']))).toBe(usable ? '/dev/shm' : tmpdir());
});

/** A made-up project in a temp folder, for the sweeps: `made(...parts)` makes a folder there with a file in it. */
function withProject(test: (root: string, temp: string, made: (...parts: string[]) => void) => void): void {
  const base = mkdtempSync(path.join(tmpdir(), 'sweep-'));
  try {
    const root = path.join(base, 'project');
    const made = (...parts: string[]) => { mkdirSync(path.join(root, ...parts), { recursive: true }); writeFileSync(path.join(root, ...parts, 'f'), 'x'); };
    test(root, path.join(base, 'subagents-tests-x'), made);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

it('a run that ends early (Ctrl-C) removes its temp folder and the scratch folders made since it began, and no other', () => {
  withProject((root, temp, made) => {
    made('.tmp-earlier');
    made('.tmp', 'mutants', 'earlier-1');
    made('src');
    const sweep = sweepOnExit(temp, root, scratchBefore(root));
    mkdirSync(path.join(temp, 'subagents-run-1', 'work'), { recursive: true });
    made('.tmp-cli-1');
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;   // a self-check that has ended
    made('.tmp', 'mutants', `now-${ended}-1`);
    made('.tmp', 'shortcuts', 'worktree-keeps-all');
    sweep();
    expect(existsSync(temp)).toBe(false);
    expect(projectScratch(root).map((p) => path.relative(root, p)).sort()).toEqual(['.tmp-earlier', path.join('.tmp', 'mutants', 'earlier-1')]);
    expect(existsSync(path.join(root, 'src', 'f'))).toBe(true);
    // The holder the run made goes with what it held; the one that was there stays.
    expect(readdirSync(path.join(root, '.tmp'))).toEqual(['mutants']);
  });
});

it('at the end of a run, the scratch folders its tests left are named and removed, with the holders it made for them', () => {
  withProject((root, _temp, made) => {
    made('.tmp-earlier');
    const before = scratchBefore(root);
    made('.tmp-cli-1');
    made('.tmp', 'shortcuts', 'loop-stops-early');
    made('.tmp', 'fast-start-ab12cd', 'src');   // a test's own folder in .tmp: named as one
    mkdirSync(path.join(root, '.tmp', 'mutants'));
    expect(scratchLeftBehind(root, before).sort()).toEqual(['.tmp-cli-1', path.join('.tmp', 'fast-start-ab12cd'), path.join('.tmp', 'shortcuts', 'loop-stops-early')]);
    expect(readdirSync(root)).toEqual(['.tmp-earlier']);
  });
});

it("a test's scratch folder made for another test run still going is that run's, and is left alone, at the end and on Ctrl-C", () => {
  withProject((root, temp, made) => {
    const before = scratchBefore(root);
    const other = spawnSync(process.execPath, ['-e', 'console.log(process.ppid)']);   // a run that has ended
    made('.tmp', `loop-r${process.ppid}-AbC123`);   // vitest's own process, running: another run's, to this one
    made('.tmp', `loop-r${other.pid}-XyZ789`);
    made('.tmp', `loop-r${process.pid}-Own456`);   // this run's own
    expect(scratchLeftBehind(root, before).sort()).toEqual([path.join('.tmp', `loop-r${other.pid}-XyZ789`), path.join('.tmp', `loop-r${process.pid}-Own456`)].sort());
    expect(readdirSync(path.join(root, '.tmp'))).toEqual([`loop-r${process.ppid}-AbC123`]);
    made('.tmp', `loop-r${process.pid}-Own789`);
    sweepOnExit(temp, root, before)();
    expect(readdirSync(path.join(root, '.tmp'))).toEqual([`loop-r${process.ppid}-AbC123`]);
  });
});

it("a scratch folder named for a process still running is that process's, and is left alone", () => {
  withProject((root, _temp, made) => {
    const before = scratchBefore(root);
    const other = spawnSync(process.execPath, ['-e', 'console.log(process.ppid)']);   // a pid that has ended
    made('.tmp', 'mutants', `chapter-1-mutant-${process.ppid}-3`);   // vitest's own process, running
    made('.tmp', 'mutants', `chapter-1-mutant-${other.pid}-3`);
    expect(scratchLeftBehind(root, before)).toEqual([path.join('.tmp', 'mutants', `chapter-1-mutant-${other.pid}-3`)]);
    expect(readdirSync(path.join(root, '.tmp', 'mutants'))).toEqual([`chapter-1-mutant-${process.ppid}-3`]);
  });
});
