// `npm run bench` as a user meets it, not what it measures (numbers are never asserted):
// a command line it cannot take is one line and exit 2 before the speed markers take their
// seconds, and the bench stopped mid-run leaves no scratch folder (in its TMPDIR, or the copy
// of a chapter it checks in the project's .tmp) and no process of its own running. The bench
// is a script; what it is called here is its reader of the command line (command-line.mjs),
// for each line it refuses, and its reader of /proc (process-cpu.mjs), for what it counts,
// not for how much. How the bench says a refusal (stderr, exit 2, nothing measured) is seen
// in a process of its own, as is everything about stopping it. The process checks read
// /proc (Linux); elsewhere that case is skipped.

import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { WRITTEN_CHAPTERS } from '../src/chapters.ts';
import { WORKER_ENV, sh } from './cli-helpers.ts';
import { tracked } from './children.ts';
// @ts-expect-error: plain JavaScript, no type declarations
import { processCpu as readProcessCpu } from '../bench/process-cpu.mjs';
// @ts-expect-error: plain JavaScript, no type declarations
import { CommandLineError as BenchCommandLineError, readCommandLine as readBenchCommandLine } from '../bench/command-line.mjs';

const BENCH = path.join(ROOT, 'bench', 'bench.mjs');
const linux = process.platform === 'linux' && existsSync('/proc/self/stat');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The command lines of the live (not zombie) processes of group `pgid`. */
function groupCommands(pgid: number): string[] {
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(group) === pgid) found.push(readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim());
    } catch { /* gone meanwhile */ }
  }
  return found;
}

// What bench/command-line.mjs answers, typed as it is used here.
interface BenchOptions { help: boolean; byFile?: boolean; chapters?: number[]; runs?: number; suiteRuns?: number; suite?: boolean; xray?: boolean; markers?: boolean; claude?: string }
const readCommandLine = readBenchCommandLine as (argv: string[], o: { writtenChapters: () => number[]; canReadProc: () => boolean }) => BenchOptions;
const CommandLineError = BenchCommandLineError as new (line: string) => Error;
/** The bench's reading of `argv`, on this machine's chapters: its options, or the line it refuses it with. */
function benchReads(argv: string[], canReadProc = true): BenchOptions | string {
  try {
    return readCommandLine(argv, { writtenChapters: () => WRITTEN_CHAPTERS.map((c) => c.n), canReadProc: () => canReadProc });
  } catch (err) {
    if (err instanceof CommandLineError) return err.message;
    throw err;
  }
}

describe('a command line the bench cannot take: one line, exit 2, nothing measured', () => {
  it.each([
    // A typo of --no-suite was dropped, and the whole suite ran twice.
    [['--no-sute'], 'unknown option --no-sute'],
    // --no-help ran the whole bench; --by-file=no was read as on.
    [['--no-help'], 'unknown option --no-help'],
    [['--by-file=no'], '--by-file takes no value (got --by-file=no)'],
    // A bare --runs was read as one run.
    [['--runs'], '--runs needs a positive whole number (got none)'],
    [['--runs', '0'], '--runs needs a positive whole number (got "0")'],
    [['--runs', '-1'], '--runs needs a positive whole number (got "-1")'],
    // A chapter that is not written failed with a stack trace, after the speed markers.
    [['99'], `unknown chapter "99": the chapters written are ${WRITTEN_CHAPTERS.map((c) => c.n).join(', ')}`],
    [['--by-file', '11'], '--by-file runs the suite alone: it takes no chapter or other option but --no-markers'],
    // A typo of a number ran for hours; a chapter twice measured it twice.
    [['--runs', '99999999999999999999'], '--runs 99999999999999999999: at most 1000 runs of each demo'],
    [['11', '11'], 'chapter 11 given twice'],
    // The suite's runs: the same bounds, said before any suite runs (each takes about 20 s).
    [['--suite-runs', '0'], '--suite-runs needs a positive whole number (got "0")'],
    [['--suite-runs', '-2'], '--suite-runs needs a positive whole number (got "-2")'],
    [['--suite-runs'], '--suite-runs needs a positive whole number (got none)'],
    [['--suite-runs', '21'], '--suite-runs 21: at most 20 runs of the suite'],
    [['--suite-runs', '2', '--suite-runs', '3'], '--suite-runs given twice'],
    [['--suite-runs', '3', '--no-suite'], '--suite-runs and --no-suite do not go together'],
    [['--by-file', '--suite-runs', '3'], '--by-file runs the suite alone: it takes no chapter or other option but --no-markers'],
    [['--claude', path.join(ROOT, 'no-such-claude')], `--claude ${path.join(ROOT, 'no-such-claude')}: no such file`],
    [['--claude', ROOT], `--claude ${ROOT}: not a file`],
    [['--claude', path.join(ROOT, 'package.json')], `--claude ${path.join(ROOT, 'package.json')}: not an executable file`],
  ])('%j', (args, line) => {
    expect(benchReads(args)).toBe(line);
  });

  it('--by-file where there is no /proc to read', () => {
    expect(benchReads(['--by-file'], false)).toBe('--by-file reads what each process spent from /proc, which this system does not have (Linux only)');
    expect(benchReads(['--by-file'], true)).toMatchObject({ help: false, byFile: true, chapters: undefined });
  });

  it('what it takes: the chapters given, in order, or every written one; 7 runs of each demo and 1 of the suite unless told', () => {
    expect(benchReads(['11', '2', '--runs', '3', '--no-suite'])).toMatchObject({ help: false, chapters: [11, 2], runs: 3, suite: false, xray: true, markers: true });
    expect(benchReads([])).toMatchObject({ chapters: WRITTEN_CHAPTERS.map((c) => c.n), runs: 7, suiteRuns: 1, suite: true });
    expect(benchReads(['11', '--suite-runs', '5'])).toMatchObject({ chapters: [11], runs: 7, suiteRuns: 5, suite: true });
    expect(benchReads(['--suite-runs=20'])).toMatchObject({ suiteRuns: 20 });
    expect(benchReads(['--help', '99'])).toEqual({ help: true });
  });

  // How the bench says it: the line and the pointer to --help on stderr, exit 2, before any
  // speed marker. The chapters it knows are those `run.mjs --list` gave it, this project's.
  it('in a process of its own: the line on stderr with where to look, nothing on stdout, exit 2', async () => {
    const r = await sh(process.execPath, [BENCH, '99']);
    expect(r.err).toBe(`unknown chapter "99": the chapters written are ${WRITTEN_CHAPTERS.map((c) => c.n).join(', ')} (see npm run bench -- --help)\n`);
    expect(r.out).toBe('');
    expect(r.code).toBe(2);
  });
});

it('--help describes every option and the exit codes, exit 0, nothing measured', async () => {
  const r = await sh(process.execPath, [BENCH, '--help']);
  expect(r.code).toBe(0);
  expect(r.err).toBe('');
  // Each option on a line of its own, followed by what it does.
  for (const option of ['CHAPTER ...', '--runs N', '--suite-runs N', '--no-suite', '--claude PATH', '--no-xray', '--no-markers', '--by-file', '-h, --help']) {
    expect(r.out).toMatch(new RegExp(`^  ${option.replace(/[.]/g, '\\.')} +\\S`, 'm'));
  }
  expect(r.out).toMatch(/^Exit codes: 0 measured; 1 .*; 2 /m);
  expect(r.out).not.toContain('machine speed markers');   // nothing was measured
});

// What --by-file adds up: a child's CPU, its kernel share and its page faults reach the parent
// once it is waited for. The child here fills 64 MB, so it must map at least 16,384 pages (the
// kernel's work); then it spins for 100 ms in its own code (user time), so that the kernel's
// share is plainly less than the whole: filling alone is nearly all kernel time, and the
// kernel's tick sampling once put every tick of it there.
const processCpu = readProcessCpu as () => { self: number; children: number; childrenSystem: number; childrenFaults: number } | undefined;
it.runIf(linux)('processCpu counts a child waited for: its CPU, the kernel\'s share of it, and its minor page faults', () => {
  const before = processCpu()!;
  const r = spawnSync(process.execPath, ['-e', 'Buffer.alloc(64 * 1024 * 1024, 1); for (const t = Date.now(); Date.now() - t < 100;);'], { stdio: 'ignore' });
  expect(r.status).toBe(0);
  const after = processCpu()!;
  expect(after.childrenFaults - before.childrenFaults).toBeGreaterThanOrEqual(16_384);
  expect(after.children).toBeGreaterThan(before.children);
  expect(after.childrenSystem).toBeGreaterThanOrEqual(before.childrenSystem);
  expect(after.childrenSystem - before.childrenSystem).toBeLessThan(after.children - before.children);   // node spends user time too
});

describe('the bench stopped', () => {
  // A kill of the bench alone (the terminal's Ctrl-C reaches its whole group; a kill does
  // not): it ended at once, leaving its scratch folder in TMPDIR, the chapter copy it checks
  // in the project's .tmp, and a --watch that went on watching for ever.
  it.runIf(linux)('SIGTERM while it checks a copy of a chapter: exit 143, its children stopped, its folders gone', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'bench-test-'));
    try {
      const bench = tracked(spawn(process.execPath, [BENCH, '1', '--runs', '1', '--no-suite', '--no-xray', '--no-markers'], {
        cwd: ROOT, detached: true, stdio: 'ignore', env: { ...WORKER_ENV, TMPDIR: tmp, NO_COLOR: '1' },
      }), 'bench', { group: true });
      const exited = new Promise<number | string | null>((resolve) => bench.once('exit', (code, signal) => resolve(code ?? signal)));
      let copy: string | undefined;
      for (let i = 0; i < 1200 && copy === undefined && bench.exitCode === null; i++) {
        copy = groupCommands(bench.pid!).map((c) => /--check (\.tmp\/bench-check-\S+)/.exec(c)?.[1]).find((c) => c !== undefined);
        if (copy === undefined) await sleep(50);
      }
      expect(copy, 'the bench reached its check').toBeDefined();
      process.kill(bench.pid!, 'SIGTERM');
      expect(await exited).toBe(143);
      await sleep(100);   // a child that has just exited may take a moment to leave the process table
      expect(groupCommands(bench.pid!)).toEqual([]);
      expect(existsSync(path.join(ROOT, copy!))).toBe(false);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  // `npm run bench | head`: the reader gone, the bench failed on EPIPE with a line of its own,
  // exit 1, as if a command had failed, and went on measuring for nobody until then.
  it.runIf(linux)('a reader that goes away (| head): exit 141, as a shell shows a closed pipe, its children stopped, its folders gone', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'bench-test-'));
    try {
      const bench = tracked(spawn(process.execPath, [BENCH, '1', '--runs', '1', '--no-suite', '--no-xray', '--no-markers'], {
        cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...WORKER_ENV, TMPDIR: tmp, NO_COLOR: '1' },
      }), 'bench', { group: true });
      let stderr = '';
      bench.stderr.on('data', (d) => { stderr += String(d); });
      const exited = new Promise<number | string | null>((resolve) => bench.once('exit', (code, signal) => resolve(code ?? signal)));
      await new Promise((resolve) => bench.stdout.once('data', resolve));   // its first line, as head -1 reads it
      bench.stdout.destroy();
      expect(await exited).toBe(141);
      expect(stderr).toBe('');
      await sleep(100);
      expect(groupCommands(bench.pid!)).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  // The preload that reports a measured run's memory wrote into the bench's scratch folder at
  // exit. Once that folder was gone (the bench stopped and cleaned up first), its write threw
  // inside process.exit, which then never ended the process: a runner stopped by a signal
  // stayed alive, idle, for good.
  it('a measured run stopped after the bench\'s folder is gone still ends (143)', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'bench-test-'));
    try {
      const run = tracked(spawn(process.execPath, ['--import', path.join(ROOT, 'bench', 'rss-on-exit.mjs'), path.join(ROOT, 'steps', 'run.mjs'), '13'], {
        cwd: ROOT, stdio: 'ignore', env: { ...WORKER_ENV, TMPDIR: tmp, NO_COLOR: '1', BENCH_RSS_FILE: path.join(tmp, 'gone', 'rss') },
      }), 'run.mjs 13 with the bench preload');
      const exited = new Promise<number | string | null>((resolve) => run.once('exit', (code, signal) => resolve(code ?? signal)));
      for (let i = 0; i < 600 && readdirSync(tmp).length === 0 && run.exitCode === null; i++) await sleep(10);
      run.kill('SIGTERM');
      expect(await Promise.race([exited, sleep(10_000).then(() => 'still running after 10 s')])).toBe(143);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
