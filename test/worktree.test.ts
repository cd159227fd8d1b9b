// Chapter 16's worktrees on their own, against real git repositories in temp folders:
// made from HEAD on a new branch, removed with the branch when nothing changed, kept and
// described when something did (a commit, an edit, a new file), and every refusal (no
// repository, no commit yet, git refusing the worktree) leaving nothing behind. The
// chapter's scenarios show the same through a whole agent; this is where each case of
// "changed" and each way of failing is pinned down, at a few git calls each.

import { it, expect, afterEach } from 'vitest';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWorktree, finishUnfinished, finishWorktree } from '../steps/16-worktree-isolation/worktree.ts';
import { makeRepository, type FirstCommit } from '../src/runner/git-repo.ts';
import { decide } from '../steps/16-worktree-isolation/permissions.ts';
import { writeFileTool } from '../steps/16-worktree-isolation/tools.ts';
import type { LoopConfig } from '../steps/16-worktree-isolation/types.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// No user or global git configuration is assumed: identity and signing are given per call.
const IDENTITY = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false'];
const git = (cwd: string, ...args: string[]): string => execFileSync('git', [...IDENTITY, ...args], { cwd, encoding: 'utf8' }).trim();

/** The first commit of base/repo, by the identity the repository's own configuration holds. */
const FIRST: FirstCommit = { identity: { name: 'Test', email: 'test@example.com' }, message: 'first', config: '[user]\n\tname = Test\n\temail = test@example.com\n', templates: false };

/** base/repo: a repository with one commit holding a.txt and src/b.txt (made as the runner makes a scenario's). */
async function repo(commit = true): Promise<{ base: string; repo: string }> {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'worktree-test-')));
  made.push(base);
  const dir = path.join(base, 'repo');
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  writeFileSync(path.join(dir, 'a.txt'), 'one\n');
  writeFileSync(path.join(dir, 'src', 'b.txt'), 'two\n');
  if (commit) {
    await makeRepository(dir, FIRST);
  } else {
    git(base, 'init', '-q', '-b', 'main', dir);
    // The repository's own identity: what the commit of a kept worktree's leftovers is made as.
    appendFileSync(path.join(dir, '.git', 'config'), FIRST.config);
  }
  return { base, repo: dir };
}

const branches = (dir: string) => git(dir, 'branch', '--format=%(refname:short)').split('\n').sort();
const worktrees = (dir: string) => git(dir, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length;

it('makes a worktree beside the repository, on a new branch at HEAD, outside the workspace', async () => {
  const { base, repo: dir } = await repo();
  const wt = await createWorktree(dir, 'agent-1');
  expect(wt.dir).toBe(path.join(base, 'repo.worktrees', 'agent-1'));
  expect(wt.cwd).toBe(wt.dir);
  expect(wt.shown).toBe(path.join('..', 'repo.worktrees', 'agent-1'));
  expect(wt.base).toBe(git(dir, 'rev-parse', 'HEAD'));
  expect(git(wt.dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('agent-1');
  expect(git(wt.dir, 'rev-parse', 'HEAD')).toBe(wt.base);
  expect(branches(dir)).toEqual(['agent-1', 'main']);
  expect(path.relative(dir, wt.dir).startsWith('..')).toBe(true);
});

it('an unchanged worktree is removed with its branch, and the folder that held it', async () => {
  const { base, repo: dir } = await repo();
  const wt = await createWorktree(dir, 'agent-1');
  expect(await finishWorktree(wt)).toBeUndefined();
  expect(existsSync(wt.dir)).toBe(false);
  expect(existsSync(path.join(base, 'repo.worktrees'))).toBe(false);
  expect(branches(dir)).toEqual(['main']);
  expect(worktrees(dir)).toBe(1);
});

for (const [what, change, expected] of [
  ['an edited tracked file', (d: string) => writeFileSync(path.join(d, 'a.txt'), 'changed\n'), /: 1 commit on top of [0-9a-f]{7}, the last made when it finished, of what it left uncommitted: "a\.txt"$/],
  ['a new untracked file in a new folder', (d: string) => { mkdirSync(path.join(d, 'new')); writeFileSync(path.join(d, 'new', 'c.txt'), 'x'); }, /left uncommitted: "new\/c\.txt"$/],
  ['a deleted file', (d: string) => rmSync(path.join(d, 'src', 'b.txt')), /left uncommitted: "src\/b\.txt"$/],
  ['a new file named beyond ASCII, with a space', (d: string) => { mkdirSync(path.join(d, 'docs')); writeFileSync(path.join(d, 'docs', 'café notes.txt'), 'x'); }, /left uncommitted: "docs\/café notes\.txt"$/],
  ['a commit', (d: string) => { writeFileSync(path.join(d, 'a.txt'), 'committed\n'); git(d, 'commit', '-q', '-am', 'edit'); }, /: 1 commit on top of [0-9a-f]{7}$/],
] as const) {
  it(`a worktree with ${what} is kept, and the parent is told where and on which branch`, async () => {
    const { repo: dir } = await repo();
    const wt = await createWorktree(dir, 'agent-1');
    change(wt.dir);
    const report = await finishWorktree(wt);
    expect(report).toMatch(/^Its changes are kept in the worktree \.\.\/repo\.worktrees\/agent-1, on branch agent-1/);
    expect(report).toMatch(expected);
    expect(existsSync(wt.dir)).toBe(true);
    expect(branches(dir)).toEqual(['agent-1', 'main']);
    // Everything is on the branch now: the worktree is clean, and main can merge it.
    expect(git(wt.dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'diff', '--name-only', 'main', 'agent-1')).not.toBe('');
  });
}

it('when the leftovers cannot be committed (no git identity, say), the worktree keeps them, staged, and the parent is told', async () => {
  const { repo: dir } = await repo();
  const wt = await createWorktree(dir, 'agent-1');
  writeFileSync(path.join(wt.dir, 'a.txt'), 'changed\n');
  git(dir, 'config', 'user.useConfigOnly', 'true');
  git(dir, 'config', '--unset', 'user.email');
  // No identity anywhere git looks: not in ~/.gitconfig, XDG's git/config or the system's
  // file, nor in the variables (a CI machine may set any of them).
  const saved = Object.fromEntries(Object.entries(process.env).filter(([k]) => k === 'HOME' || k === 'EMAIL' || k === 'XDG_CONFIG_HOME' || k.startsWith('GIT_')));
  for (const k of Object.keys(saved)) delete process.env[k];
  Object.assign(process.env, { HOME: path.dirname(dir), XDG_CONFIG_HOME: path.dirname(dir), GIT_CONFIG_NOSYSTEM: '1' });
  try {
    const report = await finishWorktree(wt);
    expect(report).toMatch(/^Its changes are kept in the worktree .*, on branch agent-1: not committed, since git commit failed \(".+"\): "a\.txt"$/);
    expect(git(wt.dir, 'status', '--porcelain')).toBe('M  a.txt');
  } finally {
    for (const k of ['HOME', 'XDG_CONFIG_HOME', 'GIT_CONFIG_NOSYSTEM']) delete process.env[k];
    Object.assign(process.env, saved);
  }
});

it('a file only .gitignore covers does not keep a worktree', async () => {
  const { repo: dir } = await repo(false);
  writeFileSync(path.join(dir, '.gitignore'), 'build/\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  const wt = await createWorktree(dir, 'agent-1');
  mkdirSync(path.join(wt.dir, 'build'));
  writeFileSync(path.join(wt.dir, 'build', 'out.js'), 'x');
  expect(await finishWorktree(wt)).toBeUndefined();
  expect(existsSync(wt.dir)).toBe(false);
});

it('from a subfolder of the repository, the child works in the same subfolder of its worktree', async () => {
  const { repo: dir } = await repo();
  const wt = await createWorktree(path.join(dir, 'src'), 'agent-1');
  expect(wt.cwd).toBe(path.join(wt.dir, 'src'));
  expect(wt.shown).toBe(path.join('..', '..', 'repo.worktrees', 'agent-1'));
  expect(await finishWorktree(wt)).toBeUndefined();
});

it('a branch name already taken (a kept worktree of an earlier session) gets the next name', async () => {
  const { repo: dir } = await repo();
  git(dir, 'branch', 'agent-1');
  const wt = await createWorktree(dir, 'agent-1');
  expect(wt.branch).toBe('agent-1-2');
  expect(await finishWorktree(wt)).toBeUndefined();
  expect(branches(dir)).toEqual(['agent-1', 'main']);   // the older branch is not ours to delete
});

it('outside a repository: one clear error, and nothing made', async () => {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'worktree-test-')));
  made.push(base);
  await expect(createWorktree(base, 'agent-1')).rejects.toThrow(`isolation "worktree" needs a git repository, and ${base} is not in one`);
  expect(readdirSync(base)).toEqual([]);
  expect(readdirSync(path.dirname(base)).some((f) => f.startsWith(`${path.basename(base)}.worktrees`))).toBe(false);
});

it('a repository with no commit yet: one clear error, and nothing made', async () => {
  const { base, repo: dir } = await repo(false);
  await expect(createWorktree(dir, 'agent-1')).rejects.toThrow(/branches from HEAD, and the repository .* has no commit yet/);
  expect(readdirSync(base)).toEqual(['repo']);
});

it('when git worktree add fails, the branch it was to check out is deleted again and no folder is left', async () => {
  const { base, repo: dir } = await repo();
  // A file where the worktrees' folder would go: git cannot make the worktree under it.
  writeFileSync(path.join(base, 'repo.worktrees'), 'in the way\n');
  await expect(createWorktree(dir, 'agent-1')).rejects.toThrow(/^git worktree add failed: /);
  expect(branches(dir)).toEqual(['main']);
  expect(worktrees(dir)).toBe(1);
  expect(readdirSync(base).sort()).toEqual(['repo', 'repo.worktrees']);
});

it('when the parent\'s folder is a file in the checkout, the worktree and its branch are undone and no folder is left', async () => {
  const { base, repo: dir } = await repo(false);
  writeFileSync(path.join(dir, 'notes'), 'a file in the first commit\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  // The parent works in a folder that has replaced the committed file of the same name.
  rmSync(path.join(dir, 'notes'));
  mkdirSync(path.join(dir, 'notes'));
  await expect(createWorktree(path.join(dir, 'notes'), 'agent-1')).rejects.toThrow(/^the worktree has no folder notes to work in: /);
  expect(branches(dir)).toEqual(['main']);
  expect(worktrees(dir)).toBe(1);
  expect(readdirSync(base)).toEqual(['repo']);
});

// The commit of a kept worktree's leftovers is the series' own bookkeeping, not the user's
// commit: none of git's commit hooks runs for it, not even the user's own in .git/hooks
// (--no-verify alone would still run prepare-commit-msg and post-commit).
it('the commit of what a sub-agent left uncommitted runs none of the commit hooks in git\'s own folder', async () => {
  const { base, repo: dir } = await repo();
  const ran = path.join(base, 'hook-ran');
  mkdirSync(path.join(dir, '.git', 'hooks'), { recursive: true });
  for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit']) {
    writeFileSync(path.join(dir, '.git', 'hooks', hook), `#!/bin/sh\necho ${hook} >> '${ran}'\n`, { mode: 0o755 });
  }
  const wt = await createWorktree(dir, 'agent-1');
  writeFileSync(path.join(wt.dir, 'a.txt'), 'changed\n');
  expect(await finishWorktree(wt)).toMatch(/1 commit on top of .*left uncommitted: "a\.txt"$/);
  expect(git(dir, 'show', 'agent-1:a.txt')).toBe('changed');
  expect(existsSync(ran) ? readFileSync(ran, 'utf8') : 'no hook ran').toBe('no hook ran');
});

it('eight made and finished at the same time in one repository all succeed (git is asked one at a time)', async () => {
  const { base, repo: dir } = await repo();
  const all = await Promise.all(Array.from({ length: 8 }, (_, i) => createWorktree(dir, `agent-${i + 1}`)));
  expect(new Set(all.map((w) => w.branch)).size).toBe(8);
  writeFileSync(path.join(all[0]!.dir, 'a.txt'), 'changed\n');
  const reports = await Promise.all(all.map((w) => finishWorktree(w)));
  expect(reports.filter((r) => r !== undefined)).toHaveLength(1);
  expect(branches(dir)).toEqual(['agent-1', 'main']);
  expect(readdirSync(path.join(base, 'repo.worktrees'))).toEqual(['agent-1']);
});

// bin.ts on Ctrl-C: the writers were cut short, and whatever worktree was not finished yet
// is finished then, as at a normal end: the unchanged one goes with its branch, the changed
// one stays, its work committed. One already finished is not touched again.
it('an interrupted session finishes what it left unfinished: the unchanged worktree goes, the changed one stays', async () => {
  const { repo: dir } = await repo();
  const untouched = await createWorktree(dir, 'agent-untouched');
  const edited = await createWorktree(dir, 'agent-edited');
  const done = await createWorktree(dir, 'agent-done');
  writeFileSync(path.join(edited.dir, 'a.txt'), 'changed\n');
  await finishWorktree(done);
  await finishUnfinished();
  expect(existsSync(untouched.dir)).toBe(false);
  expect(existsSync(edited.dir)).toBe(true);
  expect(branches(dir)).toEqual(['agent-edited', 'main']);
  expect(git(dir, 'show', 'agent-edited:a.txt')).toBe('changed');
  expect(worktrees(dir)).toBe(2);
});

// A repository whose hooks live in its working tree (core.hooksPath = .husky/_, as husky 9
// sets it; its generated hook runs .husky/<name> with sh, no executable bit needed). In
// acceptEdits a write there is approved without a question, like any file of the project:
// if the worktree's own git calls ran hooks, that write would run as a command nobody was
// asked about, outside the workspace as much as in it.
it('no hook runs for the worktree\'s git calls: a hook the model wrote in acceptEdits stays a file', async () => {
  const { base, repo: dir } = await repo(false);
  appendFileSync(path.join(dir, '.git', 'config'), '[core]\n\thooksPath = .husky/_\n');
  mkdirSync(path.join(dir, '.husky', '_'), { recursive: true });
  writeFileSync(path.join(dir, '.husky', '_', '.gitignore'), '*\n');
  for (const hook of ['post-checkout', 'post-commit']) {
    writeFileSync(path.join(dir, '.husky', '_', hook), '#!/bin/sh\ns="$(dirname "$(dirname "$0")")/$(basename "$0")"\n[ -f "$s" ] && sh -e "$s"\nexit 0\n', { mode: 0o755 });
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  const ran = path.join(base, 'hook-ran');
  const config = { cwd: dir, permissions: { mode: 'acceptEdits' } } as unknown as LoopConfig;
  for (const hook of ['post-checkout', 'post-commit']) {
    const input = { path: `.husky/${hook}`, content: `echo ${hook} >> '${ran}'\n` };
    expect(await decide('write_file', input, config)).toEqual({ allow: true, path: path.join(realpathSync(dir), '.husky', hook) });   // asked nobody
    await writeFileTool.run(input, config);
  }
  const wt = await createWorktree(dir, 'agent-1');
  writeFileSync(path.join(wt.dir, 'a.txt'), 'changed\n');
  expect(await finishWorktree(wt)).toMatch(/1 commit on top of/);
  expect(existsSync(ran) ? readFileSync(ran, 'utf8') : 'no hook ran').toBe('no hook ran');
});
