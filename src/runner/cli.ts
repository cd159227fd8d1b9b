// The command line behind `node steps/run.mjs`: parse flags, pick a chapter and a
// scenario, run it, print the transcript and the verdict. Exit codes: 0 all good,
// 1 an expectation or check failed, 2 bad input (unknown chapter, bad flag, bad file).

import minimist from 'minimist';
import { Chalk, type ChalkInstance } from 'chalk';
import path from 'node:path';
import { mkdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { CHAPTERS, findChapter, chapterDir, type Chapter } from '../chapters.ts';
import { ScenarioError, type Scenario } from '../mock/index.ts';
import { ROOT, casesOf, scenarioFile, snapshotDir, isReady, loadScenarioFile } from './scenarios.ts';
import { runChapter, writeTree, loadChapterModule, oneLine, type RunResult } from './run-chapter.ts';
import { agentReports, renderTranscript, usageTable } from './transcript.ts';
import { makeTempDir, release, stopProcessesIn, SetupError } from './cleanup.ts';

// steps/run.mjs installs the signal and crash handlers from here (src/runner/cleanup.ts).
export { installExitHandlers, finish } from './cleanup.ts';

const HELP = `Usage: node steps/run.mjs <chapter> [options]
       node steps/run.mjs --list
       node steps/run.mjs xray [CASE] [--claude PATH] [--json] [--keep] [--check] [--full]

Run a chapter's demo against the local mock model (no API key needed), show what
happened, and check the scenario's expectations.

  <chapter>            chapter number, e.g. 11
  --list               every chapter and what the agent can do after it
  --case NAME          run another scenario of the chapter (see --list-cases)
  --list-cases         the chapter's scenarios
  --all                run every scenario of the chapter
  --scenario FILE      run any scenario file (yours) against the chapter
  --diff               what this chapter added to the previous one
  --trace              show each request's shape and each response's usage
  --json               print a machine-readable report instead of the transcript
  --keep               keep the temporary workspace and print its path
  --no-latency         answer at once: skip the scenario's scripted model latency
                       (chapters 12 and 13 wait on purpose, to show work overlapping)
  --live               run against the real API (needs ANTHROPIC_API_KEY;
                       ANTHROPIC_BASE_URL optional); prints the agent's own output
  --model ID           model id (default: the chapter's DEFAULT_MODEL)

Classroom:
  --exercise [DIR]     write the chapter with its new code as TODO stubs
                       (default DIR: exercises/NN-slug)
  --check [DIR]        run the chapter's scenarios against DIR; names the first
                       missing behaviour with a hint; exit 0 when all pass
  --solution [DIR]     diff between DIR and the reference snapshot
                       (--list marks the chapters whose exercise passes)

X-ray (needs your own Claude Code; see docs/xray.md):
  xray [CASE]          drive a real Claude Code against the mock and show what it
                       sends (xray --help for its options)

Maintenance:
  --gen [--check]      regenerate snapshots and doc snippets (--check: only report stale ones)
  --selfcheck          apply every mutation in src/tooling/mutations.ts and show
                       that the scenarios catch each one
  -h, --help           this help

Environment: NO_COLOR turns colours off; so does output that is not a terminal.
SUBAGENTS_NO_BUNDLE=1 runs the TypeScript as it is instead of the compiled copies in
node_modules/.cache (slower; for checking the fallback).`;

const BOOLEAN_FLAGS = ['list', 'list-cases', 'all', 'diff', 'trace', 'json', 'keep', 'live', 'gen', 'selfcheck', 'help', 'latency'];
const STRING_FLAGS = ['case', 'scenario', 'model'];
const OPTIONAL_DIR_FLAGS = ['exercise', 'check', 'solution'];   // --flag [DIR]

class UsageError extends Error {}

function colorFor(stream: NodeJS.WriteStream): ChalkInstance {
  const off = 'NO_COLOR' in process.env || !stream.isTTY;
  return new Chalk({ level: off ? 0 : 1 });
}

export async function main(argv: string[]): Promise<number> {
  const c = colorFor(process.stdout);
  try {
    return await dispatch(argv, c);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ScenarioError || err instanceof SetupError) {
      console.error(`${err.message}`);
      return 2;
    }
    console.error(`error: ${oneLine(err)}`);
    return 2;
  }
}

async function dispatch(argv: string[], c: ChalkInstance): Promise<number> {
  if (argv[0] === 'xray') {
    // Loaded only when asked for, like the classroom commands; it parses its own flags.
    const { runXray } = await import('../xray/cli.ts');
    return runXray(argv.slice(1));
  }
  let unknown: string | undefined;
  const args = minimist(argv, {
    boolean: BOOLEAN_FLAGS,
    string: [...STRING_FLAGS, ...OPTIONAL_DIR_FLAGS],
    alias: { h: 'help' },
    default: { latency: true },   // --no-latency turns it off
    unknown: (arg) => {
      if (arg.startsWith('-') && unknown === undefined) unknown = arg;
      return !arg.startsWith('-');
    },
  });
  if (unknown !== undefined) throw new UsageError(`unknown option ${unknown} (see --help)`);
  if (args.help) { console.log(HELP); return 0; }
  for (const flag of STRING_FLAGS) {
    if (flag in args && (typeof args[flag] !== 'string' || args[flag] === '')) throw new UsageError(`--${flag} needs a value`);
  }
  if (args.gen) {
    const { runGen } = await import('../tooling/gen-cli.ts');
    const { docTranscript, docVerdicts } = await import('./doc-transcript.ts');
    return runGen(args.check !== undefined ? ['--check'] : [], undefined, docTranscript, (n) => docVerdicts(n));
  }
  if (args.selfcheck) {
    const { runSelfcheck } = await import('../tooling/selfcheck.ts');
    return runSelfcheck(ROOT, undefined, args.json);
  }
  if (args.list) return list(c);
  const classroom = OPTIONAL_DIR_FLAGS.filter((f) => args[f] !== undefined);
  if (classroom.length > 1) throw new UsageError(`give one of --${classroom.join(', --')}`);

  const positional = args._.map(String);
  if (positional.length === 0) throw new UsageError('which chapter? e.g. node steps/run.mjs 11 (or --list, --help)');
  if (positional.includes('xray')) throw new UsageError('xray comes first: node steps/run.mjs xray [CASE] [options]');
  if (positional.length > 1) throw new UsageError(`one chapter at a time (got ${positional.join(' ')})`);
  const chapter = parseChapter(positional[0]);

  if (args.diff) return diff(chapter);
  if (classroom.length === 1) {
    // Loaded only when asked for: the demo path stays as small as it can be.
    const { defaultExerciseDir, makeExercise, checkExercise, showSolution } = await import('./exercise-cli.ts');
    const flag = classroom[0];
    const dir = args[flag] === '' ? defaultExerciseDir(chapter) : path.resolve(String(args[flag]));
    const print = (s: string) => console.log(s);
    if (flag === 'exercise') return makeExercise(chapter, dir, print);
    if (flag === 'check') return checkExercise(chapter, dir, print, c);
    return showSolution(chapter, dir, print);
  }
  if (args['list-cases']) { for (const name of casesOf(chapter)) console.log(name); return 0; }
  if (args.case && args.scenario) throw new UsageError('give --case or --scenario, not both');

  const files = args.scenario
    ? [path.resolve(args.scenario)]
    : args.all ? casesOf(chapter).map((n) => scenarioFile(chapter, n)) : [scenarioFile(chapter, args.case ?? 'demo')];
  if (args.case && !casesOf(chapter).includes(args.case)) {
    throw new UsageError(`chapter ${chapter.n} has no case "${args.case}"; its cases: ${casesOf(chapter).join(', ')}`);
  }
  const scenarios: Scenario[] = [];
  for (const f of files) scenarios.push(await loadScenarioFile(f));

  if (args.live) return live(chapter, scenarios[0], args.model, args.keep);

  let failed = 0;
  const reports: unknown[] = [];
  for (const scenario of scenarios) {
    const result = await runChapter({ codeDir: snapshotDir(chapter), scenario, model: args.model, keep: args.keep, latencyScale: args.latency ? 1 : 0 });
    if (!result.ok) failed++;
    if (args.json) reports.push(jsonReport(chapter, scenario, result));
    else printRun(chapter, scenario, result, c, { trace: args.trace, keep: args.keep });
  }
  if (args.json) console.log(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
  return failed === 0 ? 0 : 1;
}

function parseChapter(text: string): Chapter {
  const n = Number(text);
  const chapter = Number.isInteger(n) ? findChapter(n) : undefined;
  if (!chapter) throw new UsageError(`unknown chapter "${text}": chapters are ${CHAPTERS[0].n}-${CHAPTERS.at(-1)!.n} (see --list)`);
  if (!isReady(chapter)) throw new UsageError(`chapter ${chapter.n} (${chapter.title}) is not written yet; see --list for the chapters you can run`);
  return chapter;
}

async function list(c: ChalkInstance): Promise<number> {
  const { exerciseProgress } = await import('./exercise-cli.ts');
  const progress = await exerciseProgress();
  for (const ch of CHAPTERS) {
    const ready = isReady(ch);
    const num = String(ch.n).padStart(2);
    const mark = progress.get(ch.n) === 'done' ? c.green('✔ ') : progress.has(ch.n) ? c.yellow('✎ ') : '  ';
    const line = `${mark}${num}  ${ch.title.padEnd(34)} ${ch.canNow}`;
    console.log(ready ? line : c.dim(`${line}  (not written yet)`));
  }
  if (progress.size > 0) console.log(c.dim('\n✔ exercise passes its check   ✎ exercise started (exercises/NN-slug)'));
  return 0;
}

async function diff(chapter: Chapter): Promise<number> {
  const { chapterDiff } = await import('../tooling/generate.ts');
  process.stdout.write(await chapterDiff(ROOT, chapter.n));
  return 0;
}

async function live(chapter: Chapter, scenario: Scenario, model?: string, keep = false): Promise<number> {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (!apiKey) {
    console.error('--live talks to the real API: set ANTHROPIC_API_KEY first (and ANTHROPIC_BASE_URL for a gateway).');
    return 2;
  }
  const temp = await makeTempDir('subagents-live-');
  try {
    const work = path.join(temp, 'work');
    const home = path.join(temp, 'home');
    await mkdir(work);
    await mkdir(home);
    await writeTree(work, scenario.files);
    await writeTree(home, scenario.home_files);
    const { module: mod } = await loadChapterModule(snapshotDir(chapter));
    // Live, a person answers permission questions (chapter 6 on) when there is a terminal.
    const rl = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
    console.log(`Live: chapter ${chapter.n} in ${work}, model ${model ?? process.env.ANTHROPIC_MODEL ?? mod.DEFAULT_MODEL}`);
    try {
      await mod.runSession(scenario.prompts, {
        cwd: work, home, apiKey, baseURL: process.env.ANTHROPIC_BASE_URL || undefined,
        model: model ?? process.env.ANTHROPIC_MODEL ?? mod.DEFAULT_MODEL,
        env: { ...process.env, ...scenario.env }, argv: scenario.argv ?? [],
        terminal: { write: (t) => { process.stdout.write(t); } },
        platform: process.platform,
        ...(rl && { ask: async (q: { tool: string; summary?: string }) => /^y(es)?$/i.test((await rl.question(`Allow ${q.summary ?? q.tool}? [y/N] `)).trim()) }),
      });
    } finally {
      rl?.close();
    }
    return 0;
  } catch (err) {
    // A live run fails for live reasons (a bad key, a retired model): say it in one line.
    console.error(`live run failed: ${oneLine(err)}`);
    return 1;
  } finally {
    // From chapter 4 the agent saves its session in the workspace and says how to resume it:
    // say what becomes of that folder, so the hint never points at something already gone.
    stopProcessesIn(temp);   // a shell command the agent ran may have left something running there
    if (keep) { release(temp); console.log(`workspace kept at ${temp}`); }
    else {
      const saved = existsSync(path.join(temp, 'work', '.agent', 'sessions'));
      await rm(temp, { recursive: true, force: true });
      release(temp);
      console.log(`(the temporary workspace${saved ? ', saved session included,' : ''} is removed now: add --keep to keep it)`);
    }
  }
}

function printRun(chapter: Chapter, scenario: Scenario, r: RunResult, c: ChalkInstance, o: { trace?: boolean; keep?: boolean }): void {
  console.log(c.bold(`Chapter ${chapter.n} · ${chapter.title}`) + c.dim(`  —  ${scenario.title} (${scenario.file})`));
  console.log('');
  for (const line of renderTranscript(r.events, { color: c, trace: o.trace, width: process.stdout.columns || 100 })) console.log(line);
  const table = usageTable(r.events, c);
  if (table.length > 0) {
    console.log('');
    for (const line of table) console.log(line);
  }
  const reports = agentReports(r.terminal);
  if (reports.length > 0) console.log(['', ...reports].join('\n').trimEnd());
  console.log('');
  for (const f of r.failures) console.log(c.red(`✖ scenario problem: ${f}`));
  if (r.crash) console.log(c.red(`✖ the agent crashed: ${r.crash}`));
  for (const e of r.expectations) {
    console.log(e.ok ? `${c.green('✔')} ${e.name}` : `${c.red('✖')} ${e.name}\n    ${c.red(e.detail)}${e.hint ? `\n    ${c.yellow(`hint: ${e.hint}`)}` : ''}`);
  }
  const passed = r.expectations.filter((e) => e.ok).length;
  const verdict = r.ok ? c.green.bold('PASS') : c.red.bold('FAIL');
  console.log(`\n${verdict} ${passed}/${r.expectations.length} expectations · ${r.events.filter((e) => e.type === 'request').length} requests · ${Math.round(r.ms)} ms`);
  if (o.keep) console.log(c.dim(`workspace kept at ${r.tempDir}`));
}

/**
 * The scripted latency of the turns the mock answered, and the real time it waited for it,
 * from its event log (--no-latency: none; the mock's clock still counts each turn's latency
 * as its time to first token).
 */
function latencyOf(scenario: Scenario, r: RunResult): { scripted_ms: number; waited_ms: number } {
  let scripted = 0;
  let waited = 0;
  for (const e of r.events) {
    if ((e.type !== 'response' && e.type !== 'error') || e.waited_ms === undefined || e.track === null || e.turn === null) continue;
    scripted += scenario.tracks[e.track]?.turns[e.turn]?.latency_ms ?? 0;
    waited += e.waited_ms;
  }
  return { scripted_ms: scripted, waited_ms: waited };
}

function jsonReport(chapter: Chapter, scenario: Scenario, r: RunResult): unknown {
  const usage: Record<string, Record<string, number>> = {};
  const toolCalls: { track: string | null; name: string; input: unknown }[] = [];
  for (const e of r.events) {
    if (e.type !== 'response' || e.track === null) continue;
    const u = (usage[e.track] ??= { calls: 0, input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
    u.calls += 1;
    u.input_tokens += e.usage.input_tokens;
    u.cache_creation_input_tokens += e.usage.cache_creation_input_tokens;
    u.cache_read_input_tokens += e.usage.cache_read_input_tokens;
    u.output_tokens += e.usage.output_tokens;
    for (const b of e.content) if (b.type === 'tool_use') toolCalls.push({ track: e.track, name: b.name, input: b.input });
  }
  return {
    chapter: chapter.n, slug: chapterDir(chapter), scenario: scenario.file, ok: r.ok,
    failures: r.failures, crash: r.crash ?? null,
    expectations: r.expectations,
    requests: r.events.filter((e) => e.type === 'request').map((e) => e.type === 'request' && {
      seq: e.seq, path: e.path, track: e.track, turn: e.turn, model: e.model, stream: e.stream, tools: e.tool_names,
      messages: (e.body.messages as unknown[] | undefined)?.length ?? 0, breakpoints: e.breakpoints,
    }),
    tool_calls: toolCalls, usage_by_track: usage, latency: latencyOf(scenario, r), ms: Math.round(r.ms), code_loaded: r.loadedAs ?? null,
  };
}
