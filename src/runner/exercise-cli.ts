// Classroom mode: `--exercise` hands out a chapter with its new code stubbed as TODOs,
// `--check` runs the chapter's scenarios against the learner's copy and names the
// first behaviour still missing (with its hint), `--solution` shows how the learner's
// code differs from the reference.

import { mkdir, readdir, readFile, writeFile, stat } from 'node:fs/promises';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Chalk, type ChalkInstance } from 'chalk';
import { chapterDir, WRITTEN_CHAPTERS, type Chapter } from '../chapters.ts';
import { exerciseFiles, hintsFor, shellWord } from '../tooling/exercise.ts';
import { SHORTCUTS } from '../tooling/shortcuts.ts';
import { unifiedDiff } from '../tooling/diff.ts';
import { ROOT, casesOf, scenarioFile, snapshotDir, loadScenarioFile } from './scenarios.ts';
import { runChapter } from './run-chapter.ts';
import { RUN_TIME_LIMIT_MS, absorbingStrays } from './run-guard.ts';
import { blocksOf } from './event-log.ts';
import { resultText, toolResultsSent } from './expectations.ts';
import type { MockEvent, Scenario } from '../mock/index.ts';
import { colorDiff } from './diff-color.ts';
import { typeErrors, type TypeError } from './typecheck.ts';
import { codeFiles } from './code-files.ts';
import { UsageError } from './usage-error.ts';

/** Where --exercise, --check and --solution look without a folder: exercises/NN-slug. */
const EXERCISES = path.join(ROOT, 'exercises');

export function defaultExerciseDir(ch: Chapter, within = EXERCISES): string {
  return path.join(within, chapterDir(ch));
}

function display(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel === '' ? '.' : rel.startsWith('..') ? dir : rel;
}

/** `node steps/run.mjs ARGS` as the learner can paste it where they stand (the script's path from there). */
function runCommand(...args: (string | number)[]): string {
  return ['node', display(path.join(ROOT, 'steps', 'run.mjs')), ...args.map(String)].map(shellWord).join(' ');
}

/** Why `dir` cannot be an exercise folder to make or read: it is a file, or a file stands where a folder of its path should. */
function notAFolder(dir: string): string | undefined {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    if (!existsSync(d)) continue;
    if (statSync(d).isDirectory()) return undefined;
    return d === dir ? `${display(dir)}: a file, not a folder` : `${display(dir)}: ${display(d)} is a file, not a folder`;
  }
  return undefined;
}

/** The exercise's imports (the SDK) must resolve: the folder has to sit inside the project. */
function assertInsideProject(dir: string): void {
  const rel = path.relative(ROOT, dir);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new UsageError(`${dir}: an exercise folder must be inside the project folder (${ROOT}) so its imports find node_modules`);
  }
  // Not in git's own folder (a learner's code there is no part of the project, and git reads
  // that folder), nor among the installed packages (npm replaces those on the next install).
  const inside = rel.split(path.sep).find((part) => part === '.git' || part === 'node_modules');
  if (inside) throw new UsageError(`${dir}: an exercise folder cannot be inside ${inside}/`);
}

export async function makeExercise(ch: Chapter, dir: string, print: (s: string) => void): Promise<number> {
  assertInsideProject(dir);
  const file = notAFolder(dir);
  if (file) throw new UsageError(file);
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    throw new UsageError(`${display(dir)} already exists and is not empty: your work there is left alone (choose another folder or remove it)`);
  }
  await mkdir(dir, { recursive: true });
  const files = await exerciseFiles(ROOT, ch.n, display(dir));
  for (const f of files) await writeFile(path.join(dir, f.path), f.content);
  // exercises/ is in the project's .gitignore; a folder elsewhere ignores itself, so that
  // `git status` stays about the project (delete this file to put your work under git).
  if (path.relative(path.join(ROOT, 'exercises'), dir).startsWith('..')) {
    await writeFile(path.join(dir, '.gitignore'), `# made by node steps/run.mjs ${ch.n} --exercise: keeps this folder out of git status\n*\n`);
  }
  const todos = await hintsFor(ROOT, ch.n);
  print(`Chapter ${ch.n} exercise written to ${display(dir)} (${files.length} files).`);
  print(`Fill in ${todos.length} TODO${todos.length === 1 ? '' : 's'}:`);
  for (const t of todos) print(`  ${t.file}  TODO(${t.name})`);
  print(`Then check your work:  ${runCommand(ch.n, '--check', display(dir))}`);
  return 0;
}

/** What `--check` takes besides the folder: a teacher's own scenarios, a JSON report, a watch loop. */
export interface CheckOptions {
  /** Scenario files to grade with (default: every case of the chapter). */
  scenarios?: string[];
  json?: boolean;
  watch?: boolean;
  /** What to print should chapter code that never yields end the process during the check (watchdog.ts): --list's list. */
  lastWords?: () => string;
}

/** One scenario's verdict on an exercise, as --check --json reports it. */
export interface ScenarioVerdict {
  case: string;
  file: string;
  title: string;
  ok: boolean;
  /** The TODO the run ran into, if a stub was reached. */
  stub: string | null;
  crash: string | null;
  /** Where in the folder's code it crashed ("exercises/ch1/agent.ts:19:7"), when that is known. */
  crash_at: string | null;
  failures: string[];
  /** Tool calls whose code threw: the error, as its is_error tool_result carried it back to the model. */
  tool_errors: string[];
  /** What the agent itself reported as wrong on its terminal (its ✖ lines: a skipped skill or agent file, a failed prompt). */
  agent_said: string[];
  expectations: { name: string; ok: boolean; detail: string; hint: string | null }[];
  /** What to look at first: the stub's hint, or the first failing expectation's. */
  hint: string | null;
}

/** The chapter an exercise folder was made for, from its main.ts header; undefined when it has none. */
function madeFor(dir: string): number | undefined {
  let head = '';
  try { head = readFileSync(path.join(dir, 'main.ts'), 'utf8').slice(0, 300); } catch { return undefined; }
  const n = /^\/\/ (?:EXERCISE for|GENERATED from src\/agent\/\S+ for) chapter (\d+)/.exec(head)?.[1];
  return n === undefined ? undefined : Number(n);
}

/** The folder must hold an exercise, and one made for this chapter. */
function assertExercise(ch: Chapter, dir: string, command: 'check' | 'solution'): void {
  // A diff reads the folder wherever it is; a check runs it, and its imports must resolve.
  if (command === 'check') assertInsideProject(dir);
  const file = notAFolder(dir);
  if (file) throw new UsageError(`${file} (give the exercise's folder)`);
  // --exercise writes only inside the project: for a folder outside it, suggest the default one.
  const rel = path.relative(ROOT, dir);
  const outside = rel.startsWith('..') || path.isAbsolute(rel);
  const make = runCommand(ch.n, '--exercise', display(outside ? defaultExerciseDir(ch) : dir));
  if (!existsSync(dir)) {
    // Typed from a subfolder of the project (docs/, say) as if from its top: the folder the learner meant.
    const fromTop = path.join(ROOT, path.relative(process.cwd(), dir));
    if (fromTop !== dir && !path.relative(ROOT, process.cwd()).startsWith('..') && existsSync(path.join(fromTop, 'main.ts'))) {
      throw new UsageError(`${display(dir)}: no such folder here; the project's top has ${display(fromTop)}: ${runCommand(ch.n, `--${command}`, display(fromTop))}`);
    }
    throw new UsageError(`${display(dir)}: no such folder; create the exercise first with: ${make}`);
  }
  if (!existsSync(path.join(dir, 'main.ts'))) {
    // A folder with other things in it is not one --exercise would fill: suggest where an exercise goes.
    const elsewhere = readdirSync(dir).length > 0 ? runCommand(ch.n, '--exercise', display(defaultExerciseDir(ch))) : make;
    throw new UsageError(`${display(dir)}: no main.ts here; create the exercise first with: ${elsewhere}`);
  }
  const made = madeFor(dir);
  if (made !== undefined && made !== ch.n) {
    throw new UsageError(`${display(dir)} was made for chapter ${made}, not chapter ${ch.n}: ${command === 'check' ? 'check it' : 'compare it'} with ${runCommand(made, `--${command}`, display(dir))}`);
  }
}

/**
 * The errors the agent's tools threw during a run, as it sent them back (is_error results
 * reading like a thrown error: "TypeError: …"), each once, at most three. An agent turns an
 * exception in a tool into a result for the model and goes on, so the learner's own bug
 * shows up only as a missing behaviour further on, unless it is named. The failures the
 * scenario asks for (a call its expectations want back as an is_error result: a refusal, a
 * missing file) are the agent doing its job, not a bug: left out.
 */
function thrownInTools(events: MockEvent[], expected: Scenario['expect']): string[] {
  const asked = new Set<string>();
  for (const exp of expected ?? []) {
    if (!('tool_result' in exp) || exp.tool_result.is_error !== true) continue;
    const { track, tool, call } = exp.tool_result;
    const result = toolResultsSent(events, track, tool)[(call ?? 1) - 1];
    if (result) asked.add(result.id);
  }
  const found = new Set<string>();
  for (const e of events) {
    if (e.type !== 'request') continue;
    for (const m of (e.body.messages as unknown[] | undefined) ?? []) {
      for (const b of blocksOf(m)) {
        if (b.type !== 'tool_result' || b.is_error !== true || asked.has(String(b.tool_use_id))) continue;
        const text = resultText(b).split('\n')[0]!;
        if (/^(?:[A-Z]\w*)?Error: /.test(text)) found.add(text);
      }
    }
  }
  return [...found].slice(0, 3);
}

/**
 * Runs scenarios against the folder; `all: false` stops at the first that fails (the
 * learner's loop). `starting` hears the name of each case as its run begins. `stalled`
 * gives, for each run, what to print should the watchdog end the process during it (the
 * verdicts so far, and this case's as it would be).
 */
export async function gradeExercise(
  ch: Chapter, dir: string, files: string[], all: boolean, starting?: (name: string) => void,
  stalled?: (verdicts: ScenarioVerdict[]) => string,
): Promise<ScenarioVerdict[]> {
  const hints = await hintsFor(ROOT, ch.n);
  const verdicts: ScenarioVerdict[] = [];
  for (const file of files) {
    const scenario = await loadScenarioFile(file);
    const caseName = path.basename(file, '.json');
    starting?.(caseName);
    const never = (): ScenarioVerdict => ({
      case: caseName, file: scenario.file, title: scenario.title, ok: false, stub: null,
      crash: 'the watchdog stopped the check here: the code never let anything else run, or took more memory than any run needs (a loop that never ends?)',
      crash_at: null, failures: [], tool_errors: [], agent_said: [], expectations: [], hint: null,
    });
    // Each scenario on a fresh load of the code: what one left in a module's variables (a
    // counter, a cache) must not decide the next one's verdict, or the order they run in.
    const result = await runChapter({ codeDir: dir, scenario, latencyScale: 0, freshModule: true, lastWords: stalled?.([...verdicts, never()]) });
    // A stub crashes the run, comes back to the model as an error result, or is caught and
    // printed by the agent (a failed prompt, a skipped file): look in all three.
    const stub = result.ok ? undefined : /TODO\(([\w-]+)\): not implemented yet/.exec(`${result.crash ?? ''} ${result.terminal} ${JSON.stringify(result.events)}`)?.[1];
    const failing = result.expectations.find((e) => !e.ok);
    const stubHint = stub === undefined ? undefined : hints.find((x) => x.name === stub)?.hints.join(' ');
    // A crash is hinted by the TODOs of the file it happened in (none: it is not in code the
    // exercise asked for, so no TODO's hint would help); anything else by all of the chapter's.
    const crashedIn = result.crashAt === undefined ? undefined : path.basename(result.crashAt.replace(/:\d+:\d+$/, ''));
    let nearby = result.crash === undefined ? hints : hints.filter((h) => crashedIn !== undefined && path.basename(h.file) === crashedIn);
    // A failing expectation with no hint of its own: the TODOs whose half-done shortcuts the
    // self-check proves it catches (shortcuts.ts), when there are some; each named when several.
    const linked = new Set(SHORTCUTS.filter((x) => x.chapter === ch.n && x.case === caseName && x.fails === failing?.name).map((x) => x.todo));
    if (result.crash === undefined && linked.size > 0) nearby = nearby.filter((h) => linked.has(h.name));
    // One TODO: its hint. Several: their names only; each one's hint is beside it in the learner's
    // files, and all of them joined here would be a wall of text, most of it about other code.
    const chapterHints = nearby.length === 1 ? nearby[0]!.hints.join(' ')
      : nearby.length > 1 ? `the TODOs it may be in: ${nearby.map((h) => `TODO(${h.name})`).join(', ')} (each one's hint is beside it in your files)` : '';
    const hint = result.ok ? undefined : stubHint ?? failing?.hint ?? (chapterHints || undefined);
    verdicts.push({
      case: caseName, file: scenario.file, title: scenario.title, ok: result.ok,
      stub: stub ?? null, crash: result.crash ?? null, crash_at: result.crashAt ?? null, failures: result.failures,
      tool_errors: result.ok ? [] : thrownInTools(result.events, scenario.expect),
      agent_said: result.ok ? [] : agentSaid(result.terminal, failing?.detail, result.failures),
      expectations: result.expectations.map((e) => ({ name: e.name, ok: e.ok, detail: e.detail, hint: e.hint ?? null })),
      hint: hint ?? null,
    });
    if (!result.ok && !all) break;
  }
  return verdicts;
}

/**
 * The agent's own ✖ lines, three at most, each once (the same failure of two prompts is one
 * line, not two of the three). When the failing check looked for such a line on the
 * terminal, the lines most like it come first: the one that says the same thing in other words
 * is the one the learner needs, wherever it came among the agent's lines. Not a line that only
 * repeats the mock's refusal of a request off the script (`failures`): that is shown already.
 */
function agentSaid(terminal: string, detail: string | undefined, failures: readonly string[] = []): string[] {
  const echoes = (line: string) => failures.some((f) => line.includes(`[mock] ${f}`));
  const lines = [...new Set(terminal.split('\n').filter((l) => l.startsWith('✖ ') && !echoes(l)))];
  const wanted = /"(✖ [^"]+)/.exec(detail ?? '')?.[1];
  if (wanted === undefined) return lines.slice(0, 3);
  const alike = (line: string): number => { let n = 0; while (n < line.length && line[n] === wanted[n]) n++; return n; };
  return [...lines].sort((a, b) => alike(b) - alike(a)).slice(0, 3);   // a stable sort: ties keep their order
}

/**
 * The check. What the learner's code leaves pending after a run (a promise it never awaited,
 * rejected once that run's mock has closed) arrives with no run to put it down to, between two
 * runs or while the type check finishes: absorbed for as long as the check goes on, not a crash
 * of the whole check (run-guard.ts). Once the check is done, the command line ends the process.
 */
export function checkExercise(ch: Chapter, dir: string, print: (s: string) => void, c: ChalkInstance, o: CheckOptions = {}): Promise<number> {
  return absorbingStrays(() => checkFolder(ch, dir, print, c, o));
}

async function checkFolder(ch: Chapter, dir: string, print: (s: string) => void, c: ChalkInstance, o: CheckOptions): Promise<number> {
  assertExercise(ch, dir, 'check');
  const files = o.scenarios ?? casesOf(ch).map((name) => scenarioFile(ch, name));
  // A teacher's scenario with a mistake is bad input, refused once (exit 2), not reported on
  // every round of --watch. (The chapter's own scenarios are held to the loader by the tests.)
  for (const file of o.scenarios ?? []) await loadScenarioFile(file);
  if (o.watch) {
    const { endWithParent, watchExercise } = await import('./watch.ts');
    const stopLooking = endWithParent();
    try {
      return await watchExercise(dir, display(dir), async () => checkOnce(ch, dir, files, print, c));
    } finally {
      stopLooking();
    }
  }
  if (o.json) {
    const report = (passed: number, ok: boolean, types: TypeError[], scenarios: ScenarioVerdict[]) =>
      JSON.stringify({ chapter: ch.n, folder: display(dir), ok, passed, total: files.length, type_errors: types, scenarios }, null, 2);
    // The report is the one thing on stdout: what the learner's code prints while it runs
    // (a console.log left in while debugging) goes to stderr, or no grader could parse it.
    const restore = stdoutToStderr();
    let types: TypeError[];
    let verdicts: ScenarioVerdict[];
    try {
      // Chapter code that never yields ends the process (watchdog.ts): a grader still gets a
      // report, of the scenarios graded so far and the one that never finished.
      const stalled = (so: ScenarioVerdict[]) => `${report(so.filter((v) => v.ok).length, false, [], so)}\n`;
      [types, verdicts] = await Promise.all([typeErrors(ROOT, dir), gradeExercise(ch, dir, files, true, undefined, stalled)]);
    } finally {
      restore();
    }
    const passed = verdicts.filter((v) => v.ok).length;
    const ok = passed === files.length && types.length === 0;
    print(report(passed, ok, types, verdicts));
    return ok ? 0 : 1;
  }
  return checkOnce(ch, dir, files, print, c, o.lastWords);
}

/** Until the returned function is called, what would go to stdout (console.log, .info, .debug, direct writes) goes to stderr. */
function stdoutToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug, write: process.stdout.write };
  console.log = console.info = console.debug = console.error;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return () => {
    Object.assign(console, { log: saved.log, info: saved.info, debug: saved.debug });
    process.stdout.write = saved.write;
  };
}

/** How long a scenario's run goes before the check says it is still at it (10 s). SUBAGENTS_SLOW_NOTICE_MS overrides it (tests). */
function slowNoticeMs(): number {
  return Number(process.env.SUBAGENTS_SLOW_NOTICE_MS) > 0 ? Number(process.env.SUBAGENTS_SLOW_NOTICE_MS) : 10_000;
}

/** One check as a learner reads it: a line per scenario up to the first that fails, and what to do about it. */
async function checkOnce(ch: Chapter, dir: string, files: string[], print: (s: string) => void, c: ChalkInstance, lastWords?: () => string): Promise<number> {
  // The verdicts are printed once all are in, after the type errors. A run that hangs (a
  // promise that never settles) would leave the screen blank until the time limit: one line
  // says which case is still running, and until when it may.
  let slow: NodeJS.Timeout | undefined;
  const after = slowNoticeMs();
  const starting = (name: string) => {
    clearTimeout(slow);
    slow = setTimeout(() => print(c.dim(`… ${name} is still running (a run that never ends is stopped at ${RUN_TIME_LIMIT_MS / 1000} s)`)), after);
    slow.unref();
  };
  // Both at once (the compiler is a process of its own); the type errors are shown first.
  const [types, verdicts] = await Promise.all([typeErrors(ROOT, dir), gradeExercise(ch, dir, files, false, starting, lastWords)])
    .finally(() => clearTimeout(slow));
  printTypeErrors(types, print, c);
  let passed = 0;
  for (const v of verdicts) {
    if (v.ok) { passed++; print(`${c.green('✔')} ${v.case}`); continue; }
    print(`${c.red('✖')} ${v.case}: ${v.title}`);
    const failing = v.expectations.find((e) => !e.ok);
    if (v.stub) {
      print(`  ${c.bold('still a stub:')} TODO(${v.stub})`);
    } else if (v.crash) {
      print(`  ${c.bold('the agent crashed:')} ${v.crash}`);
      if (v.crash_at) print(`  ${c.dim(`at ${v.crash_at}`)}`);
    } else if (v.failures.length > 0) {
      // The mock's words are for whoever wrote the scenario; the learner wrote the agent. The
      // scenario scripts what a right solution sends and asks, so its complaint means the
      // agent sent or asked something else: said so first, the mock's own words after.
      print(`  ${c.bold('the agent went off the script:')} ${offScript(v.failures[0]!)}`);
      // The permission questions are the runner's to answer (run-chapter.ts), the requests the mock's.
      const said = /^the (agent asked permission|scenario's answer)/.test(v.failures[0]!) ? 'the runner' : 'the mock';
      // Without the mock's advice to the scenario's author: the scenario is not the learner's to change.
      print(`  ${c.dim(`(${said}: ${v.failures[0]!.replace(AUTHOR_ADVICE, '')})`)}`);
      // What went wrong before it did is often the cause (a call that should have failed went
      // on, and the parent asked once more): named, so the hint below, its own, reads as one.
      if (failing) print(`  ${c.bold('first expectation not met:')} ${standalone(v.expectations, failing)}`);
    } else if (failing) {
      print(`  ${c.bold('missing behaviour:')} ${standalone(v.expectations, failing)}`);
      print(`  ${c.dim(failing.detail)}`);
    }
    for (const thrown of v.tool_errors) print(`  ${c.bold('a tool call threw:')} ${thrown} ${c.dim('(sent back to the model as an error result)')}`);
    // What the agent reported itself (a skill file it skipped, say) is often the cause.
    for (const line of v.agent_said) print(`  ${c.bold('the agent said:')} ${line}`);
    if (v.hint) print(`  ${c.yellow('hint:')} ${v.hint}`);
    print(`\n${passed}/${files.length} scenarios pass so far. Fix this one and run the check again.`);
    return 1;
  }
  if (types.length > 0) {
    print(`\nEvery scenario passes, but the code has ${types.length} type error${types.length === 1 ? '' : 's'} (above): fix ${types.length === 1 ? 'it' : 'them'} and run the check again.`);
    return 1;
  }
  // A check of chosen scenarios (--case, --scenario) is not the chapter's whole check: said so.
  const all = casesOf(ch).map((name) => scenarioFile(ch, name));
  const whole = files.length === all.length && files.every((f) => all.includes(f));
  if (!whole) {
    print(`\n${c.green.bold('Passed:')} chapter ${ch.n} passes ${files.length === 1 ? 'the scenario' : `the ${files.length} scenarios`} checked; its whole check (without --case or --scenario) runs all ${all.length}.`);
    return 0;
  }
  print(`\n${c.green.bold('All done:')} chapter ${ch.n} passes ${files.length === 1 ? 'its scenario' : `all ${files.length} scenarios`}.`);
  return 0;
}

/**
 * A failing expectation's name as it reads on its own. A scenario may name one as going on
 * from the one before it ("… and the file is as it was"): in a list of all of them that
 * reads well, but printed alone it says nothing of what it goes on from, so the names it goes
 * on from come first, back to the one that starts the sentence ("A … B … C" for "… C" after
 * "… B" after "A").
 */
function standalone(expectations: readonly { name: string }[], failing: { name: string }): string {
  const goesOn = /^(?:…|\.\.\.)\s*/;
  const last = expectations.indexOf(failing);
  let first = last;
  while (first > 0 && goesOn.test(expectations[first]!.name)) first--;
  if (first === last) return failing.name;
  return expectations.slice(first, last + 1).map((e, i) => (i === 0 ? e.name : e.name.replace(goesOn, ''))).join(' … ');
}

/** The part of an "ambiguous" problem that tells the scenario's author how to fix the scenario (mock/route.ts). */
const AUTHOR_ADVICE = /; make their match rules exclusive \(not_user helps\)/;

/**
 * What a scenario problem (the mock's words, or the runner's about permission answers) says
 * about the learner's agent: the scripts are written for a right solution, so each kind of
 * problem is a kind of request or question that solution does not make.
 */

export function offScript(failure: string): string {
  const outOfTurns = /track "([^"]+)" is out of turns: it has (\d+)/.exec(failure);
  if (outOfTurns) return `"${outOfTurns[1]}" got more requests than a right solution sends (the scenario scripts ${outOfTurns[2]})`;
  if (/ambiguous: tracks /.test(failure)) return 'it sent a request no right solution sends: the scenario cannot tell which conversation it belongs to';
  if (/no track matches the request/.test(failure)) return 'it sent a request no right solution sends: it belongs to none of the scenario\'s conversations';
  if (/two conversations share one track/.test(failure)) return 'two of its conversations sent the requests a right solution sends from one';
  if (/was never asked for/.test(failure)) return 'it never asked a permission question a right solution asks';
  if (/has no answer left|the next scripted answer is for/.test(failure)) return 'it asked a permission question a right solution does not ask (or not in that order)';
  if (/ without showing /.test(failure)) return 'it asked a permission question that does not show the person what they are approving';
  if (/ without naming /.test(failure)) return 'it asked a permission question that does not say which sub-agent asks';
  if (/ did not withdraw the question /.test(failure)) return 'a stopped agent\'s permission question stayed, waiting for the person, instead of being withdrawn';
  return 'it did something a right solution does not';
}

/** Type errors first: the code runs without its types, so these would otherwise go unseen. */
function printTypeErrors(types: TypeError[], print: (s: string) => void, c: ChalkInstance): void {
  if (types.length === 0) return;
  print(`${c.red('✖')} type errors (loading the code strips the types without checking them: these are from the type checker):`);
  for (const t of types.slice(0, 8)) print(`  ${t.file}:${t.line}:${t.column}: ${t.message}`);
  if (types.length > 8) print(`  … and ${types.length - 8} more`);
  print('');
}

export async function showSolution(ch: Chapter, dir: string, print: (s: string) => void, c: ChalkInstance): Promise<number> {
  assertExercise(ch, dir, 'solution');
  const reference = snapshotDir(ch);
  // Every .ts file on either side, in subfolders too (a helper of the learner's own is part
  // of the difference).
  const names = new Set<string>();
  for (const d of [reference, dir]) {
    if (existsSync(d)) for (const f of codeFiles(d, (name) => name.endsWith('.ts'))) names.add(f);
  }
  // The header line differs by design (the exercise names its folder, the snapshot its
  // source): left out of the diff, though not of the line numbers; any other first line is code.
  const HEADER = /^\/\/ (?:EXERCISE for|GENERATED from) .*\n/;
  const read = async (file: string) => {
    try { return await readFile(file, 'utf8'); } catch { return ''; }
  };
  let out = '';
  for (const name of [...names].sort()) {
    const [yours, theirs] = [await read(path.join(dir, name)), await read(path.join(reference, name))];
    const above = { old: HEADER.test(yours) ? 1 : 0, new: HEADER.test(theirs) ? 1 : 0 };
    out += unifiedDiff(yours.replace(HEADER, ''), theirs.replace(HEADER, ''), `yours/${name}`, `reference/${name}`, above);
  }
  print(out === '' ? 'Your code matches the reference exactly.' : colorDiff(out.trimEnd(), c));
  return 0;
}

/** --list with exercises: which chapters a learner has finished (the folders in `within`, by their default names). */
export async function exerciseProgress(within = EXERCISES, render?: (progress: Map<number, 'done' | 'started'>) => string): Promise<Map<number, 'done' | 'started'>> {
  const progress = new Map<number, 'done' | 'started'>();
  for (const ch of WRITTEN_CHAPTERS) {
    const dir = defaultExerciseDir(ch, within);
    if (!existsSync(path.join(dir, 'main.ts')) || !(await stat(dir)).isDirectory()) continue;
    const quiet = () => {};
    // Code of this chapter that never yields ends the process (watchdog.ts): `render` still
    // gets its say, with this chapter as started and the ones after it not looked at.
    const lastWords = render && (() => render(new Map([...progress, [ch.n, 'started' as const]])));
    const code = await checkExercise(ch, dir, quiet, new Chalk({ level: 0 }), { lastWords }).catch(() => 1);
    progress.set(ch.n, code === 0 ? 'done' : 'started');
  }
  return progress;
}
