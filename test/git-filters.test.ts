// The agent's own git runs no filter command that the repository's config sets, and no hook
// (git.ts):
// chapter 3's status for the system prompt, taken when a session starts, before the model
// has said a word. A filter is set in a file the working tree holds and the config includes,
// as a model could set one in acceptEdits (chapter 16's included-filter case shows the
// worktree's side). Plain git in the same repository runs it: the setup is live.

import { afterEach, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitEnv } from '../src/runner/git-repo.ts';
import { gatherPromptParts } from '../steps/03-system-prompt/prompt.ts';
import { configMayNameFilters } from '../steps/03-system-prompt/git.ts';

const made: string[] = [];
const globalBefore = process.env.GIT_CONFIG_GLOBAL;
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (globalBefore === undefined) delete process.env.GIT_CONFIG_GLOBAL;
  else process.env.GIT_CONFIG_GLOBAL = globalBefore;
});

/** base/repo: one commit, a.txt changed since (same size: a status must read it, through the
 *  filter), .gitattributes naming `filter` for every file, and a command for it that marks
 *  ran.txt beside the repository when it runs (set nowhere yet). The folder's name and the
 *  command say neither "filter" nor "include" (the cases at the end count on it). */
function plainRepository(filter = 'x'): { base: string; repo: string; ran: string; command: string; git: (cwd: string, ...args: string[]) => string } {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'git-precheck-')));
  made.push(base);
  const repo = path.join(base, 'repo');
  const ran = path.join(base, 'ran.txt');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8' });
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo], { env: gitEnv() });
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', '--all');
  git(repo, 'commit', '--quiet', '--message', 'first');
  writeFileSync(path.join(repo, '.gitattributes'), `* filter=${filter}\n`);
  writeFileSync(path.join(repo, 'a.txt'), 'two\n');
  return { base, repo, ran, command: `sh -c 'echo ran >> ${ran}; cat'`, git };
}

/** plainRepository, with `filter` (a name) set in shared.gitconfig, which its config includes. */
function repositoryWithFilter(filter: string): { repo: string; ran: string } {
  const { repo, ran, command, git } = plainRepository(filter);
  writeFileSync(path.join(repo, 'shared.gitconfig'), `[filter "${filter}"]\n\tclean = "${command}"\n`);
  git(repo, 'config', 'include.path', '../shared.gitconfig');
  return { repo, ran };
}

const host = (cwd: string) => ({
  cwd, home: cwd, apiKey: 'x', model: 'm', env: {}, argv: [], platform: 'linux',
  terminal: { write() {} },
});

for (const name of ['x', 'a=b']) {
  it(`the system prompt's status runs no command of a filter the repository's config includes (named ${JSON.stringify(name)})`, async () => {
    const { repo, ran } = repositoryWithFilter(name);
    execFileSync('git', ['add', '--all'], { cwd: repo, env: gitEnv(), stdio: 'pipe' });
    expect(existsSync(ran), 'plain git runs the filter: the setup is live').toBe(true);
    execFileSync('git', ['reset', '--quiet'], { cwd: repo, env: { ...gitEnv(), GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `filter.${name}.clean`, GIT_CONFIG_VALUE_0: '' } });
    rmSync(ran);

    const parts = await gatherPromptParts(host(repo));
    expect(parts.gitStatus).toContain(' M a.txt');
    expect(existsSync(ran)).toBe(false);
  });
}

it("a filter of the user's own config (git-lfs puts one there) still runs: only the repository's are switched off", async () => {
  const { repo, ran } = repositoryWithFilter('x');
  rmSync(path.join(repo, 'shared.gitconfig'));
  const own = path.join(path.dirname(repo), 'user.gitconfig');
  writeFileSync(own, `[filter "x"]\n\tclean = "sh -c 'echo ran >> ${ran}; cat'"\n`);
  process.env.GIT_CONFIG_GLOBAL = own;

  const parts = await gatherPromptParts(host(repo));
  expect(parts.gitStatus).toContain(' M a.txt');
  expect(existsSync(ran)).toBe(true);
});

// A status that finds a file's stat data changed refreshes the index and writes it, and that
// runs the post-index-change hook. Hook managers (husky) point core.hooksPath into the working
// tree, where the model writes in acceptEdits: a hook written there in one session would run
// at the start of the next, before a word is said. The agent's status runs no hook.
it("the system prompt's status runs no hook, though it writes the index and the repository keeps its hooks in the working tree", async () => {
  const { repo, ran } = repositoryWithFilter('x');
  rmSync(path.join(repo, '.gitattributes'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: gitEnv(), stdio: 'pipe' });
  git('checkout', '--quiet', 'a.txt');
  mkdirSync(path.join(repo, '.husky'));
  writeFileSync(path.join(repo, '.husky', 'post-index-change'), `#!/bin/sh\necho ran >> ${ran}\n`);
  chmodSync(path.join(repo, '.husky', 'post-index-change'), 0o755);
  git('config', 'core.hooksPath', '.husky');
  const restamp = (seconds: number) => utimesSync(path.join(repo, 'a.txt'), seconds, seconds);

  restamp(1_000_000_000);
  git('status', '--short');
  expect(existsSync(ran), 'plain git runs the hook: the setup is live').toBe(true);
  rmSync(ran);

  restamp(1_100_000_000);
  const parts = await gatherPromptParts(host(repo));
  expect(parts.gitStatus).toContain('?? .husky/');
  expect(existsSync(ran)).toBe(false);
});

// Most repositories set no filter, and repoFiltersOff learns that from the config files on
// disk, without a git process (git.ts, configMayNameFilters). Each case below puts the filter
// where only a full reading finds it; plain git in the same folder runs it (the setup is
// live), the prompt's status does not. The folders' names and the filter's command say neither
// "filter" nor "include", so only the config's own words can tell.

/** Plain git's status in `cwd` runs the filter (then the mark is removed); the prompt's status, taken there, does not. */
async function promptStatusRunsNoFilter(cwd: string, ran: string, env: NodeJS.ProcessEnv = gitEnv()): Promise<void> {
  execFileSync('git', ['status', '--short'], { cwd, env, stdio: 'pipe' });
  expect(existsSync(ran), 'plain git runs the filter: the setup is live').toBe(true);
  rmSync(ran);
  const parts = await gatherPromptParts(host(cwd));
  expect(parts.gitStatus).toContain('a.txt');
  expect(existsSync(ran)).toBe(false);
}

it("a filter set in the repository's own config, its section name in capitals, still runs no command", async () => {
  const { repo, ran, command } = plainRepository();
  appendFileSync(path.join(repo, '.git', 'config'), `[FILTER "x"]\n\tclean = "${command}"\n`);
  await promptStatusRunsNoFilter(repo, ran);
});

it('a filter set in the per-worktree config (extensions.worktreeConfig) runs no command', async () => {
  const { repo, ran, command, git } = plainRepository();
  git(repo, 'config', 'extensions.worktreeConfig', 'true');
  git(repo, 'config', '--worktree', 'filter.x.clean', command);
  expect(readFileSync(path.join(repo, '.git', 'config'), 'utf8')).not.toMatch(/filter/i);
  await promptStatusRunsNoFilter(repo, ran);
});

it("in a linked worktree, a filter of the repository's shared config runs no command", async () => {
  const { base, repo, ran, command, git } = plainRepository();
  git(repo, 'config', 'filter.x.clean', command);
  const tree = path.join(base, 'tree');
  git(repo, 'worktree', 'add', '--quiet', tree, '-b', 'side');
  writeFileSync(path.join(tree, '.gitattributes'), '* filter=x\n');
  writeFileSync(path.join(tree, 'a.txt'), 'two\n');
  rmSync(ran, { force: true });   // the checkout ran it
  await promptStatusRunsNoFilter(tree, ran);
});

it('a .git that is no repository, in a subfolder of one whose config sets a filter: git passes over it, and the filter runs no command', async () => {
  const { repo, ran, command, git } = plainRepository();
  git(repo, 'config', 'filter.x.clean', command);
  const sub = path.join(repo, 'sub');
  mkdirSync(path.join(sub, '.git'), { recursive: true });
  await promptStatusRunsNoFilter(sub, ran);
});

it('with GIT_DIR in the environment (a git hook runs with it set), the repository it names is the one asked about', async () => {
  const { base, repo, ran, command, git } = plainRepository();
  git(repo, 'config', 'filter.x.clean', command);
  // The repository's own .git moves away, and a repository of no filter takes its place.
  const away = path.join(base, 'away.git');
  renameSync(path.join(repo, '.git'), away);
  execFileSync('git', ['init', '--quiet', path.join(base, 'decoy')], { env: gitEnv() });
  renameSync(path.join(base, 'decoy', '.git'), path.join(repo, '.git'));
  const before = process.env.GIT_DIR;
  process.env.GIT_DIR = away;
  try {
    await promptStatusRunsNoFilter(repo, ran, { ...gitEnv(), GIT_DIR: away });
  } finally {
    if (before === undefined) delete process.env.GIT_DIR;
    else process.env.GIT_DIR = before;
  }
});

it('a repository whose config names no filter and includes nothing is answered from the disk; one that does, by git', () => {
  const { repo, command, git } = plainRepository();
  expect(configMayNameFilters(repo)).toBe(false);
  git(repo, 'config', 'include.path', '../other.gitconfig');
  expect(configMayNameFilters(repo)).toBe(true);
  git(repo, 'config', '--unset', 'include.path');
  git(repo, 'config', 'filter.x.clean', command);
  expect(configMayNameFilters(repo)).toBe(true);
});
