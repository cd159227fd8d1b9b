// What the mock accepts from a real Claude Code and nothing else: the `?beta=true` query,
// `anthropic-beta` headers, fields the API takes without simulating them (thinking,
// metadata, output_config …) and the ones that exist only under a beta (a `system` turn
// inside `messages`, context_management, deferred tools). Each beta-only field is refused
// without its beta, an unknown field is refused always, and what was accepted without
// being modelled is named in the event log. The chapters' own requests carry none of it.

import { describe, expect, it } from 'vitest';
import type { MockServer, RequestEvent } from '../src/mock/index.ts';
import { client, repeatTrack } from '../src/mock/testkit.ts';
import { BETA_FOR, betasOf, unmodelledFields } from '../src/mock/validate.ts';
import { useMocks } from './use-mocks.ts';

const mock = useMocks();
const MODEL = 'claude-opus-5-5';
const CLIENT_BETA = 'claude-code-20250219';

/** Sends a body as a raw client would: path, query and headers exactly as given. */
async function post(m: MockServer, body: Record<string, unknown>, o: { betas?: string[]; query?: string; path?: string } = {}) {
  const res = await fetch(`${m.url}${o.path ?? '/v1/messages'}${o.query ? `?${o.query}` : ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', 'x-api-key': 'secret-key', 'anthropic-version': '2023-06-01',
      ...(o.betas && { 'anthropic-beta': o.betas.join(',') }),
    },
    body: JSON.stringify({ model: MODEL, max_tokens: 100, ...body }),
  });
  const json = (await res.json()) as { type: string; error?: { type: string; message: string } };
  return { status: res.status, json };
}

const userThenSystem = [
  { role: 'user', content: [{ type: 'text', text: 'hello' }] },
  { role: 'system', content: '# Environment\nsome context' },
];

function lastRequest(m: MockServer): RequestEvent {
  const r = m.events.filter((e): e is RequestEvent => e.type === 'request').at(-1);
  if (!r) throw new Error('no request logged');
  return r;
}

describe('a system turn inside messages', () => {
  it('without its beta is refused like any unknown role', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const r = await post(m, { messages: userThenSystem }, { betas: ['interleaved-thinking-2025-05-14'] });
    expect(r.status).toBe(400);
    expect(r.json.error?.message).toBe("messages.1.role: Input should be 'user' or 'assistant'");
    expect(m.events.some((e) => e.type === 'response')).toBe(false);
  });

  it('with its beta is answered, and named as accepted without being modelled', async () => {
    const m = await mock({ main: repeatTrack(1, 'hi there') });
    const r = await post(m, { messages: userThenSystem, stream: false }, { betas: [CLIENT_BETA], query: 'beta=true' });
    expect(r.status).toBe(200);
    expect(r.json.type).toBe('message');
    const req = lastRequest(m);
    expect(req.track).toBe('main');
    expect(req.unmodelled).toEqual(['messages[].role=system']);
    expect(req.query).toBe('beta=true');
    expect(req.headers?.['anthropic-beta']).toBe(CLIENT_BETA);
    // Credentials never reach the log.
    expect(req.headers?.['x-api-key']).toBeUndefined();
    expect(JSON.stringify(m.events)).not.toContain('secret-key');
  });

  it('still may not carry tool calls', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const r = await post(m, {
      tools: [{ name: 'Read', input_schema: { type: 'object' } }],
      messages: [userThenSystem[0], { role: 'system', content: [{ type: 'tool_use', id: 'toolu_x', name: 'Read', input: {} }] }],
    }, { betas: [CLIENT_BETA] });
    expect(r.status).toBe(400);
    expect(r.json.error?.message).toContain('tool_use blocks can only appear in assistant messages');
  });
});

describe('fields the real API knows', () => {
  it('an unknown top-level field is refused, whatever the betas', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const r = await post(m, { messages: [{ role: 'user', content: 'hi' }], max_token: 5 }, { betas: Object.values(BETA_FOR) });
    expect(r.status).toBe(400);
    expect(r.json.error?.message).toBe('max_token: Extra inputs are not permitted');
  });

  it('beta-only fields need their beta', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const base = { messages: [{ role: 'user', content: 'hi' }] };
    const cm = await post(m, { ...base, context_management: { edits: [] } });
    expect(cm.status).toBe(400);
    expect(cm.json.error?.message).toContain(BETA_FOR.context_management);
    const effort = await post(m, { ...base, output_config: { effort: 'medium' } });
    expect(effort.status).toBe(400);
    expect(effort.json.error?.message).toContain(BETA_FOR['output_config.effort']);
    const deferred = await post(m, { ...base, tools: [{ name: 'X', input_schema: { type: 'object' }, defer_loading: true }] });
    expect(deferred.status).toBe(400);
    expect(deferred.json.error?.message).toBe(`tools.0.defer_loading: this field needs the anthropic-beta header "${BETA_FOR['tools[].defer_loading']}"`);
    expect(m.events.some((e) => e.type === 'response')).toBe(false);
  });

  it('a request shaped like Claude Code 2.1.328 is answered, every unmodelled field named', async () => {
    const m = await mock({ main: repeatTrack(1, 'done') });
    const r = await post(m, {
      stream: true,
      system: [{ type: 'text', text: 'billing line' }, { type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } }],
      tools: [{ name: 'Read', input_schema: { type: 'object' } }, { name: 'Later', input_schema: { type: 'object' }, defer_loading: true }],
      messages: userThenSystem,
      metadata: { user_id: 'u' },
      thinking: { type: 'adaptive' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      output_config: { effort: 'medium' },
    }, { betas: [CLIENT_BETA, 'interleaved-thinking-2025-05-14', BETA_FOR.context_management, BETA_FOR['tools[].defer_loading'], BETA_FOR['output_config.effort']], query: 'beta=true' }).catch(() => undefined);
    // A stream is not JSON; the log says how it went.
    void r;
    expect(m.events.map((e) => e.type)).toEqual(['request', 'response']);
    expect(lastRequest(m).unmodelled).toEqual([
      'context_management', 'messages[].role=system', 'metadata', 'output_config', 'thinking', 'tools[].defer_loading',
    ]);
  });

  it('the chapters\' own requests name nothing as unmodelled', async () => {
    const m = await mock({ main: repeatTrack(1) });
    await client(m).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, system: 'sys', messages: [{ role: 'user', content: 'hi' }] });
    const req = lastRequest(m);
    expect(req.unmodelled).toBeUndefined();
    expect(req.query).toBeUndefined();
    expect(req.headers?.['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('count_tokens takes the same request under the same betas, and refuses it without', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const ok = await post(m, { messages: userThenSystem, thinking: { type: 'adaptive' } }, { betas: [CLIENT_BETA], query: 'beta=true', path: '/v1/messages/count_tokens' });
    expect(ok.status).toBe(200);
    expect((ok.json as unknown as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(lastRequest(m)).toMatchObject({ path: '/v1/messages/count_tokens', query: 'beta=true', unmodelled: ['messages[].role=system', 'thinking'] });
    const refused = await post(m, { messages: userThenSystem }, { path: '/v1/messages/count_tokens' });
    expect(refused.status).toBe(400);
    expect(refused.json.error?.message).toBe("messages.1.role: Input should be 'user' or 'assistant'");
  });

  it('an unknown path is a 404 not_found_error, logged', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const r = await post(m, { messages: [{ role: 'user', content: 'hi' }] }, { path: '/v1/unknown' });
    expect(r.status).toBe(404);
    expect(r.json.error?.type).toBe('not_found_error');
    expect(m.events.at(-1)).toMatchObject({ type: 'error', status: 404, injected: false });
  });
});

describe('helpers', () => {
  it('betasOf splits a header and repeated headers', () => {
    expect(betasOf('a, b,c')).toEqual(['a', 'b', 'c']);
    expect(betasOf(['a', 'b'])).toEqual(['a', 'b']);
    expect(betasOf(undefined)).toEqual([]);
  });

  it('unmodelledFields names block types and tool keys without indices', () => {
    expect(unmodelledFields({
      model: 'x', max_tokens: 1, tools: [{ name: 'a', input_schema: {}, strict: true }, { name: 'b', input_schema: {}, strict: true }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }, { role: 'assistant', content: [{ type: 'thinking', thinking: '' }] }],
    })).toEqual(['messages[].content[].type=thinking', 'tools[].strict']);
  });
});
