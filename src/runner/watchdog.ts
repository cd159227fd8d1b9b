// The one thing run-guard.ts cannot stop: chapter code that never yields (`while (true) {}`
// where a learner meant to loop over tool calls, or a loop whose only await is on a promise
// that has already settled: its turns are microtasks, which run before any timer may). It
// holds the thread, so no timer fires and no signal handler runs: Ctrl-C and SIGTERM went
// unanswered, and the only way out was SIGKILL, which left the run's temp folder behind.
//
// So while a guarded run is in progress in a command-line process, a worker thread watches
// the main thread's heartbeat (a counter it bumps a few times a second, in shared memory).
// When the heartbeat has stood still for STALL_MS, the worker says so on stderr, naming the
// scenario, and then: writes the run's last words to stdout if it was given some (`--check
// --json`: the report so far); kills what the run started that carries the runner's mark (a
// shell command that left the process group); removes the worktrees the run's repository
// has outside its temp folder, and the temp folder; and ends the process with SIGKILL, the
// only signal a thread that never yields cannot hold off (its process group with it, when
// the runner leads one, as it does started from a shell, so that its shell commands go too).
// Exit status 137, as a shell reports SIGKILL.
//
// The same worker ends a run whose process grows by more than MEMORY_LIMIT while it runs (from
// what the process held when the run started: a process that runs many, the self-check's
// hundreds, holds more between them, and its garbage comes and goes): code that recurses without
// end through promises (a summariser whose config is the conversation's own, so it compacts
// again before its first call, and again) does let timers run, but it took 3 GB in 45 s, and
// once the heap neared its limit the process spent its time collecting garbage, the run's
// time limit among what no longer came round (one was still alive after ten minutes).
//
// What it is not: a time limit for slow code (run-guard.ts has that, 60 s); nothing in the
// series blocks its thread for more than a moment, or takes a tenth of that memory. Not started in tests, where no
// command-line handlers are installed: a test runner has its own timeouts.
//
// What it costs: a worker thread is a second V8 of its own to start. Nine runs each of
// `node steps/run.mjs 1` with and without it: 0.28-0.32 s of CPU against 0.21-0.24 s, about
// 2,000 more pages of memory, and 0.01 s of wall time (it starts on another core). It is
// started all the same, for every run: the thread must be there before the code that never
// yields is, and nothing tells that code apart before it runs.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { trackedRepos } from './cleanup.ts';

/** How long the main thread may go without a turn of its event loop during a run. SUBAGENTS_STALL_MS overrides it (tests). */
const STALL_MS = Number(process.env.SUBAGENTS_STALL_MS) > 0 ? Number(process.env.SUBAGENTS_STALL_MS) : 15_000;
/** The most memory a run may add to what its process held when it started, in MiB (a chapter's run takes under 100). SUBAGENTS_MEMORY_MB overrides it (tests). */
const MEMORY_LIMIT_MB = Number(process.env.SUBAGENTS_MEMORY_MB) > 0 ? Number(process.env.SUBAGENTS_MEMORY_MB) : 1536;

// Plain JavaScript, evaluated in the worker: it must not need the runner's modules.
const DOG = `
const { workerData, parentPort } = require('node:worker_threads');
const { readdirSync, rmSync, readFileSync, writeSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
// A folder removed whole; rm(1) where Node gives up (a tree deeper than the path limit).
const remove = (p) => { try { rmSync(p, { recursive: true, force: true }); } catch { try { execFileSync('rm', ['-rf', '--', p], { stdio: 'ignore' }); } catch {} } };
// Processes that carry the runner's mark (cleanup.ts): one that left the process group
// (setsid) and the temp folder still has it in its environment (Linux: /proc/PID/environ).
const marked = () => {
  if (!workerData.mark) return [];
  const mark = Buffer.from(workerData.mark + '\\0');
  const pids = [];
  for (const name of (() => { try { return readdirSync('/proc'); } catch { return []; } })()) {
    if (!/^\\d+$/.test(name) || Number(name) === process.pid) continue;
    try { const env = readFileSync('/proc/' + name + '/environ'); const at = env.indexOf(mark); if (at === 0 || (at > 0 && env[at - 1] === 0)) pids.push(Number(name)); } catch {}
  }
  return pids;
};
const shared = new Int32Array(workerData.shared);   // [heartbeat, armed]
let job = { label: '', paths: [], repos: [], rssAtStart: 0 };
parentPort.on('message', (m) => { job = m; });
let last = Atomics.load(shared, 0);
let since = Date.now();
setInterval(() => {
  const armed = Atomics.load(shared, 1) !== 0;
  if (armed && process.memoryUsage.rss() - job.rssAtStart > workerData.memoryMb * 1048576) {
    return stop('the code took more than ' + workerData.memoryMb + ' MiB of memory (a loop that never ends, or one that calls itself?)');
  }
  const beat = Atomics.load(shared, 0);
  if (beat !== last || !armed) { last = beat; since = Date.now(); return; }
  if (Date.now() - since < workerData.stallMs) return;
  stop('the code ran ' + Math.round(workerData.stallMs / 1000) + ' s without letting anything else run (a loop that never ends, or one that only awaits promises already settled?)');
}, 100);
// Says why, on stderr, naming the scenario; then ends the run and the process (the header).
function stop(why) {
  writeSync(2, '\\n✖ ' + job.label + ': ' + why + ': stopped, and its temp folder removed\\n');
  if (job.lastWords) { try { writeSync(1, job.lastWords); } catch {} }
  for (const pid of marked()) { try { process.kill(pid, 'SIGKILL'); } catch {} }
  // Worktrees git was told to put outside the temp folders: only their repository knows
  // where. cleanup.ts's own code removes them (its two-way link check keeps a forged record
  // from getting any folder deleted), loaded from its bundle; a worktree inside a temp
  // folder goes with the folder. Without the bundle (the runner started from its
  // TypeScript), the ones outside stay.
  if (workerData.cleanup && job.repos.length > 0) {
    try {
      const { removeWorktreesOf } = require(workerData.cleanup);
      for (const repo of job.repos) removeWorktreesOf(repo, job.paths.find((p) => repo.startsWith(p + '/')));
    } catch {}
  }
  for (const p of job.paths) remove(p);
  let leader = false;
  try { const stat = readFileSync('/proc/self/stat', 'utf8'); leader = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === process.pid; } catch {}
  try { process.kill(leader ? -process.pid : process.pid, 'SIGKILL'); } catch { process.kill(process.pid, 'SIGKILL'); }
}
`;

let dog: { worker: Worker; shared: Int32Array } | undefined;

/**
 * cleanup.ts's own bundle, for the worker: beside the runner's (steps/fast-start.mjs builds
 * both) when this code runs from that bundle; undefined when the runner runs from its
 * TypeScript, where the worker has no way to load it.
 */
function cleanupBundle(): string | undefined {
  const here = fileURLToPath(import.meta.url);
  const file = path.join(path.dirname(here), 'cleanup.cjs');
  return path.basename(here) === 'cli.cjs' && existsSync(file) ? file : undefined;
}

/**
 * Watch the main thread while a run of `label` is in progress; its temp folders are `paths`.
 * Returns the function that stops watching (the worker stays, idle, for the next run).
 */
export function watchRun(label: string, paths: string[], lastWords?: string): () => void {
  if (!dog) {
    const shared = new Int32Array(new SharedArrayBuffer(8));
    const mark = process.env.SUBAGENTS_RUNNER === String(process.pid) ? `SUBAGENTS_RUNNER=${process.pid}` : undefined;
    const cleanup = cleanupBundle();
    // No options of the process's own: a worker inherits them, and where the process was
    // started with --input-type=module (a program given to `node -e` that loads the runner),
    // DOG, which is CommonJS, was read as a module, failed on its first require, and the
    // failure ended the run as an uncaught exception.
    const worker = new Worker(DOG, { eval: true, execArgv: [], workerData: { shared: shared.buffer, stallMs: STALL_MS, memoryMb: MEMORY_LIMIT_MB, mark, cleanup } });
    worker.unref();
    setInterval(() => { Atomics.add(shared, 0, 1); }, 50).unref();
    dog = { worker, shared };
  }
  // The repositories as they stand when the run starts: its workspace is made and tracked by then.
  dog.worker.postMessage({ label, paths, lastWords, repos: trackedRepos(), rssAtStart: process.memoryUsage.rss() });
  Atomics.store(dog.shared, 1, 1);
  return () => { if (dog) Atomics.store(dog.shared, 1, 0); };
}
