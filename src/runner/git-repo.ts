// A scenario's workspace as a git repository (`"git": true`, or `"detached"` for one whose
// HEAD is on no branch): made with the scenario's files as its first commit, and read back after the run for the `branch` and `worktrees`
// expectations. Chapter 16's sub-agents work in worktrees of this repository; whatever
// worktrees it has when the run ends are removed by cleanup.ts (trackWorktreesOf). The
// x-ray's workspace (src/xray/drive.ts) is made here too, with a first commit of its own.
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
import { readdirSync, statSync } from 'node:fs';
import { appendFile, lstat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readGitFolder, workspaceKey, writeGitFolder, type GitFolder } from './repo-copy.ts';

/** Who the first commit is by, and who the agent commits as in the scenario's repository. */
export const SCENARIO_IDENTITY = { name: 'Scenario', email: 'scenario@example.invalid' };
/** The first commit's date: fixed, so its id is the same on every machine and every run. */
const FIRST_COMMIT_DATE = '2026-01-01T00:00:00Z';

/** The environment for the runner's git: none of the user's configuration, no GIT_* from outside. */
export function gitEnv(identity = SCENARIO_IDENTITY): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: os.devNull,
    GIT_AUTHOR_NAME: identity.name, GIT_AUTHOR_EMAIL: identity.email, GIT_AUTHOR_DATE: FIRST_COMMIT_DATE,
    GIT_COMMITTER_NAME: identity.name, GIT_COMMITTER_EMAIL: identity.email, GIT_COMMITTER_DATE: FIRST_COMMIT_DATE,
  };
}

/** Run git in `cwd`: its output, or a rejection with git's own first line of complaint. */
export function git(cwd: string, args: string[], env = gitEnv()): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env, timeout: 10_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args[0]}: ${(stderr.trim() || error.message).split('\n')[0]}`));
      else resolve(stdout);
    });
  });
}

/** A repository's first commit: by whom, its message, and what the repository's own configuration gets besides git init's. */
export interface FirstCommit {
  identity: { name: string; email: string };
  message: string;
  config: string;
  /** Whether git init copies its templates in (sample hooks, info/exclude, a description), as
   *  in a user's repository; without them .git starts with two files instead of seventeen. */
  templates: boolean;
}

/**
 * A scenario's: git's own config syntax, appended instead of `git config` calls. What the
 * agent's commits and merges need on a machine with no git identity, and no signing prompt.
 * No automatic maintenance: every commit (the agent's too) would otherwise start a process
 * of its own, `git maintenance run --auto`, with nothing to do in a repository this small.
 * No templates: nothing in a scenario runs a hook or reads info/exclude, and each run writes
 * its .git afresh (repo-copy.ts), fifteen files fewer.
 */
export const SCENARIO_FIRST_COMMIT: FirstCommit = {
  identity: SCENARIO_IDENTITY,
  message: 'first commit',
  config: `[user]\n\tname = ${SCENARIO_IDENTITY.name}\n\temail = ${SCENARIO_IDENTITY.email}\n[commit]\n\tgpgsign = false\n[maintenance]\n\tauto = false\n`,
  templates: false,
};

/** Repositories made in this process, by workspaceKey: a test run makes the same few again and again. */
const made = new Map<string, GitFolder>();
const MAX_KEPT = 32;

/**
 * Make `dir` (holding the scenario's files) a repository on branch main with every file in
 * one first commit. The first time for these files in this process that is three git
 * calls (a few milliseconds each, and every run of a git scenario would pay them); after
 * that, the same repository written again by repo-copy.ts.
 */
export async function makeRepository(dir: string, first: FirstCommit = SCENARIO_FIRST_COMMIT): Promise<void> {
  // Whatever is already at .git (a link, a "gitdir:" file) would send git into another
  // repository: the scenario loader refuses one, and this is the second line.
  const there = await lstat(path.join(dir, '.git')).then(() => true, () => false);
  if (there) throw new Error(`${dir} already has a .git: the repository is the runner's to make`);
  const key = workspaceKey(dir, JSON.stringify(first));
  const kept = key === undefined ? undefined : made.get(key);
  if (kept && writeGitFolder(dir, kept)) return;
  const env = gitEnv(first.identity);
  // An empty --template is git's way to say "none".
  await git(dir, ['init', '--quiet', '--initial-branch=main', ...(first.templates ? [] : ['--template='])], env);
  if (first.config !== '') await appendFile(path.join(dir, '.git', 'config'), first.config);
  await git(dir, ['add', '--all'], env);
  await git(dir, ['commit', '--quiet', '--allow-empty', '--no-verify', '--message', first.message], env);
  const folder = key === undefined ? undefined : readGitFolder(dir);
  if (key === undefined || !folder) return;
  if (made.size >= MAX_KEPT) made.delete(made.keys().next().value!);
  made.set(key, folder);
}

/** `"git": "detached"`: HEAD at the first commit, on no branch (main stays), as `git checkout --detach` leaves it. */
export async function detachHead(repo: string): Promise<void> {
  await git(repo, ['checkout', '--quiet', '--detach']);
}

/** The repository's local branches. */
export async function branchesOf(repo: string): Promise<string[]> {
  // for-each-ref, not `git branch`: that also lists a detached HEAD, as "(HEAD detached at …)".
  return (await git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads'])).split('\n').filter((b) => b !== '').sort();
}

/** The repository's linked worktrees (the workspace itself not counted): folder and branch. */
export async function worktreesOf(repo: string): Promise<{ dir: string; branch: string }[]> {
  if (hasNoLinkedWorktrees(repo)) return [];
  return parseWorktreeList(await git(repo, ['worktree', 'list', '--porcelain']));
}

/**
 * Does `repo` certainly have no linked worktree, with no git call? git keeps a folder in
 * .git/worktrees for each one, wherever the worktree itself is, and removes .git/worktrees
 * with the last of them. Only a plain repository (.git a folder) is read this way: false
 * means "ask git".
 */
export function hasNoLinkedWorktrees(repo: string): boolean {
  try {
    if (!statSync(path.join(repo, '.git')).isDirectory()) return false;
  } catch {
    return false;
  }
  try {
    return readdirSync(path.join(repo, '.git', 'worktrees')).length === 0;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** `git worktree list --porcelain` read: the linked worktrees (the first block, the repository's own folder, skipped). */
export function parseWorktreeList(list: string): { dir: string; branch: string }[] {
  return list.split('\n\n').slice(1).filter((b) => b.trim() !== '').map((block) => ({
    dir: /^worktree (.*)$/m.exec(block)?.[1] ?? '',
    branch: /^branch refs\/heads\/(.*)$/m.exec(block)?.[1] ?? '(detached)',
  }));
}

/** A file as the branch's last commit has it; undefined when the commit has no such file
 *  (a folder is none: `git show` would list what is in it, which holds any name asked for). */
export async function fileInBranch(repo: string, branch: string, file: string): Promise<string | undefined> {
  return git(repo, ['cat-file', 'blob', `refs/heads/${branch}:${file}`]).catch(() => undefined);
}
