// Scenario validation: each kind of mistake a teacher can make gives ONE line with
// the file, the JSON path and what was expected. Also the token rule itself.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScenarioError, countTokens, loadScenario, parseScenario } from '../src/mock/index.ts';
import { EXPECTATION_KINDS, ROOT_FIELDS, TURN_FIELDS } from '../src/mock/scenario.ts';

const F = 'scenarios/11-subagents/demo.json';
const base = () => ({
  title: 'Demo',
  prompts: ['Explore the repo'],
  tracks: {
    main: { turns: [{ text: 'Delegating.', tool_calls: [{ name: 'Agent', input: { prompt: 'look' } }] }, { text: 'Done.' }] },
    explorer: { match: { system: 'explorer' }, turns: [{ text: 'Looking.' }, { text: 'Found it.' }] },
  },
});
type S = ReturnType<typeof base> & Record<string, unknown>;

function errorOf(mutate: (s: S) => void): string {
  const s = base() as S;
  mutate(s);
  try {
    parseScenario(JSON.stringify(s, null, 2), F);
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    const msg = (e as Error).message;
    expect(msg).not.toContain('\n');
    return msg;
  }
  throw new Error('expected a ScenarioError');
}

describe('parseScenario accepts a good scenario', () => {
  it('returns it with the file set', () => {
    const s = parseScenario(JSON.stringify({ $schema: '../../src/mock/scenario.schema.json', ...base() }), F);
    expect(s.file).toBe(F);
    expect(s.tracks.explorer!.match).toEqual({ system: 'explorer' });
  });
});

describe('parseScenario rejects mistakes with one precise line', () => {
  const cases: [string, (s: S) => void, string][] = [
    ['a tool call without input', (s) => ((s.tracks.explorer.turns[1] as Record<string, unknown>).tool_calls = [{ name: 'grep' }]),
    `${F}: $.tracks.explorer.turns[1].tool_calls[0]: missing "input" (a tool call needs an input object)`],
    ['a tool call whose input is not an object', (s) => ((s.tracks.main.turns[0]!.tool_calls![0] as Record<string, unknown>).input = ['x']),
      `${F}: $.tracks.main.turns[0].tool_calls[0].input: expected an object (the tool's arguments), got an array`],
    ['a tool call without a name', (s) => (s.tracks.main.turns[0]!.tool_calls![0] = { input: {} } as never),
      `${F}: $.tracks.main.turns[0].tool_calls[0]: missing "name" (a tool call needs the name of the tool to call)`],
    ['an unknown field', (s) => (s.promts = ['x']),
      `${F}: $.promts: unknown field "promts" (allowed here: $schema, title, description, model, files, home_files, env, argv, prompts, answers, tracks, expect)`],
    ['an unknown field in a turn', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).txt = 'x'),
      `${F}: $.tracks.main.turns[1].txt: unknown field "txt" (allowed here: text, tool_calls, stop_reason, usage, latency_ms, idle_ms, error, allow_unoffered)`],
    ['a wrong type', (s) => ((s as Record<string, unknown>).title = 42), `${F}: $.title: expected a string (what the scenario shows), got a number`],
    ['a missing required field', (s) => delete (s as Record<string, unknown>).prompts, `${F}: $: missing "prompts" (what the user types, in order)`],
    ['an empty prompt', (s) => (s.prompts = ['  ']), `${F}: $.prompts[0]: must not be empty (a prompt the user types)`],
    ['no prompts at all', (s) => (s.prompts = []), `${F}: $.prompts: must not be empty (give at least one prompt)`],
    ['a bad stop_reason', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).stop_reason = 'done'),
      `${F}: $.tracks.main.turns[1].stop_reason: expected one of end_turn, tool_use, max_tokens, stop_sequence, got "done"`],
    ['a negative idle_ms', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).idle_ms = -1),
      `${F}: $.tracks.main.turns[1].idle_ms: expected a number of milliseconds ≥ 0 (time that passes on the mock's clock before the response), got -1`],
    ['a bad error status', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).error = { status: 503 }),
      `${F}: $.tracks.main.turns[1].error.status: expected one of 400, 401, 404, 429, 500, 529, got 503`],
    ['an unknown expectation kind', (s) => (s.expect = [{ name: 'x', calls: { track: 'main' } }]),
      `${F}: $.expect[0].calls: unknown field "calls" (allowed here: name, hint and exactly one check of: tool_result, file, requests, tools, system, system_stable, never, streamed, usage, terminal, model, fresh_context, isolated, history, ledger, fork_prefix, fork_costs, concurrent)`],
    ['two kinds in one expectation', (s) => (s.expect = [{ name: 'x', never: { track: 'explorer' }, requests: { track: 'main', count: 2 } }]),
      `${F}: $.expect[0]: two checks "requests" and "never" in one expectation (give exactly one; split it in two)`],
    ['an expectation naming an undefined track', (s) => (s.expect = [{ name: 'x', requests: { track: 'planner', count: 1 } }]),
      `${F}: $.expect[0].requests.track: no track named "planner" (defined: main, explorer)`],
    ['a track with no turns', (s) => (s.tracks.explorer.turns = []), `${F}: $.tracks.explorer.turns: must not be empty (a track needs at least one turn)`],
    ['a main-less scenario with a track lacking match', (s) => {
      const t = s.tracks as Record<string, unknown>;
      t.helper = t.main;
      delete t.main;
    }, `${F}: $.tracks.helper: missing "match" (only the track named "main" may omit it: it is the fallback; any other track without a match would never receive a request)`],
    ['an absolute file path', (s) => (s.files = { '/etc/passwd': 'x' }),
      `${F}: $.files["/etc/passwd"]: "/etc/passwd" is not a relative path inside the workspace (no leading "/", no drive letter, no "..")`],
    ['a path climbing out', (s) => (s.expect = [{ name: 'x', file: { path: 'src/../../secret', exists: false } }]),
      `${F}: $.expect[0].file.path: "src/../../secret" is not a relative path inside the workspace (no leading "/", no drive letter, no "..")`],
    ['an empty match', (s) => (s.tracks.explorer.match = {} as never), `${F}: $.tracks.explorer.match: needs at least one condition (system, user, first_user or not_user)`],
    ['a missing check field', (s) => (s.expect = [{ name: 'x', usage: { track: 'main' } }]), `${F}: $.expect[0].usage: missing "request" (a usage check needs "request")`],
  ];
  for (const [what, mutate, expected] of cases) {
    it(what, () => expect(errorOf(mutate)).toBe(expected));
  }

  it('bad JSON gives line and column', () => {
    const text = '{\n  "title": "x",\n  "prompts": ["a"]\n  "tracks": {}\n}';
    expect(() => parseScenario(text, F)).toThrow(ScenarioError);
    try {
      parseScenario(text, F);
    } catch (e) {
      expect((e as Error).message).toMatch(new RegExp(`^${F.replace(/\./g, '\\.')}: line 4, column 3: not valid JSON \\(`));
      expect((e as Error).message).not.toContain('\n');
    }
  });
});

describe('loadScenario', () => {
  it('reads a file, and reports a missing one in one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mock-scn-'));
    try {
      const file = join(dir, 'demo.json');
      await writeFile(file, JSON.stringify(base()));
      expect((await loadScenario(file)).file).toBe(file);
      await expect(loadScenario(join(dir, 'nope.json'))).rejects.toThrow(`${join(dir, 'nope.json')}: $: file not found`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('countTokens', () => {
  it('is ceil(UTF-8 bytes / 4), at least 1', () => {
    expect(countTokens('')).toBe(1);
    expect(countTokens('abcd')).toBe(1);
    expect(countTokens('abcde')).toBe(2);
    expect(countTokens('é')).toBe(1); // 2 bytes
    expect(countTokens('ééé')).toBe(2); // 6 bytes
    expect(countTokens('—'.repeat(4))).toBe(3); // em dash: 3 bytes each
  });
});

describe('scenario.schema.json stays in step with the loader', () => {
  it('has the same top-level fields, turn fields and expectation kinds', async () => {
    const schema = JSON.parse(await readFile(new URL('../src/mock/scenario.schema.json', import.meta.url), 'utf8'));
    expect(Object.keys(schema.properties).sort()).toEqual([...ROOT_FIELDS].sort());
    expect(Object.keys(schema.$defs.turn.properties).sort()).toEqual([...TURN_FIELDS].sort());
    const kinds = Object.keys(schema.$defs.expectation.properties).filter((k) => k !== 'name' && k !== 'hint');
    expect(kinds.sort()).toEqual(Object.keys(EXPECTATION_KINDS).sort());
    for (const kind of kinds) {
      expect(Object.keys(schema.$defs.expectation.properties[kind].properties).sort()).toEqual(Object.keys(EXPECTATION_KINDS[kind]!).sort());
    }
  });
});
