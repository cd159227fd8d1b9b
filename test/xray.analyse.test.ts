// The x-ray's analysis (src/xray/analyse.ts, facts.ts, facts-file.ts) on the chapters'
// own traces: who started whom, read from the wire; the facts the chapters' code really
// sends (checked against the code's own constants, not against the analysis' wording);
// a chapter broken on purpose flips its row; the pinned facts file and the docs that
// quote it agree. Claude Code's side is exercised on a small hand-made trace in its
// shape (a system turn in messages, a launch notice, a later notification), with
// made-up text: no real trace of it is stored in the project.

import { describe, it, expect } from 'vitest';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { FACT_TITLES, NOT_MEASURED, extractFacts, roles, type Fact } from '../src/xray/analyse.ts';
import { factRows, checkFacts, pairFacts, renderFactTable, seriesTraces } from '../src/xray/facts.ts';
import { compareFacts, docFactLines, factsFilePath, factsFileText, pinnedVersion, readFactsFile } from '../src/xray/facts-file.ts';
import { findMutation, withMutant } from '../src/tooling/selfcheck.ts';
import { fillDoc, defaultResolvers } from '../src/tooling/docs.ts';
import { FORK_BOILERPLATE_TAG, FORK_DIRECTIVE_PREFIX, FORK_PLACEHOLDER_RESULT, FORK_REFUSAL } from '../steps/12-fork-subagents/fork.ts';
import { SCANNED_MARK } from '../steps/13-parallel-limits/scan.ts';
import { DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_DEPTH } from '../steps/13-parallel-limits/limits.ts';
import { LAUNCHED, NOTIFICATION_TAG } from '../steps/15-background-agents/background.ts';
import { MODEL_ALIASES } from '../steps/14-custom-agents/models.ts';
import type { MockEvent, RequestEvent, ResponseEvent } from '../src/mock/types.ts';
import type { XrayTrace } from '../src/xray/trace.ts';
import { runOnce } from './chapter-runs.ts';

const value = (facts: Fact[], id: string): string => facts.find((f) => f.id === id)?.value ?? '(missing)';

// The series' runs are the scenario suite's runs of the same scenarios, made once per worker
// (chapter-runs.ts); a git scenario's, read before its cleanup, is made here.
let series: Promise<XrayTrace[]> | undefined;
const seriesOnce = (): Promise<XrayTrace[]> => (series ??= seriesTraces({ run: runOnce }));

describe('roles, read from the wire', () => {
  it("chapter 12's demo: five fork children of main, each with its own call", async () => {
    const demo = (await seriesOnce()).find((t) => t.version === 'chapter 12' && t.case === 'fork')!;
    expect(roles(demo)).toEqual([
      { track: 'main', kind: 'root' },
      ...[1, 2, 3, 4, 5].map((i) => ({ track: `child-${i}`, kind: 'fork', parent: 'main' })),
    ]);
  });

  it("chapter 11's context case: a fresh explore and a fresh general sub-agent of main", async () => {
    const ctx = (await seriesOnce()).find((t) => t.version === 'chapter 11')!;
    expect(roles(ctx)).toEqual([
      { track: 'main', kind: 'root' },
      { track: 'explorer', kind: 'fresh', parent: 'main', type: 'explore' },
      { track: 'worker', kind: 'fresh', parent: 'main', type: 'general' },
    ]);
  });
});

describe("the series' facts", () => {
  it("chapter 12's fork: what its code sends, fact by fact", async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'fork.trigger')).toBe('no subagent_type');
    expect(value(facts, 'fork.omitted-type')).toBe('starts a fork');
    expect(value(facts, 'fork.system')).toBe('byte-identical');
    expect(value(facts, 'fork.tools')).toBe('byte-identical, agent tool kept');
    expect(value(facts, 'fork.layout')).toBe('history as sent · assistant: the whole turn (text + every tool_use) · user: a placeholder for every call, then the directive');
    expect(value(facts, 'fork.placeholder')).toBe(`"${FORK_PLACEHOLDER_RESULT}"`);
    expect(value(facts, 'fork.boilerplate')).toBe(`<${FORK_BOILERPLATE_TAG}> · directive prefix "${FORK_DIRECTIVE_PREFIX}"`);
    expect(value(facts, 'fork.refusal')).toBe(`is_error: true · "${FORK_REFUSAL}"`);
    expect(value(facts, 'fork.breakpoints')).toContain('directive');
    expect(value(facts, 'fork.named-child')).toBe('no: is_error "The agent tool is not available inside a sub-agent."');
  });

  it('chapters 11 and 13: reports inline, explore without a shell, the caps as the code enforces them', async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'report.delivery')).toBe("inline: the agent call's tool_result");
    expect(facts.find((f) => f.id === 'report.delivery')?.version).toBe('chapter 11');
    expect(facts.find((f) => f.id === 'report.framing')?.version).toBe('chapter 13');
    // Chapter 3 on, the rendered context (CLAUDE.md, the git snapshot) is part of the system prompt.
    expect(value(facts, 'context.placement')).toBe('CLAUDE.md: the system prompt · git status: the system prompt');
    // Chapter 5 on, every model call streams, the sub-agents' too.
    expect(value(facts, 'wire.stream')).toBe('main agent: every request · sub-agents: every request');
    expect(facts.find((f) => f.id === 'wire.stream')?.version).toBe('chapter 11');
    // Chapter 8's three breakpoints (cache.ts withBreakpoints), in every request of the main agent.
    expect(value(facts, 'cache.breakpoints')).toBe("last tool, system block 1 of 1, the last message's last block · TTL 5m");
    expect(value(facts, 'report.framing').startsWith(`framed: opens with "${SCANNED_MARK}: …]"`)).toBe(true);
    expect(value(facts, 'explore.context')).toBe('CLAUDE.md no · git status no');
    expect(value(facts, 'general.context')).toBe('CLAUDE.md yes · git status yes');
    expect(value(facts, 'limits.concurrency')).toMatch(/^is_error · "Concurrent subagent limit reached" · names the variable: yes$/);
    expect(value(facts, 'limits.depth')).toBe("the agent tool is missing from the sub-agent's tools");
    const cap = DEFAULT_MAX_CONCURRENT;
    expect(value(facts, 'limits.default-cap')).toBe(`${cap} start, call ${cap + 1} of ${cap + 1} is refused · the refusal names ${cap}: yes`);
    expect(value(facts, 'limits.malformed-cap')).toBe(`${cap} start, call ${cap + 1} of ${cap + 1} is refused · the refusal names ${cap}: yes`);
    const deep = Array.from({ length: DEFAULT_MAX_DEPTH - 1 }, (_, i) => i + 1).join(', ');
    expect(value(facts, 'limits.default-depth')).toBe(`agent tool offered at depth ${deep} · missing at depth ${DEFAULT_MAX_DEPTH}`);
  });

  it("chapter 11's failing case: a sub-agent whose request is refused comes back as an ordinary result with the API's message", async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'report.failure')).toBe('is_error: false · "Sub-agent failed" · the API\'s message: yes');
    expect(facts.find((f) => f.id === 'report.failure')?.version).toBe('chapter 11');
    expect(facts.find((f) => f.id === 'report.failure')?.detail).toBe('the sub-agent sent 1 request, each refused');
  });

  it("chapter 15's demo: the call returns its launch notice, the report comes later in a notification", async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'report.notice')).toBe(`"${LAUNCHED}" · names an agent id: yes`);
    expect(value(facts, 'report.notification')).toBe(`a user text block: <${NOTIFICATION_TAG}> > <result>`);
    for (const id of ['report.notice', 'report.notification']) expect(facts.find((f) => f.id === id)?.version, id).toBe('chapter 15');
  });

  it("chapter 15's stop case: the stop call answers, and a notification with the stopped status and a result follows", async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'report.stopped')).toBe(`the stop call: ok · a notification follows: status "stopped" · a result: yes`);
    expect(facts.find((f) => f.id === 'report.stopped')?.version).toBe('chapter 15');
  });

  it("chapter 15's continue case: the follow-up goes to the finished agent, which goes on in its own context, and notifies again", async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'report.continued')).toBe('the call: ok · the agent goes on: in its own context · a notification follows: status "completed"');
    expect(facts.find((f) => f.id === 'report.continued')?.version).toBe('chapter 15');
  });

  it("chapter 15's too-early case: a message to an agent still running is refused, and the agent never reads it", async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'report.message-running')).toBe('the call: is_error "agent-1 is still running" · the agent reads it: no');
  });

  it("chapter 4's session-id cases: a file name is refused before any request; a plain name and a UUID start a session", async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'session.id')).toBe('a file name: refused, nothing sent · a plain name: starts a session · a UUID: starts a session');
    expect(facts.find((f) => f.id === 'session.id')?.detail).toBe('the ids: notes.json, demo, a UUID');
  });

  it("chapter 9's precedence case: of two same-name skills, the body that reached the model is the personal one", async () => {
    const facts = extractFacts(await seriesOnce());
    expect(value(facts, 'skills.precedence')).toBe('the personal one (~/.claude/skills)');
    expect(facts.find((f) => f.id === 'skills.precedence')?.version).toBe('chapter 9');
  });

  it("chapter 14's demo: of two same-name agent files, the one the model is shown is the project's", async () => {
    const facts = extractFacts(await seriesOnce());
    expect([value(facts, 'agents.precedence'), facts.find((f) => f.id === 'agents.precedence')?.version]).toEqual(["the project's (.claude/agents)", 'chapter 14']);
  });

  it("chapters 9 and 14's subfolder cases: the skills and agent files of every folder from the root down, the nearer one winning a name", async () => {
    const facts = extractFacts(await seriesOnce());
    const all = "reads the starting folder, the folders between, the root · a sibling folder: not read · one name at both ends: the starting folder's wins";
    expect([value(facts, 'skills.folders'), facts.find((f) => f.id === 'skills.folders')?.version]).toEqual([all, 'chapter 9']);
    expect([value(facts, 'agents.folders'), facts.find((f) => f.id === 'agents.folders')?.version]).toEqual([all, 'chapter 14']);
  });

  it("chapter 14's aliases case: each alias's sub-agent asks for the id models.ts gives that alias", async () => {
    const facts = extractFacts(await seriesOnce());
    const expected = ['haiku', 'opus', 'sonnet'].map((alias) => `${alias}: ${MODEL_ALIASES[alias]}`).join(' · ');
    expect([value(facts, 'agents.models'), facts.find((f) => f.id === 'agents.models')?.version]).toEqual([expected, 'chapter 14']);
  });

  it("chapter 9's own-skills case: in acceptEdits, an ordinary edit goes through, writes into .claude/skills and .claude/agents wait for a yes", async () => {
    const facts = extractFacts(await seriesOnce());
    expect([value(facts, 'skills.own-folder'), facts.find((f) => f.id === 'skills.own-folder')?.version])
      .toEqual(['an ordinary file: written unasked · .claude/skills: held for a yes · .claude/agents: held for a yes', 'chapter 9']);
  });

  it("chapter 16's runs: the worktree facts, read from the wire and from the repository the run left", async () => {
    const traces = (await seriesOnce()).filter((t) => t.version === 'chapter 16');
    // What the disk said, before the analysis words it: nothing left by the reader, two kept by the writers.
    expect(traces.map((t) => t.repo?.worktrees.length)).toEqual([0, 2]);
    expect(traces[1]!.repo!.worktrees.every((w) => w.dir.startsWith('../') && w.committed && !w.dirty)).toBe(true);
    const facts = extractFacts(traces);
    expect(value(facts, 'worktree.isolation')).toBe('isolation: one of "worktree"');
    expect(value(facts, 'worktree.cwd')).toBe('beside the repository: <repo>.worktrees/<name>');
    expect(facts.find((f) => f.id === 'worktree.cwd')?.detail).toBe('read on disk: its requests name no path of it');
    expect(value(facts, 'worktree.unchanged')).toBe('worktree removed · branch removed');
    expect(value(facts, 'worktree.changed')).toBe('worktree kept · branch kept · the change: committed on the branch');
    expect(value(facts, 'worktree.report')).toBe('names its path: yes (relative to the workspace) · names its branch: yes');
    for (const id of ['worktree.isolation', 'worktree.cwd', 'worktree.unchanged', 'worktree.changed', 'worktree.report']) {
      expect(facts.find((f) => f.id === id)?.version, id).toBe('chapter 16');
    }
  });

  it('every fact has a title, and a fact no run showed says so', () => {
    const none = extractFacts([]);
    expect(none.map((f) => f.id)).toEqual(FACT_TITLES.map((t) => t.id));
    expect(none.every((f) => f.value === NOT_MEASURED)).toBe(true);
  });
});

describe('a chapter broken on purpose flips its row', () => {
  const pinned = () => readFactsFile(factsFilePath(ROOT));
  const claude = (): Fact[] => Object.entries(pinned().facts).map(([id, f]) => ({ id, value: f.value }));

  // Each: a mutation of the catalogue, the chapter (and x-ray cases) whose runs it changes, the
  // fact, and what the series then shows for it: the same as Claude Code before, not after.
  it.each([
    ["dropping the agent tool from fork children: chapter 12's tools row", 'fork-child-drops-agent-tool', 12, ['fork'], 'fork.tools',
      'a different set, agent tool removed'],
    ["a chapter 16 that keeps an unchanged worktree: its unchanged row", 'unchanged-worktree-kept', 16, undefined, 'worktree.unchanged',
      'worktree kept · branch kept'],
    ["skills read from the session's own folder only: chapter 9's folders row", 'skills-of-cwd-only', 9, undefined, 'skills.folders',
      "reads the starting folder · not the folders between, the root · a sibling folder: not read · one name at both ends: the starting folder's wins"],
    ["a .claude folder left unguarded: chapter 9's own-folder row", 'claude-folder-unguarded', 9, undefined, 'skills.own-folder',
      'an ordinary file: written unasked · .claude/skills: written unasked · .claude/agents: written unasked'],
    ["a follow-up that starts a fresh context: chapter 15's continued row", 'send-message-fresh-context', 15, ['continue'], 'report.continued',
      'the call: ok · the agent goes on: in a fresh context · a notification follows: status "completed"'],
    ["no cap by default: chapter 13's default-cap row", 'no-default-cap', 13, ['limits'], 'limits.default-cap',
      'no limit met: all 21 calls of one message started'],
    ["the user's agent file winning a name: chapter 14's precedence row", 'user-agent-wins', 14, ['skills'], 'agents.precedence',
      'the personal one (~/.claude/agents)'],
    ["an agent file's alias taken for a model id: chapter 14's models row", 'model-alias-unknown', 14, ['skills'], 'agents.models',
      'haiku: no sub-agent ran · opus: no sub-agent ran · sonnet: no sub-agent ran'],
    ["the root's agent file winning a name: chapter 14's folders row", 'root-agent-wins', 14, undefined, 'agents.folders',
      "reads the starting folder, the folders between, the root · a sibling folder: not read · one name at both ends: the root's wins"],
  ] as const)('%s goes from same to different', async (_title, mutation, chapter, cases, id, broken) => {
    const before = pairFacts(extractFacts(await seriesOnce()), claude()).find((r) => r.id === id)!;
    expect(before.same).toBe(true);
    const mutant = await withMutant(ROOT, findMutation(mutation), (dir) => seriesTraces({ chapters: [chapter], ...(cases && { cases: [...cases] }), codeDir: () => dir }));
    const after = pairFacts(extractFacts(mutant), claude()).find((r) => r.id === id)!;
    expect([after.series.value, after.same]).toEqual([broken, false]);
  });

  it("a chapter 15 whose launch waits for the report: its notice row goes from same to different", async () => {
    const others = (await seriesOnce()).filter((t) => t.version !== 'chapter 15');
    const before = pairFacts(extractFacts(await seriesOnce()), claude()).find((r) => r.id === 'report.notice')!;
    expect(before.same).toBe(true);
    const mutant = await withMutant(ROOT, findMutation('launch-waits-for-report'), (dir) => seriesTraces({ chapters: [15], codeDir: () => dir }));
    const rows = pairFacts(extractFacts([...others, ...mutant]), claude());
    const notice = rows.find((r) => r.id === 'report.notice')!;
    expect([notice.series.version, notice.series.value, notice.same]).toEqual(['chapter 15', 'nothing: the call waits for the report', false]);
    const later = rows.find((r) => r.id === 'report.notification')!;
    expect([later.series.version, later.series.value]).toEqual(['chapter 15', 'none: the report is the tool_result']);
  });

  it("a session id that may be a file name: chapter 4's session-id row says so", async () => {
    const mutant = await withMutant(ROOT, findMutation('session-id-may-be-a-file-name'), (dir) => seriesTraces({ chapters: [4], cases: ['session'], codeDir: () => dir }));
    expect(value(extractFacts(mutant), 'session.id')).toBe('a file name: starts a session · a plain name: starts a session · a UUID: starts a session');
  });

  it("dropping the turn's text from the child's copy: chapter 12's layout row says so", async () => {
    const mutant = await withMutant(ROOT, findMutation('fork-child-drops-turn-text'), (dir) => seriesTraces({ chapters: [12], cases: ['fork'], codeDir: () => dir }));
    const layout = value(extractFacts(mutant), 'fork.layout');
    expect(layout).toBe('history as sent · assistant: every tool_use, text dropped · user: a placeholder for every call, then the directive');
  });

  // Chapter 5's mutation, made in chapter 11's code: its delegate run is the one the row reads.
  it("model calls no longer streamed: chapter 11's stream row goes from same to different", async () => {
    const before = pairFacts(extractFacts(await seriesOnce()), claude()).find((r) => r.id === 'wire.stream')!;
    expect(before.same).toBe(true);
    const unstreamed = { ...findMutation('streaming-removed'), chapter: 11 };
    const mutant = await withMutant(ROOT, unstreamed, (dir) => seriesTraces({ chapters: [11], cases: ['delegate'], codeDir: () => dir }));
    const after = pairFacts(extractFacts(mutant), claude()).find((r) => r.id === 'wire.stream')!;
    expect([after.series.value, after.same]).toEqual(['main agent: none · sub-agents: none', false]);
  });

  it("the latest message no longer marked: chapter 11's breakpoints row says so", async () => {
    const unmarked = { ...findMutation('message-breakpoint-removed'), chapter: 11 };
    const mutant = await withMutant(ROOT, unmarked, (dir) => seriesTraces({ chapters: [11], cases: ['delegate'], codeDir: () => dir }));
    expect(value(extractFacts(mutant), 'cache.breakpoints')).toBe('last tool, system block 1 of 1 · TTL 5m');
  });

  it('giving each child its own placeholder bytes: the placeholder row says so', async () => {
    const mutant = await withMutant(ROOT, findMutation('fork-placeholder-differs'), (dir) => seriesTraces({ chapters: [12], cases: ['fork'], codeDir: () => dir }));
    expect(value(extractFacts(mutant), 'fork.placeholder')).toMatch(new RegExp(`^"${FORK_PLACEHOLDER_RESULT} \\(.+\\)"$`));
  });
});

// ---------------------------------------------------------------------------
// Claude Code's shapes, made up: a main conversation with a system turn, one Explore
// call answered by a launch notice, the report arriving later in a tagged user block.

function req(seq: number, track: string, messages: unknown[], tools: string[], system: unknown[] = [{ type: 'text', text: 'sys' }]): RequestEvent {
  return {
    type: 'request', seq, time: seq, path: '/v1/messages', track, turn: 0, stream: true, model: 'claude-x',
    body: { model: 'claude-x', messages, system, tools: tools.map((name) => ({ name, input_schema: { type: 'object' } })) },
    system_text: 'sys', tool_names: tools, breakpoints: [],
  };
}

function res(seq: number, track: string, content: ResponseEvent['content']): ResponseEvent {
  const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } };
  return { type: 'response', seq, time: seq, track, turn: 0, content, stop_reason: 'end_turn', usage, deltas: 1 };
}

function claudeShaped(): XrayTrace {
  const first = { role: 'user', content: [{ type: 'text', text: '<system-reminder>\nsetup notes\n</system-reminder>' }, { type: 'text', text: 'Please look around.' }] };
  const systemTurn = { role: 'system', content: [{ type: 'text', text: 'environment' }] };
  const call = { type: 'tool_use' as const, id: 'toolu_1', name: 'Agent', input: { description: 'look', prompt: 'Look task: list files.', subagent_type: 'Explore' } };
  const tools = ['Agent', 'Bash', 'Read', 'Write'];
  const events: MockEvent[] = [
    req(1, 'main', [first, systemTurn], tools),
    res(1, 'main', [call]),
    req(2, 'main', [first, systemTurn, { role: 'assistant', content: [call] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Started in the background. agentId: a1 (keep it)' }] }] }], tools),
    res(2, 'main', [{ type: 'text', text: 'Waiting.' }]),
    req(3, 'explore', [{ role: 'user', content: [{ type: 'text', text: 'Look task: list files.' }] }], ['Bash', 'Read']),
    res(3, 'explore', [{ type: 'text', text: 'Two files.' }]),
    req(4, 'main', [first, systemTurn, { role: 'assistant', content: [call] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Started in the background. agentId: a1 (keep it)' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Waiting.' }] },
      { role: 'user', content: [{ type: 'text', text: '<system-reminder>\n<note-of-task>\n<id>a1</id>\n<answer>Two files.</answer>\n</note-of-task>\n</system-reminder>' }] }], tools),
    res(4, 'main', [{ type: 'text', text: 'Done.' }]),
  ];
  return { source: 'claude-code', version: '9.9.9', case: 'delegate', events, cwd: '/w', home: '/h' };
}

/** A fork in Claude Code's shape: an uncached first system block that differs, the child's own call only. */
function claudeShapedFork(): XrayTrace {
  const sys = (first: string) => [{ type: 'text', text: first }, { type: 'text', text: 'cached one', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'cached two', cache_control: { type: 'ephemeral' } }];
  const first = { role: 'user', content: [{ type: 'text', text: 'Split the work.' }] };
  const systemTurn = { role: 'system', content: [{ type: 'text', text: 'environment' }] };
  const call = (id: string, p: string) => ({ type: 'tool_use' as const, id, name: 'Agent', input: { description: p, prompt: `${p} task: do it.`, subagent_type: 'fork' } });
  const tools = ['Agent', 'Bash', 'Read'];
  const child = (seq: number, id: string, p: string): RequestEvent => {
    const r = req(seq, `fork-${p}`, [first, systemTurn, { role: 'assistant', content: [call(id, p)] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: 'Made-up placeholder.' }] },
        { type: 'text', text: `<made-up-tag>\nrules\n</made-up-tag>\n\nGo: ${p} task: do it.`, cache_control: { type: 'ephemeral' } }] }], tools, sys(`billing ${seq}`));
    r.breakpoints = [
      { where: 'system[1]', position: 4, ttl: '5m', prefix_tokens: 10 },
      { where: 'system[2]', position: 5, ttl: '5m', prefix_tokens: 20 },
      { where: 'messages[3].content[1]', position: 9, ttl: '5m', prefix_tokens: 30 },
    ];
    return r;
  };
  const events: MockEvent[] = [
    req(1, 'main', [first, systemTurn], tools, sys('billing 1')),
    res(1, 'main', [{ type: 'text', text: 'Forking two.' }, call('toolu_a', 'A'), call('toolu_b', 'B')]),
    child(2, 'toolu_a', 'A'), res(2, 'fork-A', [{ type: 'text', text: 'A done.' }]),
    child(3, 'toolu_b', 'B'), res(3, 'fork-B', [{ type: 'text', text: 'B done.' }]),
  ];
  return { source: 'claude-code', version: '9.9.9', case: 'fork', events, cwd: '/w', home: '/h' };
}

describe("Claude Code's fork shape (a made-up trace)", () => {
  it('reads the trigger, the system blocks, the layout, the placeholder, the boilerplate and the breakpoints', () => {
    const trace = claudeShapedFork();
    expect(roles(trace)).toEqual([
      { track: 'main', kind: 'root' },
      { track: 'fork-A', kind: 'fork', parent: 'main', type: 'fork' },
      { track: 'fork-B', kind: 'fork', parent: 'main', type: 'fork' },
    ]);
    const facts = extractFacts([trace]);
    expect(value(facts, 'fork.trigger')).toBe('subagent_type: "fork"');
    expect(value(facts, 'fork.system')).toBe('cached blocks byte-identical, an uncached block differs');
    expect(value(facts, 'fork.tools')).toBe('byte-identical, agent tool kept');
    expect(value(facts, 'fork.layout')).toBe('history as sent · assistant: its own tool_use only, text dropped · user: its own placeholder, then the directive');
    expect(value(facts, 'fork.placeholder')).toBe('"Made-up placeholder."');
    expect(value(facts, 'fork.boilerplate')).toBe('<made-up-tag> · directive prefix "Go: "');
    expect(value(facts, 'fork.breakpoints')).toBe('system block 2 of 3, system block 3 of 3, directive');
  });
});

describe('a report handed back inline in a frame (a made-up trace)', () => {
  it('finds a multi-line report whose every line was indented, and names the frame', () => {
    const call = { type: 'tool_use' as const, id: 'toolu_f', name: 'Agent', input: { description: 'x', prompt: 'Frame task: report.', subagent_type: 'Explore' } };
    const first = { role: 'user', content: [{ type: 'text', text: 'Go.' }] };
    const events: MockEvent[] = [
      req(1, 'main', [first], ['Agent']), res(1, 'main', [call]),
      req(2, 'explore', [{ role: 'user', content: [{ type: 'text', text: 'Frame task: report.' }] }], ['Read']),
      res(2, 'explore', [{ type: 'text', text: 'line one\nline two' }]),
      req(3, 'main', [first, { role: 'assistant', content: [call] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_f', content: '[Made-up frame] a note:\n  line one\n  line two' }] }], ['Agent']),
      res(3, 'main', [{ type: 'text', text: 'ok' }]),
    ];
    const facts = extractFacts([{ source: 'claude-code', version: '9.9.9', case: 'guard', events, cwd: '/w', home: '/h' }]);
    expect(value(facts, 'report.delivery')).toBe("inline: the agent call's tool_result");
    expect(value(facts, 'report.framing')).toBe('framed: opens with "[Made-up frame]" · report lines indented: yes');
  });
});

describe('a sub-agent whose requests all fail, in a call that waits (a made-up trace)', () => {
  const call = { type: 'tool_use' as const, id: 'toolu_e', name: 'Agent', input: { description: 'x', prompt: 'Fail task: try.', subagent_type: 'general-purpose', run_in_background: false } };
  const first = { role: 'user', content: [{ type: 'text', text: 'Go.' }] };
  const refused = (seq: number): MockEvent => ({ type: 'error', seq, time: seq, track: 'helper', turn: seq - 2, status: 400, error_type: 'invalid_request_error', message: 'made-up refusal', injected: true, mid_stream: false });
  const helper = (seq: number) => req(seq, 'helper', [{ role: 'user', content: [{ type: 'text', text: 'Fail task: try.' }] }], ['Read']);
  const trace = (result: Record<string, unknown>): XrayTrace => ({
    source: 'claude-code', version: '9.9.9', case: 'failed', cwd: '/w', home: '/h',
    events: [
      req(1, 'main', [first], ['Agent']), res(1, 'main', [call]),
      helper(2), refused(2), helper(3), refused(3),
      req(4, 'main', [first, { role: 'assistant', content: [call] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_e', ...result }] }], ['Agent']),
      res(4, 'main', [{ type: 'text', text: 'ok' }]),
    ],
  });

  it('an is_error result is the failure, not a refused call: the child is still the call\'s', () => {
    const t = trace({ is_error: true, content: 'Made-up stop: the API said no: made-up refusal' });
    expect(roles(t)).toEqual([{ track: 'main', kind: 'root' }, { track: 'helper', kind: 'fresh', parent: 'main', type: 'general' }]);
    const facts = extractFacts([t]);
    expect(value(facts, 'report.failure')).toBe('is_error: true · "Made-up stop" · the API\'s message: yes');
    expect(facts.find((f) => f.id === 'report.failure')?.detail).toBe('the sub-agent sent 2 requests, each refused');
  });

  it('an ordinary result that leaves the message out says so', () => {
    expect(value(extractFacts([trace({ content: [{ type: 'text', text: 'It failed.' }] })]), 'report.failure')).toBe('is_error: false · "It failed" · the API\'s message: no');
  });
});

describe("Claude Code's shapes (a made-up trace)", () => {
  it('finds the Explore child by its prompt, through a system turn, and reads its tools with the name mapping', () => {
    const trace = claudeShaped();
    expect(roles(trace)).toEqual([{ track: 'main', kind: 'root' }, { track: 'explore', kind: 'fresh', parent: 'main', type: 'explore' }]);
    const facts = extractFacts([trace]);
    expect(value(facts, 'explore.tools')).toBe('read_file, run_shell; no edit_file, write_file, agent');
    expect(facts.find((f) => f.id === 'explore.tools')?.detail).toBe('Bash, Read');
  });

  it('where CLAUDE.md and the git status travel: a tagged block of the first user message, or the system prompt', () => {
    const trace = { ...claudeShaped(), files: { 'CLAUDE.md': 'setup notes\n' } };
    expect(value(extractFacts([trace]), 'context.placement')).toBe('CLAUDE.md: the first user message, a <system-reminder> block before the prompt · git status: not sent');
    const first = trace.events.find((e): e is RequestEvent => e.type === 'request' && e.track === 'main')!;
    first.body = { ...first.body, system: [{ type: 'text', text: 'sys' }, { type: 'text', text: 'Current branch: main\nStatus: (clean)' }] };
    expect(value(extractFacts([trace]), 'context.placement')).toBe('CLAUDE.md: the first user message, a <system-reminder> block before the prompt · git status: the system prompt');
    expect(value(extractFacts([claudeShaped()]), 'context.placement')).toBe(NOT_MEASURED);   // no CLAUDE.md in the workspace
  });

  it("where the main agent's breakpoints sit, by place; a request laid out otherwise is named beside the rest", () => {
    const trace = claudeShaped();
    const main = trace.events.filter((e): e is RequestEvent => e.type === 'request' && e.track === 'main');
    const at = (where: string, ttl: '5m' | '1h' = '5m') => ({ where, position: 0, ttl, prefix_tokens: 0 });
    for (const r of main) r.breakpoints = [at('system[0]'), at(`messages[${(r.body.messages as unknown[]).length - 1}].content[0]`)];
    expect(value(extractFacts([trace]), 'cache.breakpoints')).toBe("system block 1 of 1, the last message's last block · TTL 5m");
    main[0]!.breakpoints.unshift(at('tools[1]', '1h'));
    main[1]!.breakpoints[1] = at('messages[0].content[0]');
    expect(value(extractFacts([trace]), 'cache.breakpoints')).toBe('differs by request: '
      + "tool 2 of 4, system block 1 of 1, the last message's last block · TTL 1h and 5m"
      + ' | system block 1 of 1, block 1 of 2 of message 4 from the end · TTL 5m'
      + " | system block 1 of 1, the last message's last block · TTL 5m");
  });

  it('which requests ask for a stream, the main agent\'s and the sub-agents\' counted apart', () => {
    const trace = claudeShaped();
    expect(value(extractFacts([trace]), 'wire.stream')).toBe('main agent: every request · sub-agents: every request');
    const explore = trace.events.find((e): e is RequestEvent => e.type === 'request' && e.track === 'explore')!;
    explore.stream = false;
    const facts = extractFacts([trace]);
    expect(value(facts, 'wire.stream')).toBe('main agent: every request · sub-agents: none');
    const main = trace.events.filter((e): e is RequestEvent => e.type === 'request' && e.track === 'main');
    main[1]!.stream = false;
    expect(value(extractFacts([trace]), 'wire.stream')).toBe(`main agent: ${main.length - 1} of ${main.length} · sub-agents: none`);
  });

  it('a launch notice, then the report in a later user block: delivery, notice and where it arrives', () => {
    const facts = extractFacts([claudeShaped()]);
    expect(value(facts, 'report.delivery')).toBe('a launch notice as the tool_result, the report later in a user-side text block');
    expect(value(facts, 'report.notice')).toBe('"Started in the background." · names an agent id: yes');
    expect(value(facts, 'report.notification')).toBe('a user text block: <system-reminder> > <note-of-task> > <answer>');
    expect(facts.find((f) => f.id === 'report.notification')?.detail).toBe('fields: id, answer');
  });

  // What the docs quote beside the two facts: the tools the notice names, and where the request
  // has them; the notification's nested fields, and a path that holds the agent's id.
  it("the details: tools the notice names (the request's own, or listed behind ToolSearch); nested fields, and a path with the agent's id", () => {
    const shaped = JSON.stringify(claudeShaped())
      .replaceAll('(keep it)', '(go on with PassNote, or with note_pad; Read it later)')
      .replaceAll('"text":"environment"', '"text":"environment\\nPassNote\\nlater"')
      .replaceAll('{"name":"Write"', '{"name":"ToolSearch","input_schema":{"type":"object"}},{"name":"Write"')
      .replace(/<answer>Two files\.<\/answer>/g, '<file>/tmp/x/jobs/a1.out</file>\\n<answer>Two files.</answer>\\n<cost><tokens>5</tokens><ms>3</ms></cost>');
    const facts = extractFacts([JSON.parse(shaped) as XrayTrace]);
    // note_pad is neither a tool of the request nor listed; Read is a tool, but also a word.
    expect(facts.find((f) => f.id === 'report.notice')?.detail).toBe("tools it names: PassNote (not one of the request's tools: listed, behind ToolSearch)");
    expect(facts.find((f) => f.id === 'report.notification')?.detail).toBe('fields: id, file, answer, cost · file: …/jobs/<agent id>.out · cost: tokens, ms');
  });

  // A message to a running agent: read in a later request of the agent's, or, when the main
  // agent was quicker than its child, in the child's first request, beside its task. Both are
  // the agent's own context; a request holding the message alone would be a fresh one.
  it.each([
    ['a later request of the agent', false, 'in its own context'],
    ["the agent's first request, beside its task", true, 'in its own context'],
  ])('a message to a running agent read in %s', (_where, early, readIn) => {
    const first = { role: 'user', content: [{ type: 'text', text: 'Start one and message it.' }] };
    const call = { type: 'tool_use' as const, id: 'toolu_1', name: 'Agent', input: { description: 'greet', prompt: 'Greet task: say hello.', subagent_type: 'general-purpose' } };
    const send = { type: 'tool_use' as const, id: 'toolu_2', name: 'SendMessage', input: { to: 'a1', message: 'Also say goodbye.' } };
    const launched = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Started in the background. agentId: a1' }] };
    const tools = ['Agent', 'SendMessage', 'Bash'];
    const task = { type: 'text', text: 'Greet task: say hello.' };
    const message = { type: 'text', text: 'Also say goodbye.' };
    const events: MockEvent[] = [
      req(1, 'main', [first], tools),
      res(1, 'main', [call]),
      req(2, 'main', [first, { role: 'assistant', content: [call] }, launched], tools),
      res(2, 'main', [send]),
      ...(early
        ? [req(3, 'child', [{ role: 'user', content: [task, message] }], ['Bash']), res(3, 'child', [{ type: 'text' as const, text: 'Hello, goodbye.' }])]
        : [req(3, 'child', [{ role: 'user', content: [task] }], ['Bash']), res(3, 'child', [{ type: 'text' as const, text: 'Hello.' }]),
          req(5, 'child', [{ role: 'user', content: [task] }, { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }, { role: 'user', content: [message] }], ['Bash']),
          res(5, 'child', [{ type: 'text' as const, text: 'Goodbye.' }])]),
      req(4, 'main', [first, { role: 'assistant', content: [call] }, launched, { role: 'assistant', content: [send] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'Queued for a1.' }] }], tools),
      res(4, 'main', [{ type: 'text', text: 'Done.' }]),
    ];
    const facts = extractFacts([{ source: 'claude-code', version: '9.9.9', case: 'continue', events, cwd: '/w', home: '/h' }]);
    expect(value(facts, 'report.message-running')).toBe(`the call: ok · the agent reads it: ${readIn}`);
  });
});

describe('the table, the facts file and --check', () => {
  it('a row per fact, "same?" from the values, the version in the header', async () => {
    const rows = await factRows([claudeShaped()], { chapters: [11], run: runOnce });
    expect(rows.map((r) => r.id)).toEqual(FACT_TITLES.map((t) => t.id));
    const delivery = rows.find((r) => r.id === 'report.delivery')!;
    expect(delivery.same).toBe(false);
    expect(rows.find((r) => r.id === 'fork.trigger')!.same).toBeNull();
    const table = renderFactTable(rows).join('\n');
    expect(table).toContain('Claude Code 9.9.9');
    expect(table).toMatch(/Explore's tools .*│ no\n/);
  });

  it('checkFacts names each fact that differs from the pinned file, and the version', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'xray-facts-'));
    try {
      const file = path.join(dir, 'facts-9.9.9.json');
      const measured: Fact[] = [{ id: 'fork.trigger', value: 'a', version: '9.9.9' }, { id: 'fork.tools', value: 'b', version: '9.9.9' }];
      await writeFile(file, factsFileText('9.9.9', measured));
      expect(compareFacts(measured, '9.9.9', file)).toEqual([]);
      const rows = pairFacts([], [{ id: 'fork.trigger', value: 'a', version: '9.9.10' }, { id: 'fork.tools', value: 'c', version: '9.9.10' }]);
      expect(checkFacts(rows, file)).toEqual([
        'version: the run drove Claude Code 9.9.10, facts-9.9.9.json is for 9.9.9',
        'fork.tools: measured "c", facts-9.9.9.json says "b"',
      ]);
      expect(() => compareFacts(measured, '9.9.9', path.join(dir, 'none.json'))).toThrow(/none\.json: not found/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the pinned file is for the pinned release, holds every fact, and only derived values', async () => {
    const version = pinnedVersion(ROOT);
    const facts = readFactsFile(factsFilePath(ROOT));
    expect(facts.version).toBe(version);
    expect(Object.keys(facts.facts)).toEqual(FACT_TITLES.map((t) => t.id));
    for (const [id, f] of Object.entries(facts.facts)) {
      expect(f.value.length, `${id} is a short derived value`).toBeLessThanOrEqual(160);
      expect(f.value, id).not.toBe(NOT_MEASURED);
    }
  });
});

describe('docs quote the facts file', () => {
  it('an xray region renders the pinned value with the release, indented like its marker', async () => {
    const doc = ['- **Trigger.**', '  <!-- xray: fork.trigger -->', '  stale text', '  <!-- /xray -->', ''].join('\n');
    const filled = await fillDoc(doc, 'docs/x.md', defaultResolvers(ROOT));
    const [line] = docFactLines(ROOT, 'fork.trigger');
    expect(filled.split('\n')[2]).toBe(`  ${line}`);
    expect(line).toContain(`Claude Code ${pinnedVersion(ROOT)}`);
    expect(line).toContain(readFactsFile(factsFilePath(ROOT)).facts['fork.trigger']!.value);
  });

  it('a doc that disagrees with the facts file is stale; an unknown fact is a one-line error', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'xray-docs-'));
    try {
      await mkdir(path.join(root, 'xray'));
      await writeFile(path.join(root, 'xray', 'PINNED'), '9.9.9\n');
      await writeFile(path.join(root, 'xray', 'facts-9.9.9.json'), factsFileText('9.9.9', [{ id: 'fork.trigger', value: 'new' }]));
      const doc = ['<!-- xray: fork.trigger -->', '*Measured on Claude Code 9.9.9 ([x-ray](xray.md)), how a fork is triggered:* `old`', '<!-- /xray -->'].join('\n');
      expect(await fillDoc(doc, 'docs/x.md', defaultResolvers(root))).toContain('`new`');
      await expect(fillDoc('<!-- xray: no.such -->\n<!-- /xray -->', 'docs/x.md', defaultResolvers(root))).rejects.toThrow(/^docs\/x\.md:1: xray fact "no\.such" is not in xray\/facts-9\.9\.9\.json/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("the x-ray page labels each pinned fact with the chapter that teaches it", async () => {
    const text = await readFile(path.join(ROOT, 'docs', 'xray.md'), 'utf8');
    for (const { id, chapter } of FACT_TITLES) expect(text, id).toContain(`- \`${id}\` (chapter ${chapter}):`);
  });

  it('chapters 11 to 14 quote a fact and link the x-ray page; so do the README and the docs index', async () => {
    for (const name of ['11-subagents', '12-fork-subagents', '13-parallel-limits', '14-custom-agents']) {
      const text = await readFile(path.join(ROOT, 'docs', `${name}.md`), 'utf8');
      expect(text, name).toMatch(/<!-- xray: [a-z.-]+ -->/);
      expect(text, name).toContain('](xray.md)');
    }
    expect(await readFile(path.join(ROOT, 'README.md'), 'utf8')).toContain('](docs/xray.md)');
    expect(await readFile(path.join(ROOT, 'docs', 'README.md'), 'utf8')).toContain('](xray.md)');
  });
});
