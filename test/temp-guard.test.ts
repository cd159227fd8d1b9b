// Where the test run's own temp folder goes (test/temp-guard.ts): in memory where Linux has
// a tmpfs the tests can use, never against what TMPDIR says, never where programs cannot run
// (nor where there is too little room: that one is read from the machine's own /dev/shm).

import { it, expect } from 'vitest';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectScratch, sweepOnExit, tempBase } from './temp-guard.ts';

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

it('a run that ends early (Ctrl-C) removes its temp folder and the scratch folders made since it began, and no other', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'sweep-'));
  try {
    const root = path.join(base, 'project');
    const temp = path.join(base, 'subagents-tests-x');
    const made = (...parts: string[]) => { mkdirSync(path.join(root, ...parts), { recursive: true }); writeFileSync(path.join(root, ...parts, 'f'), 'x'); };
    made('.tmp-earlier');
    made('.tmp', 'mutants', 'earlier-1');
    made('src');
    const sweep = sweepOnExit(temp, root, new Set(projectScratch(root)));
    mkdirSync(path.join(temp, 'subagents-run-1', 'work'), { recursive: true });
    made('.tmp-cli-1');
    made('.tmp', 'mutants', 'now-2');
    made('.tmp', 'half-done', '16-worktree-isolation');
    sweep();
    expect(existsSync(temp)).toBe(false);
    expect(projectScratch(root).map((p) => path.relative(root, p)).sort()).toEqual(['.tmp-earlier', path.join('.tmp', 'mutants', 'earlier-1')]);
    expect(existsSync(path.join(root, 'src', 'f'))).toBe(true);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
