// Nothing left behind: runs interrupted at varying points (SIGINT, SIGTERM), a run that
// crashes, and a run whose shell command leaves a process running, all end with their
// TMPDIR empty and no process of theirs alive. Each run gets a fresh TMPDIR and its own
// process group, so "theirs" is exact: a live process in that group, or one whose working
// directory or command line points into that TMPDIR. The process checks read /proc
// (Linux); elsewhere only the folders are checked.

import { afterEach, beforeAll, describe, it, expect } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { makeProjectScratch } from './temp-guard.ts';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../src/runner/scenarios.ts';
import { cleanupNow, makeTempDir, onExit, processesIn, release, removeFolder, removeWorktreesOf, stopProcessesIn, track, trackChild, trackWorktree } from '../src/runner/cleanup.ts';
import { loadScenarioFile, scenarioFile } from '../src/runner/scenarios.ts';
import { findChapter } from '../src/chapters.ts';
import { typeErrors } from '../src/runner/typecheck.ts';
import { startMock } from '../src/mock/index.ts';
import { WORKER_ENV, runInProcess } from './cli-helpers.ts';
import { tracked } from './children.ts';
import { scratchFolder } from './scratch-folder.ts';

const RUN = path.join(ROOT, 'steps', 'run.mjs');
const linux = process.platform === 'linux' && existsSync('/proc/self/stat');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Live (not zombie) processes in group `pgid`, or whose cwd or command line is inside `dir`. */
function leftovers(pgid: number, dir: string): string[] {
  if (!linux) return [];
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;   // dead already; only its parent's wait() is missing
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      let cwd = '';
      try { cwd = readlinkSync(`/proc/${name}/cwd`); } catch { /* not ours to see */ }
      if (Number(group) === pgid || cwd.startsWith(dir) || cmd.includes(dir)) found.push(`${name} ${cmd} (cwd ${cwd})`);
    } catch { /* gone meanwhile */ }
  }
  return found;
}

/** How many `sleep` processes of process group `pgid` are alive (Linux; 2 elsewhere, as the test wants). */
function sleepsIn(pgid: number): number {
  if (!linux) return 2;
  return leftovers(pgid, '/nowhere/').filter((p) => p.includes(' sleep 30 (cwd ')).length;
}

// The run's temp folder, read once: the in-process runs below set TMPDIR while they run, and a
// test running beside one (describe.concurrent) must not make its own folders in theirs.
const TMP = tmpdir();

interface Outcome { code: number | null; signal: string | null; stdout: string; stderr: string; left: string[]; processes: string[] }

/**
 * `node steps/run.mjs ...args` with a fresh TMPDIR, in its own process group. With `kill`,
 * once the run's first temp folder exists, waits `after` ms and sends the signal.
 */
async function runIsolated(args: string[], kill?: { signal: NodeJS.Signals; after: number }, env: Record<string, string> = {}): Promise<Outcome> {
  const tmp = mkdtempSync(path.join(TMP, 'cleanup-test-'));
  env = { TMPDIR: tmp, ...env };
  try {
    const child = tracked(spawn(process.execPath, [RUN, ...args], {
      cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...WORKER_ENV, ...env },
    }), `run.mjs ${args.join(' ')}`, { group: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += String(d); });
    child.stderr.on('data', (d) => { stderr += String(d); });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal }));
    });
    const closed = new Promise<void>((resolve) => { child.once('close', () => resolve()); });
    let done = false;
    void exited.then(() => { done = true; });
    if (kill) {
      const until = Date.now() + 30_000;
      while (!done && readdirSync(tmp).length === 0 && Date.now() < until) await sleep(5);
      await sleep(kill.after);
      if (!done) process.kill(child.pid!, kill.signal);
    }
    const { code, signal } = await exited;
    // The output is all read once the pipes close: a moment after the exit, or, should a
    // straggler hold them, when it goes (2 s at most here: the check below names it). And a
    // process being stopped may take a moment more to leave the process table.
    await Promise.race([closed, sleep(2000)]);
    await sleep(100);
    return { code, signal, stdout, stderr, left: readdirSync(tmp), processes: leftovers(child.pid!, tmp) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The scenarios below are files of a scratch folder, written when the tests begin (the
// beforeAll after them): a run that selects none of this file's tests makes none.
const scratch = scratchFolder(() => mkdtempSync(path.join(TMP, 'cleanup-scenarios-')));
/** A scenario file of the scratch folder, by name. */
const scenarioNamed = (name: string) => () => path.join(scratch(), `${name}.json`);

// A chapter 2 scenario whose shell commands outlive the turn: two in the background
// (orphaned at once: only its working directory ties the first to the run, and the second
// left the workspace first, so only what it inherited from the runner does), one in the
// foreground that takes `seconds` (long enough for a signal to find it running, or over soon).
const lingering = scenarioNamed('lingering');
const lingeringBriefly = scenarioNamed('lingering-briefly');
function writeLingering(file: string, seconds: number): void {
  writeFileSync(file, JSON.stringify({
    title: 'shell commands that outlive their turn', prompts: ['go'],
    tracks: { main: { turns: [
      { tool_calls: [{ name: 'run_shell', input: { command: 'sleep 41 > /dev/null 2>&1 & cd / && (sleep 43 > /dev/null 2>&1 &) ; echo started' } }] },
      { tool_calls: [{ name: 'run_shell', input: { command: `sleep ${seconds}; echo slept` } }] },
      { text: 'done' },
    ] } },
  }));
}

// A git workspace (chapter 16's kind) whose shell puts a worktree outside the run's temp
// folder and then sits in a command: only the repository knows that worktree is there.
const away = scratchFolder(() => mkdtempSync(path.join(TMP, 'cleanup-worktree-away-')));
const outsideWorktree = scenarioNamed('outside-worktree');
function writeOutsideWorktree(file: string): void {
  writeFileSync(file, JSON.stringify({
    title: 'a worktree outside the temp folder', git: true, prompts: ['go'], files: { 'a.txt': 'a\n' },
    tracks: { main: { turns: [
      { tool_calls: [{ name: 'run_shell', input: { command: `git worktree add -q -b away ${path.join(away(), 'wt')} && sleep 3` } }] },
      { text: 'done' },
    ] } },
  }));
}

/**
 * A chapter's demo with its scripted waits made five times as long. A signal sent a set time
 * after a run starts must find it still running, and the test's timer may fire late on a busy
 * machine (the other tests of this file run beside it): by up to a second, seen with two
 * suites at once, which outlasted chapter 13's whole demo. A run that ended first exits 0,
 * and proves nothing. Only the waits change, and the code paths are the demo's own.
 */
function writeSlowedDemo(n: number, file: string): void {
  const slower = (v: unknown): unknown => (Array.isArray(v) ? v.map(slower)
    : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'latency_ms' && typeof x === 'number' ? x * 5 : slower(x)]))
    : v);
  writeFileSync(file, JSON.stringify(slower(JSON.parse(readFileSync(scenarioFile(findChapter(n)!, 'demo'), 'utf8')))));
}
const slowedDemo = (n: number) => scenarioNamed(`demo-${n}-slowed`);

beforeAll(() => {
  writeLingering(lingering(), 2);
  writeLingering(lingeringBriefly(), 0.2);
  writeOutsideWorktree(outsideWorktree());
  for (const n of [12, 13, 16]) writeSlowedDemo(n, slowedDemo(n)());
});

describe.concurrent('interrupted runs leave nothing behind', () => {
  // Varying points of a run: as its workspace appears, then later and later. Chapters 12, 13
  // and 16 wait on purpose (chapter 13: 0.5 s per sub-agent answer), here five times as long
  // (slowedDemo); chapter 2 sits in a shell command.
  const [demo12, demo13, demo16] = [12, 13, 16].map(slowedDemo);
  // The command lines, made once the tests begin (the scenario files are made then).
  const cases: [string, () => string[], NodeJS.Signals, number][] = [
    ['chapter 13 demo (waits ×5), SIGINT at once', () => ['13', '--scenario', demo13!()], 'SIGINT', 0],
    ['chapter 13 demo (waits ×5), SIGTERM at 150 ms', () => ['13', '--scenario', demo13!()], 'SIGTERM', 150],
    ['chapter 13 demo (waits ×5), SIGINT at 400 ms', () => ['13', '--scenario', demo13!()], 'SIGINT', 400],
    ['chapter 13 demo (waits ×5), SIGTERM at 700 ms', () => ['13', '--scenario', demo13!()], 'SIGTERM', 700],
    ['chapter 12 demo (waits ×5), SIGINT at 100 ms', () => ['12', '--scenario', demo12!()], 'SIGINT', 100],
    ['a shell command running in the background and one in the foreground, SIGTERM at 500 ms', () => ['2', '--scenario', lingering()], 'SIGTERM', 500],
    ['--check of chapter 13 (compiled on the spot), SIGINT at 300 ms', () => ['13', '--check', 'steps/13-parallel-limits'], 'SIGINT', 300],
    ['chapter 16 demo (two writers in git worktrees; waits ×5), SIGINT at 300 ms', () => ['16', '--scenario', demo16!()], 'SIGINT', 300],
  ];
  for (const [name, args, signal, after] of cases) {
    it(name, async () => {
      const r = await runIsolated(args(), { signal, after });
      expect(r.signal === null ? r.code : r.signal, r.stderr).toBe(signal === 'SIGINT' ? 130 : 143);   // interrupted, not finished
      expect(r.left).toEqual([]);
      expect(r.processes).toEqual([]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }, 60_000);
  }
  it('a git workspace with a worktree git was told to put outside the temp folder, SIGTERM at 800 ms', async () => {
    const r = await runIsolated(['2', '--scenario', outsideWorktree()], { signal: 'SIGTERM', after: 800 });
    expect(r.signal === null ? r.code : r.signal, r.stderr).toBe(143);
    expect(r.left).toEqual([]);
    expect(readdirSync(away())).toEqual([]);   // the repository's worktrees go at exit, wherever they are
    expect(r.processes).toEqual([]);
  }, 60_000);
});

/**
 * A module script run by node, with the runner's exit handlers loaded from its bundle as
 * steps/run.mjs loads them (`lines` follow): its exit code and signal, and what it wrote.
 * Killed after 20 s, should it never end.
 */
async function runWithHandlers(lines: string[], label: string): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const script = [
    `const { compiled } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'steps', 'fast-start.mjs')).href)});`,
    `const { installExitHandlers } = (await compiled(${JSON.stringify(ROOT)})).cli();`,
    ...lines,
  ].join('\n');
  const child = tracked(spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }), label);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += String(d); });
  child.stderr.on('data', (d) => { err += String(d); });
  const cap = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once('close', (c, sig) => resolve([c, sig])));
  clearTimeout(cap);
  return { code, signal, out, err };
}

/**
 * A copy of chapter 1 in a scratch folder of the project, its main.ts running `code` (given
 * the folder) right after it makes its session, with `imports` above the file's own: the
 * folder, and that main.ts. Code that does not name the folder is the same in every test
 * run, so the type check --check runs beside the scenarios finds it clean from an earlier
 * run (typecheck.ts) instead of starting the compiler; a file it writes can be named by the
 * run's environment instead (MARK).
 */
function chapterOneWith(prefix: string, code: (dir: string) => string, imports = ''): { dir: string; main: string } {
  const dir = makeProjectScratch(ROOT, prefix);
  cpSync(path.join(ROOT, 'steps', '01-agent-loop'), dir, { recursive: true });
  const main = path.join(dir, 'main.ts');
  writeFileSync(main, `${imports}${readFileSync(main, 'utf8').replace('const session = new Session(client, host);', `const session = new Session(client, host);\n${code(dir)}`)}`);
  return { dir, main };
}

/** The variable that names, to chapterOneWith's code, the file it writes its mark to. */
const MARK = 'CLEANUP_TEST_MARK';

describe.concurrent('finished and crashed runs leave nothing behind', () => {
  // `while (true) {}` holds the thread: no timer, no signal handler can run. The watchdog
  // thread sees the heartbeat stop, says so naming the scenario, removes the temp folder and
  // ends the process group (watchdog.ts). Its wait is shortened here from 15 s to 1 s.
  // The loop here sleeps in Atomics.wait at each turn: it holds the thread just the same (no
  // turn of the event loop, ever), without keeping a core busy for the second it takes.
  // A run stopped this way never gets to remember that its type check found the code clean,
  // so each would start the compiler again: the code is checked here first, once (after
  // the first test run, the compiler's verdict on this same code is remembered).
  it('chapter code that never yields is stopped by the watchdog: one line naming the scenario, killed, nothing left behind', async () => {
    const loop = 'const nobody = new Int32Array(new SharedArrayBuffer(4));\n  while (Date.now() > 0) { Atomics.wait(nobody, 0, 0, 50); /* a loop that never ends */ }';
    const { dir, main } = chapterOneWith('loop-', () => `  ${loop}`);
    try {
      expect(await typeErrors(ROOT, dir)).toEqual([]);
      // As typed, and as a grader runs it (--json, side by side): a grader still gets its one
      // report on stdout, the case that never finished, failed.
      const [r, json] = await Promise.all([[], ['--json']].map((more) => runIsolated(['1', '--check', path.relative(ROOT, dir), ...more], undefined, { SUBAGENTS_STALL_MS: '1000' })));
      expect(r.signal).toBe('SIGKILL');
      expect(r.stderr).toBe('\n✖ scenarios/01-agent-loop/demo.json: the code ran 1 s without letting anything else run (a loop that never ends, or one that only awaits promises already settled?): stopped, and its temp folder removed\n');
      expect(r.left).toEqual([]);
      expect(r.processes).toEqual([]);
      expect(json.signal).toBe('SIGKILL');
      const report = JSON.parse(json.stdout) as { ok: boolean; passed: number; scenarios: { case: string; ok: boolean; crash: string }[] };
      expect(report.ok).toBe(false);
      expect(report.passed).toBe(0);
      expect(report.scenarios.map((v) => [v.case, v.ok, v.crash])).toEqual([['demo', false, 'the watchdog stopped the check here: the code never let anything else run, or took more memory than any run needs (a loop that never ends?)']]);
      expect(json.left).toEqual([]);
      // The same loop at a file's top level runs while the code loads, before the session
      // starts: loading is watched too (it was not, and SIGTERM went unanswered for good).
      writeFileSync(main, `${readFileSync(main, 'utf8').replace(`\n  ${loop}`, '')}\n${loop}\n`);
      expect(await typeErrors(ROOT, dir)).toEqual([]);
      const atLoad = await runIsolated(['1', '--check', path.relative(ROOT, dir)], undefined, { SUBAGENTS_STALL_MS: '1000' });
      expect(atLoad.signal).toBe('SIGKILL');
      expect(atLoad.stderr).toMatch(/\n✖ scenarios\/01-agent-loop\/demo\.json: the code ran 1 s without letting anything else run/);
      expect(atLoad.left).toEqual([]);
      expect(atLoad.processes).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // Code that yields, so the heartbeat goes on, but keeps taking memory (a summariser that calls
  // itself through promises took 3 GB in 45 s, and the run's time limit never came round once
  // the heap neared its limit): the watchdog ends it past a memory limit, lowered here to 200 MiB.
  it('chapter code that keeps taking memory is stopped by the watchdog: one line naming the scenario, killed, nothing left behind', async () => {
    const { dir } = chapterOneWith('hog-', () => '  const kept: number[][] = [];\n  for (;;) { kept.push(new Array(1_000_000).fill(1)); await new Promise((r) => setImmediate(r)); }');
    try {
      const r = await runIsolated(['1', '--check', path.relative(ROOT, dir)], undefined, { SUBAGENTS_MEMORY_MB: '200' });
      expect(r.signal).toBe('SIGKILL');
      expect(r.stderr).toBe('\n✖ scenarios/01-agent-loop/demo.json: the code took more than 200 MiB of memory (a loop that never ends, or one that calls itself?): stopped, and its temp folder removed\n');
      expect(r.left).toEqual([]);
      expect(r.processes).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // The limit is on what a run adds, not on what the process holds: a process that runs many
  // (the self-check runs hundreds of mutants in one) holds more between them, and was stopped
  // for it in the middle of a run that took little. Here each of chapter 1's three scenarios
  // keeps about 48 MB that the next one still holds (on globalThis, past the fresh load), and
  // waits a moment so that the watchdog looks while it runs: about 150 MB more by the third
  // (beyond the 200 MiB limit with what the process itself holds), each run adding a quarter of it. The check goes on to its verdict.
  it('what earlier runs of the process hold does not count against a run: a check whose runs keep 48 MB each, under a 200 MiB limit, passes', async () => {
    const { dir } = chapterOneWith('held-', () => '  const held = ((globalThis as { held?: number[][] }).held ??= []);\n  held.push(new Array(6_000_000).fill(1.5));\n  await new Promise((r) => setTimeout(r, 400));');
    try {
      const r = await runIsolated(['1', '--check', path.relative(ROOT, dir), '--json'], undefined, { SUBAGENTS_MEMORY_MB: '200' });
      expect(r.stderr).not.toMatch(/MiB of memory/);
      expect(r.signal).toBeNull();
      const report = JSON.parse(r.stdout) as { ok: boolean; passed: number; scenarios: { case: string; ok: boolean }[] };
      expect(report.scenarios.map((v) => [v.case, v.ok])).toEqual([['demo', true], ['empty-answer', true], ['two-calls', true]]);
      expect(r.code).toBe(0);
      expect(r.left).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // A check runs one scenario after another in one process. Code a run did not wait for (here a
  // timer; in chapter 15, a background agent the session forgot) may write into that run's
  // workspace after the run was over and its temp folder removed: a write that makes its folders
  // first made the temp folder again, and it stayed after the check.
  it('a write into a finished run\'s workspace, from code the run did not wait for, leaves nothing behind once the check ends', async () => {
    // Once the run is over and its folder gone, the timer writes there, and leaves a mark here.
    const { dir } = chapterOneWith('late-', () => [
      '  const waiting = setInterval(() => {',
      '    if (existsSync(host.cwd)) return;',
      '    clearInterval(waiting);',
      '    mkdirSync(`${host.cwd}/late/by/a/timer`, { recursive: true });',
      `    writeFileSync(String(process.env.${MARK}), '');`,
      '  }, 2);',
    ].join('\n'), "import { existsSync, mkdirSync, writeFileSync } from 'node:fs';\n");
    try {
      const r = await runIsolated(['1', '--check', path.relative(ROOT, dir)], undefined, { [MARK]: path.join(dir, 'wrote-late') });
      expect(r.stdout).toContain('passes all 3 scenarios');
      expect(existsSync(path.join(dir, 'wrote-late')), 'the late write never happened: nothing was tested').toBe(true);
      expect(r.left).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // Code that passes may still leave something pending: an interval it never clears kept the
  // command waiting after "All done", for good; a promise it never awaited, rejected once its
  // run was over, ended a passed check with exit 1.
  it('a passing check whose code leaves an interval running and a promise rejected after its run: the verdict, exit 0, at once', async () => {
    // The last run's promise is rejected as soon as that run's folder is gone, while the type
    // check finishes: the code names its own folder, so that check is never one remembered
    // from an earlier test run. (Without the compiler to wait for, the command ends as soon as
    // its verdict is out, before the rejection's moment comes: nothing would be tested.)
    const { dir } = chapterOneWith('pending-', (here) => [
      '  setInterval(() => {}, 1000);',
      '  const runs = (globalThis as { runs?: number }).runs = ((globalThis as { runs?: number }).runs ?? 0) + 1;',
      '  const poll = () => {',
      '    if (existsSync(host.cwd)) { setImmediate(poll); return; }',
      `    appendFileSync(${JSON.stringify(path.join(here, 'rejected'))}, 'x');`,
      "    void Promise.reject(new Error('a rejection nobody awaits'));",
      '  };',
      '  if (runs === 3) poll();',
    ].join('\n'), "import { appendFileSync, existsSync } from 'node:fs';\n");
    try {
      const r = await runIsolated(['1', '--check', path.relative(ROOT, dir)]);
      expect(readFileSync(path.join(dir, 'rejected'), 'utf8').length, 'no rejection came after a run: nothing was tested').toBeGreaterThan(0);
      expect(r.signal).toBeNull();
      expect(r.stdout).toContain('passes all 3 scenarios');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.left).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // The watchdog ends the process group, but a shell command can leave it (setsid) and the
  // temp folder (cd /): only the runner's mark in its environment still ties it to the run.
  // The same command put a worktree outside the temp folder, where only the repository
  // knows of it: the watchdog removes that too (with cleanup.ts's code, from its bundle).
  it.runIf(linux && existsSync('/usr/bin/setsid'))('a loop that never yields, after a shell command that left the process group and put a worktree outside the temp folder: the watchdog stops that command and removes the worktree too', async () => {
    const dir = makeProjectScratch(ROOT, 'loop-setsid-');
    const scenario = path.join(scratch(), 'setsid-then-loop.json');
    // A command line no other process on the machine has (its fraction of a second made of
    // this worker's pid and the moment): the test looks for, and in the end kills, its own
    // only. A whole number of seconds once matched another user's `sleep 180`, and killed it.
    const tag = `sleep 170.${process.pid}${Date.now() % 100_000}`;
    const elsewhere = mkdtempSync(path.join(TMP, 'cleanup-watchdog-away-'));
    const made = path.join(scratch(), 'watchdog-worktree-made');   // written once the worktree is there
    writeFileSync(scenario, JSON.stringify({
      title: 'a command that leaves the group and puts a worktree elsewhere, then a loop', git: true, prompts: ['go'], files: { 'a.txt': 'a\n' },
      tracks: { main: { turns: [{ tool_calls: [{ name: 'run_shell', input: { command: `git worktree add -q -b elsewhere ${path.join(elsewhere, 'wt')} && touch ${made} && cd / && (setsid ${tag} > /dev/null 2>&1 &) ; echo started` } }] }, { text: 'done' }] } },
    }));
    const running = () => readdirSync('/proc').filter((n) => /^\d+$/.test(n)).filter((n) => {
      try { return readFileSync(`/proc/${n}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() === tag; } catch { return false; }
    });
    try {
      cpSync(path.join(ROOT, 'steps', '02-tools'), dir, { recursive: true });
      const agent = path.join(dir, 'agent.ts');
      const loop = 'const nobody = new Int32Array(new SharedArrayBuffer(4));\n    while (Date.now() > 0) { Atomics.wait(nobody, 0, 0, 50); }';
      writeFileSync(agent, readFileSync(agent, 'utf8').replace("    messages.push({ role: 'user', content: results });", `    messages.push({ role: 'user', content: results });\n    ${loop}`));
      const r = await runIsolated(['2', '--check', path.relative(ROOT, dir), '--scenario', scenario], undefined, { SUBAGENTS_STALL_MS: '1000' });
      expect(r.signal).toBe('SIGKILL');
      expect(r.left).toEqual([]);
      expect(running()).toEqual([]);
      expect(existsSync(made), 'the shell command never made its worktree').toBe(true);
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      for (const pid of running()) process.kill(Number(pid), 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 60_000);

  // The runner's own crash handler (installExitHandlers, from the bundle run.mjs loads), in a
  // process whose stderr fails every write the way a closed pipe does: the failure arrives
  // later, as an 'error' event nobody listens to, so it is itself an uncaught exception. The
  // handler tries its line once, cleans up and exits 1; it used to try again for every
  // failure, each one making the next, and the process never got to exit.
  it('a crash whose one line cannot be written: the handler tries once, then exits 1', async () => {
    const r = await runWithHandlers([
      "import { writeSync } from 'node:fs';",
      'installExitHandlers();',
      'let tries = 0;',
      "process.stderr.write = () => { tries++; process.nextTick(() => process.stderr.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))); return false; };",
      "process.on('exit', () => { writeSync(1, `${tries} tries`); });",
      "setTimeout(() => { throw new Error('boom'); }, 10);",
      'setInterval(() => {}, 1000);',
    ], 'a crash handler whose stderr fails');
    expect(r.signal, 'still running after 20 s: killed').toBeNull();
    expect(r.code).toBe(1);
    expect(r.out).toBe('1 tries');
  }, 30_000);

  // An exit listener that throws (a learner's chapter code may add one) stopped process.exit
  // half-way: the error went up into the cleanup's promise, and the process, held by a timer
  // or the mock's server, lived on, idle, until killed.
  it('a signal, and an exit listener that throws: the run still ends, exit 130', async () => {
    const r = await runWithHandlers([
      'installExitHandlers();',
      "process.on('exit', () => { throw new Error('a listener that throws'); });",
      'setInterval(() => {}, 1000);',
      "setTimeout(() => process.kill(process.pid, 'SIGINT'), 10);",
    ], 'an exit listener that throws');
    expect(r.signal, 'still running after 20 s: killed').toBeNull();
    expect(r.code).toBe(130);
  }, 30_000);

  // The self-check runs hundreds of broken chapters in one process. What one leaves behind
  // (a sub-agent nobody awaited, whose request fails once that run's mock has closed) came
  // after its run had ended, with no run to put it down to: the crash handler ended the
  // whole check. In a batch (absorbingStrays) it is absorbed, and so is a late process.exit.
  it('a batch of runs absorbs what a run leaves behind: a late rejection (one handled later too, without a warning) and a late process.exit end nothing', async () => {
    const dir = makeProjectScratch(ROOT, 'strays-');
    try {
      mkdirSync(path.join(dir, 'leaves'));
      writeFileSync(path.join(dir, 'leaves', 'main.ts'), [
        "export const DEFAULT_MODEL = 'claude-sonnet-4-6';",
        'export async function runSession(): Promise<void> {',
        // The run lasts long enough for its watchdog's thread to be up (see below).
        '  await new Promise((done) => setTimeout(done, 150));',
        "  setTimeout(() => { void Promise.reject(new Error('a stray rejection')); }, 50);",
        // Handled after it was reported unhandled (a Promise.all's later children): no warning.
        "  setTimeout(() => { const late = Promise.reject(new Error('handled late')); setTimeout(() => { late.catch(() => undefined); }, 20); }, 60);",
        '  setTimeout(() => process.exit(3), 100);',
        '}',
      ].join('\n'));
      // From the runner's bundle, with its handlers installed, as steps/run.mjs has them. The
      // run is watched meanwhile (watchdog.ts): in a program given to `node --input-type=module
      // -e`, as this one is, the watchdog's thread once failed as it started, and failed the run.
      const { out, err, code } = await runWithHandlers([
        `const { runChapter, absorbingStrays } = (await compiled(${JSON.stringify(ROOT)})).cli();`,
        'installExitHandlers();',
        "const scenario = { file: 'inline.json', title: 't', prompts: ['go'], tracks: { main: { turns: [{ text: 'done' }] } } };",
        'const r = await absorbingStrays(async () => {',
        `  const ran = await runChapter({ codeDir: ${JSON.stringify(path.join(dir, 'leaves'))}, scenario, latencyScale: 0 });`,
        '  await new Promise((done) => setTimeout(done, 400));   // the leftovers go off meanwhile',
        '  return ran;',
        '});',
        "console.log(`run ok: ${r.ok}, crash: ${r.crash ?? 'none'}`);",
      ], 'a batch with leftovers');
      expect(err).toBe('');
      expect(out).toBe('run ok: true, crash: none\n');
      expect(code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  // A run interrupted near its end goes on while cleanup removes its workspace: its failures
  // (files gone) and its report would be printed as if they were the run's result.
  it('after a signal, what the interrupted command goes on printing is not written', async () => {
    const r = await runWithHandlers([
      "const { mkdtempSync } = await import('node:fs');",
      'installExitHandlers();',
      // A run's temp folder, registered as makeTempDir registers it (the registry lives on
      // globalThis): the handler will remove it while the run would still be printing.
      `const folder = mkdtempSync(${JSON.stringify(path.join(TMP, 'cleanup-interrupted-'))});`,
      "globalThis[Symbol.for('subagents.cleanup')].paths.add(folder);",
      'process.stdout.write(folder + "\\n");',
      // The command, still running once the handler has begun the cleanup, prints its report.
      "process.on('SIGINT', () => { console.log('FAIL 5/8 expectations'); console.error('✖ src/config.ts does not exist'); });",
      "console.log('before the signal');",
      "setTimeout(() => process.kill(process.pid, 'SIGINT'), 20);",
      'setInterval(() => {}, 1000);',
    ], 'a command interrupted while it still prints');
    expect(r.code).toBe(130);
    const [folder, ...rest] = r.out.split('\n');
    expect(rest).toEqual(['before the signal', '']);
    expect(existsSync(folder!)).toBe(false);
    // One line says what became of the run; nothing it printed afterwards.
    expect(r.err).toBe('\ninterrupted: the run is stopped and its temporary folder removed\n');
  }, 30_000);

  it('a shell command still running in the background when the run ends is stopped', async () => {
    const r = await runIsolated(['2', '--scenario', lingeringBriefly()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('slept');
    expect(r.left).toEqual([]);
    expect(r.processes).toEqual([]);
  }, 60_000);

  it('an unhandled rejection mid-run: the scenario fails naming it, exit 1, workspace removed', async () => {
    // Chapter code that fails the way a fork child's lost promise would: nobody awaits it.
    const dir = makeProjectScratch(ROOT, 'crash-');
    try {
      writeFileSync(path.join(dir, 'main.ts'), [
        'export const DEFAULT_MODEL = "claude-sonnet-4-6";',
        'export async function runSession(_prompts: string[], host: { cwd: string }): Promise<void> {',
        '  void Promise.reject(new Error(`lost in ${host.cwd}`));',
        '  await new Promise((r) => setTimeout(r, 5000));',
        '}',
      ].join('\n'));
      const r = await runIsolated(['1', '--check', path.relative(ROOT, dir)]);
      expect(r.code).toBe(1);
      // The check goes on to its verdict (it used to end at the crash handler, naming no scenario).
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^✖ demo: .*\n {2}the agent crashed: unhandled rejection: lost in \S+subagents-run-\w+\/work\n {2}at \.tmp\/crash-[\w-]+\/main\.ts:3:\d+$/m);
      expect(r.left).toEqual([]);
      expect(r.processes).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.concurrent('--live, interrupted (the mock stands in for the API)', () => {
  it('SIGINT while the agent waits for an answer: workspace removed, exit 130', async () => {
    const scenario = await loadScenarioFile(scenarioFile(findChapter(13)!, 'demo'));
    const mock = await startMock({ scenario, latencyScale: 1 });
    try {
      const r = await runIsolated(['13', '--live'], { signal: 'SIGINT', after: 300 }, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url });
      expect(r.code, r.stderr).toBe(130);
      expect(r.stdout).toMatch(/^Live: chapter 13 in /);
      expect(r.left).toEqual([]);
      expect(r.processes).toEqual([]);
    } finally {
      await mock.close();
    }
  }, 60_000);
});

// Not side by side with the runs above, nor with the TMPDIR cases below: cleanupNow empties
// this worker's whole registry, and those cases set TMPDIR for the worker while they run.
describe('the registry', () => {
  // cleanupNow empties the registry of this whole test worker; the runs of other test files
  // have released what they made by the time they returned, so only this test's things are left.
  it('removes what is still registered: hooks first, then processes, worktrees and folders', async () => {
    const dir = mkdtempSync(path.join(TMP, 'cleanup-registry-'));
    const repo = path.join(dir, 'repo');
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      mkdirSync(repo);
      git('init', '-q');
      git('-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '--allow-empty', '-m', 'start');
      const wt = path.join(dir, 'wt');
      git('worktree', 'add', '-q', '--detach', wt);
      trackWorktree(repo, wt);
      const scratch = path.join(dir, 'scratch');
      mkdirSync(path.join(scratch, 'deep'), { recursive: true });
      track(scratch);
      const kept = path.join(dir, 'kept');
      mkdirSync(kept);
      track(kept)();   // released: stays
      const order: string[] = [];
      onExit(() => { order.push(existsSync(scratch) ? 'hook, scratch still there' : 'hook, too late'); });
      // A detached child with children of its own, one of which ignores SIGTERM: the whole
      // group goes, the one that outlives its leader too.
      const group = tracked(spawn('sh', ['-c', '(trap "" TERM; exec sleep 30) & sleep 30; wait'], { detached: true, stdio: 'ignore' }), 'a process group of sleeps', { group: true });
      trackChild(group);
      const exited = new Promise((r) => group.once('exit', (_c, sig) => r(sig)));
      for (let waited = 0; sleepsIn(group.pid!) < 2 && waited < 5000; waited += 20) await sleep(20);
      expect(sleepsIn(group.pid!)).toBe(2);
      await cleanupNow();
      expect(order).toEqual(['hook, scratch still there']);
      expect(existsSync(scratch)).toBe(false);
      expect(existsSync(kept)).toBe(true);
      expect(existsSync(wt)).toBe(false);
      expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
      expect(await exited).toBe('SIGTERM');
      expect(leftovers(group.pid!, dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// One mkdir -p through a link makes a tree deeper than the path limit, and Node's recursive
// rm gives up on it (ENAMETOOLONG): the run's folder would stay, with its link out.
describe.concurrent('a TMPDIR that cannot hold a run is refused in one line, exit 2', () => {
  // From the bundles here. Through tsx (the fallback on Node 20), whose disk cache would
  // otherwise make the folder before the runner could refuse it, the folder's staying unmade
  // is the case with nobody left to read stderr below, and the refusal's one line the /sys/fs
  // case's: the fallback hands tsx the same other folder for both.
  it('one that does not exist', async () => {
    const gone = mkdtempSync(path.join(TMP, 'cleanup-missing-'));
    rmSync(gone, { recursive: true });
    const missing = path.join(gone, 'no', 'such', 'folder');
    const r = await runIsolated(['1'], undefined, { TMPDIR: missing });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`TMPDIR=${missing}: no such folder (temporary workspaces are made there)\n`);
    expect(existsSync(gone)).toBe(false);
  }, 30_000);

  // A folder that exists but takes no folder, whatever a permission check says: root may
  // "write" anywhere, yet /sys makes no folder for anyone. Linux only.
  it.runIf(existsSync('/sys/fs'))('one that takes no new folder (/sys/fs), from the bundles and through the fallback loader', async () => {
    for (const how of [{}, { SUBAGENTS_NO_BUNDLE: '1' }] as Record<string, string>[]) {
      const r = await runIsolated(['1'], undefined, { TMPDIR: '/sys/fs', ...how });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe('TMPDIR=/sys/fs: cannot make a folder there (permission denied): point TMPDIR at a folder you can write\n');
    }
  }, 30_000);

  // A reader that went away (`2>&1 | head`, a parent killed): the refusal's write fails. That
  // failure, unheard, was an uncaught exception, whose own line failed too, and so on: the run
  // spun at full CPU and never exited. Through the fallback loader, where the runner takes
  // long enough to start that the reader is surely gone.
  it('one that does not exist, with nobody left to read stderr: still exit 2, at once', async () => {
    const gone = mkdtempSync(path.join(TMP, 'cleanup-unheard-'));
    rmSync(gone, { recursive: true });
    const child = tracked(spawn(process.execPath, [RUN, '1'], {
      cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...WORKER_ENV, TMPDIR: path.join(gone, 'no'), SUBAGENTS_NO_BUNDLE: '1' },
    }), 'run.mjs 1, stderr closed');
    child.stderr.destroy();
    const cap = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
    clearTimeout(cap);
    expect(signal, 'still running after 20 s: killed').toBeNull();
    expect(code).toBe(2);
    expect(existsSync(gone)).toBe(false);
  }, 30_000);

  it('one that is a file, not a folder', async () => {
    const file = path.join(mkdtempSync(path.join(TMP, 'cleanup-file-')), 'a-file');
    writeFileSync(file, '');
    try {
      const r = await runInProcess(['1'], { env: { TMPDIR: file } });
      expect(r.code).toBe(2);
      expect(r.err).toBe(`TMPDIR=${file}: not a folder (temporary workspaces are made there)\n`);
    } finally {
      rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }, 30_000);

  // The self-check ran every mutation and shortcut into the same refusal, and printed each as a
  // verdict ("SURVIVED … could not apply: TMPDIR=…"), then "0/213 mutations caught", exit 1.
  // --gen --check said it on stdout as the first doc transcript's fault ("docs/01-agent-loop.md:37:
  // TMPDIR=…"), exit 1.
  it.each([[['--selfcheck']], [['--gen', '--check']]])('%j: the same one line, before anything runs', async (args) => {
    const file = path.join(mkdtempSync(path.join(TMP, 'cleanup-selfcheck-')), 'a-file');
    writeFileSync(file, '');
    try {
      const r = await runInProcess(args, { env: { TMPDIR: file } });
      expect(r.out).toBe('');
      expect(r.err).toBe(`TMPDIR=${file}: not a folder (temporary workspaces are made there)\n`);
      expect(r.code).toBe(2);
    } finally {
      rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }, 30_000);

  // Not refused: a TMPDIR that is a link to a folder (macOS's /var is one). The run works in
  // the folder by its real path, the one a shell's $PWD gives: chapter 2's made-up-tool has
  // the shell name files by "$PWD/…", and the agent strips its workspace from the output.
  it('one reached through a link is used by its real path, the one a shell in it sees', async () => {
    const real = mkdtempSync(path.join(TMP, 'cleanup-real-'));
    const link = `${real}-link`;
    symlinkSync(real, link, 'dir');
    try {
      const r = await runInProcess(['2', '--case', 'made-up-tool'], { env: { TMPDIR: link } });
      expect(r.out, r.err).toMatch(/PASS (\d+)\/\1 expectations/);
      expect(r.code).toBe(0);
      expect(readdirSync(real)).toEqual([]);
    } finally {
      rmSync(link, { force: true });
      rmSync(real, { recursive: true, force: true });
    }
  }, 30_000);

  // The check itself is the same for any TMPDIR: this one asks main() in this process (the
  // one above, a real process, shows the refusal as the shell sees it).
  it('one inside a git repository (the agent would take it for its project)', async () => {
    const inside = makeProjectScratch(ROOT, 'tmpdir-');
    try {
      const r = await runInProcess(['1'], { env: { TMPDIR: inside } });
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toBe(`TMPDIR=${inside}: inside the git repository ${ROOT}; a run's workspace must not be (the agent would take that repository as its project): point TMPDIR elsewhere\n`);
      expect(readdirSync(inside)).toEqual([]);
      // The same folder through a link from outside the repository: where the workspace
      // would really be is what counts.
      const outside = mkdtempSync(path.join(tmpdir(), 'tmpdir-link-'));
      try {
        const link = path.join(outside, 'to-inside');
        symlinkSync(inside, link);
        const viaLink = await runInProcess(['1'], { env: { TMPDIR: link } });
        expect([viaLink.code, viaLink.err]).toEqual([2, `TMPDIR=${link}: inside the git repository ${ROOT}; a run's workspace must not be (the agent would take that repository as its project): point TMPDIR elsewhere\n`]);
        expect(readdirSync(inside)).toEqual([]);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    } finally {
      rmSync(inside, { recursive: true, force: true });
    }
  }, 30_000);
});

it.runIf(process.platform !== 'win32')('removeFolder removes a tree deeper than the system path limit', () => {
  const dir = mkdtempSync(path.join(TMP, 'cleanup-deep-'));
  const segs = Array(14).fill('a'.repeat(200)).join('/');
  mkdirSync(path.join(dir, 'A1', segs), { recursive: true });
  symlinkSync(path.join('A1', segs), path.join(dir, 'j1'));
  mkdirSync(path.join(dir, 'j1', 'B', segs), { recursive: true });
  writeFileSync(path.join(dir, 'j1', 'B', segs, 'f.txt'), 'x');
  // What removeFolder is for: Node's own rmSync gives up on such a tree before Node 23, whose
  // rmSync removes it (there the tree is left for removeFolder all the same).
  if (Number(process.versions.node.split('.')[0]) < 23) expect(() => rmSync(dir, { recursive: true, force: true })).toThrow(/ENAMETOOLONG/);
  removeFolder(dir);
  expect(existsSync(dir)).toBe(false);
});

describe('removeWorktreesOf', () => {
  // Every folder a test here makes, removed after it whatever it found.
  const made: string[] = [];
  afterEach(() => { for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true }); });
  const folder = (prefix: string) => { const dir = mkdtempSync(path.join(TMP, prefix)); made.push(dir); return dir; };

  // A repository with two linked worktrees: one inside the folder, one elsewhere.
  function repoWithTwoWorktrees(): { dir: string; repo: string; near: string; far: string; away: string; list: () => string[] } {
    const dir = folder('cleanup-worktrees-');
    const away = folder('cleanup-worktrees-away-');
    const repo = path.join(dir, 'work');
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    mkdirSync(repo);
    git('init', '-q');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '--allow-empty', '-m', 'start');
    const near = path.join(dir, 'near');
    const far = path.join(away, 'far');
    git('worktree', 'add', '-q', '-b', 'near', near);
    git('worktree', 'add', '-q', '-b', 'far', far);
    const list = () => git('worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice('worktree '.length)).slice(1).sort();
    return { dir, repo, near, far, away, list };
  }

  it('removes every linked worktree, wherever it is, read from the repository without asking git where', () => {
    const r = repoWithTwoWorktrees();
    expect(r.list()).toEqual([r.near, r.far].sort());
    removeWorktreesOf(r.repo);
    expect(existsSync(r.near)).toBe(false);
    expect(existsSync(r.far)).toBe(false);
    expect(r.list()).toEqual([]);
  });

  // What the workspace holds is not proof: anything that can write there (a scenario's files,
  // the agent's shell) can write a record naming any folder, or a .git file leading to any
  // repository. Only a worktree that git's own two-way link ties to the run's repository goes.
  it('a record in .git/worktrees naming a folder that is no worktree of the repository: that folder is left alone', () => {
    const r = repoWithTwoWorktrees();
    const victim = folder('cleanup-victim-');
    writeFileSync(path.join(victim, 'precious.txt'), 'keep me\n');
    mkdirSync(path.join(r.repo, '.git', 'worktrees', 'forged'));
    writeFileSync(path.join(r.repo, '.git', 'worktrees', 'forged', 'gitdir'), `${path.join(victim, '.git')}\n`);
    removeWorktreesOf(r.repo);
    expect(readFileSync(path.join(victim, 'precious.txt'), 'utf8')).toBe('keep me\n');
    expect([existsSync(r.near), existsSync(r.far)]).toEqual([false, false]);   // the real ones still go
  });

  it("a workspace whose .git is a file leading to another repository: that repository's worktrees are left alone", () => {
    const r = repoWithTwoWorktrees();
    const workspace = folder('cleanup-gitfile-');
    writeFileSync(path.join(workspace, '.git'), `gitdir: ${path.join(r.repo, '.git')}\n`);
    removeWorktreesOf(workspace);
    expect([existsSync(r.near), existsSync(r.far)]).toEqual([true, true]);
    expect(r.list()).toEqual([r.near, r.far].sort());
  });

  it('given the folder about to be removed whole: only the worktree outside it is removed now, the one inside is left for that', () => {
    const r = repoWithTwoWorktrees();
    removeWorktreesOf(r.repo, r.dir);
    expect(existsSync(r.far)).toBe(false);
    expect(existsSync(r.near)).toBe(true);   // goes with the folder, and git's record of it with the repository
    expect(r.list()).toEqual([r.near]);
    // A repository outside that folder is not the caller's to remove: all of its worktrees go.
    removeWorktreesOf(r.repo, r.away);
    expect(existsSync(r.near)).toBe(false);
    expect(r.list()).toEqual([]);
  });
});

describe.runIf(linux)('stopProcessesIn', () => {
  // Any folder (every process is looked at), and one of makeTempDir's (only the processes
  // started after it was made are).
  const folders: [string, () => Promise<string>][] = [
    ['a folder', async () => mkdtempSync(path.join(TMP, 'cleanup-unit-'))],
    ["a folder of makeTempDir's", () => makeTempDir('cleanup-born-')],
  ];
  for (const [kind, make] of folders) {
    it(`kills what runs inside ${kind}, and nothing outside it`, async () => {
      const dir = await make();
      mkdirSync(path.join(dir, 'deeper'));
      const inside = spawn('sleep', ['30'], { cwd: path.join(dir, 'deeper') });
      const outside = spawn('sleep', ['30'], { cwd: TMP });
      try {
        await sleep(50);
        expect(processesIn(dir)).toEqual([inside.pid]);
        const gone = new Promise((r) => inside.once('exit', (_c, s) => r(s)));
        expect(stopProcessesIn(dir)).toBe(1);
        expect(await gone).toBe('SIGKILL');
        expect(outside.exitCode).toBeNull();
        expect(outside.signalCode).toBeNull();
      } finally {
        inside.kill('SIGKILL');
        outside.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        release(dir);
      }
    });
  }
});

