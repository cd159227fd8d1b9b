// The command line behind `node steps/run.mjs`: parse flags, pick a chapter and a
// scenario, run it, print the transcript and the verdict. Exit codes: 0 all good,
// 1 an expectation or check failed, 2 bad input (unknown chapter, bad flag, bad file).

import type minimist from 'minimist';
import { parseCommandLine } from '../command-line.ts';
import { Chalk, type ChalkInstance } from 'chalk';
import path from 'node:path';
import { CHAPTERS, findChapter, chapterDir, type Chapter } from '../chapters.ts';
import { ScenarioError, type Scenario } from '../mock/index.ts';
import { ROOT, casesOf, scenarioFile, snapshotDir, isReady, loadScenarioFile } from './scenarios.ts';
import { runChapter, oneLine, type RunResult } from './run-chapter.ts';
import { colorDiff } from './diff-color.ts';
import { UsageError } from './usage-error.ts';
import { agentReports, renderTranscript, usageTable } from './transcript.ts';
import { SetupError, onExit } from './cleanup.ts';

// steps/run.mjs installs the signal and crash handlers from here (src/runner/cleanup.ts).
// runChapter and absorbingStrays: a batch of runs as the self-check makes them, for a script
// that loads the runner's bundle (cleanup.test.ts's batch with leftovers), which holds these
// modules only through here.
export { installExitHandlers, finish } from './cleanup.ts';
export { leaveChapterCodeBehind, absorbingStrays } from './run-guard.ts';
export { runChapter } from './run-chapter.ts';


const BOOLEAN_FLAGS = ['list', 'list-cases', 'all', 'diff', 'trace', 'json', 'keep', 'live', 'repl', 'watch', 'gen', 'selfcheck', 'cached', 'help', 'latency'];
const STRING_FLAGS = ['case', 'scenario', 'model'];
const OPTIONAL_DIR_FLAGS = ['exercise', 'check', 'solution'];   // --flag [DIR]

/**
 * Which options go with which command: the one table the runner checks a command line
 * against, so that no flag is ever dropped silently. A command is chosen by its flag
 * (none: `run`, the chapter's demo); an option given to a command that does not take it,
 * or two options that contradict each other, is one line and exit 2.
 */
export const COMMANDS: Record<string, { options: string[]; words?: boolean }> = {
  run: { options: ['case', 'scenario', 'all', 'trace', 'json', 'keep', 'latency', 'model'] },
  live: { options: ['case', 'scenario', 'keep', 'model'], words: true },    // words: the learner's own prompt
  repl: { options: ['case', 'scenario', 'model', 'latency'] },
  'list-cases': { options: [] },
  diff: { options: [] },
  exercise: { options: [] },
  check: { options: ['case', 'scenario', 'json', 'watch'] },
  solution: { options: [] },
  list: { options: [] },
  gen: { options: [] },            // --gen --check: the check is gen's own mode
  selfcheck: { options: ['json', 'cached'] },
};
const CONFLICTS: [string, string, string][] = [
  ['case', 'scenario', 'one scenario at a time'],
  ['all', 'case', '--all runs every case already'],
  ['all', 'scenario', '--all runs the chapter\'s own cases'],
  ['json', 'trace', 'the JSON report replaces the transcript that --trace annotates'],
  ['json', 'watch', '--watch redraws a screen; run --check --json once for a report'],
];
const OPTIONS = ['case', 'scenario', 'all', 'trace', 'json', 'keep', 'latency', 'model', 'watch', 'cached'];

/** The flag a user typed for an option (latency is typed as --no-latency). */
const typed = (option: string) => (option === 'latency' ? '--no-latency' : `--${option}`);

const COMMANDS_HELP = Object.fromEntries(Object.entries(COMMANDS).map(([cmd, { options, words }]) => [
  cmd === 'run' ? 'N (a demo run)' : ['list', 'gen', 'selfcheck'].includes(cmd) ? `--${cmd}` : `N --${cmd}`,
  [...options.map((o) => (o === 'latency' ? '--no-latency' : `--${o}`)), ...(words ? ['"PROMPT"'] : []), ...(cmd === 'gen' ? ['--check'] : [])].join(' ') || '(none)',
]));

const HELP = `Usage: node steps/run.mjs <chapter> [options]
       node steps/run.mjs --list
       node steps/run.mjs xray [CASE] [--claude PATH] [--json] [--keep] [--check] [--full]
       node steps/run.mjs xray --write-facts [--claude PATH] [--keep]
       node steps/run.mjs mock SCENARIO.json [--port N] [--log FILE.jsonl]

Run a chapter's demo against the local mock model (no API key needed), show what
happened, and check the scenario's expectations.

  <chapter>            chapter number, e.g. 11
  --list               every chapter and what the agent can do after it
  --case NAME          run another scenario of the chapter (see --list-cases)
  --list-cases         the chapter's scenarios, with their titles
  --all                run every scenario of the chapter, then a summary
  --scenario FILE      run any scenario file (yours) against the chapter
  --diff               what this chapter added to the previous one
  --trace              show each request's shape and each response's usage
  --json               print a machine-readable report instead of the transcript
  --keep               keep the temporary workspace and print its path
  --no-latency         answer at once: skip the scenario's scripted model latency
                       (chapters 12, 13, 15 and 16 wait on purpose, to show work overlapping)
  --model ID           model id (default: the chapter's DEFAULT_MODEL; with --live,
                       ANTHROPIC_MODEL when it is set)

Try it yourself:
  --repl               chapter 4 on: the chapter's interactive session, typed by you,
                       against the scripted model of the demo (or --case, --scenario);
                       no API key needed, but it only knows the scenario's answers
  --live ["PROMPT"]    chapter 6 on (a gate asks first): run against the real API
                       (needs ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL optional), with
                       the demo's files laid out; PROMPT, if given, replaces the
                       demo's prompts. Exits 1 and says what failed (the URL,
                       the cause) when the API cannot be reached

Classroom:
  --exercise [DIR]     write the chapter with its new code as TODO stubs
                       (default DIR: exercises/NN-slug; any DIR must be inside the
                       project, where its imports find node_modules)
  --check [DIR]        type-check DIR, then run the chapter's scenarios against it;
                       names the first missing behaviour with a hint; exit 0 when all pass
    --watch            run the check again whenever a file in DIR changes, until all pass
    --json             every scenario and expectation, pass/fail and hint (for grading)
    --scenario FILE    grade with your own scenario instead (or --case NAME: one of the chapter's)
  --solution [DIR]     diff between DIR and the reference snapshot
                       (--list marks the chapters whose exercise passes)

The mock on its own:
  mock SCENARIO.json   serve one scenario for curl or a client of your own, printing
                       each request and answer (npm run mock -- …; mock --help)

X-ray (needs your own Claude Code; see docs/xray.md):
  xray [CASE]          drive a real Claude Code against the mock and show what it
                       sends (xray --help for its options)

Maintenance:
  --gen [--check]      regenerate snapshots and doc snippets (--check: only report stale ones)
  --selfcheck [--json] [--cached]
                       apply every mutation in src/tooling/mutations.ts and every
                       half-done shortcut in src/tooling/shortcuts.ts, and show that
                       the scenarios catch each one (--cached: one caught before on
                       exactly the same files is not run again)
  -h, --help           this help

Which options go together (anything else is refused, never ignored):
${Object.entries(COMMANDS_HELP).map(([cmd, opts]) => `  ${cmd.padEnd(19)}${opts}`).join('\n')}
  and never two of: ${CONFLICTS.map(([a, b]) => `${typed(a)} ${typed(b)}`).join(' · ')}

Environment: NO_COLOR turns colours off; so does output that is not a terminal.
SUBAGENTS_NO_BUNDLE=1 runs the TypeScript as it is instead of the compiled copies in
node_modules/.cache (slower; for checking the fallback).`;

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
      // A scenario file is named from where the user stands: relative, as the docs show.
      console.error(err instanceof ScenarioError ? err.message.split(process.cwd() + path.sep).join('') : err.message);
      return 2;
    }
    console.error(`error: ${oneLine(err)}`);
    return 2;
  }
}


/** The command a command line asks for, checked against COMMANDS: a wrong mix is a UsageError. */
export function commandOf(args: minimist.ParsedArgs): string {
  const given = (f: string) => (f === 'latency' ? args.latency === false : BOOLEAN_FLAGS.includes(f) ? args[f] === true : args[f] !== undefined);
  // `--gen --check` is the generator's check mode, not the exercise check.
  const picked = Object.keys(COMMANDS).filter((cmd) => cmd !== 'run' && given(cmd) && !(cmd === 'check' && given('gen')));
  if (picked.length > 1) throw new UsageError(`give one of --${picked.join(', --')}, not several`);
  const command = picked[0] ?? 'run';
  if (command === 'gen' && args.check !== undefined && args.check !== '') throw new UsageError('--gen --check takes no folder');
  const options = OPTIONS.filter(given);
  const stray = options.find((o) => !COMMANDS[command]!.options.includes(o));
  if (stray) throw new UsageError(`${typed(stray)} does not go with ${command === 'run' ? 'a demo run' : `--${command}`} (see --help)`);
  for (const [a, b, why] of CONFLICTS) {
    if (options.includes(a) && options.includes(b)) throw new UsageError(`${typed(a)} and ${typed(b)} do not go together: ${why}`);
  }
  return command;
}

async function dispatch(argv: string[], c: ChalkInstance): Promise<number> {
  if (argv[0] === 'xray') {
    // Loaded only when asked for, like the classroom commands; it parses its own flags.
    const { runXray } = await import('../xray/cli.ts');
    return runXray(argv.slice(1));
  }
  if (argv[0] === 'mock') {
    // `npm run mock`: it too parses its own flags, and serves until Ctrl-C, whose handler
    // (installExitHandlers) runs the mock's last words before the process ends.
    const { runMock } = await import('../mock/cli.ts');
    return runMock(argv.slice(1), (stop) => { onExit(stop); });
  }
  const { args, problem } = parseCommandLine(argv, {
    boolean: BOOLEAN_FLAGS,
    string: [...STRING_FLAGS, ...OPTIONAL_DIR_FLAGS],
    alias: { h: 'help' },
    default: { latency: true },   // --no-latency turns it off
    negatable: ['latency'],       // the one option --no- may turn off
  });
  if (problem !== undefined) throw new UsageError(`${problem} (see --help)`);
  if (args.help) { console.log(HELP); return 0; }
  for (const flag of STRING_FLAGS) {
    if (flag in args && (typeof args[flag] !== 'string' || args[flag] === '')) throw new UsageError(`--${flag} needs a value`);
  }
  const command = commandOf(args);
  // These three are about the whole series: a chapter or a word after them would be dropped.
  if ((command === 'gen' || command === 'selfcheck' || command === 'list') && args._.length > 0) {
    throw new UsageError(`--${command} takes no chapter or other word (got "${args._.join(' ')}")`);
  }
  if (command === 'gen') {
    const { runGen } = await import('../tooling/gen-cli.ts');
    const { docTranscript, docVerdicts } = await import('./doc-transcript.ts');
    return runGen(args.check !== undefined ? ['--check'] : [], undefined, docTranscript, (n) => docVerdicts(n));
  }
  if (command === 'selfcheck') {
    const { runSelfcheck } = await import('../tooling/selfcheck.ts');
    return runSelfcheck(ROOT, undefined, { json: args.json, cached: args.cached });
  }
  if (command === 'list') return list(c);

  const positional = args._.map(String);
  if (positional.length === 0) throw new UsageError('which chapter? e.g. node steps/run.mjs 11 (or --list, --help)');
  if (positional.includes('xray')) throw new UsageError('xray comes first: node steps/run.mjs xray [CASE] [options]');
  if (positional.includes('mock')) throw new UsageError('mock comes first: node steps/run.mjs mock SCENARIO.json [options]');
  const chapter = parseChapter(positional[0]!);
  const words = positional.slice(1);
  if (words.length > 0 && !COMMANDS[command]!.words) {
    throw new UsageError(/^\d+$/.test(words[0]!) ? `one chapter at a time (got ${positional.join(' ')})`
      : ['exercise', 'check', 'solution'].includes(command) ? `"${words.join(' ')}": --${command} takes one folder (a path with spaces goes in quotes)`
      : `"${words.join(' ')}": only --live takes a prompt of your own (node steps/run.mjs ${chapter.n} --live "your question")`);
  }

  if (command === 'diff') return diff(chapter, c);
  if (command === 'exercise' || command === 'check' || command === 'solution') {
    // Loaded only when asked for: the demo path stays as small as it can be.
    const { defaultExerciseDir, makeExercise, checkExercise, showSolution } = await import('./exercise-cli.ts');
    // `--check` alone means the default folder; `--check ''` (a variable never set, say) was
    // meant to name one, and checking or overwriting the default was not asked for.
    if (argv.some((a, i) => a === `--${command}=` || (a === `--${command}` && argv[i + 1] === ''))) {
      throw new UsageError(`--${command} '': the folder name is empty (leave it out for ${path.relative(process.cwd(), defaultExerciseDir(chapter))})`);
    }
    const dir = args[command] === '' ? defaultExerciseDir(chapter) : path.resolve(String(args[command]));
    const print = (s: string) => console.log(s);
    if (command === 'exercise') return makeExercise(chapter, dir, print);
    if (command === 'solution') return showSolution(chapter, dir, print, c);
    const scenarios = args.scenario ? [path.resolve(args.scenario)] : args.case ? [caseFile(chapter, args.case)] : undefined;
    return checkExercise(chapter, dir, print, c, { scenarios, json: args.json, watch: args.watch });
  }
  if (command === 'list-cases') return listCases(chapter);

  const files = args.scenario
    ? [path.resolve(args.scenario)]
    : args.all ? casesOf(chapter).map((n) => scenarioFile(chapter, n)) : [caseFile(chapter, args.case ?? 'demo')];
  const scenarios: Scenario[] = [];
  for (const f of files) scenarios.push(await loadScenarioFile(f));
  for (const scenario of scenarios) refuseWhatWouldBeIgnored(chapter, scenario, args.model, command);

  if (command === 'live') {
    const { runLive, liveRefusal } = await import('./live.ts');
    const refusal = liveRefusal(chapter, scenarios[0]!);
    if (refusal !== undefined) throw new UsageError(refusal);
    // An empty prompt ('') would go to the API as an empty question: a user error, said so.
    if (words.length > 0 && words.join(' ').trim() === '') throw new UsageError('--live: the prompt is empty (give a question, or none for the demo\'s)');
    return runLive({ chapter, scenario: scenarios[0]!, prompt: words.length > 0 ? words.join(' ') : undefined, model: args.model, keep: args.keep });
  }
  if (command === 'repl') {
    const { runRepl } = await import('./repl.ts');
    return runRepl({ chapter, scenario: scenarios[0]!, model: args.model, latencyScale: args.latency ? 1 : 0 });
  }

  let failed = 0;
  const reports: unknown[] = [];
  const verdicts: CaseVerdict[] = [];
  for (const scenario of scenarios) {
    const result = await runChapter({ codeDir: snapshotDir(chapter), scenario, model: args.model, keep: args.keep, latencyScale: args.latency ? 1 : 0 });
    if (!result.ok) failed++;
    verdicts.push({ ok: result.ok, name: path.basename(scenario.file, '.json'), title: scenario.title });
    if (args.json) reports.push(jsonReport(chapter, scenario, result, args.keep));
    else printRun(chapter, scenario, result, c, { trace: args.trace, keep: args.keep });
    if (!args.json && scenarios.length > 1) console.log('');
  }
  if (args.json) console.log(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
  else if (scenarios.length > 1) {
    console.log(c.bold(`Chapter ${chapter.n}: ${scenarios.length - failed} of ${scenarios.length} scenarios pass`));
    for (const line of summaryLines(verdicts, c)) console.log(line);
  }
  return failed === 0 ? 0 : 1;
}

/** The first chapter whose agent reads command-line flags (chapter 4's parseFlags): a scenario's argv is for it and later ones. */
const FIRST_CHAPTER_WITH_FLAGS = 4;

/**
 * A setting that the run would not use is refused before it starts, never dropped: a
 * scenario's argv where the chapter's agent reads no flags, a --model that the scenario's
 * own `--model` flag would override, or (against the mock) a model id the mock answers
 * with a 404, as the API does for an id that is not a model's.
 *
 * One exception, said in a line of its own: a later chapter's own scenario, run on an
 * earlier chapter's agent. That is how each doc shows the previous chapter falling short
 * (chapter 3 on chapter 4's demo ignores its flags: that is the point), so it runs.
 */
function refuseWhatWouldBeIgnored(chapter: Chapter, scenario: Scenario, model: string | undefined, command: string): void {
  const file = scenario.file.split(process.cwd() + path.sep).join('');   // relative, as the docs show
  const argv = scenario.argv ?? [];
  if (argv.length > 0 && chapter.n < FIRST_CHAPTER_WITH_FLAGS) {
    const ignored = `its argv (${argv.join(' ')}) would be ignored: the agent reads flags from chapter ${FIRST_CHAPTER_WITH_FLAGS} on, and this is chapter ${chapter.n}`;
    const where = path.resolve(ROOT, scenario.file);   // relative to the project when inside it (loadScenarioFile)
    const owner = /^(\d+)-[^/]+$/.exec(path.basename(path.dirname(where)));
    const laterChapters = path.dirname(path.dirname(where)) === path.join(ROOT, 'scenarios') && owner && Number(owner[1]) > chapter.n;
    if (!laterChapters) throw new UsageError(`${file}: ${ignored}`);
    console.error(`${file}: ${ignored.replace('would be ignored', 'goes unread')} (a later chapter's scenario: it runs, to show what this chapter lacks)`);
  }
  if (model === undefined) return;
  if (argv.some((a) => a === '--model' || a.startsWith('--model='))) {
    throw new UsageError(`--model would be ignored: ${file} starts the agent with a --model of its own (its argv)`);
  }
  if (command !== 'live' && !model.startsWith('claude-')) {
    throw new UsageError(`--model ${model}: the mock answers only model ids that start with "claude-" (any other gets a 404, as from the API)`);
  }
}

function caseFile(chapter: Chapter, name: string): string {
  if (!casesOf(chapter).includes(name)) {
    throw new UsageError(`chapter ${chapter.n} has no case "${name}"; its cases: ${casesOf(chapter).join(', ')}`);
  }
  return scenarioFile(chapter, name);
}

/** --list-cases: each case with its title, so a learner can pick one without opening the files. */
async function listCases(chapter: Chapter): Promise<number> {
  const names = casesOf(chapter);
  const width = Math.max(...names.map((n) => n.length));
  for (const name of names) {
    const scenario = await loadScenarioFile(scenarioFile(chapter, name));
    console.log(`${name.padEnd(width)}  ${scenario.title}`);
  }
  return 0;
}

function parseChapter(text: string): Chapter {
  // Digits only: Number() would also take 1e1, 0x10 or " 3" for a chapter.
  const chapter = /^\d+$/.test(text) ? findChapter(Number(text)) : undefined;
  if (!chapter) throw new UsageError(`unknown chapter "${text}": chapters are ${CHAPTERS[0].n}-${CHAPTERS.at(-1)!.n} (see --list)`);
  if (!isReady(chapter)) throw new UsageError(`chapter ${chapter.n} (${chapter.title}) is not written yet; see --list for the chapters you can run`);
  return chapter;
}

async function list(c: ChalkInstance): Promise<number> {
  const { exerciseProgress } = await import('./exercise-cli.ts');
  // The list as the progress so far has it: printed once all is checked, or by the watchdog
  // should an exercise's code never yield.
  const render = (progress: Map<number, 'done' | 'started'>): string => {
    const lines = CHAPTERS.map((ch) => {
      const num = String(ch.n).padStart(2);
      const mark = progress.get(ch.n) === 'done' ? c.green('✔ ') : progress.has(ch.n) ? c.yellow('✎ ') : '  ';
      const line = `${mark}${num}  ${ch.title.padEnd(34)} ${ch.canNow}`;
      return isReady(ch) ? line : c.dim(`${line}  (not written yet)`);
    });
    if (progress.size > 0) lines.push(c.dim('\n✔ exercise passes its check   ✎ exercise started (exercises/NN-slug)'));
    return `${lines.join('\n')}\n`;
  };
  process.stdout.write(render(await exerciseProgress(undefined, render)));
  return 0;
}

interface CaseVerdict { ok: boolean; name: string; title: string }

/** --all's closing summary: a line a case, the titles in one column however long a name is. */
export function summaryLines(verdicts: CaseVerdict[], c: ChalkInstance): string[] {
  const width = Math.max(14, ...verdicts.map((v) => v.name.length + 1));
  return verdicts.map((v) => `  ${v.ok ? c.green('✔') : c.red('✖')} ${v.name.padEnd(width)} ${v.title}`);
}

async function diff(chapter: Chapter, c: ChalkInstance): Promise<number> {
  const { chapterDiff } = await import('../tooling/generate.ts');
  process.stdout.write(colorDiff(await chapterDiff(ROOT, chapter.n), c));
  return 0;
}


/** The chapter a scenario of scenarios/NN-slug/ belongs to, when it is later than `chapter`. */
function laterChapterOf(file: string, chapter: Chapter): number | undefined {
  const n = /^scenarios[\\/](\d+)-/.exec(path.relative(ROOT, path.resolve(ROOT, file)))?.[1];   // file: relative to the project's top
  return n !== undefined && Number(n) > chapter.n ? Number(n) : undefined;
}

function printRun(chapter: Chapter, scenario: Scenario, r: RunResult, c: ChalkInstance, o: { trace?: boolean; keep?: boolean }): void {
  console.log(c.bold(`Chapter ${chapter.n} · ${chapter.title}`) + c.dim(`  —  ${scenario.title} (${scenario.file})`));
  console.log('');
  for (const line of renderTranscript(r.events, { color: c, trace: o.trace, width: process.stdout.columns || 100, scenario, asked: r.asked })) console.log(line);
  const table = usageTable(r.events, c);
  if (table.length > 0) {
    console.log('');
    for (const line of table) console.log(line);
  }
  const reports = agentReports(r.terminal);
  if (reports.length > 0) console.log(['', ...reports].join('\n').trimEnd());
  console.log('');
  for (const f of r.failures) console.log(c.red(`✖ scenario problem: ${f}`));
  if (r.crash) console.log(c.red(`✖ the agent crashed: ${r.crash}`) + (r.crashAt ? c.dim(`\n    at ${r.crashAt}`) : ''));
  // A later chapter's scenario run on an earlier chapter's agent: its hints name code this
  // agent does not have yet, so they are left out, and the reason for the failures is said.
  const own = laterChapterOf(scenario.file, chapter);
  for (const e of r.expectations) {
    const hint = e.hint && own === undefined ? `\n    ${c.yellow(`hint: ${e.hint}`)}` : '';
    console.log(e.ok ? `${c.green('✔')} ${e.name}` : `${c.red('✖')} ${e.name}\n    ${c.red(e.detail)}${hint}`);
  }
  if (own !== undefined && !r.ok) console.log(c.dim(`(this is chapter ${own}'s scenario: chapter ${chapter.n}'s agent lacks what chapter ${own} adds, so failures are expected; its hints, about chapter ${own}'s code, are left out)`));
  const passed = r.expectations.filter((e) => e.ok).length;
  const verdict = r.ok ? c.green.bold('PASS') : c.red.bold('FAIL');
  console.log(`\n${verdict} ${passed}/${r.expectations.length} expectations · ${count(r.events.filter((e) => e.type === 'request').length, 'request')} · ${Math.round(r.ms)} ms`);
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

/** A run as --json reports it; with --keep, also where its workspace was kept (the transcript says so in a line). */
function jsonReport(chapter: Chapter, scenario: Scenario, r: RunResult, keep: boolean): unknown {
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
    failures: r.failures, crash: r.crash ?? null, crash_at: r.crashAt ?? null,
    expectations: r.expectations,
    requests: r.events.filter((e) => e.type === 'request').map((e) => e.type === 'request' && {
      seq: e.seq, path: e.path, track: e.track, turn: e.turn, model: e.model, stream: e.stream, tools: e.tool_names,
      messages: (e.body.messages as unknown[] | undefined)?.length ?? 0, breakpoints: e.breakpoints,
    }),
    tool_calls: toolCalls, usage_by_track: usage, latency: latencyOf(scenario, r), ms: Math.round(r.ms), code_loaded: r.loadedAs ?? null,
    ...(keep ? { workspace_kept_at: r.tempDir } : {}),
  };
}

/** "1 request", "3 requests". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
