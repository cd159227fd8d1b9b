#!/usr/bin/env node
// The benchmark: median wall time and peak memory of `node steps/run.mjs N` for every
// written chapter (a demo that scripts model latency also with --no-latency), and the
// wall and CPU time of the whole test suite, first with nothing kept from earlier runs, then
// with what the first kept (on a shared machine the CPU seconds compare better than the wall). Numbers are measured
// here, never asserted in tests: machines differ, and a timing test is a flaky test.
//
//   npm run bench                 every written chapter, 7 runs each, plus npm test and the
//                                 self-check twice each
//   npm run bench -- 11 --runs 15 one chapter, more runs
//   npm run bench -- --no-suite   skip the test suite
//   npm run bench -- --no-xray --suite-runs 5
//                                 the suite with what it kept five times: its median, and the range
//   (also: one chapter's --check as a command, and --watch from a save to its verdict)
//   npm run bench -- --help      every option, and the exit codes
//   npm run bench -- --claude PATH  also time a full x-ray of that Claude Code (also: XRAY_CLAUDE=PATH,
//                                 or `claude` on PATH); skipped when there is none, or with --no-xray
//   npm run bench -- --by-file    only the suite, once, and where its CPU goes: each test file's
//                                 own, and that of the processes it started (Linux); the
//                                 kernel's share; and how long the cores stood idle meanwhile

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandLineError, readCommandLine } from './command-line.mjs';
import { processCpu } from './process-cpu.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: npm run bench -- [CHAPTER ...] [--runs N] [--suite-runs N | --no-suite] [--claude PATH | --no-xray] [--no-markers]
       npm run bench -- --by-file

Time the chapters' demos, a check of an exercise (once, and --watch from a save to its
verdict), the test suite and the self-check on this machine, and print the figures
(nothing is asserted: machines differ). Three speed markers, taken before and after (a
fixed loop, a node that starts and ends at once, and a page of memory mapped at its first
use), tell whether figures from two machines, or two busy moments, compare.

  CHAPTER ...       only these chapters' demos (default: every written chapter); each
                    also with --no-latency where its scenario waits on purpose; the
                    exercise check uses chapter 11, else the first one given
  --runs N          runs of each demo, 1 to 1000; the median is shown (default 7)
  --suite-runs N    runs of npm test with what earlier runs kept, 1 to 20; the median is
                    shown, with the range (default 1)
  --no-suite        skip npm test and the self-check (each timed twice: nothing kept,
                    then with what the first run kept)
  --claude PATH     also time a whole x-ray of that Claude Code (default: XRAY_CLAUDE,
                    else a claude on PATH; skipped when there is none)
  --no-xray         never time the x-ray
  --no-markers      skip the speed markers (about 3 s at each end): the figures then
                    compare only with others taken at the same moment
  --by-file         only the suite, once: where its CPU goes, test file by test file
                    (the worker's own and the processes it started; Linux only), how
                    much of it was the kernel's, and how long the cores stood idle
  -h, --help        this text

Exit codes: 0 measured; 1 a measured command failed (what it said is shown); 2 a command
line it cannot take (said before anything is measured); 130, 143 or 129 stopped by Ctrl-C,
SIGTERM or SIGHUP, and 141 when its reader goes away (| head), with what it started
stopped and its folders removed.`;

/** The chapters written, as `node steps/run.mjs --list` names them: those the bench can time. */
function writtenChapters() {
  const listing = spawnSync(process.execPath, [path.join(root, 'steps/run.mjs'), '--list'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  if (listing.status !== 0) {
    console.error(`bench: node steps/run.mjs --list failed: ${(listing.stderr || listing.stdout || String(listing.error)).trim().split('\n')[0]}`);
    process.exit(1);
  }
  return listing.stdout.split('\n').filter((l) => l.trim() && !l.includes('(not written yet)')).map((l) => Number(/^\D*(\d+)/.exec(l)?.[1])).filter(Number.isInteger);
}

// The command line, checked before anything is measured (command-line.mjs): what the bench
// cannot take is one line and exit 2.
let args;
try {
  args = readCommandLine(process.argv.slice(2), { writtenChapters, canReadProc: () => processCpu() !== undefined });
} catch (err) {
  if (!(err instanceof CommandLineError)) throw err;
  console.error(`${err.message} (see npm run bench -- --help)`);
  process.exit(2);
}
if (args.help) {
  console.log(HELP);
  process.exit(0);
}
const { runs, chapters } = args;

// Interrupted (Ctrl-C, SIGTERM, SIGHUP), the bench leaves nothing behind: what it runs is
// stopped (a Ctrl-C at the terminal reached it already; a kill of this process alone did
// not, and a --watch left running would watch for ever), given a moment to clean up its own
// temp folders, and then the bench's scratch folders go: in the temp folder, and the copy
// of a chapter it checks in the project's .tmp.
const running = new Set();
const scratchDirs = new Set();
const madeHolders = [];   // the project's .tmp, when the bench made it: removed again once empty
function removeEmptyHolders() {
  for (const dir of madeHolders.splice(0)) try { rmdirSync(dir); } catch { /* something else is in it */ }
}
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
  removeEmptyHolders();
});
let stopping = false;   // once set, no command is started any more
/** Stop what the bench runs with `signal` (5 s to end, then SIGKILL), then exit with `code`. */
async function stopAll(signal, code) {
  stopping = true;
  const children = [...running];
  for (const child of children) child.kill(signal);
  const gone = children.map((c) => new Promise((resolve) => { if (c.exitCode !== null || c.signalCode !== null) resolve(); else c.once('exit', resolve); }));
  await Promise.race([Promise.all(gone), new Promise((resolve) => { setTimeout(resolve, 5000).unref(); })]);
  for (const child of running) child.kill('SIGKILL');
  process.exit(code);
}
for (const [signal, code] of Object.entries({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 })) {
  process.on(signal, () => { void stopAll(signal, code); });
}
// A reader that went away (`| head`): nobody reads what is left to measure. The bench ends
// as when stopped, its commands and folders gone, with no word (there is nowhere to say it).
// Its commands get SIGTERM: a node child ignores SIGPIPE. Exit 141, as a shell shows a closed pipe.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
  if (!stopping) void stopAll('SIGTERM', 141);
});
// A failed command (a chapter's demo, the suite) ends the bench with what it said, not with
// the bench's own stack trace.
process.on('uncaughtException', (err) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

/** A scratch folder, removed at exit whatever ends the bench. */
function scratchDir(prefix) {
  const dir = mkdtempSync(prefix);
  scratchDirs.add(dir);
  return dir;
}
function removeScratch(dir) {
  rmSync(dir, { recursive: true, force: true });
  scratchDirs.delete(dir);
}

/** Runs a command to its end without holding up this process, so that a signal is heard while it runs. */
function run(command, commandArgs, options) {
  return new Promise((resolve) => {
    if (stopping) return;   // never settles: the bench is on its way out
    const child = spawn(command, commandArgs, options);
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr?.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.once('error', (err) => { running.delete(child); resolve({ status: null, stdout, stderr: `${stderr}${err.message}\n` }); });
    child.once('close', (status) => { running.delete(child); resolve({ status, stdout, stderr }); });
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Run a command `times` times; wall times in ms and peak RSS in MiB (from the preload). */
async function measure(command, commandArgs, times) {
  const scratch = scratchDir(path.join(tmpdir(), 'bench-'));
  const rssFile = path.join(scratch, 'rss');
  const walls = [];
  try {
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      const r = await run(command, commandArgs, {
        cwd: root,
        env: { ...process.env, BENCH_RSS_FILE: rssFile, NO_COLOR: '1' },
        shell: process.platform === 'win32',
      });
      walls.push(performance.now() - started);
      if (r.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} exited ${r.status}:\n${r.stdout}${r.stderr}`);
    }
    let rss = [];
    try { rss = readFileSync(rssFile, 'utf8').trim().split('\n').map(Number); } catch { /* the command was not node */ }
    return { wall: median(walls), min: Math.min(...walls), rssMiB: rss.length ? Math.max(...rss) / 1024 : undefined };
  } finally {
    removeScratch(scratch);
  }
}


/**
 * Seconds a fixed loop of 3·10⁸ additions takes in a fresh node: the machine's speed at the
 * time. A shared machine's speed drifts, by half or more within minutes, so figures from two
 * benches compare only when their markers are close.
 */
function speedMarker() {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', 'let s = 0; for (let i = 0; i < 3e8; i++) s += i;']);
  return ((performance.now() - started) / 1000).toFixed(2);
}
/**
 * Milliseconds a fresh `node -e 0` takes to start and end (the median of 15): what starting a
 * process costs on this machine. The loop above misses it, and about half of the suite's CPU
 * is processes its tests start (--by-file). Seen here: a machine whose loop marker was 1.7 s
 * ran a warm suite in 47 s, where one at 1.9 s had taken 17 s; it started node in 105 ms.
 */
function processMarker() {
  const times = [];
  for (let i = 0; i < 15; i++) {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    times.push(performance.now() - started);
  }
  return Math.round(median(times));
}
/**
 * Microseconds the kernel takes to map a page of memory at its first use, in a fresh node that
 * writes one byte into each 4 KiB page of 64 MiB it has not touched yet (the median of 3).
 * Neither marker above sees it, and the suite makes over two million such faults (--by-file).
 * Seen here: a machine whose first two markers were 1.40 s and 54 ms, and whose pages cost
 * 10 µs each, ran the suite with what it kept in 50-58 s and 95-110 s of CPU; one with
 * markers of 1.47-1.70 s and 56-61 ms, whose pages cost about 1.5 µs (3.5 s of its kernel
 * time for 2.3 million faults), had run it in about 20 s and 40 s of CPU.
 */
function pageMicroseconds() {
  const script = [
    'const size = 64 << 20, bytes = Buffer.allocUnsafeSlow(size);',
    'const faults = process.resourceUsage().minorPageFault, started = process.hrtime.bigint();',
    'for (let i = 0; i < size; i += 4096) bytes[i] = 1;',
    'const made = process.resourceUsage().minorPageFault - faults;',
    'console.log(made > 0 ? Number(process.hrtime.bigint() - started) / 1e3 / made : NaN);',
  ].join('\n');
  const times = [];
  for (let i = 0; i < 3; i++) {
    // Only a child that ended well and printed a figure counts (Number('') is 0, not "unknown").
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    times.push(child.status === 0 && child.stdout.trim() !== '' ? Number(child.stdout) : NaN);
  }
  const usable = times.filter(Number.isFinite);
  return usable.length === 0 ? NaN : median(usable);
}
const pageMarker = () => { const us = pageMicroseconds(); return Number.isFinite(us) ? us.toFixed(1) : '?'; };
const markers = () => `${speedMarker()} s, ${processMarker()} ms, ${pageMarker()} µs`;
const markerBefore = args.markers ? markers() : undefined;
/** The closing line: the markers again, to compare with those taken before. */
const markersAfter = () => `\nmachine speed markers: ${markerBefore === undefined ? 'skipped (--no-markers)' : `${markerBefore} before, ${markers()} after`}`;
if (args.byFile) {
  await byFile();
  process.exit(0);
}

console.log(`node ${process.versions.node} · ${process.platform} · ${runs} runs per chapter (median; peak RSS is the max over runs)`);
console.log(`machine speed markers: ${markerBefore === undefined ? 'skipped (--no-markers)' : `${markerBefore} (a fixed 3·10⁸-step loop in node; a node that starts and ends at once; a page of fresh memory at its first use; lower is faster)`}\n`);
console.log('command                             median     min   peak RSS');
const preload = ['--import', path.join(root, 'bench/rss-on-exit.mjs')];
/** Does chapter n's demo script model latency (chapters that show work overlapping)? */
function scriptsLatency(n) {
  const folder = readdirSync(path.join(root, 'scenarios')).find((d) => d.startsWith(`${String(n).padStart(2, '0')}-`));
  if (!folder) return false;
  try { return /"latency_ms":\s*[1-9]/.test(readFileSync(path.join(root, 'scenarios', folder, 'demo.json'), 'utf8')); } catch { return false; }
}

const waiting = chapters.filter(scriptsLatency);
for (const n of chapters) {
  // A demo that waits on purpose is measured twice: as shipped, and with --no-latency,
  // which is what its own code costs.
  for (const extra of waiting.includes(n) ? [[], ['--no-latency']] : [[]]) {
    const command = [...preload, 'steps/run.mjs', String(n), ...extra];
    await measure(process.execPath, command, 1); // warm the loader's cache
    const m = await measure(process.execPath, command, runs);
    const label = `${n}${extra.length ? ` ${extra.join(' ')}` : ''}`;
    console.log(`node steps/run.mjs ${label.padEnd(16)} ${m.wall.toFixed(0).padStart(6)} ms ${m.min.toFixed(0).padStart(5)} ms ${m.rssMiB?.toFixed(0).padStart(6)} MiB`);
  }
}
if (waiting.length > 0) {
  console.log(`\n(${waiting.join(', ')}: the demo scripts model latency, to show work overlapping; --no-latency is the cost of the code itself)`);
}
// The exercise loop: how long a learner waits for a check. Once as a command (start-up,
// the type check, every scenario), and as --watch answers an edit (the process is already
// up: the time from saving a file to the next verdict), on a copy of the reference graded
// with a scenario it cannot pass, so the watch keeps going.
{
  const n = chapters.includes(11) ? 11 : chapters[0];
  const folder = readdirSync(path.join(root, 'steps')).find((d) => d.startsWith(`${String(n).padStart(2, '0')}-`));
  // Where a learner's exercise is, two folders down (exercises/NN-slug).
  if (!existsSync(path.join(root, '.tmp'))) madeHolders.push(path.join(root, '.tmp'));
  mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const dir = scratchDir(path.join(root, '.tmp', 'bench-check-'));
  try {
    cpSync(path.join(root, 'steps', folder), dir, { recursive: true });
    const rel = path.relative(root, dir);
    const once = await measure(process.execPath, ['steps/run.mjs', String(n), '--check', rel], runs);
    console.log(`node steps/run.mjs ${n} --check DIR   ${once.wall.toFixed(0).padStart(6)} ms ${once.min.toFixed(0).padStart(5)} ms`);
    const waits = await watchLatency(n, dir, rel, runs);
    console.log(`  … --watch, a save to its verdict (demo+1)${median(waits).toFixed(0).padStart(4)} ms ${Math.min(...waits).toFixed(0).padStart(5)} ms   (target: under 500 ms)`);
  } finally {
    removeScratch(dir);
    removeEmptyHolders();
  }
}

/** Save a file of the watched folder `times` times; ms from each save to the watch's next verdict. */
async function watchLatency(n, dir, rel, times) {
  if (stopping) await new Promise(() => {});   // the bench is on its way out: start nothing
  // Grade with the chapter's last case made to fail, so the watch never stops by itself.
  const child = spawn(process.execPath, ['steps/run.mjs', String(n), '--check', rel, '--watch', '--scenario', failingScenario(n, dir)], { cwd: root, env: { ...process.env, NO_COLOR: '1' } });
  running.add(child);
  // Waited for from the start: a watch that ended by itself may have closed before the end below.
  const closed = new Promise((r) => child.once('close', () => { running.delete(child); r(); }));
  let out = '';
  child.stdout.on('data', (d) => { out += String(d); });
  child.stderr.on('data', (d) => { out += String(d); });
  const verdicts = () => out.split('watching ').length - 1;
  const until = async (count) => { while (verdicts() < count) { if (child.exitCode !== null) throw new Error(`the watch ended: ${out}`); await new Promise((r) => setTimeout(r, 2)); } };
  try {
    await until(1);
    const waits = [];
    // Each save is code the folder never had (a comment more in main.ts), so neither a
    // remembered clean check nor an earlier round of the compiler can answer it.
    const main = path.join(dir, 'main.ts');
    const code = readFileSync(main, 'utf8');
    for (let i = 0; i < times; i++) {
      const seen = verdicts();
      const started = performance.now();
      writeFileSync(main, `${code}\n// edit ${i}\n`);
      await until(seen + 1);
      waits.push(performance.now() - started);
    }
    return waits;
  } finally {
    child.kill('SIGINT');
    await closed;
  }
}

/** A copy of the chapter's demo with one more expectation nobody can meet. */
function failingScenario(n, dir) {
  const folder = readdirSync(path.join(root, 'scenarios')).find((d) => d.startsWith(`${String(n).padStart(2, '0')}-`));
  const demo = JSON.parse(readFileSync(path.join(root, 'scenarios', folder, 'demo.json'), 'utf8'));
  const file = path.join(dir, 'bench-scenario.json');
  writeFileSync(file, JSON.stringify({ ...demo, expect: [...(demo.expect ?? []), { name: 'never met', file: { path: 'no-such-file', exists: true } }] }));
  return file;
}

/** CPU seconds (user + system) of the children this process has waited for: Linux only. */
function childCpu() {
  return processCpu()?.children;
}

/** Seconds the machine's cores have stood idle since it started, all cores together (the system's own count). */
function idleSeconds() {
  return cpus().reduce((n, cpu) => n + cpu.times.idle, 0) / 1000;
}

/**
 * The suite once, as a contributor's next run finds it (what earlier runs kept, kept), with
 * bench/cpu-by-file.mjs timing each test file: a table of the files by CPU, their own (the
 * worker's) and their children's, then what no file accounts for (vitest itself, the
 * workers' start-up and module loading, the global setup). Children are counted once they
 * are waited for: a process a file started and left running counts for nobody.
 */
async function byFile() {
  const scratch = scratchDir(path.join(tmpdir(), 'bench-by-file-'));
  const log = path.join(scratch, 'cpu.jsonl');
  try {
    const before = processCpu();
    const idleBefore = idleSeconds();
    const started = performance.now();
    const r = await run(process.execPath, [path.join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'bench/by-file.config.mjs'], {
      cwd: root, env: { ...process.env, BENCH_CPU_FILE: log, NO_COLOR: '1' },
    });
    const wall = (performance.now() - started) / 1000;
    const after = processCpu();
    const total = after.children - before.children;
    const idle = idleSeconds() - idleBefore;
    if (r.status !== 0) throw new Error(`the suite failed (exit ${r.status}):\n${r.stdout.split('\n').slice(-20).join('\n')}${r.stderr}`);
    const files = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).sort((a, b) => b.self + b.children - (a.self + a.children));
    const sum = (key) => files.reduce((n, f) => n + f[key], 0);
    const s = (x) => x.toFixed(2).padStart(6);
    console.log('test file                                  own CPU  children   wall (s)');
    for (const f of files) console.log(`${path.relative(root, f.file).padEnd(40)} ${s(f.self)}    ${s(f.children)}   ${s(f.wall)}`);
    console.log(`${'all files'.padEnd(40)} ${s(sum('self'))}    ${s(sum('children'))}`);
    console.log(`\nnpm test once: ${wall.toFixed(1)} s, ${total.toFixed(1)} s CPU in all; ${(total - sum('self') - sum('children')).toFixed(1)} s of it in no file (vitest, worker start-up, module loading, the global setup)`);
    // The kernel's share. Over one whole run (perf), most of it was page faults, and forking and
    // ending processes; two thirds of the faults were in the processes the tests start, a third
    // in the workers (their heaps). A test file's own code barely moves it; fewer processes do.
    const faults = after.childrenFaults - before.childrenFaults;
    console.log(`${(after.childrenSystem - before.childrenSystem).toFixed(1)} s of the CPU was the kernel's (system time), and the processes made ${(faults / 1e6).toFixed(2)} million minor page faults (a page of memory the kernel maps at its first use)`);
    // What those faults cost on this machine, at the price of a page the third marker measures:
    // about 1.5 µs on a machine that ran the suite in 20 s, 10 on one that took 50-58 s.
    const perPage = pageMicroseconds();
    if (Number.isFinite(perPage)) console.log(`at ${perPage.toFixed(1)} µs a page (measured now), the faults were about ${(faults * perPage / 1e6).toFixed(1)} s of that`);
    const cores = cpus().length;
    console.log(`the ${cores} cores stood idle ${idle.toFixed(1)} s in all meanwhile: with every core kept busy, the run would have taken about ${(wall - idle / cores).toFixed(1)} s`);
  } finally {
    removeScratch(scratch);
  }
  console.log(markersAfter());
}

if (args.suite) {
  // What a run keeps lies in node_modules/.cache: the compiled snapshots, the bundles of
  // other folders, the folders --check found clean, the kills of the self-check. The first run
  // starts without any of it, as on a fresh clone; the second finds it, as a contributor's
  // next run does. Then the mutation self-check, CI's step after `npm test`, both ways.
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // vitest keeps its timings of each file in node_modules/.vite (the order files start in):
  // a fresh clone has none of that either.
  const kept = [path.join(root, 'node_modules', '.cache'), path.join(root, 'node_modules', '.vite')];
  // `times` runs in a row: the median of their wall and CPU times, and the range of the wall
  // times. Run to run, the same suite on the same tree varies by a second or more here.
  const timed = async (label, command, fresh, times = 1) => {
    if (fresh) for (const dir of kept) rmSync(dir, { recursive: true, force: true });
    const walls = [];
    const cpus = [];
    for (let i = 0; i < times; i++) {
      const before = childCpu();
      walls.push((await measure(npm, command, 1)).wall / 1000);
      const after = childCpu();
      if (before !== undefined && after !== undefined) cpus.push(after - before);
    }
    const cpu = cpus.length === 0 ? '' : `   ${median(cpus).toFixed(1)} s CPU`;
    const spread = times === 1 ? '' : `   (median of ${times}; ${Math.min(...walls).toFixed(1)}-${Math.max(...walls).toFixed(1)} s)`;
    console.log(`${label.padEnd(32)} ${median(walls).toFixed(1).padStart(6)} s${cpu}${spread}`);
  };
  await timed('npm test (nothing kept)', ['test', '--silent'], true);
  await timed('npm test (results kept)', ['test', '--silent'], false, args.suiteRuns);
  await timed('selfcheck --cached (nothing kept)', ['run', 'selfcheck', '--silent', '--', '--cached'], true);
  await timed('selfcheck --cached (results kept)', ['run', 'selfcheck', '--silent', '--', '--cached'], false);
}
console.log(markersAfter());
if (args.xray) {
  // One full x-ray (every case, the real binary against the mock): it takes seconds, so once.
  const which = (name) => (process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, name)).find((f) => { try { return statSync(f).isFile(); } catch { return false; } });
  const claude = args.claude || process.env.XRAY_CLAUDE || which('claude');
  if (!claude) console.log('xray                                  skipped: no Claude Code (--claude PATH, XRAY_CLAUDE, or claude on PATH)');
  else {
    const m = await measure(process.execPath, ['steps/run.mjs', 'xray', '--claude', claude], 1);
    console.log(`node steps/run.mjs xray (all cases) ${(m.wall / 1000).toFixed(1).padStart(6)} s`);
  }
}
