// A scenario's workspace as a git repository (`"git": true`): made with the scenario's
// files as its first commit, and read back after the run for the `branch` and `worktrees`
// expectations. Chapter 16's sub-agents work in worktrees of this repository; whatever
// worktrees it has when the run ends are removed by cleanup.ts (trackWorktreesOf).
//
// The repository must be the same on every machine, with no key and no git setup of the
// user's: the runner's own git calls ignore the user's and the system's git configuration
// and any GIT_* variable of the environment (GIT_DIR, set while a git hook runs, would
// point them at another repository), the first commit has a fixed author and date (so its
// id is the same everywhere), and the repository's own configuration gets the identity the
// agent's `git commit` and `git merge` will use. No network, no remote.
//
// Not here: removing worktrees (cleanup.ts), or anything the agent does with git.

import { execFile } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Who the first commit is by, and who the agent commits as in the scenario's repository. */
export const SCENARIO_IDENTITY = { name: 'Scenario', email: 'scenario@example.invalid' };
/** The first commit's date: fixed, so its id is the same on every machine and every run. */
const FIRST_COMMIT_DATE = '2026-01-01T00:00:00Z';

/** The environment for the runner's git: none of the user's configuration, no GIT_* from outside. */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: os.devNull,
    GIT_AUTHOR_NAME: SCENARIO_IDENTITY.name, GIT_AUTHOR_EMAIL: SCENARIO_IDENTITY.email, GIT_AUTHOR_DATE: FIRST_COMMIT_DATE,
    GIT_COMMITTER_NAME: SCENARIO_IDENTITY.name, GIT_COMMITTER_EMAIL: SCENARIO_IDENTITY.email, GIT_COMMITTER_DATE: FIRST_COMMIT_DATE,
  };
}

/** Run git in `cwd`: its output, or a rejection with git's own first line of complaint. */
export function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: gitEnv(), timeout: 10_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args[0]}: ${(stderr.trim() || error.message).split('\n')[0]}`));
      else resolve(stdout);
    });
  });
}

/**
 * Make `dir` (holding the scenario's files) a repository on branch main with every file in
 * one first commit. Three git calls: each costs a few milliseconds, and every run of a git
 * scenario pays them.
 */
export async function makeRepository(dir: string): Promise<void> {
  await git(dir, ['init', '--quiet', '--initial-branch=main']);
  // git's own config syntax, appended instead of three `git config` calls. What the agent's
  // commits and merges need on a machine with no git identity, and no signing prompt.
  await appendFile(path.join(dir, '.git', 'config'),
    `[user]\n\tname = ${SCENARIO_IDENTITY.name}\n\temail = ${SCENARIO_IDENTITY.email}\n[commit]\n\tgpgsign = false\n`);
  await git(dir, ['add', '--all']);
  await git(dir, ['commit', '--quiet', '--allow-empty', '--no-verify', '--message', 'first commit']);
}

/** The repository's local branches. */
export async function branchesOf(repo: string): Promise<string[]> {
  return (await git(repo, ['branch', '--format=%(refname:short)'])).split('\n').filter((b) => b !== '').sort();
}

/** The repository's linked worktrees (the workspace itself not counted): folder and branch. */
export async function worktreesOf(repo: string): Promise<{ dir: string; branch: string }[]> {
  return parseWorktreeList(await git(repo, ['worktree', 'list', '--porcelain']));
}

/** `git worktree list --porcelain` read: the linked worktrees (the first block, the repository's own folder, skipped). */
export function parseWorktreeList(list: string): { dir: string; branch: string }[] {
  return list.split('\n\n').slice(1).filter((b) => b.trim() !== '').map((block) => ({
    dir: /^worktree (.*)$/m.exec(block)?.[1] ?? '',
    branch: /^branch refs\/heads\/(.*)$/m.exec(block)?.[1] ?? '(detached)',
  }));
}

/** A file as the branch's last commit has it; undefined when the commit has no such file. */
export async function fileInBranch(repo: string, branch: string, file: string): Promise<string | undefined> {
  return git(repo, ['show', `refs/heads/${branch}:${file}`]).catch(() => undefined);
}
