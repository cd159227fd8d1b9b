// What a run left in its workspace repository, read from disk once the run is over: the
// linked worktrees (folder relative to the workspace, branch, whether the branch holds
// commits of its own, whether the folder holds uncommitted changes) and the branches. The
// wire cannot show what was removed or kept, so the worktree facts read this beside it.
// Both sides fill it the same way: the driver for Claude Code, facts.ts for the chapters.
// It reads only; removing what is left is the caller's cleanup.

import path from 'node:path';
import { branchesOf, git, worktreesOf } from '../runner/git-repo.ts';

export interface RepoWorktree {
  /** The worktree's folder relative to the workspace, with / separators ("../work.worktrees/x"). */
  dir: string;
  branch: string;
  /** The branch has commits beyond the repository's first one. */
  committed: boolean;
  /** The folder has changes nobody committed. */
  dirty: boolean;
}

export interface RepoAfter {
  worktrees: RepoWorktree[];
  branches: string[];
}

/** The repository at `repo` as a run left it; undefined when it is not one (or is gone). */
export async function readRepo(repo: string): Promise<RepoAfter | undefined> {
  try {
    const root = (await git(repo, ['rev-list', '--max-parents=0', 'HEAD'])).trim().split('\n')[0]!;
    const worktrees: RepoWorktree[] = [];
    for (const w of await worktreesOf(repo)) {
      const ahead = w.branch === '(detached)' ? 0 : Number((await git(repo, ['rev-list', '--count', `${root}..refs/heads/${w.branch}`])).trim());
      const dirty = (await git(w.dir, ['status', '--porcelain']).catch(() => '')).trim() !== '';
      worktrees.push({ dir: path.relative(repo, w.dir).split(path.sep).join('/'), branch: w.branch, committed: ahead > 0, dirty });
    }
    return { worktrees, branches: await branchesOf(repo) };
  } catch {
    return undefined;
  }
}
