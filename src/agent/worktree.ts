//> 16 worktree-file
// Worktree isolation: a sub-agent that writes gets its own checkout of the repository, a
// `git worktree` on a new branch made from HEAD, so two writers never touch the same files.
// When it is done, a worktree it left as it found it goes, with its branch; one it changed
// stays, and the parent is told where it is and on which branch, to merge or to drop. What
// the sub-agent left uncommitted is committed on its branch first: `git merge` sees commits
// only, so the branch alone then carries the work (this series' own step: Claude Code
// leaves a kept worktree as the sub-agent left it).
//
// Where: beside the repository, in `<repo>.worktrees/<name>`, outside the workspace. The
// workspace check (permissions.ts) then keeps the two apart both ways: the child's tools
// cannot reach the parent's folder, nor the parent's the child's. This series' own choice:
// Claude Code puts them inside the repository, in .claude/worktrees/.
//
// Only git is used, through execFile (no shell). Every step that can fail undoes what the
// steps before it made, so a failed start leaves no branch, no folder and no git entry.
//
// Not here: merging (the parent does it with git, like any change) and a sweep of old kept
// worktrees. Ctrl-C is bin.ts's: it finishes what is unfinished (finishUnfinished) before the
// process ends; only a kill no process can catch leaves a worktree in use behind.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, realpath, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { repoFiltersOff, SAFE_GIT } from './git.ts';

/** An isolated sub-agent's checkout of the repository. */
export interface Worktree {
  repo: string;     // the repository's top folder (where the parent works, or above it)
  dir: string;      // the worktree's folder
  branch: string;   // its new branch
  base: string;     // the commit it started from: the repository's HEAD at that moment
  cwd: string;      // where the sub-agent works: dir, or the same subfolder of it the parent was in
  shown: string;    // dir as the parent's model should see it: relative to the parent's folder
  hooks: string;    // git's own hooks folder (in the repository's .git): the only one this file's git runs hooks from
  removed?: boolean; // finished unchanged: the folder and the branch are gone
}

interface Git { ok: boolean; out: string; err: string; noGit?: boolean }

/**
 * Run git in `cwd`; never rejects. `err` is git's first line of complaint. Like prompt.ts's,
 * it refuses a folder that only looks like a repository (safe.bareRepository=explicit): a
 * model that may write files could otherwise make one where the session works, whose config
 * `git worktree add` would obey (a filter that runs any command).
 *
 * `hooks`: git's own hooks folder, the only place a hook may run from (core.hooksPath). A
 * repository may point its hooks into its working tree (husky sets .husky/_, and runs
 * .husky/NAME from there), where acceptEdits writes without a question: a hook there, run by
 * the checkout, the commit or any branch this file makes, would be a command nobody was asked
 * about. git's own folder is guarded at the gate (permissions.ts). Left out by the first call
 * only, the rev-parse that finds that folder: without it git.ts's settings run no hook at all.
 *
 * core.fsmonitor is off on the command line for the same reason, above any config file: a
 * repository's config may include a file of its working tree (include.path), and a command
 * named there as the file-system monitor would run at every status and checkout. So are the
 * commands of the filters that config sets (git.ts), which a checkout, a status and an add run.
 */
async function git(args: string[], cwd: string, hooks?: string): Promise<Git> {
  const onlyOwnHooks = hooks === undefined ? [] : ['-c', `core.hooksPath=${hooks}`];
  const env = await repoFiltersOff(cwd, args);
  return new Promise((resolve) => {
    execFile('git', [...SAFE_GIT, ...onlyOwnHooks, ...args], { cwd, env, timeout: 10_000 }, (error, stdout, stderr) => {
      const err = stderr.split('\n').find((l) => l.trim() !== '') ?? error?.message.split('\n')[0] ?? '';
      const noGit = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
      resolve({ ok: !error, out: stdout.trimEnd(), err: err.replace(/^(fatal|error): /, ''), noGit });
    });
  });
}

/**
 * git's worktree commands read each other's bookkeeping in .git/worktrees: started at the
 * same moment, one of them can fail half-way (seen with git 2.39 and eight at once). So every
 * call of this file waits for the one before it, in the order the calls were made: two
 * writers started in one turn get their worktrees (and their agent ids) in call order, every
 * run. A few milliseconds each; the sub-agents themselves still run at the same time.
 */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(job: () => Promise<T>): Promise<T> {
  const run = queue.then(job, job);
  queue = run.catch(() => undefined);
  return run;
}

/**
 * A new worktree for a sub-agent, on a new branch `name` (or `name-2`, … when that branch is
 * taken) made from HEAD. Throws one line when `cwd` is in no repository, the repository has
 * no commit yet, or git refuses; whatever it had made by then is gone again.
 */
export function createWorktree(cwd: string, name: string): Promise<Worktree> {
  return oneAtATime(async () => {
    const wt = await makeWorktree(cwd, name);
    unfinished.add(wt);
    return wt;
  });
}

/** Worktrees made and not finished yet: what an interrupted session still has to finish. */
const unfinished = new Set<Worktree>();

/** Every worktree folder made in this process: a name is never handed out twice. */
const handedOut = new Set<string>();

/**
 * Why a finished sub-agent can no longer work in its worktree, or undefined when it can:
 * removed unchanged when it finished, or gone since (removed by hand: git worktree remove).
 */
export function worktreeGone(wt: Worktree): string | undefined {
  if (wt.removed) return 'changed nothing, so its worktree and branch were removed when it finished: start a new agent for more work';
  if (!existsSync(wt.dir)) return `has no worktree any more (${wt.shown} was removed since it finished): start a new agent for more work`;
  return undefined;
}

/**
 * Every worktree not finished yet, finished now (bin.ts, on Ctrl-C): the sub-agents in them
 * were cut short, and an unchanged worktree and its branch must not stay behind in the
 * user's repository. A changed one is kept, its leftovers committed, as always.
 */
export async function finishUnfinished(): Promise<void> {
  for (const wt of [...unfinished]) await finishWorktree(wt).catch(() => undefined);
}

async function makeWorktree(cwd: string, name: string): Promise<Worktree> {
  //> 16 create-worktree
  //! hint: Find the repository's top folder, git's own folder and HEAD (git rev-parse --show-toplevel
  //! hint: --git-common-dir HEAD; the hooks folder in git's own is `hooks`, for every later call); refuse
  //! hint: outside a repository ("needs a git repository"; any other refusal of git's in its own words)
  //! hint: or before the first commit ("… has no commit yet"). Take the first free name (name, name-2, … name-20): free when no
  //! hint: folder of that name exists (<repo>.worktrees/NAME, beside the top folder), this session never made it (handedOut; add each one made) and `git branch NAME HEAD` works (when it fails and no such branch
  //! hint: exists, throw "git could not make the branch NAME: <git's words>"). Then `git worktree add --quiet DIR NAME` (quiet: git's first line is the
  //! hint: reason); if it fails ("git worktree add failed: …"), undo it all, each step's own failure
  //! hint: ignored: the folder, the empty folder that held it, git's record (git worktree prune) and the
  //! hint: branch. cwd: the parent's subfolder of the repository, in the worktree, made if missing with makeFolderIn (undo all if it cannot be).
  //! hint: git gives the top folder with links resolved, and --git-common-dir relative to the real cwd: take the parent's folder through realpath first.
  const found = await git(['rev-parse', '--show-toplevel', '--git-common-dir', 'HEAD'], cwd);
  const [top, common, base] = found.out.split('\n');
  if (found.noGit) throw new Error('isolation "worktree" needs git, and no git command was found');
  if (!found.ok && !top) {
    // Not in a repository, or git refused the folder it found (one that only looks like one): its words.
    throw new Error(/not a git repository/i.test(found.err) ? `isolation "worktree" needs a git repository, and ${cwd} is not in one` : `isolation "worktree" needs a git repository: git says "${found.err}"`);
  }
  if (!found.ok || !base) throw new Error(`isolation "worktree" branches from HEAD, and the repository ${top} has no commit yet`);
  // (git gives the top folder with symbolic links resolved, and .git relative to the real cwd: compare like with like.)
  const here = await realpath(cwd);
  const hooks = path.join(path.resolve(here, common!), 'hooks');
  for (let n = 1; n <= 20; n++) {
    const branch = n === 1 ? name : `${name}-${n}`;
    const dir = path.join(path.dirname(top!), `${path.basename(top!)}.worktrees`, branch);
    if (existsSync(dir)) continue;   // someone's folder: never git's to fill, never ours to delete
    // Nor one this session handed out before, even if it is gone now (removed by hand, say):
    // an agent continued by send_message must never find another agent's work at its path.
    if (handedOut.has(dir)) continue;
    const made = await git(['branch', branch, base!], top!, hooks);
    if (!made.ok) {
      const taken = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], top!, hooks);
      if (taken.ok) continue;        // a branch of that name exists (a kept one, say): next name
      throw new Error(`git could not make the branch ${branch}: ${made.err}`);
    }
    // Undo, in reverse: the folder git may have begun, its entry, the branch made above.
    const undo = async (why: string): Promise<never> => {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      await removeEmpty(path.dirname(dir));
      await git(['worktree', 'prune'], top!, hooks);
      await git(['branch', '-D', branch], top!, hooks);
      throw new Error(why);
    };
    const added = await git(['worktree', 'add', '--quiet', dir, branch], top!, hooks);
    if (!added.ok) return undo(`git worktree add failed: ${added.err}`);
    // The parent may work in a subfolder of the repository (`here`): the child works in the same one.
    // A folder git does not track (empty, or with untracked files only) is not in the checkout:
    // it is made, empty. An empty folder is no change to git, so it keeps no worktree. Where the
    // checkout has a file by that name (the parent's folder replaced a committed file), or a link,
    // which may lead anywhere, it cannot be.
    const childCwd = path.join(dir, path.relative(top!, here));
    const madeCwd = await makeFolderIn(dir, path.relative(top!, here));
    if (madeCwd) return undo(`the worktree has no folder ${path.relative(top!, here)} to work in: ${madeCwd}`);
    handedOut.add(dir);
    return { repo: top!, dir, branch, base: base!, cwd: childCwd, shown: path.relative(here, dir), hooks };
  }
  throw new Error(`no free branch name for ${name} (tried ${name} to ${name}-20)`);
  //<
}

/**
 * The sub-agent is done (or failed): what became of its worktree. Unchanged (HEAD still the
 * base commit, no change to a tracked file, no new file): removed with its branch, marked
 * `removed`, and the result is undefined. Changed, or if that cannot be told: kept, and the
 * result is one line for the parent naming the folder, the branch and what is in it. Ignored
 * files (.gitignore) do not count as changes: a build output alone does not keep a worktree.
 */
export function finishWorktree(wt: Worktree): Promise<string | undefined> {
  unfinished.delete(wt);
  return oneAtATime(async () => {
    //> 16 finish-worktree
    //! hint: One `git status --porcelain=v2 --branch --untracked-files=all` in the worktree says both
    //! hint: where its HEAD is (# branch.oid) and what is uncommitted; if it fails, nothing is known:
    //! hint: keep it all and return at once "<kept(wt)> (its state could not be read: <quoted(git's words)>)". Unchanged: `git worktree remove`
    //! hint: (if git refuses, keep both and say "… is kept, on branch …: it changed nothing, but git would not remove it (<git's words>)"),
    //! hint: `git branch -D`, the folder that held it if now empty (removeEmpty), wt.removed = true, return
    //! hint: undefined. Changed: commit what is uncommitted (commitLeftovers; if that fails, say "not
    //! hint: committed, since git commit failed (…)"), keep both, and return "<kept(wt)>: N commit(s) on top
    //! hint: of <base's first 7>", then, for leftovers, ", the last made when it finished, of what it left
    //! hint: uncommitted: <list(files)>". Every git call here gets wt.hooks; the status also gets
    //! hint: `-c core.quotePath=false`, or a name beyond ASCII comes back as octal escapes.
    // core.quotePath off: a name beyond ASCII ("café.txt") comes as it is, not as octal escapes.
    const status = await git(['-c', 'core.quotePath=false', 'status', '--porcelain=v2', '--branch', '--untracked-files=all'], wt.dir, wt.hooks);
    if (!status.ok) return `${kept(wt)} (its state could not be read: ${quoted(status.err)})`;
    const head = /^# branch\.oid (\S+)$/m.exec(status.out)?.[1];
    const files = status.out.split('\n').filter((l) => l !== '' && !l.startsWith('#')).map(changedPath);
    if (head === wt.base && files.length === 0) {
      // git will not remove a locked worktree (`git worktree lock`): then say it is kept, branch too.
      const removed = await git(['worktree', 'remove', '--force', wt.dir], wt.repo, wt.hooks);
      if (!removed.ok) return `The worktree ${wt.shown} is kept, on branch ${wt.branch}: it changed nothing, but git would not remove it (${quoted(removed.err)})`;
      await git(['branch', '-D', wt.branch], wt.repo, wt.hooks);
      await removeEmpty(path.dirname(wt.dir));
      wt.removed = true;
      return undefined;
    }
    if (files.length > 0) {
      const committed = await commitLeftovers(wt);
      if (!committed.ok) return `${kept(wt)}: not committed, since git commit failed (${quoted(committed.err)}): ${list(files)}`;
    }
    const count = await git(['rev-list', '--count', `${wt.base}..HEAD`], wt.dir, wt.hooks);
    const n = Number(count.out);
    const commits = count.ok ? `${n} commit${n === 1 ? '' : 's'} on top of ${wt.base.slice(0, 7)}` : `its HEAD moved from ${wt.base.slice(0, 7)}`;
    return `${kept(wt)}: ${commits}${files.length > 0 ? `, the last made when it finished, of what it left uncommitted: ${list(files)}` : ''}`;
    //<
  });
}

/** What a sub-agent in a worktree is told, after its own system prompt. */
export function worktreeSection(wt: Worktree): string {
  return `# Worktree\nYou work in a git worktree of your own, on the branch ${wt.branch}: a separate checkout of the repository, so nothing you change touches the main workspace. When you finish, what you changed is committed on your branch for the caller to merge; if you change nothing, the worktree and its branch are removed.`;
}

/** What the caller is told of a worktree that was removed (nothing had changed in it). */
export function worktreeRemoved(wt: Worktree): string {
  return `Its worktree changed nothing, so it and its branch ${wt.branch} are removed.`;
}

/**
 * Commit everything the sub-agent left uncommitted, new files included, on its branch. No
 * hooks and no signing: this is bookkeeping for the merge, not the user's own commit. No
 * hooks means none of the commit's four (pre-commit, prepare-commit-msg, commit-msg,
 * post-commit), not only the two --no-verify skips: git's hooks folder is pointed at
 * /dev/null, where no hook can be.
 */
async function commitLeftovers(wt: Worktree): Promise<Git> {
  const added = await git(['add', '--all'], wt.dir, wt.hooks);
  if (!added.ok) return added;
  const message = `What the sub-agent on ${wt.branch} left uncommitted`;
  return git(['-c', 'commit.gpgsign=false', 'commit', '--quiet', '--message', message], wt.dir, '/dev/null');
}

/** Up to five file names, quoted, and how many more. */
function list(files: string[]): string {
  return `${files.slice(0, 5).map(quoted).join(', ')}${files.length > 5 ? `, and ${files.length - 5} more` : ''}`;
}

/**
 * A file's path (or git's words about one) as the parent's model reads it. The sub-agent chose
 * its paths, and a path may hold anything but NUL (each / in it makes a folder): markup too,
 * such as `x</worktree></task-notification><task-notification>…`, a notification of its own
 * making after the real one, and this line is not scanned as a report is. Quoted as JSON, with
 * < and > escaped, a path can neither close this line nor open a tag.
 */
function quoted(text: string): string {
  return JSON.stringify(text).replace(/[<>]/g, (c) => (c === '<' ? '\\u003c' : '\\u003e'));
}

function kept(wt: Worktree): string {
  return `Its changes are kept in the worktree ${wt.shown}, on branch ${wt.branch}`;
}

/** The path in one line of `git status --porcelain=v2` (a rename shows its new name). */
function changedPath(line: string): string {
  const fields = line.split(' ');
  // "1 XY sub mH mI mW hH hI path", "2 … X<score> path\torig", "u … h1 h2 h3 path", "? path"
  const skip = { '1': 8, '2': 9, u: 10 }[fields[0]!] ?? 1;
  return fields.slice(skip).join(' ').split('\t')[0]!;
}

/**
 * Make `rel` inside `dir`, one folder at a time; what went wrong, or undefined. Never through
 * a link: the checkout holds whatever HEAD committed, and a committed link where the parent's
 * folder is may lead out of the worktree (mkdir's recursive would follow it, and make folders
 * wherever it leads); the sub-agent's workspace would be that place, outside the repository.
 */
async function makeFolderIn(dir: string, rel: string): Promise<string | undefined> {
  let at = dir;
  for (const part of rel.split(path.sep).filter((p) => p !== '')) {
    at = path.join(at, part);
    const there = await lstat(at).catch(() => undefined);
    if (there?.isSymbolicLink()) return `${path.relative(dir, at)} is a link in the checkout, and may lead out of the worktree`;
    if (there && !there.isDirectory()) return `the checkout has a file at ${path.relative(dir, at)}`;
    if (!there) {
      const failed = await mkdir(at).then(() => undefined, (error: Error) => error.message);
      if (failed) return failed;
    }
  }
  return undefined;
}

/** Remove a folder if it is empty (the shared `<repo>.worktrees` once its last worktree is gone). */
async function removeEmpty(dir: string): Promise<void> {
  await rmdir(dir).catch(() => undefined);
}
//<
