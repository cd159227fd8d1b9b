// The agent's own git runs no filter command that the repository's config sets, and no hook
// (git.ts):
// chapter 3's status for the system prompt, taken when a session starts, before the model
// has said a word. A filter is set in a file the working tree holds and the config includes,
// as a model could set one in acceptEdits (chapter 16's included-filter case shows the
// worktree's side). Plain git in the same repository runs it: the setup is live.

import { afterEach, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitEnv } from '../src/runner/git-repo.ts';
import { gatherPromptParts } from '../steps/03-system-prompt/prompt.ts';

const made: string[] = [];
const globalBefore = process.env.GIT_CONFIG_GLOBAL;
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (globalBefore === undefined) delete process.env.GIT_CONFIG_GLOBAL;
  else process.env.GIT_CONFIG_GLOBAL = globalBefore;
});

/** A repository with one commit, a changed tracked file, and `filter` (a name) set in
 *  shared.gitconfig, which its config includes, for every file; the filter's command writes
 *  ran-NAME.txt beside the repository when it runs. */
function repositoryWithFilter(filter: string): { repo: string; ran: string } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'git-filters-')));
  made.push(dir);
  const repo = path.join(dir, 'repo');
  const ran = path.join(dir, 'ran.txt');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: gitEnv(), stdio: 'pipe' });
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo], { env: gitEnv() });
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  git('add', '--all');
  git('commit', '--quiet', '--message', 'first');
  const command = `sh -c 'echo ran >> ${ran}; cat'`;
  writeFileSync(path.join(repo, 'shared.gitconfig'), `[filter "${filter}"]\n\tclean = "${command}"\n`);
  git('config', 'include.path', '../shared.gitconfig');
  writeFileSync(path.join(repo, '.gitattributes'), `* filter=${filter}\n`);
  writeFileSync(path.join(repo, 'a.txt'), 'two\n');
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
