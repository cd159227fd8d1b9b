// Run around the whole test run: every test, and every process a test starts, gets a temp
// folder of the run's own (TMPDIR, which os.tmpdir() and the runner read), and at the end
// that folder must be empty. A test, or a run it made, that leaves a folder or a file behind
// fails the suite here, by name, whichever test it was.
//
// The folder is made in memory where the system has a RAM filesystem the tests can use
// (Linux's /dev/shm), unless TMPDIR is set: the suite makes and removes some thousands of
// folders and files there (every run's workspace, every scenario repository's .git), and a
// disk makes each of those a journal write, and each removal perhaps a discard. Measured on
// this project's 2-core test machine, whose /tmp is such a disk: about 7 s of CPU and 3-4 s
// of the suite's wall time. The runs count their temp folder as /tmp whatever it really is
// (run-chapter.ts, countedAsScripted), so nothing they print changes.
//
// The scratch folders tests make inside the project (.tmp-*, .tmp/NAME, .tmp/KIND/NAME) are
// held to the same rule: one still there at the end fails the suite by name, and the folders
// that only hold them (.tmp, .tmp/KIND) go when the run made them and they are empty again.
//
// Ctrl-C (or a SIGTERM) ends vitest through process.exit(), and the end-of-run check never
// runs: the run's temp folder, which is memory where it is in /dev/shm, goes on the way out
// all the same (sweepOnExit), with the scratch folders its tests made in the project.
//
// What it is not: a test of cleanup itself (cleanup.test.ts interrupts runs on purpose and
// looks in a TMPDIR of its own).

import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, rmdirSync, statfsSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Room the run's temp folder needs at the most, with a wide margin (a container's /dev/shm may be 64 MB). */
const ROOM = 1024 ** 3;

/**
 * Where the run's temp folder goes: TMPDIR when it is set; else /dev/shm when it is a
 * tmpfs this user can write to and run programs from (the x-ray tests run stand-in
 * binaries they write there) with a gigabyte free; else the system's temp folder.
 */
export function tempBase(env: NodeJS.ProcessEnv = process.env, mounts = readMounts()): string {
  if (env.TMPDIR) return tmpdir();
  const shm = mounts.find((m) => m.dir === '/dev/shm');
  if (shm?.type === 'tmpfs' && !shm.options.includes('noexec')) {
    try {
      accessSync(shm.dir, constants.W_OK);
      const { bavail, bsize } = statfsSync(shm.dir);
      if (bavail * bsize >= ROOM) return shm.dir;
    } catch { /* not ours to write: the system's temp folder */ }
  }
  return tmpdir();
}

/** The mounted filesystems (Linux's /proc/mounts; elsewhere none). */
function readMounts(): { dir: string; type: string; options: string[] }[] {
  try {
    return readFileSync('/proc/mounts', 'utf8').split('\n').filter((l) => l !== '').map((line) => {
      const [, dir = '', type = '', options = ''] = line.split(' ');
      return { dir, type, options: options.split(',') };
    });
  } catch {
    return [];
  }
}

/**
 * The folders in ROOT/.tmp that hold scratch folders of one kind, a folder each: mutants and
 * half-done shortcuts (src/tooling/selfcheck.ts). Anything else in .tmp is one scratch folder
 * itself (a test's makeProjectScratch, the exercises under test among them).
 */
const SCRATCH_KINDS = ['mutants', 'shortcuts'];

const entries = (dir: string) => { try { return readdirSync(dir); } catch { return []; } };

/**
 * The scratch folders tests make inside the project, where a chapter's code finds
 * node_modules: ROOT/.tmp-* and ROOT/.tmp/NAME (a test's own, an exercise under test), and
 * ROOT/.tmp/KIND/NAME (a mutant, a shortcut). git ignores all of them.
 */
export function projectScratch(root: string): string[] {
  const scratch = path.join(root, '.tmp');
  return [
    ...entries(root).filter((name) => name.startsWith('.tmp-')).map((name) => path.join(root, name)),
    ...entries(scratch).flatMap((name) => (SCRATCH_KINDS.includes(name) ? entries(path.join(scratch, name)).map((inner) => path.join(scratch, name, inner)) : [path.join(scratch, name)])),
  ];
}

/** The variable that carries the test run's id (the process id of vitest's own process) to its workers. */
const RUN_ID = 'SUBAGENTS_TEST_RUN';

/**
 * Make a test's own scratch folder, ROOT/.tmp/PREFIXrRUN-xxxxxx, RUN being the test run's
 * id: two runs in one checkout at once each sweep only their own (scratchOwner). Not mkdir
 * then mkdtemp: a self-check in another worker removes ROOT/.tmp the moment it is empty
 * (selfcheck.ts, withScratch), and it can do so between the two calls. mkdtemp's ENOENT
 * means exactly that, so the holder is made again and the folder tried again.
 */
export function makeProjectScratch(root: string, prefix: string): string {
  const holder = path.join(root, '.tmp');
  const run = process.env[RUN_ID] ?? String(process.pid);
  for (let attempt = 1; ; attempt++) {
    mkdirSync(holder, { recursive: true });
    try {
      return mkdtempSync(path.join(holder, `${prefix}${prefix.endsWith('-') ? '' : '-'}r${run}-`));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 20) throw e;
    }
  }
}

/** The folders that only hold scratch folders, as they are now: ROOT/.tmp and each ROOT/.tmp/KIND. */
export function scratchHolders(root: string): string[] {
  const scratch = path.join(root, '.tmp');
  if (!existsSync(scratch)) return [];
  return [scratch, ...entries(scratch).filter((name) => SCRATCH_KINDS.includes(name)).map((name) => path.join(scratch, name))];
}

/** What the project's scratch looks like before the run: its scratch folders and their holders. */
export function scratchBefore(root: string): ReadonlySet<string> {
  return new Set([...projectScratch(root), ...scratchHolders(root)]);
}

/** Remove the holders the run made (not in `before`) that are empty now, deepest first. */
function removeEmptyHolders(root: string, before: ReadonlySet<string>): void {
  for (const dir of scratchHolders(root).filter((d) => !before.has(d)).reverse()) {
    try { rmdirSync(dir); } catch { /* not empty (something else's, or another process is using it), or gone */ }
  }
}

/**
 * What to remove should the run end before its end-of-run check: its temp folder, and the
 * project's scratch folders made since it began (not those already there: an earlier run's),
 * with the holders it made for them. `before` is scratchBefore(root) when the run began.
 * Synchronous, as a process 'exit' listener must be. Tests still running in a worker that
 * is being stopped may write meanwhile: a removal is retried, and one that still fails is
 * left.
 */
export function sweepOnExit(temp: string, root: string, before: ReadonlySet<string>): () => void {
  return () => {
    for (const dir of [temp, ...ownNewScratch(root, before)]) {
      try { rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 }); } catch { /* left: see above */ }
    }
    removeEmptyHolders(root, before);
  };
}

/** A process other than this one that is still running (signal 0 only asks). */
function running(pid: number): boolean {
  if (!Number.isInteger(pid) || pid === process.pid) return false;
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
}

/**
 * The process a scratch folder is named for, if any: a .tmp/KIND/NAME-PID-N (a self-check's
 * mutant or shortcut), or a .tmp/PREFIXrRUN-xxxxxx (a test run's, makeProjectScratch).
 */
function scratchOwner(root: string, p: string): number | undefined {
  const inKind = SCRATCH_KINDS.some((kind) => path.dirname(p) === path.join(root, '.tmp', kind));
  const id = inKind ? /-(\d+)-\d+$/.exec(p)?.[1] : /-r(\d+)-[A-Za-z0-9]{6}$/.exec(p)?.[1];
  return id === undefined ? undefined : Number(id);
}

/** The scratch folders made since `before` that are not another running process's: the run's own. */
function ownNewScratch(root: string, before: ReadonlySet<string>): string[] {
  return projectScratch(root).filter((p) => !before.has(p) && !running(scratchOwner(root, p) ?? NaN));
}

/**
 * At the end of a run: the scratch folders its tests left in the project (made since it
 * began), removed, by their path from the root. One named for a process still running is
 * that process's (`npm run selfcheck`, or another test run, in the same project): left alone.
 */
export function scratchLeftBehind(root: string, before: ReadonlySet<string>): string[] {
  const left = ownNewScratch(root, before);
  for (const dir of left) rmSync(dir, { recursive: true, force: true });
  removeEmptyHolders(root, before);
  return left.map((p) => path.relative(root, p));
}

export default function giveTheRunItsOwnTemp(): () => void {
  const before = process.env.TMPDIR;
  const temp = mkdtempSync(path.join(tempBase(), 'subagents-tests-'));
  // tsx (the runner's fallback starts it: SUBAGENTS_NO_BUNDLE=1) keeps its compile cache
  // in the temp folder, as tsx-<user>, on purpose. Left where it always is (a link to it), so
  // that a test run finds what the last one compiled, as a learner's runs do.
  const tsxCache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
  try {
    mkdirSync(path.join(tmpdir(), tsxCache), { recursive: true });
    symlinkSync(path.join(tmpdir(), tsxCache), path.join(temp, tsxCache), 'dir');
  } catch { /* no link: tsx then makes its cache afresh inside, and it goes with the folder */ }
  process.env.TMPDIR = temp;
  // The run's id, for the workers' scratch folder names (makeProjectScratch): vitest's own process.
  const runBefore = process.env[RUN_ID];
  process.env[RUN_ID] = String(process.pid);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const scratch = scratchBefore(root);
  const sweep = sweepOnExit(temp, root, scratch);
  process.once('exit', sweep);
  return () => {
    process.off('exit', sweep);
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (runBefore === undefined) delete process.env[RUN_ID];
    else process.env[RUN_ID] = runBefore;
    const left = readdirSync(temp).filter((name) => name !== tsxCache);
    rmSync(temp, { recursive: true, force: true });   // the link goes, not what it leads to
    const leftInProject = scratchLeftBehind(root, scratch);
    // vitest reports an error thrown here but still exits 0: the exit code is set by hand.
    if (left.length > 0) console.error(`✖ the tests left ${left.length} thing(s) in their temp folder: ${left.slice(0, 10).join(', ')}`);
    if (leftInProject.length > 0) console.error(`✖ the tests left ${leftInProject.length} scratch folder(s) in the project: ${leftInProject.slice(0, 10).join(', ')}`);
    if (left.length + leftInProject.length > 0) process.exitCode = 1;
  };
}
