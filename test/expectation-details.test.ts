// What a failing expectation says about what really happened: the detail `--check` and a demo
// print under a ✖ line, worded for a person (counts with their nouns in the right number).

import { it, expect } from 'vitest';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseScenario } from '../src/mock/index.ts';
import { runChapter } from '../src/runner/run-chapter.ts';
import { ROOT } from '../src/runner/scenarios.ts';
import { makeProjectScratch } from './temp-guard.ts';

it("a requests check that fails says how many the track sent: '1 request', '2 requests'", async () => {
  const scenario = parseScenario(JSON.stringify({
    title: 'counts', prompts: ['Say hello.', 'Again.'],
    // A third turn nobody asks for: a check for more requests than the track has turns is refused when the scenario loads.
    tracks: { main: { turns: [{ text: 'Hello.' }, { text: 'Hello again.' }, { text: 'Unused.' }] } },
    expect: [
      { name: 'exactly one', requests: { track: 'main', count: 1 } },
      { name: 'at most one', requests: { track: 'main', max: 1 } },
      { name: 'at least three', requests: { track: 'main', min: 3 } },
    ],
  }), 'counts.json');
  const r = await runChapter({ codeDir: path.join(ROOT, 'steps', '04-cli-sessions'), scenario, latencyScale: 0 });
  expect(r.expectations.map((e) => [e.name, e.detail])).toEqual([
    ['exactly one', 'main sent 2 requests, expected 1'],
    ['at most one', 'main sent 2 requests, expected at most 1'],
    ['at least three', 'main sent 2 requests, expected at least 3'],
  ]);
  const one = parseScenario(JSON.stringify({
    title: 'one', prompts: ['Say hello.'], tracks: { main: { turns: [{ text: 'Hello.' }, { text: 'Unused.' }] } },
    expect: [{ name: 'two', requests: { track: 'main', count: 2 } }],
  }), 'one.json');
  const single = await runChapter({ codeDir: path.join(ROOT, 'steps', '04-cli-sessions'), scenario: one, latencyScale: 0 });
  expect(single.expectations[0]!.detail).toBe('main sent 1 request, expected 2');
});

it('a ledger check that names a track nobody answered fails, saying so: its usage cannot be in the ledger', async () => {
  const scenario = parseScenario(JSON.stringify({
    title: 'idle track', prompts: ['Say hello.'],
    tracks: {
      main: { turns: [{ text: 'Hello.' }] },
      helper: { match: { first_user: 'a task for the helper' }, turns: [{ text: 'Helped.' }] },
    },
    expect: [
      { name: 'with the helper', ledger: { tracks: ['main', 'helper'] } },
      { name: 'main alone', ledger: { tracks: ['main'] } },
    ],
  }), 'idle.json');
  const r = await runChapter({ codeDir: path.join(ROOT, 'steps', '08-prompt-caching'), scenario, latencyScale: 0 });
  expect(r.expectations.map((e) => [e.name, e.ok, e.detail])).toEqual([
    ['with the helper', false, 'helper was never answered: there is no usage of it to add up'],
    ['main alone', true, 'ok'],
  ]);
});

it("a system_stable check with also compares both tracks' requests: a sub-agent's own system text is named as the change", async () => {
  const scenario = parseScenario(JSON.stringify({
    title: 'two tracks', prompts: ['Ask the explorer.'],
    tracks: {
      main: { turns: [{ tool_calls: [{ name: 'agent', input: { description: 'Look', prompt: 'a task for the explorer', subagent_type: 'explore' } }] }, { text: 'Done.' }] },
      explorer: { match: { first_user: 'a task for the explorer' }, turns: [{ text: 'Nothing here.' }] },
    },
    expect: [
      { name: 'main alone', system_stable: { track: 'main' } },
      { name: 'main and the explorer', system_stable: { track: 'main', also: 'explorer' } },
    ],
  }), 'two-tracks.json');
  const r = await runChapter({ codeDir: path.join(ROOT, 'steps', '11-subagents'), scenario, latencyScale: 0 });
  const seq = (track: string) => r.events.find((e) => e.type === 'request' && e.track === track)!.seq;
  expect(r.expectations.map((e) => [e.name, e.ok, e.detail])).toEqual([
    ['main alone', true, 'ok'],
    ['main and the explorer', false, `explorer request #${seq('explorer')} sent other system bytes than main request #${seq('main')}`],
  ]);
});

it("a last_user_blocks check says how the last user message differs: one string, how many blocks, which block starts otherwise", async () => {
  const checks = (openings: string[][]) => openings.map((o, i) => ({ name: `blocks ${i + 1}`, history: { track: 'main', request: 1, last_user_blocks: o } }));
  const planned = parseScenario(JSON.stringify({
    title: 'plan mode', prompts: ['/plan', 'Look around.'], tracks: { main: { turns: [{ text: 'Looked.' }] } },
    expect: checks([['Look around.', '<system-reminder>'], ['Look around.'], ['<system-reminder>', 'Look around.']]),
  }), 'blocks.json');
  const r = await runChapter({ codeDir: path.join(ROOT, 'steps', '10-plan-mode'), scenario: planned, latencyScale: 0 });
  expect(r.expectations.map((e) => [e.name, e.ok, e.detail])).toEqual([
    ['blocks 1', true, 'ok'],
    ['blocks 2', false, "main request #1's last user message has 2 blocks (text, text), expected 1 text block"],
    ['blocks 3', false, 'main request #1\'s last user message has block 1 starting "Look around.", expected "<system-reminder>"'],
  ]);
  const plain = parseScenario(JSON.stringify({
    title: 'a string', prompts: ['Say hello.'], tracks: { main: { turns: [{ text: 'Hello.' }] } },
    expect: checks([['Say hello.', '<system-reminder>']]),
  }), 'string.json');
  // Chapter 4 sends a prompt as it was typed, a string (from chapter 8 on it is a block, for its cache breakpoint).
  const s = await runChapter({ codeDir: path.join(ROOT, 'steps', '04-cli-sessions'), scenario: plain, latencyScale: 0 });
  expect(s.expectations[0]!.detail).toBe('main request #1\'s last user message is one string ("Say hello."), not 2 text blocks');
});

// Two long texts cut at their start alike showed the same words on both sides, and the
// difference past the cut went unseen.
it('a file that is not what it should be: both texts are shown where they first differ', async () => {
  const lines = Array.from({ length: 12 }, (_, i) => `setting${i} = ${i}\n`);
  const scenario = parseScenario(JSON.stringify({
    title: 'one line changed', prompts: ['Change nothing.'],
    files: { 'settings.txt': lines.join('') },
    tracks: { main: { turns: [{ text: 'Nothing changed.' }] } },
    expect: [{ name: 'setting 9 is nine hundred', file: { path: 'settings.txt', equals: lines.join('').replace('setting9 = 9', 'setting9 = 900') } }],
  }), 'settings.json');
  const r = await runChapter({ codeDir: path.join(ROOT, 'steps', '02-tools'), scenario, latencyScale: 0 });
  const detail = r.expectations[0]!.detail!;
  const [, got, wanted] = /^settings\.txt is "(.*)", expected "(.*)"$/.exec(detail)!;
  expect(got).not.toBe(wanted);
  expect(got).toContain('setting9 = 9\\n');
  expect(wanted).toContain('setting9 = 900');
  // A difference of a trailing line break alone is shown too, not trimmed away on both sides.
  const newline = parseScenario(JSON.stringify({
    title: 'a line break more', prompts: ['Change nothing.'], files: { 'a.txt': 'port = 8080\n' },
    tracks: { main: { turns: [{ text: 'Nothing changed.' }] } },
    expect: [{ name: 'no line break', file: { path: 'a.txt', equals: 'port = 8080' } }],
  }), 'newline.json');
  const n = await runChapter({ codeDir: path.join(ROOT, 'steps', '02-tools'), scenario: newline, latencyScale: 0 });
  expect(n.expectations[0]!.detail).toBe('a.txt is "port = 8080\\n", expected "port = 8080"');
});

it('an is_error check names the flag the result lacks or carries, not a field that was never sent', async () => {
  const scenario = parseScenario(JSON.stringify({
    title: 'flags', prompts: ['Read both.'], files: { 'here.txt': 'here\n' },
    tracks: { main: { turns: [
      { tool_calls: [{ name: 'read_file', input: { path: 'here.txt' } }, { name: 'read_file', input: { path: 'missing.txt' } }] },
      { text: 'Done.' },
    ] } },
    expect: [
      { name: 'the first is an error', tool_result: { track: 'main', tool: 'read_file', call: 1, is_error: true } },
      { name: 'the second is no error', tool_result: { track: 'main', tool: 'read_file', call: 2, is_error: false } },
    ],
  }), 'flags.json');
  const r = await runChapter({ codeDir: path.join(ROOT, 'steps', '02-tools'), scenario, latencyScale: 0 });
  expect(r.expectations.map((e) => e.detail)).toEqual([
    `main's read_file call #1 (its result went back in request #2): the result is not flagged is_error: true: "here"`,
    expect.stringMatching(/^main's read_file call #2 \(its result went back in request #2\): the result is flagged is_error: true, expected no error: "Error: ENOENT/),
  ]);
});

it("a breakpoints check reads each request's markers by place, `last` standing for the last of its list there", async () => {
  const scenario = parseScenario(JSON.stringify({
    title: 'breakpoints', prompts: ['Read a.txt.'], files: { 'a.txt': 'hello' },
    tracks: { main: { turns: [{ tool_calls: [{ name: 'read_file', input: { path: 'a.txt' } }] }, { text: 'It says hello.' }] } },
    expect: [
      { name: 'where chapter 8 puts them', breakpoints: { track: 'main', at: ['tools[last]', 'system[0]', 'messages[last].content[last]'] } },
      { name: 'the second request, by number', breakpoints: { track: 'main', request: 2, at: ['tools[5]', 'system[last]', 'messages[2].content[0]'] } },
      { name: 'one place left out', breakpoints: { track: 'main', at: ['tools[last]', 'system[0]'] } },
      { name: 'a place with no marker', breakpoints: { track: 'main', request: 2, at: ['tools[0]', 'system[0]', 'messages[last].content[last]'] } },
      { name: 'none at all', breakpoints: { track: 'main', at: [] } },
      { name: 'a string content, which carries none', breakpoints: { track: 'main', request: 1, at: ['messages[0].content'] } },
    ],
  }), 'breakpoints.json');
  const r = await runChapter({ codeDir: path.join(ROOT, 'steps', '08-prompt-caching'), scenario, latencyScale: 0 });
  const [first, second] = r.events.filter((e) => e.type === 'request' && e.track === 'main').map((e) => e.seq);
  expect(r.expectations.map((e) => [e.name, e.ok, e.detail])).toEqual([
    ['where chapter 8 puts them', true, 'ok'],
    ['the second request, by number', true, 'ok'],
    ['one place left out', false, `main request #${first} has a breakpoint at messages[0].content[0], which is none of the places expected (tools[last], system[0]); its breakpoints: tools[5], system[0], messages[0].content[0]`],
    ['a place with no marker', false, `main request #${second} has no breakpoint at tools[0]; its breakpoints: tools[5], system[0], messages[2].content[0]`],
    ['none at all', false, `main request #${first} has a breakpoint at tools[5], which is none of the places expected (none); its breakpoints: tools[5], system[0], messages[0].content[0]`],
    ['a string content, which carries none', false, `main request #${first} has no breakpoint at messages[0].content; its breakpoints: tools[5], system[0], messages[0].content[0]`],
  ]);
});

it('a requests check counts the track\'s requests, and names the ones that reached no track (refused by the API)', async () => {
  const dir = makeProjectScratch(ROOT, 'astray-');
  try {
    // Chapter 1 without its tool results: the second request asks again with a tool_use unanswered, and the API refuses it.
    cpSync(path.join(ROOT, 'steps', '01-agent-loop'), dir, { recursive: true });
    const file = path.join(dir, 'agent.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace("messages.push({ role: 'user', content: results });", ''));
    const scenario = parseScenario(JSON.stringify({
      title: 'astray', prompts: ['Read a.txt.'], files: { 'a.txt': 'hi\n' },
      tracks: { main: { turns: [{ tool_calls: [{ name: 'read_file', input: { path: 'a.txt' } }] }, { text: 'It says hi.' }] } },
      expect: [{ name: 'two', requests: { track: 'main', count: 2 } }],
    }), 'astray.json');
    const r = await runChapter({ codeDir: dir, scenario, latencyScale: 0, freshModule: true });
    const refused = r.events.filter((e) => e.type === 'request' && e.track === null).length;
    expect(refused).toBe(1);
    expect(r.expectations[0]!.detail).toBe('main sent 1 request (and 1 more that reached no track: refused by the API, or matched by no script), expected 2');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
