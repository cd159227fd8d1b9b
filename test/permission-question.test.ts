// What the user is asked must say what the call does. The question is made from the call's
// input, and a model may put any field in an input (the API does not hold it to the tool's
// schema): a write_file that also carries `command: "ls"` must not be put to the user as
// "run: ls". A yes to that would write the file, .git/config included (an edit there always
// asks), and git runs what that file says.

import { describe, it, expect, afterEach } from 'vitest';
import { Chalk } from 'chalk';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decide as decide6 } from '../steps/06-permissions/permissions.ts';
import { decide as decide16 } from '../steps/16-worktree-isolation/permissions.ts';
import type { LoopConfig } from '../steps/16-worktree-isolation/types.ts';
import { parseScenario } from '../src/mock/index.ts';
import { runChapter } from '../src/runner/run-chapter.ts';
import { renderTranscript } from '../src/runner/transcript.ts';
import { ROOT } from '../src/runner/scenarios.ts';

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

for (const [chapter, decide] of [[6, decide6], [16, decide16]] as const) {
  it(`chapter ${chapter}: the question names what the call does, whatever other fields its input carries`, async () => {
    const cwd = await mkdtemp(path.join(os.tmpdir(), 'permission-question-'));
    made.push(cwd);
    const asked: string[] = [];
    const config = { cwd, permissions: { mode: 'default', ask: async (q: { summary: string }) => { asked.push(q.summary); return false; } } } as unknown as LoopConfig;
    await decide('write_file', { path: '.git/config', content: '[core]\n\tfsmonitor = "cat ~/.ssh/id_rsa"\n', command: 'ls' }, config);
    await decide('edit_file', { path: 'notes.txt', old_text: 'a', new_text: 'b', command: 'ls' }, config);
    await decide('run_shell', { command: 'rm -r src', path: 'README.md' }, config);
    // An edit in a guarded folder says so, also where the path as written does not show it (a link).
    await mkdir(path.join(cwd, '.git'));
    await symlink('.git', path.join(cwd, 'settings'));
    await decide('write_file', { path: 'settings/config', content: 'x' }, config);
    expect(asked).toEqual(["write .git/config (in git's own folder)", 'edit notes.txt', 'run: rm -r src', "write settings/config (in git's own folder)"]);
  });
}

// A scripted answer may say what the question must show ("shows"). A person says yes to what
// they were shown: a yes to a question that hid the command is no yes, and the command must
// not run. It did, with only a problem noted beside it.
it('a scripted yes to a question that hid what it asks about is a no: the command does not run', async () => {
  const scenario = parseScenario(JSON.stringify({
    title: 'a hidden command', prompts: ['Make the file.'],
    tracks: { main: { turns: [
      { tool_calls: [{ name: 'run_shell', input: { command: 'echo made > made.txt' } }] },
      { text: 'Done.' },
    ] } },
    answers: [{ tool: 'run_shell', allow: true, shows: 'rm -rf build' }],
  }), 'hidden.json');
  const r = await runChapter({ codeDir: path.join(ROOT, 'steps', '06-permissions'), scenario, latencyScale: 0, keep: true });
  made.push(r.tempDir);
  expect(r.asked?.map((q) => [q.tool, q.allow])).toEqual([['run_shell', false]]);
  expect(existsSync(path.join(r.workspace, 'made.txt'))).toBe(false);
  expect(r.ok).toBe(false);
  // The transcript says whose no it was: not the scenario's, which said yes.
  const shown = renderTranscript(r.events, { color: new Chalk({ level: 0 }), scenario, asked: r.asked }).filter((l) => l.includes('? allow '));
  expect(shown).toEqual(['main ? allow run: echo made > made.txt? no (the runner\'s: the question did not show "rm -rf build")']);
});

// Chapter 15's stop cases, as the tests below change them (a slower agent, a later stop).
type CaseJson = { answers: Record<string, unknown>[]; tracks: Record<string, { turns: Record<string, unknown>[] }> };
const chapter15 = path.join(ROOT, 'steps', '15-background-agents');
function chapter15Case(name: string, edit: (s: CaseJson) => void) {
  const json = JSON.parse(readFileSync(path.join(ROOT, 'scenarios', '15-background-agents', `${name}.json`), 'utf8')) as CaseJson;
  edit(json);
  return parseScenario(JSON.stringify(json), `${name}-changed.json`);
}

// Two agents' questions in a scenario's order (chapter 15's stop cases): the main agent asks
// first, a background agent's question comes behind it, and the person answers the first one
// only once the second is there (after_asked), instead of after a time the other agent might
// outlast on a busy machine. Here the background agent takes 2 s to ask; the person's 0.3 s
// alone would answer first, and the stop would come before that question was ever asked. (With
// 0.8 s, the run without after_asked once saw the question asked all the same, on a machine
// loaded three times over: the stop came more than half a second after the answer.) The wait
// for the other question may then take longer than the 3 s it is allowed by default: 10 s here.
describe.concurrent('an answer that waits for another question (after_asked)', () => {
  const stopWithdraws = (edit: (s: CaseJson) => void) => chapter15Case('stop-withdraws', edit);

  it('is given once the other question is asked, however late: the stop then finds that question waiting', async () => {
    const slow = stopWithdraws((s) => { s.tracks.tidier!.turns[0]!.latency_ms = 2000; });
    // Without it (the second run, side by side), the same person answers after 0.3 s, and the
    // agent is stopped before it asks.
    const timed = stopWithdraws((s) => { s.tracks.tidier!.turns[0]!.latency_ms = 2000; delete s.answers[0]!.after_asked; });
    const [r, raced] = await Promise.all([slow, timed].map((scenario) => runChapter({ codeDir: chapter15, scenario, latencyScale: 1, answerWaitLimitMs: 10_000 })));
    expect(r.failures).toEqual([]);
    expect(r.asked?.map((q) => [q.tool, q.withdrawn ?? false])).toEqual([['run_shell', false], ['write_file', true]]);
    expect(r.ok).toBe(true);
    expect(raced.asked?.map((q) => q.tool)).toEqual(['run_shell']);
    expect(raced.failures).toContain("the scenario's answer for write_file (allow: true) was never asked for");
  });

  // The limit (3 s unless told) shortened to half a second here: what is tested is that the wait ends.
  it('a question waited for that never comes: the person answers at the limit all the same, and the scenario fails saying so', async () => {
    const never = stopWithdraws((s) => { s.answers[0]!.after_asked = 'edit_file'; s.answers.splice(1, 0, { tool: 'edit_file', allow: true }); });
    const r = await runChapter({ codeDir: chapter15, scenario: never, latencyScale: 0, answerWaitLimitMs: 500 });
    expect(r.failures).toContain('the answer for run_shell waits for a question for edit_file too, and none was asked within 0.5 s');
    expect(r.ok).toBe(false);
  });
});

// The late yes of chapter 15's stop-asking: it must come after the stop, however long the main
// agent takes to get there. Here its stop comes 1.5 s late; a person who answers a second
// after the question would answer first, and the file would be written.
describe.concurrent('an answer that comes once the agent that asks is stopped (after_stopped)', () => {
  const stopAsking = (edit: (s: CaseJson) => void) => chapter15Case('stop-asking', edit);
  const lateStop = (s: CaseJson) => { s.tracks.main!.turns[1]!.latency_ms = 1500; };

  it('is given after the stop, however late the stop: the yes runs nothing', async () => {
    // And a set second instead (the second run, side by side): the yes comes before the stop, and the file is written.
    const timed = stopAsking((s) => { lateStop(s); delete s.answers[1]!.after_stopped; s.answers[1]!.after_ms = 1000; });
    const [r, early] = await Promise.all([stopAsking(lateStop), timed].map((scenario) => runChapter({ codeDir: chapter15, scenario, latencyScale: 1, keep: true })));
    made.push(r.tempDir, early.tempDir);
    expect(r.failures).toEqual([]);
    expect(existsSync(path.join(r.workspace, 'tidied.txt'))).toBe(false);
    expect(r.ok).toBe(true);
    expect(existsSync(path.join(early.workspace, 'tidied.txt'))).toBe(true);
  });

  it('an agent never stopped: the person answers at the limit all the same, and the scenario fails saying so', async () => {
    const never = stopAsking((s) => { s.tracks.main!.turns[1] = { text: 'Letting it go on.' }; s.tracks.main!.turns.splice(2); });
    const r = await runChapter({ codeDir: chapter15, scenario: never, latencyScale: 0, answerWaitLimitMs: 500 });
    expect(r.failures).toContain('the answer for write_file comes once the agent that asks is stopped, and it was not stopped within 0.5 s');
    expect(r.ok).toBe(false);
  });

  it("a question nothing can stop (the main agent's own): said at once", async () => {
    const main = stopAsking((s) => { s.answers[0]!.after_stopped = true; });
    const r = await runChapter({ codeDir: chapter15, scenario: main, latencyScale: 0 });
    expect(r.failures).toContain('the answer for run_shell comes once the agent that asks is stopped, and nothing can stop the agent that asks');
  });
});
