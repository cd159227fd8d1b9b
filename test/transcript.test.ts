// Transcripts must read the same whatever order concurrent sub-agents happened to hit
// the mock in: the docs are checked for freshness, and a timing-dependent transcript
// would make that check flaky.

import { it, expect } from 'vitest';
import { Chalk } from 'chalk';
import path from 'node:path';
import { findChapter } from '../src/chapters.ts';
import { parseScenario, type MockEvent } from '../src/mock/index.ts';
import { ROOT, snapshotDir, loadScenarioFile } from '../src/runner/scenarios.ts';
import { runOnce } from './chapter-runs.ts';
import { agentReports, canonicalOrder, renderTranscript } from '../src/runner/transcript.ts';

/** Another interleaving of the same log: each track's own events keep their order. */
function reshuffle(events: MockEvent[], seed: number): MockEvent[] {
  const queues = new Map<string, MockEvent[]>();
  for (const e of events) queues.set(e.track ?? `#${e.seq}`, [...(queues.get(e.track ?? `#${e.seq}`) ?? []), e]);
  const out: MockEvent[] = [];
  let x = seed;
  while (out.length < events.length) {
    const live = [...queues.values()].filter((q) => q.length > 0);
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(live[x % live.length]!.shift()!);
  }
  return out;
}

it('five concurrent sub-agents render the same transcript for any interleaving', async () => {
  const ch = findChapter(13)!;
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/13-parallel-limits/demo.json'));
  const result = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
  expect(result.ok).toBe(true);
  const plain = new Chalk({ level: 0 });
  const reference = renderTranscript(result.events, { color: plain });
  expect(reference.filter((l) => l.startsWith('    ')).length).toBeGreaterThan(5); // sub-agents are shown, indented
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const shuffled = reshuffle(result.events, seed);
    expect(canonicalOrder(shuffled)).toHaveLength(result.events.length);
    expect(renderTranscript(shuffled, { color: plain })).toEqual(reference);
  }
});

it("the agent's own reports of sub-agents that finished together read the same in any finishing order", async () => {
  const ch = findChapter(13)!;
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/13-parallel-limits/demo.json'));
  const result = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
  const lines = result.terminal.split('\n');
  const reports = lines.map((l, i) => (/⎿ explore sub-agent/.test(l) ? i : -1)).filter((i) => i >= 0);
  expect(reports).toHaveLength(5);
  expect(reports.at(-1)! - reports[0]!).toBe(4); // printed back to back, as they finished
  const reversed = [...lines];
  reversed.splice(reports[0]!, 5, ...reports.map((i) => lines[i]!).reverse());
  const echoed = agentReports(result.terminal);
  expect(agentReports(reversed.join('\n'))).toEqual(echoed);
  expect(echoed.filter((l) => l.includes('sub-agent "Port of'))).toHaveLength(5);
});

it('background fork children (chapter 15) render the same transcript for any interleaving, each under its launch notice', async () => {
  const ch = findChapter(15)!;
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/15-background-agents/fork.json'));
  const result = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
  expect(result.ok).toBe(true);
  const plain = new Chalk({ level: 0 });
  const reference = renderTranscript(result.events, { color: plain });
  const notices = reference.flatMap((l, i) => (l.includes('Async agent launched successfully.') ? [i] : []));
  expect(notices).toHaveLength(5);
  expect(reference[notices.at(-1)! + 1]).toMatch(/^ {4}child-1 /);   // the children, right under the launch notices
  expect(reference.filter((l) => l.includes('⇠ notification'))).toHaveLength(5);
  for (const seed of [1, 2, 3, 4, 5]) {
    expect(renderTranscript(reshuffle(result.events, seed), { color: plain })).toEqual(reference);
  }
});

it("the agent's warnings and notes from its terminal come before its books, each under its heading", () => {
  const terminal = ['⏺ agent({})', '✖ agent .claude/agents/x.md skipped: field "description": missing', 'ⓘ agent .claude/agents/y.md: color has no effect in this series (…)', 'ledger: calls=1', 'cost: 1'].join('\n');
  expect(agentReports(terminal)).toEqual([
    "the agent's own warnings (from its terminal):", '  ✖ agent .claude/agents/x.md skipped: field "description": missing', '',
    "the agent's own notes (from its terminal):", '  ⓘ agent .claude/agents/y.md: color has no effect in this series (…)', '',
    "the agent's own accounting (from its terminal):", '  ledger: calls=1', '  cost: 1', '',
  ]);
});

// A run of identical results is one line with its count (a fork child's placeholders); an
// error is a line each time, with no count: five refusals by the cap are five lines.
it('identical results: one line with the count; identical errors: a line each, uncounted', async () => {
  const request = (content: unknown[]): MockEvent => ({
    type: 'request', seq: 1, time: 0, path: '/v1/messages', track: 'main', turn: 1,
    body: { messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: [] }, { role: 'user', content }] },
  } as unknown as MockEvent);
  const result = (text: string, isError: boolean) => ({ type: 'tool_result', tool_use_id: 'x', content: text, ...(isError && { is_error: true }) });
  const lines = renderTranscript([request([
    result('placeholder', false), result('placeholder', false), result('placeholder', false),
    result('Error: refused by the cap', true), result('Error: refused by the cap', true), result('Error: refused by the cap', true),
  ])], { color: new Chalk({ level: 0 }) }).filter((l) => l.includes('⎿'));
  expect(lines).toEqual([
    'main ⎿ placeholder (×3)',
    'main ⎿ error: refused by the cap',
    'main ⎿ error: refused by the cap',
    'main ⎿ error: refused by the cap',
  ]);
});

// A scenario's text goes to the reader's terminal: an escape sequence in it (ESC [31m turns
// the terminal red) or a bidi override would act on the terminal instead of showing.
it('control characters, bidi overrides and invisible characters in what the agent sent are shown as escapes, never sent to the terminal', async () => {
  const scenario = { ...(await loadScenarioFile(path.join(ROOT, 'scenarios', '01-agent-loop', 'demo.json'))), prompts: ['Say \u001b[31mred\u001b[0m and \u202eevil\u202c, zero\u200bwidth, \u{E0041}.'] };
  const result = await runOnce({ codeDir: snapshotDir(findChapter(1)!), scenario, latencyScale: 0 });
  const lines = renderTranscript(result.events, { color: new Chalk({ level: 0 }) });
  const you = lines.find((l) => l.startsWith('you ▸'));
  expect(you).toBe('you ▸ Say \\u001b[31mred\\u001b[0m and \\u202eevil\\u202c, zero\\u200bwidth, \\u{e0041}.');
  expect(lines.join('\n')).not.toMatch(/[\u001b\u202e\u200b\u{E0041}]/u);
});

it('--trace: each request line says how many messages it carries and what the last one holds, block by block', async () => {
  const ch = findChapter(1)!;
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/01-agent-loop/two-calls.json'));
  const result = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
  const requests = renderTranscript(result.events, { color: new Chalk({ level: 0 }), trace: true }).filter((l) => l.includes('→ request #'));
  expect(requests).toHaveLength(2);
  expect(requests[0]).toContain(', 1 message (the last: user, text), ');
  expect(requests[1]).toContain(', 3 messages (the last: user, tool_result ×2), ');
});

it('--trace: a tool_result flagged is_error is shown as one', async () => {
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/02-tools/demo.json'));
  const result = await runOnce({ codeDir: snapshotDir(findChapter(2)!), scenario, latencyScale: 0 });
  const requests = renderTranscript(result.events, { color: new Chalk({ level: 0 }), trace: true }).filter((l) => l.includes('→ request #'));
  // Which requests carried an error back, read from what the agent really sent.
  const carried = result.events.flatMap((e) => (e.type === 'request' ? [JSON.stringify((e.body.messages as unknown[]).at(-1)).includes('"is_error":true')] : []));
  expect(carried.filter(Boolean).length).toBeGreaterThan(0);
  requests.forEach((line, i) => expect(line.includes('tool_result (error)'), line).toBe(carried[i]));
});

// An empty answer is not kept, so the agent sends the unanswered prompt again with the next
// one: the second request still ends with it. It was shown as typed twice.
it('a prompt the agent sends again (its answer was dropped) is shown once, as typed once', async () => {
  const ch = findChapter(1)!;
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/01-agent-loop/empty-answer.json'));
  const result = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
  const requests = result.events.filter((e) => e.type === 'request' && e.path === '/v1/messages');
  expect(requests).toHaveLength(2);
  // The agent really sent the first prompt in both requests.
  expect(requests.map((r) => JSON.stringify(r.type === 'request' ? r.body.messages : null).includes(scenario.prompts[0]!))).toEqual([true, true]);
  const typed = renderTranscript(result.events, { color: new Chalk({ level: 0 }), scenario }).filter((l) => l.startsWith('you ▸'));
  expect(typed).toEqual(scenario.prompts.map((p) => `you ▸ ${p}`));
});

// …but the same prompt typed again after an answer that was kept (after /clear, the request
// is the same bytes as the first) went over the wire twice, and is shown twice.
/** Chapter 4 run on `prompts`, main answering with `answers`: its events, and the transcript's typed lines. */
async function typedInChapter4(prompts: string[], answers: string[]): Promise<{ events: MockEvent[]; typed: string[] }> {
  const scenario = parseScenario(JSON.stringify({ title: 'typed', prompts, tracks: { main: { turns: answers.map((text) => ({ text })) } } }), 'typed.json');
  const result = await runOnce({ codeDir: snapshotDir(findChapter(4)!), scenario, latencyScale: 0 });
  return { events: result.events, typed: renderTranscript(result.events, { color: new Chalk({ level: 0 }), scenario }).filter((l) => l.startsWith('you ▸')) };
}

it('a prompt typed again after /clear is shown again: only a lost answer makes a repeat not new', async () => {
  const { events, typed } = await typedInChapter4(['What is 2+2?', '/clear', 'What is 2+2?'], ['4.', 'Still 4.']);
  const requests = events.filter((e) => e.type === 'request' && e.path === '/v1/messages');
  // The agent really sent the same messages twice.
  expect(requests.map((r) => JSON.stringify(r.type === 'request' ? r.body.messages : null))).toEqual([JSON.stringify([{ role: 'user', content: 'What is 2+2?' }]), JSON.stringify([{ role: 'user', content: 'What is 2+2?' }])]);
  expect(typed).toEqual(['you ▸ What is 2+2?', 'you ▸ /clear (nothing sent)', 'you ▸ What is 2+2?']);
});

// Whether a command went out is read from whole user texts: a prompt that only mentions
// /clear is no sending of it. And a command with no place to be shown is not shown at the end
// as if typed last: chapter 10's mid-session case goes on in a track of its own after /plan.
it('a command is "nothing sent" unless a user text is that command; one with no place is left out', async () => {
  const { typed } = await typedInChapter4(['What does /clear do?', '/clear', 'Hi.'], ['It starts over.', 'Hello.']);
  expect(typed).toEqual(['you ▸ What does /clear do?', 'you ▸ /clear (nothing sent)', 'you ▸ Hi.']);
  const planning = await loadScenarioFile(path.join(ROOT, 'scenarios/10-plan-mode/mid-session.json'));
  expect(planning.prompts).toContain('/plan');
  const ran = await runOnce({ codeDir: snapshotDir(findChapter(10)!), scenario: planning, latencyScale: 0 });
  expect(renderTranscript(ran.events, { color: new Chalk({ level: 0 }), scenario: planning }).filter((l) => l.includes('(nothing sent)'))).toEqual([]);
});

// /clear sends nothing, so only the conversation starting over shows where it was typed: a
// background agent's notification woke the main agent after it, in a conversation of its own.
it('a /clear is shown where it was typed, before the wake-up that starts the new conversation', async () => {
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/15-background-agents/clear-approval.json'));
  const result = await runOnce({ codeDir: snapshotDir(findChapter(15)!), scenario, latencyScale: 0 });
  const main = result.events.filter((e) => e.type === 'request' && e.track === 'main' && e.path === '/v1/messages');
  // The wire: the wake-up request starts over, with the notification as its first message.
  const wake = main.findIndex((r) => r.type === 'request' && JSON.stringify((r.body.messages as unknown[])[0]).includes('<task-notification>'));
  expect(wake).toBeGreaterThan(0);
  const lines = renderTranscript(result.events, { color: new Chalk({ level: 0 }), scenario });
  const clear = lines.indexOf('you ▸ /clear (nothing sent)');
  expect(clear).toBeGreaterThan(lines.findIndex((l) => l.startsWith('main ▸ ')));
  expect(lines[clear + 1]).toMatch(/^main ⇠ notification agent-1 completed/);
});

// A stopped agent continued with send_message: its new run is shown under that call, not
// right after its first run (which its unanswered task made look like no continuation).
it('a stopped background agent, continued, is shown after the send_message that continued it', async () => {
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/15-background-agents/later-plan.json'));
  const result = await runOnce({ codeDir: snapshotDir(findChapter(15)!), scenario, latencyScale: 0 });
  // The stop found the helper running (its first answer is slow), as the case means.
  expect(result.events.some((e) => e.type === 'request' && e.track === 'main' && JSON.stringify(e.body.messages).includes('agent-1 stopped.'))).toBe(true);
  const lines = renderTranscript(result.events, { color: new Chalk({ level: 0 }), scenario });
  const sent = lines.findIndex((l) => l.startsWith('main ⏺ send_message('));
  const stop = lines.findIndex((l) => l.startsWith('main ⏺ stop_agent('));
  const message = lines.indexOf('    helper message ▸ Clear notes.txt.');
  expect(stop).toBeGreaterThan(0);
  expect(message).toBeGreaterThan(sent);
  expect(lines.slice(stop, sent).filter((l) => l.startsWith('    helper'))).toEqual([]);
});

// Chapter 14's policy island: a typed /skill runs in a sub-agent of its own before the main
// agent is sent anything. The typed line came after the island's run, and a skill whose name
// the report repeats (/tally) was shown as typed text the user never typed.
it('a policy island is shown under the /skill typed for it, and what the main agent is then sent under the island', async () => {
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/14-custom-agents/island.json'));
  const result = await runOnce({ codeDir: snapshotDir(findChapter(14)!), scenario, latencyScale: 0 });
  const lines = renderTranscript(canonicalOrder(result.events), { color: new Chalk({ level: 0 }), scenario, asked: result.asked });
  for (const [typed, track] of [['/changelog 1.4.0', 'scribe'], ['/tally', 'counter']] as const) {
    const you = lines.indexOf(`you ▸ ${typed}`);
    const task = lines.findIndex((l) => l.trimStart().startsWith(`${track} task ▸`));
    const lastOfIsland = lines.length - 1 - [...lines].reverse().findIndex((l) => l.trimStart().startsWith(`${track} `));
    const sentAs = lines.findIndex((l) => l.startsWith(`  sent as ▸ The ${typed.split(' ')[0]} skill ran in an isolated`));
    expect(you, typed).toBeGreaterThanOrEqual(0);
    expect([you < task, task < lastOfIsland, lastOfIsland < sentAs], typed).toEqual([true, true, true]);
  }
  expect(lines.filter((l) => l.startsWith('you ▸ ')).map((l) => l.slice(6))).toEqual(scenario.prompts);
});
