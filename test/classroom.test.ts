// The classroom as a learner and a teacher use it, each command as typed: `--check` on
// half-done solutions (each must fail, naming why), `--check --json` for a grading script,
// `--check --watch` through a fix and through Ctrl-C, type errors, and `--repl` driven
// through a pipe without an API key. What only a process shows is spawned: a check's exit
// status through steps/run.mjs, a watch that ends by itself or on Ctrl-C, a REPL reading a
// real pipe. The rest is the same command line given to main() in this process
// (cli-helpers.ts), where what is tested is what it prints and returns.

import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, casesOf, loadScenarioFile } from '../src/runner/scenarios.ts';
import { findChapter } from '../src/chapters.ts';
import { runChapter } from '../src/runner/run-chapter.ts';
import { WORKER_ENV, inTerminal, noTerminal, runInProcess, runMjs, screenOf, type Ran } from './cli-helpers.ts';
import { tracked } from './children.ts';
import { watchExercise } from '../src/runner/watch.ts';
import { makeProjectScratch } from './temp-guard.ts';

/** A copy of a chapter's reference (chapter 11's unless named) inside the project (an exercise must be), with `edits` applied. */
function halfDone(edits: [string, string, string][], chapter = '11-subagents'): string {
  const dir = makeProjectScratch(ROOT, 'classroom-');
  cpSync(path.join(ROOT, 'steps', chapter), dir, { recursive: true });
  for (const [file, find, replace] of edits) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    if (!text.includes(find)) throw new Error(`${file} has no ${find}`);
    writeFileSync(path.join(dir, file), text.replace(find, replace));
  }
  return dir;
}

/** `node steps/run.mjs CHAPTER --check` (and `args`) in this process, on a copy of the chapter's reference with `edits`; the copy is removed after. */
async function checkHalfDone(edits: [string, string, string][], chapter: string, args: string[] = [], env: Record<string, string> = {}): Promise<Ran> {
  const dir = halfDone(edits, chapter);
  try {
    return await runInProcess([String(Number(chapter.slice(0, 2))), '--check', dir, ...args], { env });
  } finally { rmSync(dir, { recursive: true, force: true }); }
}

/**
 * Where `shown` (an example in the docs) departs from `real`, or undefined when it is a
 * trimmed copy: `"…"` stands for any value (in an array, for any run of items), a string
 * ending in `…` for a string that starts so; an object shows every key, in order.
 */
function departure(shown: unknown, real: unknown, at = '$'): string | undefined {
  if (shown === '…') return undefined;
  if (typeof shown === 'string' && shown.endsWith('…')) {
    const start = shown.slice(0, -1);
    return typeof real === 'string' && real.startsWith(start) ? undefined : `${at}: ${JSON.stringify(real)} does not start with ${JSON.stringify(start)}`;
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(real)) return `${at}: not an array`;
    const match = (i: number, j: number): boolean => {
      if (i === shown.length) return j === real.length;
      if (shown[i] === '…') return match(i + 1, j) || (j < real.length && match(i, j + 1));
      return j < real.length && departure(shown[i], real[j]) === undefined && match(i + 1, j + 1);
    };
    return match(0, 0) ? undefined : `${at}: the items shown are not the report's, in order (${JSON.stringify(real).slice(0, 300)}…)`;
  }
  if (shown !== null && typeof shown === 'object') {
    if (real === null || typeof real !== 'object' || Array.isArray(real)) return `${at}: not an object`;
    const keys = Object.keys(shown), realKeys = Object.keys(real);
    if (keys.join() !== realKeys.join()) return `${at}: shows keys ${keys.join()}, the report has ${realKeys.join()}`;
    for (const key of keys) {
      const d = departure((shown as Record<string, unknown>)[key], (real as Record<string, unknown>)[key], `${at}.${key}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return shown === real ? undefined : `${at}: shows ${JSON.stringify(shown)}, the report has ${JSON.stringify(real)}`;
}

/** The `--check --json` example of docs/teachers.md, parsed. */
function teachersExample(): unknown {
  const doc = readFileSync(path.join(ROOT, 'docs/teachers.md'), 'utf8');
  const block = /<!-- the shape of `--check --json`[^\n]*\n```json\n([\s\S]*?)\n```/.exec(doc);
  if (!block) throw new Error('docs/teachers.md has no --check --json example');
  return JSON.parse(block[1]!);
}

const IGNORE_MODEL: [string, string, string] = ['subagent.ts', "model: typeof input.model === 'string' ? input.model : (type.model ?? parent.model),", 'model: type.model ?? parent.model,'];
const NO_USAGE_LINE: [string, string, string] = ['subagent.ts', 'parent.terminal.write(`  ⎿ ${typeName} sub-agent', 'void (`  ⎿ ${typeName} sub-agent'];
const NO_QUERY_SOURCE: [string, string, string] = ['subagent.ts', 'querySource: `agent:builtin:${typeName}`,', ''];
// Chapter 1 for the watch: what --watch does is the same for every chapter, and a check of
// the smallest one costs half of chapter 11's.
const RESULT_LOST: [string, string, string] = ['agent.ts', 'results.push(await runTool(call, config));', "results.push({ ...(await runTool(call, config)), content: 'nothing' });"];

describe.concurrent("chapter 11: a half-done solution fails its check, saying why", () => {
  it("no usage line for the sub-agent: the demo fails (as typed, in a process of its own)", async () => {
    const dir = halfDone([NO_USAGE_LINE]);
    try {
      const r = await runMjs(['11', '--check', dir]);
      expect(r.code).toBe(1);
      expect(r.out).toContain('missing behaviour: the agent reports the sub-agent\'s calls on its terminal');
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('querySource never set: a type error, named by file and line, before the scenarios', async () => {
    const dir = halfDone([NO_QUERY_SOURCE]);
    // The demo alone (--case): the type check is of the folder, whichever scenarios run.
    try {
      const r = await runInProcess(['11', '--check', dir, '--case', 'demo']);
      expect(r.code).toBe(1);
      const rel = path.relative(ROOT, dir);
      expect(r.out.split('\n')[0]).toMatch(/^✖ type errors/);
      expect(r.out).toMatch(new RegExp(`${rel}/subagent\\.ts:\\d+:\\d+: Property 'querySource' is missing`));
      expect(r.out).toContain('Every scenario passes, but the code has 1 type error');
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('--check --json: every scenario and expectation with its verdict and hint, and the type errors, as docs/teachers.md shows them', async () => {
    const dir = halfDone([IGNORE_MODEL, NO_QUERY_SOURCE]);
    try {
      const r = await runInProcess(['11', '--check', dir, '--json']);
      expect(r.code).toBe(1);
      const report = JSON.parse(r.out) as {
        ok: boolean; passed: number; total: number; type_errors: { file: string; line: number; message: string }[];
        scenarios: { case: string; ok: boolean; hint: string | null; expectations: { name: string; ok: boolean; detail: string; hint: string | null }[] }[];
      };
      expect(report.ok).toBe(false);
      expect(report.total).toBe(report.scenarios.length);
      expect(report.passed).toBe(report.total - 1);          // every scenario ran, not only up to the first failure
      const model = report.scenarios.find((s) => s.case === 'model')!;
      expect(model.ok).toBe(false);
      expect(model.expectations.find((e) => !e.ok)).toMatchObject({ name: "the model input wins over the type's own model", detail: 'explorer asked for model claude-haiku-4-5, expected claude-sonnet-4-6' });
      expect(model.hint).toMatch(/input\.model/);
      expect(report.type_errors).toHaveLength(1);
      expect(report.type_errors[0]!.message).toMatch(/querySource/);
      // docs/teachers.md shows this very report, trimmed: no count or field there can drift.
      const asShown = JSON.parse(r.out.replaceAll(path.relative(ROOT, dir), 'exercises/11-subagents')) as unknown;
      expect(departure(teachersExample(), asShown)).toBeUndefined();
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('an exception in a tool is named: the agent sent it back to the model as an error result, and a missing behaviour was all that showed', async () => {
    const dir = halfDone([['subagent.ts', 'function subagentSystemPrompt(type: AgentType, parts: PromptParts): string {', "function subagentSystemPrompt(type: AgentType, parts: PromptParts): string {\n  if (type) throw new TypeError('boom from the learner');"]]);
    // The demo alone (--case): it is the scenario that delegates, and the other ten would only
    // say the same of theirs, twice.
    try {
      const r = await runInProcess(['11', '--check', dir, '--case', 'demo']);
      expect(r.code).toBe(1);
      expect(r.out).toContain('\n  a tool call threw: Error: boom from the learner (sent back to the model as an error result)\n');
      const json = await runInProcess(['11', '--check', dir, '--case', 'demo', '--json']);
      const demo = (JSON.parse(json.out) as { scenarios: { case: string; tool_errors: string[] }[] }).scenarios.find((v) => v.case === 'demo')!;
      expect(demo.tool_errors).toEqual(['Error: boom from the learner']);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('--check --json: what the learner\'s code prints while it runs goes to stderr, and stdout stays one JSON report', async () => {
    const debug = ['main.ts', 'export async function runSession(', "console.log('DEBUG session');\nprocess.stdout.write('DEBUG raw\\n');\nexport async function runSession("] as [string, string, string];
    const dir = halfDone([debug], '01-agent-loop');
    try {
      const r = await runInProcess(['1', '--check', path.relative(ROOT, dir), '--json']);
      expect(r.code).toBe(0);
      expect((JSON.parse(r.out) as { ok: boolean }).ok).toBe(true);
      expect(r.err).toContain('DEBUG session\n');
      expect(r.err).toContain('DEBUG raw\n');
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

});

// Any chapter's check says it the same way: the smallest one's is checked.
it.concurrent('a crash in a half-done solution fails its check, with the hint of the TODO in the file it happened in', async () => {
  const dir = halfDone([['main.ts', 'export async function runSession(', 'export async function runSession(...a: never[]): Promise<void> { throw new Error("oops"); }\nasync function unused(']], '01-agent-loop');
  try {
    const r = await runInProcess(['1', '--check', dir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('the agent crashed: oops');
    // Where, in the TypeScript as the learner wrote it (the compiled code has other lines:
    // comments and type-only imports compile to nothing).
    const file = path.join(dir, 'main.ts');
    const lines = readFileSync(file, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('throw new Error("oops")'));
    expect(r.out).toContain(`\n  at ${path.relative(process.cwd(), file)}:${line + 1}:${lines[line]!.indexOf('new Error') + 1}\n`);
    // main.ts holds no TODO of the exercise: no hint would be about this crash.
    expect(r.out).not.toContain('hint:');
  } finally { rmSync(dir, { recursive: true, force: true }); }
  // The same crash in agent.ts, where the chapter's TODO is: its hint.
  const inTodoFile = halfDone([['agent.ts', 'export async function agentLoop(config: LoopConfig): Promise<string> {', 'export async function agentLoop(config: LoopConfig): Promise<string> {\n  if (config) throw new Error("oops");']], '01-agent-loop');
  try {
    const r = await runInProcess(['1', '--check', inTodoFile]);
    expect(r.out).toContain('the agent crashed: oops');
    expect(r.out).toContain('\n  hint: Run each tool call with runTool and collect the tool_result blocks it returns, then push them all as ONE user message, so the next call can see them. Show each call on config.terminal before it runs, on a line of its own: ⏺ name(input as JSON).\n');
  } finally { rmSync(inTodoFile, { recursive: true, force: true }); }
});

// The scenario scripts what a right solution sends; a learner's agent that sends something
// else makes the mock complain in words meant for the scenario's author. The check says first
// what that means about the agent, then the mock's own words.
it.concurrent("an agent that goes off the scenario's script is told so in a learner's words, the mock's after them", async () => {
  const r = await checkHalfDone([['fork.ts', 'if (parent.querySource === FORK_QUERY_SOURCE || isInForkChild(parent.messages)) {', 'if (isInForkChild(parent.messages)) {']], '12-fork-subagents', ['--case', 'guard']);
  expect(r.code).toBe(1);
  expect(r.out).toContain('\n  the agent went off the script: it sent a request no right solution sends: the scenario cannot tell which conversation it belongs to\n  (the mock: scenarios/12-fork-subagents/guard.json: ambiguous: tracks ');
  // The mock's advice to the scenario's author is left out: the learner's fix is in the agent.
  expect(r.out).toMatch(/ambiguous: tracks [^\n]* all match the request \([^\n]*\)\)\n/);
  expect(r.out).not.toContain('not_user helps');
  // The hint is the first failing expectation's: that expectation is named, so the two read as one.
  expect(r.out).toContain('\n  first expectation not met: the query source survived compaction, and refuses the child\'s next fork\n  hint: The tag is gone from these messages: only config.querySource can tell. runForkCall checks it, and childConfig sets it on every child: querySource: FORK_QUERY_SOURCE (\'agent:builtin:fork\').\n');
});

// Off the script because of what went wrong before: a call that should have failed went on, and
// the parent, told of its sub-agent's end, asked once more. What went wrong is named; the
// agent's own line that only repeats the mock's refusal is not shown a third time.
it.concurrent('off the script after a missing behaviour: that behaviour is named, the refusal said once', async () => {
  const r = await checkHalfDone([['worktree.ts', "    if (!made.ok) {\n      const taken = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], top!, hooks);\n      if (taken.ok) continue;        // a branch of that name exists (a kept one, say): next name\n      throw new Error(`git could not make the branch ${branch}: ${made.err}`);\n    }\n", '    if (!made.ok) continue;\n']], '16-worktree-isolation', ['--case', 'branch-blocked']);
  expect(r.code).toBe(1);
  expect(r.out).toContain('\n  the agent went off the script: "main" got more requests than a right solution sends (the scenario scripts 3)\n');
  expect(r.out).toContain("\n  first expectation not met: the call fails with git's reason for the branch\n  hint: createWorktree: when git branch fails");
  expect(r.out.match(/out of turns/g)).toHaveLength(1);
  expect(r.out).not.toContain('the agent said:');
});

// A half-done parser that skips "- item" lists: the demo's skill file is skipped, so the
// session never sends it, and no expectation can say why. The agent said why, on its terminal.
it.concurrent("what the agent itself reported as wrong (a skill file it skipped) is shown with the failing case", async () => {
  const r = await checkHalfDone([['skills.ts', '    if (item && listKey) {', '    if (item && listKey && false) {']], '09-skills', ['--case', 'demo']);
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/\n {2}the agent said: ✖ skill \.claude\/skills\/release-notes\/SKILL\.md skipped: line \d+: expected "key: value"/);
});

// The malformed case's files each earn the agent a ✖ line; a parser that words the repeated
// key its own way fails on the fourth file. Of the agent's lines, that file's comes first.
it.concurrent("of the agent's own lines, the one most like the line the check looked for is shown first", async () => {
  const r = await checkHalfDone([['skills.ts', '`line ${i + 1}: "${key}" is given twice`', '`line ${i + 1}: duplicate ${key}`']], '09-skills', ['--case', 'malformed']);
  expect(r.code).toBe(1);
  expect(r.out).toContain('the terminal never showed "✖ skill .claude/skills/twice/SKILL.md skipped: line 4: "allowed-tools" is given twice"');
  expect(r.out).toMatch(/\n {2}the agent said: ✖ skill \.claude\/skills\/twice\/SKILL\.md skipped: line 4: duplicate allowed-tools\n/);
});

// Markers put on the stored messages pile up: the second and the third prompt both fail on
// the API's same 400. The agent printed that line twice; the check shows it once.
it.concurrent("the agent's own lines are shown once each, however often it printed one", async () => {
  const r = await checkHalfDone([['cache.ts', '    messages: messages.map((m, i) => (i === messages.length - 1 ? markLastBlock(m) : m)),', '    messages: messages.map((m, i) => (i === messages.length - 1 ? Object.assign(m, markLastBlock(m)) : m)),']], '08-prompt-caching', ['--case', 'demo']);
  expect(r.code).toBe(1);
  const said = r.out.split('\n').filter((l) => l.startsWith('  the agent said: '));
  expect(said.length).toBeGreaterThan(0);
  expect(said.some((l) => l.includes('A maximum of 4 blocks with cache_control'))).toBe(true);
  expect(new Set(said).size).toBe(said.length);
});

// An expectation with no hint of its own, in a chapter of several TODOs, none of whose
// shortcuts names it: the check names the TODOs it may be in, not all their hints joined.
it.concurrent('a failure with no hint of its own, in a chapter of several TODOs, names the TODOs, not every hint', async () => {
  const r = await checkHalfDone([['background.ts', 'return `Message sent to ${agent.id}; it continues in the background with its own context. A new notification follows when it finishes.`;', "return 'Message sent.';"]], '15-background-agents', ['--case', 'continue']);
  expect(r.code).toBe(1);
  expect(r.out).toContain('missing behaviour: send_message to the finished explorer is accepted');
  expect(r.out).toContain("\n  hint: the TODOs it may be in: TODO(launch), TODO(deliver), TODO(send-message) (each one's hint is beside it in your files)\n");
});

// A run that hangs would leave the check's screen blank until the time limit: past a while
// (shortened here), one line names the case still running.
it.concurrent('a scenario that runs long: the check says which case is still running, then its verdict', async () => {
  const r = await checkHalfDone([['agent.ts', 'export async function agentLoop(config: LoopConfig): Promise<string> {', 'export async function agentLoop(config: LoopConfig): Promise<string> {\n  await new Promise((r) => setTimeout(r, 1500));']], '01-agent-loop', ['--case', 'demo'], { SUBAGENTS_SLOW_NOTICE_MS: '300' });
  expect(r.out).toMatch(/^… demo is still running \(a run that never ends is stopped at 60 s\)\n✔ demo\n/m);
});

describe.concurrent('--check --watch', () => {
  /** Spawns a watch; `until(text)` resolves once the output holds text. */
  function watching(dir: string, tmp: string) {
    const child = tracked(spawn(process.execPath, [path.join(ROOT, 'steps/run.mjs'), '1', '--check', dir, '--watch'], { cwd: ROOT, env: { ...WORKER_ENV, NO_COLOR: '1', TMPDIR: tmp } }), `run.mjs 1 --check ${dir} --watch`);
    let out = '';
    child.stdout.on('data', (d) => { out += String(d); });
    child.stderr.on('data', (d) => { out += String(d); });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const until = async (text: string, from = 0) => {
      const stop = Date.now() + 60_000;
      while (!out.slice(from).includes(text)) {
        if (Date.now() > stop) throw new Error(`never saw "${text}" in: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    return { child, exited, until, out: () => out };
  }

  it('re-runs when a file changes, and stops once every scenario passes', async () => {
    const dir = halfDone([RESULT_LOST], '01-agent-loop');
    const tmp = mkdtempSync(path.join(tmpdir(), 'watch-test-'));
    try {
      const w = watching(dir, tmp);
      await w.until('watching');
      // The first check is the one `--check` alone prints: the demo fails on what the tool
      // result carried, with the expectation and its hint.
      expect(w.out()).toContain('✖ demo: Read a file with the one tool the agent has');
      expect(w.out()).toContain("the file's real content goes back to the model as the tool_result");
      expect(w.out()).toContain('hint: After running a tool, push a user message with a tool_result block');
      const seen = w.out().length;
      // The fix, as an editor saves it.
      const file = path.join(dir, 'agent.ts');
      writeFileSync(file, readFileSync(file, 'utf8').replace(RESULT_LOST[2], RESULT_LOST[1]));
      expect(await w.exited).toBe(0);
      const n = casesOf(findChapter(1)!).length;
      expect(w.out().slice(seen)).toContain(`All done: chapter 1 passes ${n === 1 ? 'its scenario' : `all ${n} scenarios`}.`);
      expect(readdirSync(tmp)).toEqual([]);
    } finally { rmSync(dir, { recursive: true, force: true }); rmSync(tmp, { recursive: true, force: true }); }
  });

  it('Ctrl-C ends it with nothing left behind', async () => {
    const dir = halfDone([RESULT_LOST], '01-agent-loop');
    const tmp = mkdtempSync(path.join(tmpdir(), 'watch-test-'));
    try {
      const w = watching(dir, tmp);
      await w.until('watching');
      // Interrupted in the middle of a second check.
      writeFileSync(path.join(dir, 'notes.txt'), 'a change');
      await new Promise((r) => setTimeout(r, 150));
      w.child.kill('SIGINT');
      expect(await w.exited).toBe(130);
      expect(readdirSync(tmp)).toEqual([]);
    } finally { rmSync(dir, { recursive: true, force: true }); rmSync(tmp, { recursive: true, force: true }); }
  });

  // Started by a program that is then killed outright (SIGKILL sends the watch nothing): it
  // went on for good, watching for nobody. The watch writes to its parent's own output, which
  // this test reads, so the pipe closes only once both are gone.
  it('a watch whose parent is killed outright ends too, with nothing left behind', async () => {
    const dir = halfDone([RESULT_LOST], '01-agent-loop');
    const tmp = mkdtempSync(path.join(tmpdir(), 'watch-test-'));
    let watchPid: number | undefined;
    try {
      const starter = `const c = require('node:child_process').spawn(process.execPath, ${JSON.stringify([path.join(ROOT, 'steps/run.mjs'), '1', '--check', dir, '--watch'])}, { stdio: 'inherit' }); console.log('watch pid ' + c.pid); setInterval(() => {}, 1000);`;
      const parent = tracked(spawn(process.execPath, ['-e', starter], { cwd: ROOT, env: { ...WORKER_ENV, NO_COLOR: '1', TMPDIR: tmp } }), 'a parent of --check --watch');
      let out = '';
      parent.stdout.on('data', (d) => { out += String(d); });
      const closed = new Promise<void>((resolve) => parent.stdout.on('close', () => resolve()));
      for (const stop = Date.now() + 60_000; !out.includes('watching'); await new Promise((r) => setTimeout(r, 50))) {
        if (Date.now() > stop) throw new Error(`never saw "watching" in: ${out}`);
      }
      watchPid = Number(/watch pid (\d+)/.exec(out)![1]);
      parent.kill('SIGKILL');
      // Gone within a few seconds (it looks once a second), and its pipe with it.
      const ended = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
      expect(ended, `the watch (pid ${watchPid}) still runs 5 s after its parent was killed`).toBe(true);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      if (watchPid !== undefined) try { process.kill(watchPid, 'SIGKILL'); } catch { /* ended, as it should */ }
      rmSync(dir, { recursive: true, force: true }); rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe.concurrent('--check --watch, in this process', () => {
  /** An exercise-like folder, and a Writable that keeps what the watch prints. */
  function folder(): { dir: string; out: NodeJS.WriteStream; printed: () => string } {
    const dir = mkdtempSync(path.join(tmpdir(), 'watch-unit-'));
    writeFileSync(path.join(dir, 'main.ts'), '// a stand-in\n');
    let text = '';
    const out = { write: (s: string) => { text += s; return true; }, isTTY: false } as unknown as NodeJS.WriteStream;
    return { dir, out, printed: () => text };
  }

  it('a change in a subfolder starts the next check (a helper in lib/ is part of the exercise)', async () => {
    const f = folder();
    try {
      mkdirSync(path.join(f.dir, 'lib'));   // there already: only the file inside it changes
      let rounds = 0;
      const watching = watchExercise(f.dir, 'the folder', async () => (++rounds === 1 ? 1 : 0), f.out);
      while (!f.printed().includes('watching')) await new Promise((r) => setTimeout(r, 10));
      writeFileSync(path.join(f.dir, 'lib', 'helper.ts'), 'export const x = 1;\n');
      expect(await watching).toBe(0);
      expect(rounds).toBe(2);
    } finally { rmSync(f.dir, { recursive: true, force: true }); }
  });

  it('a folder removed while it is watched: one line, exit 2, instead of waiting forever', async () => {
    const f = folder();
    try {
      let errors = '';
      const watching = watchExercise(f.dir, 'the folder', async () => 1, f.out, { write: (s: string) => { errors += s; } });
      while (!f.printed().includes('watching')) await new Promise((r) => setTimeout(r, 10));
      rmSync(f.dir, { recursive: true, force: true });
      expect(await watching).toBe(2);
      // On stderr, as every line that ends a command in error.
      expect(errors).toBe('the folder: its main.ts is gone (the folder was removed or moved); stopped watching\n');
      expect(f.printed()).not.toContain('is gone');
    } finally { rmSync(f.dir, { recursive: true, force: true }); }
  });

  it('a round that throws: its error on stderr, and the watch goes on', async () => {
    const f = folder();
    try {
      let errors = '';
      let rounds = 0;
      const watching = watchExercise(f.dir, 'the folder', async () => { if (++rounds === 1) throw new Error('the scenario could not be read'); return 0; }, f.out, { write: (s: string) => { errors += s; } });
      while (!f.printed().includes('watching')) await new Promise((r) => setTimeout(r, 10));
      expect(errors).toBe('the scenario could not be read\n');
      writeFileSync(path.join(f.dir, 'main.ts'), '// changed\n');
      expect(await watching).toBe(0);
      expect(f.printed()).not.toContain('could not be read');
    } finally { rmSync(f.dir, { recursive: true, force: true }); }
  });

  it('a scenario with a mistake is refused once, exit 2, before any watching', async () => {
    const dir = halfDone([RESULT_LOST], '01-agent-loop');
    const bad = path.join(tmpdir(), `watch-bad-${process.pid}.json`);
    writeFileSync(bad, '{"title": "x"}');
    try {
      const r = await runInProcess(['1', '--check', path.relative(ROOT, dir), '--watch', '--scenario', bad]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`${bad}: $: missing "prompts" (what the user types, in order)\n`);
      expect(r.out).toBe('');
    } finally { rmSync(dir, { recursive: true, force: true }); rmSync(bad, { force: true }); }
  });
});

// Ctrl-C while the agent works: readline has the terminal, so the key reaches the REPL as a
// key, not as a signal. It ends the input (the prompt is answered, then the session ends),
// which the REPL must say at once; a second Ctrl-C is a signal again and stops the run.
// Typed into a pseudo-terminal made by util-linux script(1), as a person would.
const withoutTerminal = noTerminal();

/** Chapter 13's REPL in a terminal: its demo prompt typed, then Ctrl-C `presses` times while its sub-agents work. */
async function replInterrupted(presses: number): Promise<{ out: string; code: number | null; left: string[] }> {
  const line = [process.execPath, path.join(ROOT, 'steps/run.mjs'), '13', '--repl'].map((w) => `'${w}'`).join(' ');
  const tmp = mkdtempSync(path.join(tmpdir(), 'classroom-repl-tty-'));   // the run's temp folder: empty again at its end
  let typed = false;
  let pressed = 0;
  const { out, code } = await inTerminal(line, { cwd: ROOT, env: { NO_COLOR: '1', TMPDIR: tmp }, label: 'run.mjs 13 --repl', react: (shown, keys) => {
    // Typed once the prompt is on screen (readline drops a line typed before it asks), and
    // Ctrl-C once the main agent has launched its sub-agents, whose answers take a while.
    if (!typed && shown.includes('you ▸ ')) { typed = true; keys.type('Where does each of our five services take its port from? Check them all in parallel.\r'); }
    const due = pressed === 0 ? shown.includes('⏺ agent(') : shown.includes('(Ctrl-C: no more prompts');
    if (pressed < presses && due) { pressed++; keys.type('\u0003'); }
    if (pressed === presses) keys.end();   // nothing more to type
  } });
  const left = readdirSync(tmp);
  rmSync(tmp, { recursive: true, force: true });
  return { out: out.replaceAll('\r\n', '\n'), code, left };
}

describe.skipIf(withoutTerminal !== undefined).concurrent('--repl at a terminal, Ctrl-C while the agent works', () => {
  it('once: said at once, the prompt is answered all the same, then the session ends', async () => {
    const r = await replInterrupted(1);
    expect(r.code, r.out).toBe(0);
    const said = r.out.indexOf('(Ctrl-C: no more prompts; the session ends once this one is answered. Ctrl-C again stops it now)');
    expect(said, r.out).toBeGreaterThan(r.out.indexOf('⏺ agent('));
    // Every sub-agent still reports, after the line: the turn was not cut short.
    expect(r.out.indexOf('explore sub-agent "Port of users"')).toBeGreaterThan(said);
    expect(r.out).toContain('\nledger: calls=12 ');
    expect(r.out).toContain('is removed now');
    expect(r.left).toEqual([]);
  });

  it('twice: the second stops the run there, exit 130, nothing left behind', async () => {
    const r = await replInterrupted(2);
    expect(r.code, r.out).toBe(130);
    expect(r.out).toContain('interrupted: the run is stopped and its temporary folder removed');
    expect(r.out).not.toContain('ledger:');
    expect(r.left).toEqual([]);
  });
});

describe.concurrent('--repl, typed through a pipe, no API key', () => {
  it('answers a scripted prompt, says so for a prompt the script cannot answer, and ends on EOF', async () => {
    const r = await runMjs(['9', '--repl'], { input: 'tell me a joke\n/release-notes 1.2.0\n', env: { ANTHROPIC_API_KEY: undefined } });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('you ▸ tell me a joke\n✖ the scripted model has no answer for this prompt; try --live');
    expect(r.out).not.toContain('[mock]');
    expect(r.out).toContain('you ▸ /release-notes 1.2.0\nReading the changes.');
    expect(r.out).toContain('RELEASE.md is written for 1.2.0.');
    expect(r.out).toContain('is removed now');
    expect(r.out).not.toContain('continue it with --resume');
  });

  it('--resume says it resumed', async () => {
    const r = await runInProcess(['4', '--repl', '--case', 'resume'], { input: 'What was the release codename?\nAnd after that?\n' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('(resumed session yesterday: 2 messages)');
    expect(r.out).toContain('The codename is BLUEBIRD.');
    // Chapter 4 has no gate for a real model yet: the way out the REPL names is chapter 6's --live.
    expect(r.out).toContain("you ▸ And after that?\n✖ the scripted model has no more answers (the scenario's turns are used up); a real model (--live) from chapter 6 on\n");
  });

  it("says the flags the scenario starts the agent with: chapter 10's REPL is in plan mode, and a refused edit is no surprise", async () => {
    const r = await runInProcess(['10', '--repl'], { input: '' });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('\nthe agent is started with the flags: --plan\n');
    const plain = await runInProcess(['9', '--repl'], { input: '' });
    expect(plain.out).not.toContain('started with the flags');
  });

  it('a session that cannot start (a saved session that is no JSON) ends the REPL with exit 1, its workspace removed', async () => {
    const r = await runInProcess(['4', '--repl', '--case', 'corrupt'], { input: 'Carry on.\n' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('✖ cannot resume: .agent/sessions/broken.json is not valid JSON');
    expect(r.out).not.toContain('you ▸');   // nothing was asked for
    expect(r.out).toContain('is removed now');
  });

  it('before chapter 4 there is no REPL: one line, exit 2', async () => {
    const r = await runInProcess(['3', '--repl']);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe('chapter 3 has no interactive session yet: the REPL arrives in chapter 4 (try node steps/run.mjs 4 --repl)');
  });

  // The question quotes the model's input. An ESC in a command (after a #, where the shell
  // ignores it) could move the cursor and redraw the line the person is saying yes to.
  it('a permission question shows control characters in the command as escapes, not as codes the terminal obeys', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'classroom-ansi-'));
    try {
      const file = path.join(dir, 'ansi.json');
      const command = 'echo hi # \u001b[2K\u001b[1A\rAllow run: npm test';
      writeFileSync(file, JSON.stringify({
        title: 'a disguised command', prompts: ['Run the tests.'],
        tracks: { main: { turns: [{ tool_calls: [{ name: 'run_shell', input: { command } }] }, { text: 'Done.' }] } },
      }));
      const r = await runInProcess(['6', '--repl', '--scenario', file], { input: 'Run the tests.\ny\n' });
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('Allow run: echo hi # \\u001b[2K\\u001b[1A\\u000dAllow run: npm test? [y/N] ');
      expect(r.out).not.toContain('\u001b[1A');
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('a question asked after the input ended is refused as one nobody can answer, and says so', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'classroom-closed-'));
    try {
      const file = path.join(dir, 'closed.json');
      writeFileSync(file, JSON.stringify({
        title: 'nobody left to answer', prompts: ['Run the tests.'],
        tracks: { main: { turns: [{ tool_calls: [{ name: 'run_shell', input: { command: 'npm test' } }] }, { text: 'Not run.' }] } },
      }));
      const r = await runInProcess(['6', '--repl', '--scenario', file], { input: 'Run the tests.\n' });
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('Allow run: npm test? [y/N] (no answer: the input is closed)\n');
      expect(r.out).toContain("denied: run_shell needs the user's permission and nobody can be asked here");
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('a prompt that failed is not left in the saved session', async () => {
    const base = await loadScenarioFile(path.join(ROOT, 'scenarios/04-cli-sessions/demo.json'));
    const scenario = {
      ...base, argv: ['--session-id', 'kept'], prompts: ['nobody scripted this', 'What does greeting.txt say?'],
      tracks: { main: { match: { user: 'greeting.txt' }, turns: [{ text: 'It says hello.' }] } }, expect: [],
    };
    const r = await runChapter({ codeDir: path.join(ROOT, 'steps/04-cli-sessions'), scenario, latencyScale: 0, keep: true });
    try {
      const saved = JSON.parse(readFileSync(path.join(r.workspace, '.agent/sessions/kept.json'), 'utf8')) as { messages: { role: string; content: unknown }[] };
      expect(saved.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(JSON.stringify(saved.messages)).not.toContain('nobody scripted this');
      // And the second prompt went out alone, not after a question with no answer.
      const sent = r.events.filter((e) => e.type === 'request' && e.track === 'main');
      expect(sent.length).toBe(1);
      expect(sent[0]!.type === 'request' && (sent[0]!.body.messages as unknown[]).length).toBe(1);
    } finally { rmSync(r.tempDir, { recursive: true, force: true }); }
  });
});

// A background sub-agent (chapter 15) asks while the REPL's prompt waits: the line typed
// answers the question on screen. It went to the waiting prompt instead, as a prompt for
// the main agent, and the question kept waiting for a line typed after it.
it.skipIf(noTerminal() !== undefined).concurrent('--repl at a terminal: a background agent\'s question asked while the prompt waits gets the next line typed', async () => {
  const dir = makeProjectScratch(ROOT, 'repl-ask-');
  try {
    const file = path.join(dir, 'ask.json');
    writeFileSync(file, JSON.stringify({ title: 'a question while the prompt waits', prompts: ['go'], tracks: {
      main: { turns: [
        { tool_calls: [{ name: 'agent', input: { description: 'Tidy', prompt: 'TIDY: run the tidy command', subagent_type: 'general' } }] },
        { text: 'The helper is at work.' },
        { text: 'The helper reported.' },
      ] },
      // The question comes a moment after the prompt is on screen (the REPL keeps the script's
      // latency): 2 s, so that the prompt is back first even on a busy machine (with 600 ms, and
      // three test runs at once, the question once came before it).
      helper: { match: { first_user: 'TIDY' }, turns: [{ latency_ms: 2000, tool_calls: [{ name: 'run_shell', input: { command: 'echo tidied' } }] }, { text: 'Tidied: {{tool_result}}' }] },
    } }));
    const line = [process.execPath, path.join(ROOT, 'steps/run.mjs'), '15', '--repl', '--scenario', file].map((w) => `'${w}'`).join(' ');
    let step = 0;
    const { out, code } = await inTerminal(line, { cwd: ROOT, env: { NO_COLOR: '1' }, label: 'run.mjs 15 --repl', react: (shown, keys) => {
      if (step === 0 && shown.includes('you ▸ ')) { step = 1; keys.type('go\r'); }
      // The prompt is on screen again, and then the helper's question: "y" is typed once, for it.
      if (step === 1 && shown.includes('[y/N]')) { step = 2; keys.type('y\r'); }
      if (step === 2 && shown.includes('(agent-1, completed)')) { step = 3; keys.end('\u0004'); }
    } });
    // The question on a line of its own below the waiting prompt, its answer the line typed.
    // The question says which agent asks: the helper, not the main agent the prompt was for.
    expect(shown(out), out).toMatch(/The helper is at work\.\n+you ▸ \ngeneral sub-agent "Tidy" asks: Allow run: echo tidied\? \[y\/N\] y\n/);
    expect(out).toContain('The helper reported.');
    expect(out).not.toContain('has no answer for this prompt');
    expect(code, out).toBe(0);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

// A background agent stopped while its question is on screen (chapter 15): the REPL takes the
// question back and says so, and the main agent's stop_agent goes on without an answer.
it.skipIf(noTerminal() !== undefined).concurrent('--repl at a terminal: a stopped agent\'s question on screen is taken back, and the stop waits for no answer', async () => {
  const line = [process.execPath, path.join(ROOT, 'steps/run.mjs'), '15', '--repl', '--case', 'stop-withdraws'].map((w) => `'${w}'`).join(' ');
  let step = 0;
  const { out, code } = await inTerminal(line, { cwd: ROOT, env: { NO_COLOR: '1' }, label: 'run.mjs 15 --repl --case stop-withdraws', react: (shown, keys) => {
    if (step === 0 && shown.includes('you ▸ ')) { step = 1; keys.type('Tidy up in the background, then stop it.\r'); }
    // One answer only, to the main agent's ls, once the tidier's question has queued behind it:
    // a second after the ls question, for the tidier's request to the model and its question
    // (the terminal shows one question at a time, so nothing on it says when that is; 0.3 s
    // was sometimes too short on a busy machine, and the stop came before the tidier asked).
    if (step === 1 && shown.includes('[y/N]')) { step = 2; setTimeout(() => keys.type('y\r'), 1000); }
    if (step === 2 && shown.includes('nothing of it ran')) { step = 3; keys.end('\u0004'); }
  } });
  // The question, then (the main agent's own lines may come between) the line that takes it back.
  const question = shown(out).indexOf('general sub-agent "Tidy up" asks: Allow write tidied.txt? [y/N]');
  expect(question, out).toBeGreaterThan(0);
  expect(shown(out).indexOf('\n(withdrawn: the agent that asked was stopped)\n', question), out).toBeGreaterThan(question);
  expect(out).toContain('(agent-1, stopped)');
  expect(code, out).toBe(0);
});

// The same stop, a second and a half late: "y" typed at the tidier's question, without Enter,
// before it is taken back. Left in readline's line, it began the next line typed, and an
// empty prompt went to the main agent as "y".
it.skipIf(noTerminal() !== undefined).concurrent('--repl at a terminal: what was typed toward a withdrawn question goes with it, and answers nothing after', async () => {
  const dir = makeProjectScratch(ROOT, 'repl-withdrawn-');
  try {
    const json = JSON.parse(readFileSync(path.join(ROOT, 'scenarios', '15-background-agents', 'stop-withdraws.json'), 'utf8')) as { tracks: { main: { turns: Record<string, unknown>[] } } };
    json.tracks.main.turns[1]!.latency_ms = 1500;
    const file = path.join(dir, 'late-stop.json');
    writeFileSync(file, JSON.stringify(json));
    const line = [process.execPath, path.join(ROOT, 'steps/run.mjs'), '15', '--repl', '--scenario', file].map((w) => `'${w}'`).join(' ');
    let step = 0;
    const { out, code } = await inTerminal(line, { cwd: ROOT, env: { NO_COLOR: '1' }, label: 'run.mjs 15 --repl, half an answer withdrawn', react: (shown, keys) => {
      if (step === 0 && shown.includes('you ▸ ')) { step = 1; keys.type('Tidy up in the background, then stop it.\r'); }
      if (step === 1 && shown.includes('[y/N]')) { step = 2; setTimeout(() => keys.type('y\r'), 300); }
      if (step === 2 && shown.includes('asks: Allow write tidied.txt? [y/N]')) { step = 3; keys.type('y'); }
      // At the prompt once the stop is over: Enter, then the end of the input.
      if (step === 3 && shown.includes('nothing of it ran')) { step = 4; setTimeout(() => { keys.type('\r'); setTimeout(() => keys.end('\u0004'), 300); }, 300); }
    } });
    const question = shown(out).indexOf('general sub-agent "Tidy up" asks: Allow write tidied.txt? [y/N] y');
    expect(question, out).toBeGreaterThan(0);
    expect(shown(out).indexOf('\n(withdrawn: the agent that asked was stopped)\n', question), out).toBeGreaterThan(question);
    // No fourth request: the scenario's main agent has three turns, and a "y" would ask for one more.
    // The main agent's text, printed while the question waited, went above it; the question
    // was drawn again below it, the "y" typed still there.
    const screen = screenOf(out);
    const asked = screen.indexOf('general sub-agent "Tidy up" asks: Allow write tidied.txt? [y/N] y');
    expect(asked, screen.join('\n')).toBeGreaterThan(screen.indexOf('Stopping it.'));
    expect(screen.indexOf('Stopping it.'), screen.join('\n')).toBeGreaterThan(0);
    // Enter at the prompt: an empty line, and the prompt again, with no call in between.
    expect(shown(out), out).toMatch(/nothing of it ran\.\n+you ▸ \n+you ▸ /);
    expect(shown(out), out).not.toContain('no more answers');
    expect(code, out).toBe(0);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

/** What a terminal shows, without the carriage returns and erase codes readline writes. */
function shown(out: string): string {
  return out.replace(/\r/g, '').replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}
