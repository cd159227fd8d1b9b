// Strictness: the mock rejects what the real API rejects (with a 400 whose message
// is close to the real one) and accepts what it accepts, such as consecutive
// same-role messages, which the API merges. Also routing: ambiguous, unmatched,
// out of turns, a shared track, and parallel tracks routed by content.

import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../src/mock/index.ts';
import { client, repeatTrack } from '../src/mock/testkit.ts';
import { useMocks } from './use-mocks.ts';

const MODEL = 'claude-sonnet-4-6';
const mock = useMocks();

const tools: Anthropic.Tool[] = [{ name: 'read_file', input_schema: { type: 'object', properties: {} } }];
const use = (id: string, name = 'read_file'): Anthropic.ToolUseBlockParam => ({ type: 'tool_use', id, name, input: {} });
const result = (id: string): Anthropic.ToolResultBlockParam => ({ type: 'tool_result', tool_use_id: id, content: 'data' });

/** Sends a raw body (so tests can break rules the SDK types would stop). */
async function send(m: MockServer, body: Record<string, unknown>): Promise<unknown> {
  return client(m).messages.create({ model: MODEL, max_tokens: 10, ...body } as unknown as Anthropic.MessageCreateParamsNonStreaming);
}

async function rejected(body: Record<string, unknown>, pattern: RegExp | string): Promise<MockServer> {
  const m = await mock({ main: repeatTrack(1) });
  const err = await send(m, body).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  const message = (err as APIError).apiMessage ?? '';
  if (typeof pattern === 'string') expect(message).toContain(pattern);
  else expect(message).toMatch(pattern);
  // Logged as a rule broken by the agent, not as an injected error; no turn used.
  expect(m.events.at(-1)).toMatchObject({ type: 'error', injected: false, status: 400, track: null });
  expect(m.failures).toEqual([]);
  return m;
}

describe('rules the real API enforces', () => {
  it('a tool_use must be answered in the very next user message', async () => {
    await rejected(
      { tools, messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: [use('toolu_a')] }, { role: 'user', content: 'well?' }] },
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a.',
    );
  });

  it('tool_result blocks come first in the user message', async () => {
    await rejected(
      {
        tools,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [use('toolu_a')] },
          { role: 'user', content: [{ type: 'text', text: 'here:' }, result('toolu_a')] },
        ],
      },
      'messages.2: Did not find 1 tool_result block(s) at the beginning of this message.',
    );
  });

  it('a tool_result must answer a tool_use of the previous assistant message', async () => {
    await rejected(
      {
        tools,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [use('toolu_a')] },
          { role: 'user', content: [result('toolu_a'), result('toolu_zzz')] },
        ],
      },
      'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz.',
    );
  });

  it('content must not be empty (string or array)', async () => {
    const msg = 'all messages must have non-empty content except for the optional final assistant message';
    await rejected({ messages: [{ role: 'user', content: '' }] }, `messages.0: ${msg}`);
    await rejected({ messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [] }, { role: 'user', content: 'b' }] }, `messages.1: ${msg}`);
  });

  it('an empty final assistant prefill is accepted', async () => {
    const m = await mock({ main: repeatTrack(1, 'done') });
    const msg = (await send(m, { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: '' }] })) as Anthropic.Message;
    expect(msg.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('max_tokens is required and positive', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const noMax = await client(m).messages.create({ model: MODEL, messages: [{ role: 'user', content: 'a' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming).catch((e: unknown) => e);
    expect((noMax as APIError).apiMessage).toBe('max_tokens: Field required');
    await rejected({ max_tokens: 0, messages: [{ role: 'user', content: 'a' }] }, 'max_tokens: Input should be greater than or equal to 1');
  });

  it('messages must exist, be non-empty and start with the user', async () => {
    await rejected({ messages: undefined }, 'messages: Field required');
    await rejected({ messages: [] }, 'messages: List should have at least 1 item');
    await rejected({ messages: [{ role: 'assistant', content: 'hi' }] }, 'messages: first message must use the "user" role');
  });

  it('roles are user or assistant', async () => {
    await rejected({ messages: [{ role: 'user', content: 'a' }, { role: 'system', content: 'b' }] }, "messages.1.role: Input should be 'user' or 'assistant'");
  });

  it('a tool_use in the history may name a tool this request no longer offers', async () => {
    // The API accepts it; only the prompt cache notices that the tool list changed.
    const m = await mock({ main: repeatTrack(1, 'done') });
    const msg = (await send(m, { tools, messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: [use('toolu_a', 'write_file')] }, { role: 'user', content: [result('toolu_a')] }] })) as Anthropic.Message;
    expect(msg.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('tool blocks need tools defined', async () => {
    await rejected(
      { messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: [use('toolu_a')] }, { role: 'user', content: [result('toolu_a')] }] },
      'must define tools',
    );
  });

  it('consecutive same-role messages are merged, then checked', async () => {
    const m = await mock({ main: repeatTrack(2, 'fine') });
    const a = (await send(m, { messages: [{ role: 'user', content: 'one' }, { role: 'user', content: 'two' }] })) as Anthropic.Message;
    expect(a.content).toEqual([{ type: 'text', text: 'fine' }]);
    // tool_result in one user message, the follow-up text in another: one user turn after merging.
    const b = (await send(m, {
      tools,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }] },
        { role: 'assistant', content: [use('toolu_a')] },
        { role: 'user', content: [result('toolu_a')] },
        { role: 'user', content: 'and then?' },
      ],
    })) as Anthropic.Message;
    expect(b.stop_reason).toBe('end_turn');
    expect(m.failures).toEqual([]);
  });
});

describe('routing', () => {
  const sys = (system: string, user: string) => ({ system, messages: [{ role: 'user', content: user }] });

  it('two matching tracks: a failure naming both, answered with a [mock] 400', async () => {
    const m = await mock({
      main: repeatTrack(1),
      a: { match: { user: 'explore' }, turns: [{ text: 'a' }] },
      b: { match: { system: 'helper' }, turns: [{ text: 'b' }] },
    });
    const err = (await send(m, sys('You are a helper.', 'explore the repo')).catch((e: unknown) => e)) as APIError;
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err.apiMessage).toMatch(/^\[mock\] test\/inline\.json: ambiguous: tracks "a", "b" all match/);
    expect(m.failures).toHaveLength(1);
    expect(m.failures[0]).toContain('last user text "explore the repo"');
    expect(m.events[0]).toMatchObject({ type: 'request', track: null, turn: null });
  });

  it('no matching track and no main: a failure', async () => {
    const m = await mock({ a: { match: { user: 'explore' }, turns: [{ text: 'a' }] } });
    const err = (await send(m, sys('sys', 'something else')).catch((e: unknown) => e)) as APIError;
    expect(err.apiMessage).toContain('[mock] test/inline.json: no track matches the request (last user text "something else", system "sys")');
    expect(m.failures).toHaveLength(1);
  });

  it('a track out of turns: a failure naming the track', async () => {
    const m = await mock({ main: repeatTrack(1) });
    await send(m, sys('s', 'one'));
    const err = (await send(m, sys('s', 'two')).catch((e: unknown) => e)) as APIError;
    expect(err.apiMessage).toContain('track "main" is out of turns: it has 1 and this is request 2');
    expect(m.failures[0]).toContain('out of turns');
  });

  it('a script calling a tool the request does not offer is a failure unless allowed', async () => {
    const m = await mock({ main: { turns: [{ tool_calls: [{ name: 'rm_rf', input: {} }] }, { tool_calls: [{ name: 'rm_rf', input: {} }], allow_unoffered: true }] } });
    const err = (await send(m, { tools, ...sys('s', 'go') }).catch((e: unknown) => e)) as APIError;
    expect(err.apiMessage).toContain('$.tracks.main.turns[0]: calls "rm_rf" but the request offers only [read_file]');
    // The refusal did not use up turn 0: offered the tool, the same request gets it.
    const rmRf = { name: 'rm_rf', description: 'x', input_schema: { type: 'object' as const } };
    const ok = (await send(m, { tools: [...tools, rmRf], ...sys('s', 'go') })) as Anthropic.Message;
    expect(ok.content[0]).toMatchObject({ type: 'tool_use', name: 'rm_rf' });
    // Turn 1 allows it on purpose: answered even though the request does not offer it.
    const allowed = (await send(m, { tools, ...sys('s', 'go') })) as Anthropic.Message;
    expect(allowed.content[0]).toMatchObject({ type: 'tool_use', name: 'rm_rf' });
    expect(m.failures).toHaveLength(1);
  });

  it('the agent may send back a refusal for a call the mock made to an unoffered tool', async () => {
    const m = await mock({ main: { turns: [{ tool_calls: [{ name: 'rm_rf', input: {} }], allow_unoffered: true }, { text: 'understood' }] } });
    const first = (await send(m, { tools, ...sys('s', 'go') })) as Anthropic.Message;
    const call = first.content[0] as Anthropic.ToolUseBlock;
    const next = (await send(m, {
      tools,
      system: 's',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'rm_rf is not available', is_error: true }] },
      ],
    })) as Anthropic.Message;
    expect(next.content[0]).toMatchObject({ text: 'understood' });
  });

  it("a call's input takes a value from the request's tool results; one that matches nothing is a failure that uses no turn", async () => {
    const m = await mock({ main: { turns: [
      { tool_calls: [{ name: 'read_file', input: {} }] },
      { tool_calls: [{ name: 'read_file', input: { path: 'notes/{{tool_result /agentId: (\\w+)/}}.txt', also: ['{{tool_result /launched/}}'] } }] },
    ] } });
    const first = (await send(m, { tools, ...sys('s', 'go') })) as Anthropic.Message;
    const call = first.content[0] as Anthropic.ToolUseBlock;
    const after = (text: string) => send(m, {
      tools, system: 's',
      messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: text }] }],
    });
    const err = (await after('nothing to see').catch((e: unknown) => e)) as APIError;
    expect(err.apiMessage).toContain('$.tracks.main.turns[1]: {{tool_result /agentId: (\\w+)/}} matches nothing in the request\'s tool results');
    const ok = (await after('launched. agentId: a81f (keep it)')) as Anthropic.Message;
    expect(ok.content[0]).toMatchObject({ type: 'tool_use', name: 'read_file', input: { path: 'notes/a81f.txt', also: ['launched'] } });
    expect(m.failures).toHaveLength(1);
  });

  it('a value taken from the tool results is looked for in the latest message first, then in earlier ones', async () => {
    const m = await mock({ main: { turns: [{ tool_calls: [{ name: 'read_file', input: { path: '{{tool_result /agentId: (\\w+)/}}' } }] }] } });
    const turn = (id: string, text: string) => [
      { role: 'assistant', content: [use(id)] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
    ];
    const messages = [{ role: 'user', content: 'go' }, ...turn('toolu_a', 'agentId: older'), ...turn('toolu_b', 'agentId: newer'), ...turn('toolu_c', 'no id here')];
    const answer = (await send(m, { tools, system: 's', messages })) as Anthropic.Message;
    expect(answer.content[0]).toMatchObject({ type: 'tool_use', input: { path: 'newer' } });
  });

  it('two tracks answered in parallel are routed by content, each with its own turn counter', async () => {
    const m = await mock(
      {
        main: { match: { not_user: 'Your directive' }, turns: [{ text: 'main 0' }] },
        fork1: { match: { user: 'Your directive: count' }, turns: [{ text: 'counted', latency_ms: 40 }] },
        fork2: { match: { user: 'Your directive: list' }, turns: [{ text: 'listed', latency_ms: 40 }] },
      },
      { latencyScale: 1 },
    );
    const [one, two, main] = (await Promise.all([
      send(m, sys('s', 'Your directive: count the files')),
      send(m, sys('s', 'Your directive: list the files')),
      send(m, sys('s', 'hello')),
    ])) as Anthropic.Message[];
    expect(one!.content[0]).toMatchObject({ text: 'counted' });
    expect(two!.content[0]).toMatchObject({ text: 'listed' });
    expect(main!.content[0]).toMatchObject({ text: 'main 0' });
    const reqs = m.events.filter((e) => e.type === 'request').map((e) => `${e.track}:${e.turn}`);
    expect(reqs.sort()).toEqual(['fork1:0', 'fork2:0', 'main:0']);
    expect(m.failures).toEqual([]);
  });

  it('two conversations sharing one track at the same time: a failure', async () => {
    // The first answer takes 1 s: the second request, sent at the same moment, arrives while
    // it is still being answered even on a loaded machine (50 ms left that to chance).
    const m = await mock({ main: { turns: [{ text: 'a', latency_ms: 1000 }, { text: 'b' }] } }, { latencyScale: 1 });
    const results = await Promise.allSettled([send(m, sys('s', 'first')), send(m, sys('s', 'second'))]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(m.failures).toHaveLength(1);
    expect(m.failures[0]).toContain('two conversations share one track');
  });

  it('first_user and system conditions', async () => {
    const m = await mock({
      main: repeatTrack(1, 'main'),
      explorer: { match: { system: 'explorer agent', first_user: 'Find' }, turns: [{ text: 'explorer' }] },
    });
    const e = (await send(m, { system: [{ type: 'text', text: 'You are an explorer agent.' }], messages: [{ role: 'user', content: 'Find the bug' }] })) as Anthropic.Message;
    expect(e.content[0]).toMatchObject({ text: 'explorer' });
    // "Find" appears in a later user message, not the first one: explorer's rule fails, main answers.
    const main = (await send(m, {
      system: 'You are an explorer agent.',
      messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }, { role: 'user', content: 'Find it' }],
    })) as Anthropic.Message;
    expect(main.content[0]).toMatchObject({ text: 'main' });
  });
});
