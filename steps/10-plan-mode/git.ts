// GENERATED from src/agent/git.ts for chapter 10 (plan-mode). Do not edit: change src/agent/git.ts and run npm run gen.
// What every git call of the agent's own carries, so that no setting of the repository's can
// make git start a command. The agent runs git itself (the system prompt's status, chapter 3;
// a sub-agent's worktree, chapter 16), with no question asked, and a repository's config may
// include a file of its working tree (include.path), which the model can write
// (acceptEdits writes without a question). A command named there would then run as if the
// user had typed it.
//
// Not here: running git (prompt.ts and worktree.ts each wrap execFile their own way), or the
// model's own shell commands, which the permission gate asks about (chapter 6).

import { execFile } from 'node:child_process';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * On the command line, above any config file: git refuses a folder that only looks like a
 * repository (HEAD, refs/ and objects/ make one, found before any .git above it, and any
 * project, or a model with write_file, can make one), runs no file-system monitor
 * (core.fsmonitor: a command run at every status and checkout), and no hook: a status that
 * writes the index runs post-index-change, and hook managers (husky) point core.hooksPath
 * into the working tree, where the model writes. A caller that wants git's own hooks (a
 * worktree's checkout, chapter 16) names their folder in a `-c` after these: the last wins.
 */
export const SAFE_GIT = ['-c', 'safe.bareRepository=explicit', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null'];

/**
 * git's commands here that read or move refs only (a branch's name, a commit count, a new
 * branch): no file's content passes through them, so no filter can run, and the config is not
 * read for one (a process fewer). Any other command is taken to run filters.
 */
const REFS_ONLY = new Set(['rev-parse', 'rev-list', 'branch']);

/**
 * The environment for the git call `args` in `cwd` that runs no filter command the repository set.
 * A filter is a pair of commands git runs on a file's way in (clean: status, add) and out
 * (smudge: a checkout), for the files an attributes file names: .gitattributes, which the
 * model can write. A filter set in the repository's own config (scope "local", the files it
 * includes too) is switched off: its commands set empty, which git reads as no filter, and not
 * required. One in the user's own config (git-lfs puts one there) is the user's, and left
 * alone. The settings go through GIT_CONFIG_COUNT, which takes a name as it is: a `-c` would
 * cut a filter named "a=b" at its "=". Read just before the call (from the disk, when the
 * config files say no filter at all: configMayNameFilters); a write in between (a background
 * sub-agent's) could still add one, which is why this is a guard, not a sandbox.
 */
export function repoFiltersOff(cwd: string, args: string[]): Promise<NodeJS.ProcessEnv> {
  const command = args.find((arg, i) => !arg.startsWith('-') && args[i - 1] !== '-c');
  if (command !== undefined && REFS_ONLY.has(command)) return Promise.resolve(process.env);
  if (!configMayNameFilters(cwd)) return Promise.resolve(process.env);
  const read = [...SAFE_GIT, 'config', '--show-scope', '--name-only', '--get-regexp', '^filter\\.'];
  return new Promise((resolve) => {
    execFile('git', read, { cwd, timeout: 10_000 }, (_error, stdout) => {
      const names = new Set<string>();
      for (const line of stdout.split('\n')) {
        const [scope, key] = line.split('\t');
        if ((scope === 'local' || scope === 'worktree') && key) names.add(key.slice('filter.'.length, key.lastIndexOf('.')));
      }
      const env: NodeJS.ProcessEnv = { ...process.env };
      let n = Number(env.GIT_CONFIG_COUNT) || 0;
      for (const name of names) {
        for (const [setting, value] of [['clean', ''], ['smudge', ''], ['process', ''], ['required', 'false']]) {
          env[`GIT_CONFIG_KEY_${n}`] = `filter.${name}.${setting}`;
          env[`GIT_CONFIG_VALUE_${n++}`] = value;
        }
      }
      env.GIT_CONFIG_COUNT = String(n);
      resolve(env);
    });
  });
}

/**
 * Whether a config file of the repository's own could set a filter: repoFiltersOff's question,
 * put to the disk first. It comes before nearly every git call, most repositories set no
 * filter, and a file read costs far less than a process. A config file that says neither
 * "filter" nor "include" (a file it includes could) sets none: a section's name takes no
 * escapes, only letters in either case. Read: the config files of every .git from `cwd` up to
 * the root, links resolved as git sees them; not only the first .git, as git passes over one
 * that is no repository. A worktree's .git is a file that leads to its own folder in the
 * repository's, and from there (`commondir`) to the shared config. Whatever this cannot be
 * sure of is a "could", and git is asked: a .git file with no "gitdir:" line, a file it cannot
 * read, GIT_DIR or GIT_COMMON_DIR in the environment (they put the repository elsewhere).
 */
export function configMayNameFilters(cwd: string): boolean {
  if (process.env.GIT_DIR !== undefined || process.env.GIT_COMMON_DIR !== undefined) return true;
  try {
    for (let dir = realpathSync(cwd); ; dir = path.dirname(dir)) {
      const dotGit = path.join(dir, '.git');
      const found = statSync(dotGit, { throwIfNoEntry: false });
      if (found) {
        const leadsTo = found.isDirectory() ? '' : /^gitdir: (.+)/.exec(textOrNothing(dotGit))?.[1];
        if (leadsTo === undefined) return true;
        const own = path.resolve(dir, leadsTo.trim() || '.git');
        const shared = path.resolve(own, textOrNothing(path.join(own, 'commondir')).trim());
        const files = [path.join(shared, 'config'), path.join(shared, 'config.worktree'), path.join(own, 'config.worktree')];
        if (files.some((file) => /filter|include/i.test(textOrNothing(file)))) return true;
      }
      if (dir === path.dirname(dir)) return false;
    }
  } catch {
    return true;   // a folder or file it could not read
  }
}

/** A file's text, or '' when there is no such file; any other failure is thrown. */
function textOrNothing(file: string): string {
  try {
    return readFileSync(file, 'latin1');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}
