// What a run must leave nothing of, and the one place that removes it: temporary
// folders, git worktrees, child processes, and any other undo step a command
// registers. A run registers each thing as it makes it and releases it once it has
// removed it itself; whatever is still registered when the process ends (a crash,
// an unhandled rejection, Ctrl-C, SIGTERM, SIGHUP, or process.exit() mid-run) is
// removed then. Every command of `node steps/run.mjs` shares it:
//
//   makeTempDir(prefix)      a fresh folder under TMPDIR, removed at exit unless released
//   track(path)              remove this file or folder at exit; returns release()
//   trackChild(child)        stop this child process at exit (its whole process group
//                            when it was spawned with detached: true); released when it exits
//   trackWorktree(repo, dir) `git worktree remove --force` it at exit
//   trackWorktreesOf(repo)   the same for every worktree the repository has by then
//   trackedRepos()           those repositories (the watchdog's list: watchdog.ts)
//   onExit(fn)               run fn at exit (latest first); returns a remover
//   stopProcessesIn(dir)     stop every process whose working directory is inside dir
//   (at exit)                also every process that inherited this command's mark (below)
//   scratchRoot()            where temp folders go: TMPDIR (refused if missing or in a repo)
//   installExitHandlers()    the signal and crash handlers (steps/run.mjs calls it once)
//   finish()                 the ordinary end: what is left is stopped and waited for
//   cleanupNow()             everything registered, removed now (what a signal triggers)
//
// The state lives on globalThis: the compiled bundle and the TypeScript source can both
// be loaded in one process, and they must share one registry.
//
// What it is not: a process manager or a job queue. It cannot clean up after SIGKILL
// (nothing can), and at an ordinary exit Node runs no more asynchronous work, so an
// onExit function must do its work synchronously to be sure to finish then (on a signal
// or a crash it may return a promise; it gets two seconds).

import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gitEnv, hasNoLinkedWorktrees, parseWorktreeList } from './git-repo.ts';

type Hook = () => void | Promise<void>;

interface Registry {
  paths: Set<string>;
  /** Temp folders removed once their run ended, removed again at exit (removeAgainAtExit). */
  gone?: Set<string>;
  children: Set<ChildProcess>;
  worktrees: Map<string, string>;   // worktree folder -> repository
  repos: Set<string>;               // repositories whose every worktree goes at exit
  born: Map<string, number>;        // temp folder -> the last process id when it was made
  hooks: Hook[];
  installed: boolean;
  /** The last process id when the handlers were installed: only a newer process can carry the mark. */
  markedAfter?: number;
  exiting: boolean;
  catcher?: (what: string, err: unknown) => boolean;
}

const KEY = Symbol.for('subagents.cleanup');
const registry: Registry = ((globalThis as Record<symbol, unknown>)[KEY] as Registry | undefined) ??
  ((globalThis as Record<symbol, unknown>)[KEY] = {
    paths: new Set(), children: new Set(), worktrees: new Map(), repos: new Set(), born: new Map(), hooks: [], installed: false, exiting: false,
  } satisfies Registry) as Registry;

/** Bad setup of the machine (a TMPDIR that cannot be used): one line, exit 2. */
export class SetupError extends Error {}

/**
 * Where runs put their temporary folders: TMPDIR when it is set (os.tmpdir() reads it),
 * else the system's temp folder. A folder inside a git repository is refused: the agent
 * takes the nearest folder holding .git as its project, so a workspace there would see
 * that repository's status and CLAUDE.md files, and a scripted run would not be the
 * same run on another machine.
 */
export function scratchRoot(): string {
  const root = path.resolve(tmpdir());
  const given = process.env.TMPDIR ? `TMPDIR=${process.env.TMPDIR}` : `the temp folder ${root}`;
  let exists = false;
  let isDir = false;
  try { isDir = statSync(root).isDirectory(); exists = true; } catch { /* reported below */ }
  if (!isDir) throw new SetupError(`${given}: ${exists ? 'not a folder' : 'no such folder'} (temporary workspaces are made there)`);
  // Both as written and as the links in it resolve: a TMPDIR that is a link into a repository
  // puts the workspace in that repository all the same (and the workspace is used by its real path).
  for (const start of new Set([root, realpathSync(root)])) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (existsSync(path.join(dir, '.git'))) {
        throw new SetupError(`${given}: inside the git repository ${dir}; a run's workspace must not be (the agent would take that repository as its project): point TMPDIR elsewhere`);
      }
      if (dir === path.dirname(dir)) break;
    }
  }
  return root;
}

/**
 * mkdtemp under scratchRoot(), registered for removal at exit. Synchronous inside: made
 * and registered in one step, so no signal can arrive between the two (with the
 * asynchronous mkdtemp, a Ctrl-C just then left the folder behind).
 */
export async function makeTempDir(prefix: string): Promise<string> {
  const born = lastProcessId();
  const root = scratchRoot();
  let dir: string;
  try {
    dir = mkdtempSync(path.join(root, prefix));
  } catch (err) {
    // A folder that exists but takes no new folder: not this user's, read-only, or not a
    // real folder at all (/proc). The rest of the message is the system's word for it.
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'read-only' : code;
    const given = process.env.TMPDIR ? `TMPDIR=${process.env.TMPDIR}` : `the temp folder ${root}`;
    throw new SetupError(`${given}: cannot make a folder there (${why}): point TMPDIR at a folder you can write`);
  }
  // The folder by its real path, as a process that works in it sees it (a shell's $PWD, the
  // cwd in /proc, process.cwd()): through a TMPDIR that is a link (macOS's /var is one), a
  // path that went through the link would be a second name for the workspace, and chapter
  // code that strips the workspace from what a command printed would miss it.
  dir = realpathSync(dir);
  registry.gone?.delete(dir);   // the name of a folder removed before: this one is new
  registry.paths.add(dir);
  if (born !== undefined) registry.born.set(dir, born);
  return dir;
}

/**
 * Throws, now, the SetupError every run would meet (a TMPDIR the runner cannot use), by making
 * one temp folder and removing it. For a command that runs many chapters (--gen, --selfcheck):
 * said once, up front, as the runner says it, not as a failure of each run.
 */
export async function checkScratchRoot(prefix: string): Promise<void> {
  const probe = await makeTempDir(prefix);
  removeFolder(probe);
  release(probe);
}

/** Remove `p` (recursively) when the process ends, unless the returned release() is called first. */
export function track(p: string): () => void {
  const abs = path.resolve(p);
  registry.paths.add(abs);
  return () => { registry.paths.delete(abs); };
}

/**
 * A run's temp folder, removed now that its run is over, is removed once more as the process
 * ends. Chapter code the run did not wait for (a background agent of a half-done chapter, a
 * timer) may still write into it afterwards, and a write that makes its folders first
 * (mkdir -p, as saving a session does) makes the temp folder again. A command that runs many
 * chapters in one process (--check, --all, --selfcheck) outlives such a run.
 */
export function removeAgainAtExit(p: string): void {
  (registry.gone ??= new Set()).add(path.resolve(p));
}

/** Forget a folder made by makeTempDir or given to track (after removing it, or to keep it). */
export function release(p: string): void {
  registry.paths.delete(path.resolve(p));
  registry.born.delete(path.resolve(p));
}

/** Stop `child` when the process ends. Released by itself once the child has exited. */
export function trackChild(child: ChildProcess): () => void {
  if (child.exitCode !== null || child.signalCode !== null) return () => {};
  registry.children.add(child);
  const forget = () => { registry.children.delete(child); };
  child.once('exit', forget);
  return forget;
}

/** Remove the git worktree `dir` of repository `repo` when the process ends. */
export function trackWorktree(repo: string, dir: string): () => void {
  const abs = path.resolve(dir);
  registry.worktrees.set(abs, path.resolve(repo));
  return () => { registry.worktrees.delete(abs); };
}

/**
 * Remove every linked worktree of repository `repo` when the process ends: the ones that
 * exist then, wherever they are, made by whom it may be (chapter 16's agent makes them
 * while it runs, and only git knows where). Returns release().
 */
export function trackWorktreesOf(repo: string): () => void {
  const abs = path.resolve(repo);
  registry.repos.add(abs);
  return () => { registry.repos.delete(abs); };
}

/** The repositories whose every worktree goes at exit (trackWorktreesOf), as they stand now. */
export function trackedRepos(): string[] {
  return [...registry.repos];
}

/**
 * Every linked worktree of `repo`, removed now (synchronously), and git's records of them.
 * `within`: a folder the caller removes whole next, the repository inside it. A worktree
 * in there goes with it, and so does git's record of it (in the repository's .git), so
 * git is asked to remove only the worktrees elsewhere: chapter 16's demo keeps its changed
 * worktrees in the run's temp folder, and a test run would otherwise start two git
 * processes for each of them.
 */
export function removeWorktreesOf(repo: string, within?: string): void {
  if (!ownGitFolder(repo)) return;
  const alongside = within !== undefined && inside(path.resolve(repo), path.resolve(within));
  for (const dir of linkedWorktrees(repo)) {
    if (alongside && inside(dir, path.resolve(within))) continue;
    if (linksBack(repo, dir)) removeWorktree(repo, dir);
  }
}

/**
 * Whether `repo` keeps its repository in a .git folder of its own, as the runner made it. A
 * .git file (or a link) would lead git to another repository, anywhere on the disk, whose
 * worktrees are not the run's to remove: a scenario or an agent could have put it there.
 */
function ownGitFolder(repo: string): boolean {
  try { return lstatSync(path.join(repo, '.git')).isDirectory(); } catch { return false; }
}

/**
 * Whether `dir` is a worktree of `repo` by git's own two-way link: the .git file git wrote in
 * the worktree names one of the records in `repo`'s .git/worktrees. A record alone proves
 * nothing (anything that can write in the workspace can write one naming any folder), and
 * a folder with a .git of its own is a repository, not a worktree.
 */
function linksBack(repo: string, dir: string): boolean {
  try {
    const gitdir = /^gitdir: (.+)$/m.exec(readFileSync(path.join(dir, '.git'), 'utf8'))?.[1]?.trim();
    if (!gitdir) return false;
    return path.dirname(realpathSync(path.resolve(dir, gitdir))) === realpathSync(path.join(repo, '.git', 'worktrees'));
  } catch {
    return false;
  }
}

/** The folders of a repository's linked worktrees (its own folder not counted); none if it is gone. */
function linkedWorktrees(repo: string): string[] {
  if (hasNoLinkedWorktrees(repo)) return [];
  const recorded = recordedWorktrees(repo);
  if (recorded) return recorded;
  try {
    const list = execFileSync('git', ['-C', repo, 'worktree', 'list', '--porcelain'], { encoding: 'utf8', env: gitEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
    return parseWorktreeList(list).map((w) => w.dir).filter((dir) => dir !== '');
  } catch {
    return [];
  }
}

/**
 * The worktree folders a plain repository records, read without git: .git/worktrees/NAME/
 * gitdir holds the path of each worktree's .git file (relative to that folder, where git
 * was told to write relative paths). Undefined when any of it cannot be read: ask git.
 */
function recordedWorktrees(repo: string): string[] | undefined {
  const records = path.join(repo, '.git', 'worktrees');
  try {
    return readdirSync(records).map((name) => path.dirname(path.resolve(records, name, readFileSync(path.join(records, name, 'gitdir'), 'utf8').trim())));
  } catch {
    return undefined;
  }
}

/**
 * `git worktree remove --force`; should git refuse (a locked worktree, a folder already
 * gone, a repository gone), the folder goes anyway and `git worktree prune` drops git's
 * record of it. When git did remove it, its record went with it: nothing to prune.
 */
function removeWorktree(repo: string, dir: string): void {
  try {
    execFileSync('git', ['-C', repo, 'worktree', 'remove', '--force', dir], { stdio: 'ignore', env: gitEnv() });
    if (!existsSync(dir)) return;
  } catch { /* removed below */ }
  removeFolder(dir);
  try { execFileSync('git', ['-C', repo, 'worktree', 'prune'], { stdio: 'ignore', env: gitEnv() }); } catch { /* not a repository any more */ }
}

/** Run `fn` when the process ends, before folders are removed (latest registered first). */
export function onExit(fn: Hook): () => void {
  registry.hooks.push(fn);
  return () => {
    const i = registry.hooks.indexOf(fn);
    if (i >= 0) registry.hooks.splice(i, 1);
  };
}

/** Is `p` the folder `dir` or inside it? */
function inside(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

interface ProcInfo { ppid: number; state: string; pgid: number }

/** Every process this one can see, with its parent and state (Linux: /proc; elsewhere empty). */
function processTable(): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  if (process.platform !== 'linux' || !existsSync('/proc/self/stat')) return table;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The fields after the command name, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), { state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]) });
    } catch { /* gone meanwhile */ }
  }
  return table;
}

/**
 * Processes whose working directory is inside `dir`: what a shell command the agent ran
 * there left running (`sleep 60 &` outlives the shell that started it, and is no longer
 * this process's child, so only its working directory still ties it to the run). Linux
 * only (it reads /proc); elsewhere the list is empty.
 */
export function processesIn(dir: string): number[] {
  if (process.platform !== 'linux' || !existsSync('/proc/self/cwd')) return [];
  const target = path.resolve(dir);
  const found: number[] = [];
  // Only a process started after the folder was made can have started in it: for a folder
  // of makeTempDir's, the ones with a higher id, unless the ids have wrapped around since.
  // That spares reading where each of the machine's other processes works after every run.
  const born = registry.born.get(target);
  const now = born === undefined ? undefined : lastProcessId();
  const newerThan = born !== undefined && now !== undefined && now >= born ? born : 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) <= newerThan || Number(name) === process.pid) continue;
    let cwd: string;
    try { cwd = readlinkSync(`/proc/${name}/cwd`); } catch { continue; }   // gone, a zombie, or not ours to see
    if (inside(cwd, target)) found.push(Number(name));
  }
  return found;
}

/**
 * The mark a command-line process leaves on every process it starts: an environment variable
 * naming it, which its shell commands (and whatever they start) inherit. A shell command can
 * leave its working folder (`cd / && (sleep 60 &)`), and then nothing else ties what it left
 * running to the run; it cannot leave its environment unless it clears it. Set by
 * installExitHandlers, so a test's process, where runs go side by side, never has it.
 */
const MARK = 'SUBAGENTS_RUNNER';

/** Live processes that carry this process's mark (Linux: /proc/PID/environ); [] elsewhere or unmarked. */
function markedProcesses(): number[] {
  if (process.platform !== 'linux' || process.env[MARK] !== String(process.pid)) return [];
  const mark = Buffer.from(`${MARK}=${process.pid}\0`);
  const newerThan = registry.markedAfter !== undefined && (lastProcessId() ?? 0) >= registry.markedAfter ? registry.markedAfter : 0;
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) <= newerThan || Number(name) === process.pid) continue;
    let environ: Buffer;
    try { environ = readFileSync(`/proc/${name}/environ`); } catch { continue; }   // gone, or not ours to read
    // Each variable ends with a NUL; the mark is one of them, at the start or after a NUL.
    const at = environ.indexOf(mark);
    if (at === 0 || (at > 0 && environ[at - 1] === 0)) found.push(Number(name));
  }
  return found;
}

/**
 * The id the system last gave a process or thread (Linux: the last field of /proc/loadavg);
 * undefined elsewhere, or when it cannot be trusted. Ids are handed out in increasing order
 * until they wrap around.
 */
function lastProcessId(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    // Only where the /proc in view numbers processes as this process sees them (a /proc of
    // another PID namespace would not); /proc/loadavg counts in this process's namespace.
    if (readlinkSync('/proc/self') !== String(process.pid)) return undefined;
    const last = Number(readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/)[4]);
    return Number.isInteger(last) && last > 0 ? last : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Remove a folder and everything in it; quietly, whatever is or is not there. Node's
 * recursive rm walks by whole paths, and fails (ENAMETOOLONG) on a tree deeper than the
 * system's path limit, which a shell command in the workspace can make in one mkdir -p
 * through a link. rm(1) walks it folder by folder, so it is asked where Node gave up.
 */
export function removeFolder(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    if (process.platform === 'win32') return;
    try { execFileSync('rm', ['-rf', '--', dir], { stdio: 'ignore' }); } catch { /* nothing more to do */ }
  }
}

/**
 * SIGKILL every process working inside `dir`, the deepest first: a shell then still reaps
 * the command it was waiting for, and this process reaps the shell (a process whose parent
 * has gone first becomes an orphan, and a zombie where nothing reaps orphans). Returns
 * how many there were.
 */
export function stopProcessesIn(dir: string): number {
  return stopDeepestFirst(processesIn(dir));
}

/** SIGKILL `pids`, children before their parents (see stopProcessesIn); how many there were. */
function stopDeepestFirst(pids: number[]): number {
  if (pids.length === 0) return 0;
  const table = processTable();
  const depth = (pid: number): number => {
    let d = 0;
    for (let p = table.get(pid)?.ppid; p !== undefined && p > 1 && d < 64; p = table.get(p)?.ppid) d++;
    return d;
  };
  for (const pid of pids.sort((a, b) => depth(b) - depth(a))) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  return pids.length;
}

/**
 * Resolves once this process has no child process left that is not yet reaped, or after
 * `ms`. Node reaps a child it spawned while its event loop runs; exiting first would leave
 * the child's exit for init to collect. Linux only; elsewhere at once.
 */
export async function childrenGone(ms = 1000): Promise<void> {
  const end = Date.now() + ms;
  const mine = () => [...processTable()].some(([, p]) => p.ppid === process.pid);
  while (mine() && Date.now() < end) await new Promise((resolve) => { setTimeout(resolve, 5); });
}

function killChild(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    // A child spawned with detached: true leads its own process group: stop the whole
    // group, whatever it started in turn. Any other child shares this process's group.
    if (isGroupLeader(child.pid)) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    try { child.kill(signal); } catch { /* already gone */ }
  }
}

/** Does `pid` lead its own process group (so that killing -pid cannot reach this process)? */
function isGroupLeader(pid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    if (existsSync(`/proc/${pid}/stat`)) {
      // The fields after the command name, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[2]) === pid;
    }
    return Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim()) === pid;
  } catch {
    return false;
  }
}

/**
 * Everything still registered, removed now, synchronously: hooks (their synchronous
 * part), child processes, processes working inside a registered folder, worktrees,
 * folders. Safe to call twice. The ordinary end of a command needs none of this: it has
 * released what it removed.
 */
export function cleanupNowSync(): void {
  const hooks = registry.hooks.splice(0).reverse();
  for (const fn of hooks) {
    try {
      const r = fn();
      if (r && typeof (r as Promise<void>).catch === 'function') (r as Promise<void>).catch(() => {});
    } catch { /* one failing hook must not stop the others */ }
  }
  stopEverything('SIGKILL');
  registry.children.clear();
  registry.worktrees.clear();
  registry.repos.clear();
  registry.paths.clear();
  registry.gone?.clear();
  registry.born.clear();
}

/**
 * Stop and remove everything registered. The registry keeps it all: while an asynchronous
 * cleanup runs, so does the interrupted command (a run goes on writing its workspace), and
 * the synchronous pass at the very exit removes whatever came back meanwhile.
 */
function stopEverything(signal: NodeJS.Signals): void {
  for (const child of [...registry.children]) killChild(child, signal);
  for (const dir of registry.paths) stopProcessesIn(dir);
  if (registry.installed) stopDeepestFirst(markedProcesses());
  for (const repo of registry.repos) removeWorktreesOf(repo);
  for (const [dir, repo] of registry.worktrees) removeWorktree(repo, dir);
  for (const p of registry.paths) removeFolder(p);
  for (const p of registry.gone ?? []) if (existsSync(p)) removeFolder(p);
}

/**
 * The same, giving asynchronous hooks up to `ms` and child processes a SIGTERM first. What
 * it removed stays registered, for the synchronous pass at exit (see stopEverything).
 */
export async function cleanupNow(ms = 2000): Promise<void> {
  const hooks = registry.hooks.splice(0).reverse();
  const deadline = new Promise<void>((resolve) => { setTimeout(resolve, ms).unref(); });
  for (const fn of hooks) {
    try { await Promise.race([Promise.resolve().then(fn), deadline]); } catch { /* the others still run */ }
  }
  const children = [...registry.children].filter((c) => c.exitCode === null && c.signalCode === null);
  // Which of them lead a group, asked while they are alive: the SIGKILL pass below passes
  // by a leader that has exited, and so would pass by what its group still runs.
  const groups = children.map((c) => c.pid).filter((pid): pid is number => pid !== undefined && isGroupLeader(pid));
  for (const child of children) killChild(child, 'SIGTERM');
  if (children.length > 0) {
    const exited = Promise.all(children.map((c) => new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) resolve();
      else c.once('exit', () => resolve());
    })));
    await Promise.race([exited, new Promise<void>((resolve) => { setTimeout(resolve, 500).unref(); })]);
  }
  stopEverything('SIGKILL');
  await groupsGone(groups);
  await childrenGone();
}

/** Those of the process groups `pgids` that still have a live (not zombie) member. Linux only; elsewhere none. */
function liveGroups(pgids: number[]): number[] {
  if (pgids.length === 0) return [];
  const live = new Set<number>();
  for (const [pid, p] of processTable()) if (p.state !== 'Z' && pid !== process.pid) live.add(p.pgid);
  return pgids.filter((pgid) => live.has(pgid));
}

/**
 * Resolves once no process of these groups is alive, or after `ms`. A group's members got
 * the SIGTERM with their leader, but one that outlives it (not yet scheduled to die, or
 * handling SIGTERM) is no child of this process any more, so nothing else here waits for
 * it. It gets a SIGKILL, sent to the group: safe while the group has a member, since a
 * group's id is not given to another process until its last member is gone. Linux only;
 * elsewhere at once.
 */
async function groupsGone(pgids: number[], ms = 1000): Promise<void> {
  const end = Date.now() + ms;
  let left = liveGroups(pgids);
  for (const pgid of left) { try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone meanwhile */ } }
  while (left.length > 0 && Date.now() < end) {
    await new Promise((resolve) => { setTimeout(resolve, 5); });
    left = liveGroups(left);
  }
}

/**
 * The ordinary end of a command (steps/run.mjs calls it after main): whatever is still
 * registered, such as load-folder.ts's esbuild service, is stopped and waited for.
 */
export async function finish(): Promise<void> {
  await cleanupNow();
}

const SIGNALS: Record<string, number> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };

/** process.exit as the process started with it: a scripted run replaces it while chapter code runs (run-guard.ts), and the way out must not be taken for that code's. */
const startExit: (code: number) => never = process.exit.bind(process);

/**
 * Exit with `code`, whatever the exit listeners do. One that throws (a learner's chapter
 * code, a preload) stops process.exit half-way, before the process ends: the error goes up
 * to the caller, here a cleanup's `finally`, and the process lives on, idle, for as long as
 * a server or a timer holds it. A second call skips the listeners (they ran once) and ends it.
 */
function exitProcess(code: number): never {
  try {
    return startExit(code);
  } catch {
    return startExit(code);
  }
}

/**
 * Who gets an uncaught error first (run-guard.ts, while chapter code runs): a function that
 * returns true when it took the error as its own, so the process goes on. Undefined: none.
 */
export function catchCrashes(catcher: ((what: string, err: unknown) => boolean) | undefined): void {
  registry.catcher = catcher;
}

/** Whether this is a command-line process: installExitHandlers has run (a library or a test never calls it). */
export function exitHandlersInstalled(): boolean {
  return registry.installed;
}

/**
 * Signal and crash handlers for a command-line process (steps/run.mjs installs them once;
 * a library or a test never should: they end the process). On SIGINT, SIGTERM or SIGHUP:
 * clean up, then exit with 128 + the signal's number, as a shell reports it. A second
 * signal during the cleanup finishes it synchronously and exits at once. On an uncaught
 * exception or an unhandled rejection: one line on stderr, clean up, exit 1. At any exit,
 * what is still registered is removed synchronously.
 */
export function installExitHandlers(): void {
  if (registry.installed) return;
  registry.installed = true;
  registry.markedAfter = lastProcessId();
  process.env[MARK] = String(process.pid);
  process.on('exit', () => { cleanupNowSync(); });
  for (const [signal, n] of Object.entries(SIGNALS)) {
    process.on(signal, () => {
      if (registry.exiting) {
        cleanupNowSync();
        exitProcess(128 + n);
      }
      registry.exiting = true;
      // A run interrupted goes on while cleanup runs, and its workspace disappears under it:
      // what it would print now (failures that are only the removal's, a report, "kept at" a
      // folder being removed) is not its result. So while folders are being removed, nothing
      // more is written, but for one line that says what is happening. (A command with none,
      // the mock server, still says its goodbye.)
      if (registry.paths.size > 0) {
        try { process.stderr.write(`\n${signal === 'SIGINT' ? 'interrupted' : `stopped (${signal})`}: the run is stopped and its temporary folder removed\n`); } catch { /* nobody reads stderr */ }
        for (const stream of [process.stdout, process.stderr]) stream.write = () => true;
      }
      void cleanupNow().finally(() => exitProcess(128 + n));
    });
  }
  // One line, for the first crash only: had writing it failed, the failure would be the next
  // crash, and saying that would fail again, without end.
  let said = false;
  const crash = (what: string) => (err: unknown) => {
    if (registry.catcher?.(what, err)) return;
    if (!said) {
      said = true;
      const text = err instanceof Error ? err.message : String(err);
      try { process.stderr.write(`error: ${what}: ${text.split('\n')[0]}\n`); } catch { /* nowhere left to say it */ }
    }
    if (registry.exiting) return;
    registry.exiting = true;
    void cleanupNow().finally(() => exitProcess(1));
  };
  process.on('uncaughtException', crash('uncaught exception'));
  process.on('unhandledRejection', crash('unhandled rejection'));
  // A rejection said above (or taken by the catcher as its run's failure) may find its handler
  // later: a Promise.all that rejected at its first child's failure, whose siblings fail after.
  // Node would then print a PromiseRejectionHandledWarning with a bare rejection id, after the
  // verdict it has no part in. What mattered was said when the rejection was unhandled; a
  // listener here keeps that warning off the screen.
  process.on('rejectionHandled', () => undefined);
}
