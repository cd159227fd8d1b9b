// Runs one chapter's snapshot on one scenario against the mock, and collects what
// happened: the mock's event log, what the agent printed, the workspace afterwards
// and the verdict on each expectation. The CLI, the tests and the exercise checker
// all go through here, so they can never disagree about what "passing" means.

import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ScenarioError, startMock, type CountAs, type MockEvent, type Scenario } from '../mock/index.ts';
import { makeTempDir, release, removeAgainAtExit, removeFolder, removeWorktreesOf, stopProcessesIn, trackWorktreesOf } from './cleanup.ts';
import { checkExpectations, type ExpectationResult } from './expectations.ts';
import { detachHead, makeRepository } from './git-repo.ts';
import { loadFolder, placeInLoadedCode } from './load-folder.ts';
import { makePipe } from './pipes.ts';
import { guardRun } from './run-guard.ts';
import { answerInProcess } from './wire.ts';
import type { AskedQuestion } from './transcript.ts';

export interface RunOptions {
  /** Folder holding the chapter's main.ts (a snapshot, or a learner's exercise). */
  codeDir: string;
  scenario: Scenario;
  /** Model id; default: the scenario's, else the chapter's DEFAULT_MODEL. */
  model?: string;
  /** Multiply scripted latencies (tests use 0). */
  latencyScale?: number;
  /** Keep the temp folder (and say where it is). */
  keep?: boolean;
  /** Append the mock's event log here as JSONL. */
  logFile?: string;
  /** Send the agent's requests to the mock over HTTP, through a socket, instead of handing
   *  them to it in this process (the scenario suite, test/scenario-suite.ts, compares the two). */
  overHttp?: boolean;
  /** Called with the workspace once the run is over, before anything is removed (the x-ray
   *  reads what a chapter 16 run left in the repository). */
  inspect?: (workspace: string) => Promise<void>;
  /** Load the folder's code afresh for this run (load-folder.ts), not the module an earlier run of it left. */
  freshModule?: boolean;
  /** Stop the run, as a crash, once it has taken this long (default RUN_TIME_LIMIT_MS, run-guard.ts). */
  timeLimitMs?: number;
  /** How long a scripted answer that waits for something (after_asked, after_stopped) waits at most (default ANSWER_WAIT_LIMIT_MS). */
  answerWaitLimitMs?: number;
  /** Written to stdout should the watchdog have to end the process during this run (watchdog.ts): a --json report. */
  lastWords?: string;
}

export interface RunResult {
  events: MockEvent[];
  failures: string[];          // scenario problems reported by the mock
  crash?: string;              // the agent threw: a one-line reason
  crashAt?: string;            // where, when it threw in a folder compiled on the spot: "dir/agent.ts:19:7"
  terminal: string;            // everything the agent printed
  expectations: ExpectationResult[];
  ok: boolean;
  tempDir: string;             // removed unless keep
  workspace: string;
  ms: number;
  /** How the chapter's code was loaded (see loadChapterModule). */
  loadedAs?: string;
  /** The permission questions the agent asked (chapter 6 on) and the scripted answers. */
  asked?: AskedQuestion[];
}

interface ChapterModule {
  DEFAULT_MODEL: string;
  runSession(prompts: string[] | AsyncIterable<string>, host: {
    cwd: string; home: string; apiKey: string; baseURL?: string; model: string;
    env: Record<string, string | undefined>; argv: string[]; terminal: { write(text: string): void };
    platform: string;
    ask?(question: { tool: string; summary?: string }): Promise<boolean | undefined>;   // undefined: no answer came
  }): Promise<void | boolean>;   // chapters 1-3: nothing; from chapter 4, false when a prompt failed
}

/**
 * Set by steps/run.mjs: a quicker way to load the snapshots. Usually the copy
 * steps/fast-start.mjs compiled ahead; should that build fail, on Node >= 22.18 a native
 * import. Any other folder (an exercise, a mutant, any folder when the test runner asks)
 * is compiled on the spot by load-folder.ts. `how` says which happened: the --json
 * report carries it.
 */
type SnapshotLoader = (dir: string) => { how: string; load: () => unknown } | undefined;

export async function loadChapterModule(codeDir: string, o: { fresh?: boolean } = {}): Promise<{ module: ChapterModule; how: string }> {
  const quick = (globalThis as Record<symbol, unknown>)[Symbol.for('subagents.loadSnapshot')] as SnapshotLoader | undefined;
  const found = quick?.(codeDir);
  if (found) return { module: (await found.load()) as ChapterModule, how: found.how };
  return { module: (await loadFolder(codeDir, o)) as ChapterModule, how: 'compiled on the spot' };
}

/**
 * Write a map of relative paths to contents under a folder. The runner's own file work
 * (laying out a workspace, removing it) is synchronous: a handful of small files, and each
 * promise-based call costs about ten times the CPU of its synchronous twin here (0.12 ms
 * against 0.012 ms for a small read), over hundreds of runs in a test run.
 */
export function writeTree(base: string, files: Record<string, string> | undefined): void {
  for (const [rel, content] of Object.entries(files ?? {})) {
    const file = path.join(base, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/**
 * Lay out a scenario under a temp folder, for a scripted run and for --live and --repl:
 * `work/` with its files and links (a git repository holding them as its first commit when
 * the scenario says `"git": true`) and `home/` with its home files.
 */
export async function layOutScenario(temp: string, scenario: Scenario): Promise<{ work: string; home: string; cwd: string }> {
  const work = path.join(temp, 'work');
  const home = path.join(temp, 'home');
  mkdirSync(work);
  mkdirSync(home);
  writeTree(work, scenario.files);
  writeTree(home, scenario.home_files);
  for (const [rel, target] of Object.entries(scenario.links ?? {})) {
    mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
    symlinkSync(target, path.join(work, rel));
  }
  for (const rel of scenario.pipes ?? []) {
    mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
    makePipe(path.join(work, rel));
  }
  if (scenario.git) await makeRepository(work);
  if (scenario.git === 'detached') await detachHead(work);
  return { work, home, cwd: agentCwd(work, scenario) };
}

/** Where the agent starts: the workspace, or the subfolder of it the scenario's `cwd` names (made if need be). */
function agentCwd(work: string, scenario: Scenario): string {
  if (scenario.cwd === undefined) return work;
  const cwd = path.join(work, scenario.cwd);
  mkdirSync(cwd, { recursive: true });
  return cwd;
}

/**
 * The workspace path is part of the agent's system prompt (chapter 3 on), so its length
 * changes token counts, and the temp folder a run makes it in is wherever TMPDIR points
 * (on macOS a long per-user path). The agent is told the real path; the mock counts the
 * run's folder as if it lay in /tmp, so the docs' transcripts and chapter 12's exact
 * figures read the same on every machine. The requests are never rewritten: the event
 * log holds what really went over the wire.
 */
export const SCRIPTED_TEMP_ROOT = '/tmp';

export function countedAsScripted(tempDir: string): CountAs {
  return [{ path: tempDir, as: path.posix.join(SCRIPTED_TEMP_ROOT, path.basename(tempDir)) }];
}

/**
 * The platform a scripted run reports in the system prompt (chapter 3 on), whatever the
 * machine: "darwin" is one byte longer than "linux", enough to shift a token count, and
 * the docs' transcripts and chapter 12's exact figures must read the same everywhere.
 * The model is a script here, so nothing depends on the answer; --live reports the truth.
 */
export const SCRIPTED_PLATFORM = 'linux';

export async function runChapter(opts: RunOptions): Promise<RunResult> {
  const started = performance.now();
  // Asked before the temp folder is made: a caller's mistake must not leave one behind.
  if (typeof opts.scenario !== 'object' || opts.scenario === null) throw new TypeError('runChapter: no scenario given (opts.scenario)');
  const tempDir = await makeTempDir('subagents-run-');
  // A git workspace's worktrees (chapter 16) may lie anywhere git was told to put them:
  // each one the repository has at exit goes, even if the run is cut short.
  const workspace = path.join(tempDir, 'work');
  const releaseRepo = opts.scenario.git ? trackWorktreesOf(workspace) : () => {};
  try {
    const result = await runIn(tempDir, opts, started);
    if (opts.inspect) await opts.inspect(workspace);
    return result;
  } finally {
    // A shell command the agent ran may have left something running in the workspace.
    stopProcessesIn(tempDir);
    if (opts.scenario.git && !opts.keep) removeWorktreesOf(workspace, tempDir);
    releaseRepo();
    if (!opts.keep) {
      removeFolder(tempDir);
      removeAgainAtExit(tempDir);   // code the run did not wait for may write there yet
    }
    release(tempDir);
  }
}

/** How long an answer that waits for something (after_asked, after_stopped) waits at most: past it, the person answers, and the scenario fails. */
const ANSWER_WAIT_LIMIT_MS = 3_000;

/** A person taking `ms` to answer: over early if `signal` aborts meanwhile (the question is withdrawn, or what they waited for came). */
function personTakes(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    if (signal?.aborted) done();   // stopped already: an abort listener would never fire
    else signal?.addEventListener('abort', done, { once: true });
  });
}

async function runIn(tempDir: string, opts: RunOptions, started: number): Promise<RunResult> {
  const workspace = path.join(tempDir, 'work');
  let output = '';
  const mock = await startMock({ scenario: opts.scenario, latencyScale: opts.latencyScale, logFile: opts.logFile, countAs: countedAsScripted(tempDir) });
  // The agent's requests to the mock are answered in this process unless the run asks for
  // the socket (wire.ts); either way the mock sees, answers and logs the same.
  const unroute = opts.overHttp ? () => {} : answerInProcess(mock);
  let crash: string | undefined;
  let crashAt: string | undefined;
  let loadedAs: string | undefined;
  // Permission prompts (chapter 6 on) are answered from the scenario's `answers`, in order.
  // A prompt for another tool, or one with no answer left, is a scenario failure, and so is
  // an answer nobody asked for: the script and the agent disagree about what needs a yes.
  const answers = [...(opts.scenario.answers ?? [])];
  const problems: string[] = [];
  const asked: AskedQuestion[] = [];
  // Answers waiting for a question for another tool to be asked too (after_asked), by that
  // tool: a question for it ends each of their waits.
  const waitingFor = new Map<string, Set<AbortController>>();
  const waitLimitMs = opts.answerWaitLimitMs ?? ANSWER_WAIT_LIMIT_MS;
  /** true once a question for `tool` is asked; false after waitLimitMs, or once `signal` aborts. */
  const questionFor = async (tool: string, signal: AbortSignal | undefined): Promise<boolean> => {
    const came = new AbortController();
    const waiting = waitingFor.get(tool) ?? new Set<AbortController>();
    waitingFor.set(tool, waiting.add(came));
    const stopped = () => came.abort();
    if (signal?.aborted) stopped();
    else signal?.addEventListener('abort', stopped, { once: true });
    await personTakes(waitLimitMs, came.signal);
    waiting.delete(came);
    signal?.removeEventListener('abort', stopped);
    return came.signal.aborted && !signal?.aborted;
  };
  const ask = async (question: { tool: string; input?: unknown; summary?: string; from?: string; signal?: AbortSignal }): Promise<boolean | undefined> => {
    for (const waiter of waitingFor.get(question.tool) ?? []) waiter.abort();
    const next = answers.shift();
    const answer = (allow: boolean | undefined, refusedBecause?: string, withdrawn = false) => {
      asked.push({ tool: question.tool, input: question.input, summary: question.summary, from: question.from, allow, refusedBecause, ...(withdrawn && { withdrawn }) });
      return allow;
    };
    if (!next) {
      problems.push(`the agent asked permission for ${question.tool}, but the scenario has no answer left`);
      return answer(false, 'no answer left');
    }
    if (next.tool !== question.tool) {
      problems.push(`the agent asked permission for ${question.tool}, but the next scripted answer is for ${next.tool}`);
      return answer(false, `the next answer is for ${next.tool}`);
    }
    // A person answers what the question shows: a yes to a plan or a command it hid is no yes.
    if (next.shows !== undefined && !(question.summary ?? '').includes(next.shows)) {
      problems.push(`the agent asked permission for ${question.tool} without showing ${JSON.stringify(next.shows)} (the question said: ${JSON.stringify((question.summary ?? '').slice(0, 120))})`);
      return answer(false, `the question did not show ${JSON.stringify(next.shows)}`);
    }
    // Nor a yes to a question that did not say which sub-agent asks, when the person needed to know.
    if (next.asker !== undefined && !(question.from ?? '').includes(next.asker)) {
      problems.push(`the agent asked permission for ${question.tool} without naming ${JSON.stringify(next.asker)} as who asks (the question named ${question.from === undefined ? 'nobody' : JSON.stringify(question.from.slice(0, 120))})`);
      return answer(false, `the question did not name ${JSON.stringify(next.asker)} as who asks`);
    }
    // One who waits for another question (after_asked) to be on screen too, and only then takes their time.
    if (next.after_asked !== undefined && !(await questionFor(next.after_asked, next.withdrawn ? question.signal : undefined)) && !question.signal?.aborted) {
      problems.push(`the answer for ${question.tool} waits for a question for ${next.after_asked} too, and none was asked within ${waitLimitMs / 1000} s`);
    }
    // One who answers only once the agent that asks has been stopped (after_stopped): a yes too late.
    if (next.after_stopped) {
      if (question.signal) await personTakes(waitLimitMs, question.signal);
      if (!question.signal?.aborted) problems.push(`the answer for ${question.tool} comes once the agent that asks is stopped, and ${question.signal ? `it was not stopped within ${waitLimitMs / 1000} s` : 'nothing can stop the agent that asks'}`);
    }
    // A person who takes a while (after_ms): what the session does meanwhile goes on. An answer
    // marked withdrawn plays a terminal that takes a question back (bin.ts, --repl, --live): a
    // question whose agent is stopped meanwhile (its signal, chapter 15) is withdrawn, the answer
    // is used up, and the agent is told by the rejection. Unmarked, the person answers whatever
    // happened meanwhile, as a terminal that cannot take a question back would let them.
    if (next.after_ms) await personTakes(next.after_ms, next.withdrawn ? question.signal : undefined);
    if (next.withdrawn && question.signal?.aborted) {
      answer(undefined, undefined, true);
      throw question.signal.reason;
    }
    if (next.withdrawn) problems.push(`the agent asked permission for ${question.tool} and did not withdraw the question before the person answered, ${next.after_ms ?? 0} ms later: the scenario stops that agent meanwhile, and a stopped agent's question is withdrawn`);
    return answer(next.allow ?? undefined);   // null: the input ended, and no answer came
  };
  let laidOut: { home: string; cwd: string };
  try {
    laidOut = await layOutScenario(tempDir, opts.scenario);
  } catch (err) {
    // Files the loader let through that the disk or git will not take (a name git refuses,
    // an encoding git cannot convert): the scenario's fault, said as one, not the agent's crash.
    unroute();
    await mock.close();
    throw new ScenarioError(opts.scenario.file, '', `the run could not lay out its workspace: ${oneLine(err)}`);
  }
  try {
    const { home, cwd } = laidOut;
    await guardRun(async () => {
      // Loaded under the guard too: code that never yields while its module loads (a
      // `while (true) {}` at a file's top level) is stopped like code that never yields later.
      const { module: chapter, how } = await loadChapterModule(opts.codeDir, { fresh: opts.freshModule });
      loadedAs = how;
      return chapter.runSession(opts.scenario.prompts, {
        cwd,
        home,
        apiKey: 'mock-key',
        baseURL: mock.url,
        model: opts.model ?? opts.scenario.model ?? chapter.DEFAULT_MODEL,
        env: { ...opts.scenario.env },
        argv: opts.scenario.argv ?? [],
        terminal: { write: (text) => { output += text; } },
        platform: SCRIPTED_PLATFORM,
        // Unattended: no way to ask at all, as when the agent runs from a script or a pipe.
        ...(!opts.scenario.unattended && { ask }),
      });
    }, { limitMs: opts.timeLimitMs, label: path.relative(process.cwd(), opts.scenario.file) || opts.scenario.file, paths: [tempDir], lastWords: opts.lastWords });
  } catch (err) {
    crash = oneLine(err);
    crashAt = placeInLoadedCode(err);
  } finally {
    unroute();
    await mock.close();
  }
  for (const a of answers) problems.push(`the scenario's answer for ${a.tool} (allow: ${a.allow}) was never asked for`);
  const failures = [...mock.failures, ...problems];
  // The mock answers a request the scenario cannot answer (a call to a tool the request does
  // not offer, a track out of turns) with a 400 quoting the problem, and the agent stops on
  // it: that is the scenario problem said twice, not a crash of the agent's own.
  if (crash !== undefined && failures.some((f) => crash!.includes(`[mock] ${f}`))) crash = crashAt = undefined;
  const expectations = await checkExpectations(opts.scenario, { events: mock.events, terminal: output, workspace });
  const ok = !crash && failures.length === 0 && expectations.every((e) => e.ok);
  return { events: mock.events, failures, crash, ...(crashAt !== undefined && { crashAt }), terminal: output, expectations, ok, tempDir, workspace, ms: performance.now() - started, loadedAs, asked };
}

/** One line for an error: for an API error, its status, type and the API's own message. */
export function oneLine(err: unknown): string {
  const body = (err as { error?: { error?: { type?: string; message?: string } } } | null)?.error?.error;
  const status = (err as { status?: unknown } | null)?.status;
  if (body?.message) return `API error ${typeof status === 'number' ? status : 'mid-stream'} (${body.type}): ${body.message}`;
  // A bundler may rename a class to keep names unique (APIConnectionError2): show the name as written.
  const kind = err instanceof Error ? err.constructor.name.replace(/\d+$/, '') : '';
  const text = err instanceof Error ? `${kind === 'Error' || err.message.startsWith(`${kind}:`) ? '' : `${kind}: `}${err.message}` : String(err);
  return text.split('\n')[0];
}
