// The wire protocol, checked with the real SDK against the mock: JSON and SSE
// answers, count_tokens, headers, injected errors and the SDK's own retries.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../src/mock/index.ts';
import { countTokens } from '../src/mock/index.ts';
import { MAX_NESTING, MAX_REQUEST_BYTES, startMock } from '../src/mock/server.ts';
import { client, scenarioOf } from '../src/mock/testkit.ts';
import { useMocks } from './use-mocks.ts';

const MODEL = 'claude-sonnet-4-6';
const mock = useMocks();

const ask = (text = 'hello there') => ({
  model: MODEL,
  max_tokens: 100,
  messages: [{ role: 'user' as const, content: text }],
});
const readTool = { name: 'read_file', description: 'Read a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } };

/**
 * A valid request padded with white space to `size` bytes, POSTed without a key: the status
 * and the JSON answer. The padding goes out as one shared megabyte of spaces, written again
 * and again, so no body of that size is ever built on this side (two 32 MiB bodies, built and
 * sent through fetch, were most of this file's CPU time).
 */
function postPadded(url: string, size: number): Promise<{ status: number | undefined; body: unknown }> {
  const request = Buffer.from(JSON.stringify(ask()));
  const spaces = Buffer.alloc(1024 * 1024, 0x20);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': size } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.write(request);
    let left = size - request.length;
    const more = (): void => {
      while (left > 0) {
        const chunk = left >= spaces.length ? spaces : spaces.subarray(0, left);
        left -= chunk.length;
        if (!req.write(chunk)) { req.once('drain', more); return; }
      }
      req.end();
    };
    more();
  });
}

describe('POST /v1/messages', () => {
  it('answers a JSON message shaped like the real one', async () => {
    const m = await mock({ main: { turns: [{ text: 'Hello from the mock.' }] } });
    const { data: msg, response } = await client(m).messages.create(ask()).withResponse();
    expect(msg.id).toMatch(/^msg_01[0-9A-Za-z]{22}$/);
    expect(msg.type).toBe('message');
    expect(msg.role).toBe('assistant');
    expect(msg.model).toBe(MODEL);
    expect(msg.content).toEqual([{ type: 'text', text: 'Hello from the mock.' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.stop_sequence).toBeNull();
    expect(msg.usage.input_tokens).toBe(countTokens('hello there'));
    expect(msg.usage.output_tokens).toBe(countTokens('Hello from the mock.'));
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const kinds = m.events.map((e) => e.type);
    expect(kinds).toEqual(['request', 'response']);
  });

  it('gives tool calls deterministic, real-looking ids and a tool_use stop reason', async () => {
    const tracks = { main: { turns: [{ text: 'Reading.', tool_calls: [{ name: 'read_file', input: { path: 'a.txt' } }] }] } };
    const a = await mock(tracks);
    const b = await mock(tracks);
    const req = { ...ask(), tools: [readTool] };
    const ma = await client(a).messages.create(req);
    const mb = await client(b).messages.create(req);
    expect(ma.stop_reason).toBe('tool_use');
    const use = ma.content[1];
    expect(use?.type).toBe('tool_use');
    if (use?.type !== 'tool_use') return;
    expect(use.id).toMatch(/^toolu_01[0-9A-Za-z]{22}$/);
    expect(use.input).toEqual({ path: 'a.txt' });
    expect(mb).toEqual(ma);
  });

  it('replaces {{tool_result}} with the tool results of the last user message', async () => {
    const m = await mock({
      main: { turns: [{ tool_calls: [{ name: 'read_file', input: { path: 'a' } }] }, { text: 'The file says: {{tool_result}}' }] },
    });
    const c = client(m);
    const first = await c.messages.create({ ...ask(), tools: [readTool] });
    const use = first.content[0]!;
    if (use.type !== 'tool_use') throw new Error('expected tool_use');
    const second = await c.messages.create({
      ...ask(),
      tools: [readTool],
      messages: [
        { role: 'user', content: 'hello there' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'line one' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'The file says: line one' }]);
  });

  // A text that would go out with the placeholder quietly empty, as if the result had been.
  it('refuses a {{tool_result}} turn for a request whose last user message has no tool_result, as a scenario failure', async () => {
    const m = await mock({ main: { turns: [{ text: 'The file says: {{tool_result}}' }] } });
    const err = await client(m).messages.create(ask()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(m.failures).toHaveLength(1);
    expect(m.failures[0]).toContain("$.tracks.main.turns[0]: {{tool_result}} in the turn's text has nothing to stand for: the request's last user message carries no tool_result");
    expect(m.events.filter((e) => e.type === 'response')).toEqual([]);
    // A turn answered with an error sends no text: its placeholder has nothing to stand for, and needs nothing.
    const erring = await mock({ main: { turns: [{ text: 'Said: {{tool_result}}', error: { status: 400 } }] } });
    const refused = await client(erring).messages.create(ask()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(erring.failures).toEqual([]);
  });

  it('streams text in several deltas, and finalMessage() equals the JSON answer', async () => {
    const tracks = { main: { turns: [{ text: 'The quick brown fox jumps over the lazy dog.' }] } };
    const a = await mock(tracks);
    const b = await mock(tracks);
    const stream = client(a).messages.stream(ask());
    const types: string[] = [];
    let textDeltas = 0;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') textDeltas++;
    }
    // The SDK's stream helper adds its own parsed_output field; the wire content is what matters.
    const { parsed_output: _p, ...final } = await stream.finalMessage();
    const plain = await client(b).messages.create(ask());
    expect(textDeltas).toBeGreaterThanOrEqual(2);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(final).toEqual(plain);
    const resp = a.events.find((e) => e.type === 'response');
    expect(resp?.type === 'response' && resp.deltas).toBe(textDeltas);
  });

  it('sends a ping after message_start', async () => {
    const m = await mock({ main: { turns: [{ text: 'a b' }] } });
    const res = await fetch(`${m.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask(), stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const names = [...(await res.text()).matchAll(/^event: (\w+)$/gm)].map((x) => x[1]);
    expect(names.slice(0, 2)).toEqual(['message_start', 'ping']);
    expect(names).toContain('content_block_stop');
  });

  it('streams tool input as several input_json_delta chunks', async () => {
    const input = { path: 'src/some/deeply/nested/file.ts', limit: 200 };
    const tracks = { main: { turns: [{ tool_calls: [{ name: 'read_file', input }] }] } };
    const a = await mock(tracks);
    const b = await mock(tracks);
    const req = { ...ask(), tools: [readTool] };
    const stream = client(a).messages.stream(req);
    const parts: string[] = [];
    stream.on('streamEvent', (ev) => {
      if (ev.type === 'content_block_delta' && ev.delta.type === 'input_json_delta') parts.push(ev.delta.partial_json);
    });
    const { parsed_output: _p, ...final } = await stream.finalMessage();
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(parts.join(''))).toEqual(input);
    expect(final).toEqual(await client(b).messages.create(req));
  });
});

describe('event log file', () => {
  it('appends every event as one JSON line, in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mock-log-'));
    try {
      const logFile = join(dir, 'events.jsonl');
      const m = await mock({ main: { turns: [{ error: { status: 500 } }, { text: 'ok' }] } }, { logFile });
      await client(m, 0).messages.create(ask()).catch(() => undefined);
      await client(m, 0).messages.create(ask());
      const lines = (await readFile(logFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as unknown);
      expect(lines).toEqual(JSON.parse(JSON.stringify(m.events)));
      expect(m.events.map((e) => e.type)).toEqual(['request', 'error', 'request', 'response']);
      expect(m.events.map((e) => e.seq)).toEqual([1, 1, 2, 2]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('counts by the documented rule without using a turn', async () => {
    const m = await mock({ main: { turns: [{ text: 'only turn' }] } });
    const c = client(m);
    const counted = await c.messages.countTokens({
      model: MODEL,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    // 'Be brief.' is 9 bytes → 3 tokens; 'hello there' is 11 bytes → 3 tokens.
    expect(counted.input_tokens).toBe(6);
    const msg = await c.messages.create(ask());
    expect(msg.content).toEqual([{ type: 'text', text: 'only turn' }]);
    expect(m.failures).toEqual([]);
  });

  it('validates like /v1/messages', async () => {
    const m = await mock({ main: { turns: [{ text: 'x' }] } });
    await expect(client(m).messages.countTokens({ model: MODEL, messages: [] })).rejects.toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe('headers, paths and models', () => {
  const post = (m: MockServer, headers: Record<string, string>, path = '/v1/messages') =>
    fetch(`${m.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(ask()) });

  it('401 without an API key, 400 without anthropic-version, 404 elsewhere', async () => {
    const m = await mock({ main: { turns: [{ text: 'x' }] } });
    const noKey = await post(m, { 'anthropic-version': '2023-06-01' });
    expect(noKey.status).toBe(401);
    const body = (await noKey.json()) as { type: string; error: { type: string }; request_id: string };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('authentication_error');
    expect(body.request_id).toBe(noKey.headers.get('request-id'));
    const noVersion = await post(m, { 'x-api-key': 'k' });
    expect(noVersion.status).toBe(400);
    const elsewhere = await post(m, { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }, '/v1/complete');
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
  });

  it('413 request_too_large for a body over 32 MiB, before the key is looked at; the bytes are not kept', async () => {
    const m = await mock({ main: { turns: [{ text: 'x' }] } });
    const big = await postPadded(m.url, MAX_REQUEST_BYTES + 1);
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } });
    expect(m.events.map((e) => e.type)).toEqual(['request', 'error']);
    expect(m.events[0]).toMatchObject({ body: {}, model: '' });
    expect(m.failures).toEqual([]);
    // A body of exactly the limit is read as usual: here refused for its missing key.
    const fits = await postPadded(m.url, MAX_REQUEST_BYTES);
    expect(fits.status).toBe(401);
  });

  it('400 for a body nested deeper than any request: no stack overflow, no turn used', async () => {
    const m = await mock({ main: { turns: [{ text: 'first turn' }] } });
    // Written as text: JSON.stringify itself would overflow on such a value.
    const deep = JSON.stringify(ask()).replace(/}$/, `,"metadata":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    const r = await fetch(`${m.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }, body: deep });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: `There was an issue with the format of your request: the body is nested more than ${MAX_NESTING} levels deep` } });
    expect(m.failures).toEqual([]);
    // The scenario's first turn is still there for the next request.
    const next = await client(m).messages.create(ask());
    expect(next.content).toEqual([{ type: 'text', text: 'first turn' }]);
  });

  it('the standalone mock keeps no events (keepEvents: false): each is handed on, then let go', async () => {
    const seen: string[] = [];
    const m = await startMock({ scenario: scenarioOf({ main: { turns: [{ text: 'one' }, { text: 'two' }] } }), latencyScale: 0, keepEvents: false, onEvent: (ev) => { seen.push(ev.type); } });
    try {
      await client(m).messages.create(ask());
      await client(m).messages.create(ask('again'));
      expect(seen.filter((t) => t === 'request')).toHaveLength(2);
      expect(m.events).toEqual([]);
    } finally { await m.close(); }
  });

  it('404 not_found_error for a model that is not claude-*', async () => {
    const m = await mock({ main: { turns: [{ text: 'x' }] } });
    const err = await client(m).messages.create({ ...ask(), model: 'gpt-4o' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as APIError).message).toContain('model: gpt-4o');
  });
});

describe('injected errors', () => {
  const cases: [number, new (...a: never[]) => Error, string][] = [
    [400, Anthropic.BadRequestError, 'invalid_request_error'],
    [401, Anthropic.AuthenticationError, 'authentication_error'],
    [404, Anthropic.NotFoundError, 'not_found_error'],
    [429, Anthropic.RateLimitError, 'rate_limit_error'],
    [500, Anthropic.InternalServerError, 'api_error'],
    [529, Anthropic.OverloadedError, 'overloaded_error'],
  ];
  for (const [status, cls, type] of cases) {
    it(`${status} surfaces as ${cls.name} with type ${type}`, async () => {
      const m = await mock({ main: { turns: [{ error: { status: status as 400 } }] } });
      const err = await client(m, 0).messages.create(ask()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(cls);
      expect((err as APIError).status).toBe(status);
      expect((err as APIError).type).toBe(type);
      expect((err as APIError).requestID).toMatch(/^req_/);
      const ev = m.events.find((e) => e.type === 'error');
      expect(ev).toMatchObject({ status, error_type: type, injected: true, mid_stream: false, track: 'main', turn: 0 });
    });
  }

  it('sends retry-after with a 429', async () => {
    const m = await mock({ main: { turns: [{ error: { status: 429, retry_after: 7 } }] } });
    const err = (await client(m, 0).messages.create(ask()).catch((e: unknown) => e)) as APIError;
    expect(err.headers?.get('retry-after')).toBe('7');
  });

  for (const status of [429, 529] as const) {
    it(`the SDK retries a ${status} and the track's next turn answers`, async () => {
      const m = await mock({ main: { turns: [{ error: { status, retry_after: 0 } }, { text: 'second turn' }] } });
      const msg = await client(m, 2).messages.create(ask());
      expect(msg.content).toEqual([{ type: 'text', text: 'second turn' }]);
      expect(m.events.map((e) => `${e.type}:${e.turn}`)).toEqual(['request:0', 'error:0', 'request:1', 'response:1']);
    });
  }

  it('a mid-stream error arrives after some content, as an SDK APIError', async () => {
    const m = await mock({
      main: { turns: [{ text: 'one two three four five', error: { status: 529, mid_stream: true } }] },
    });
    const stream = client(m).messages.stream(ask());
    let text = '';
    stream.on('text', (t) => (text += t));
    const err = await stream.finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as APIError).type).toBe('overloaded_error');
    expect(text).toBe('one ');
    expect(m.events.at(-1)).toMatchObject({ type: 'error', mid_stream: true, injected: true, status: 529 });
  });
});

// A client that hangs up in the middle of its body is nobody to answer, and nothing went
// wrong in the scenario: no failure is recorded (the mock server's Ctrl-C summary lists them).
it('a client that hangs up mid-body leaves no failure behind, and the mock goes on answering', async () => {
  const m = await mock({ main: { turns: [{ text: 'Hello from the mock.' }] } });
  const { port } = new URL(m.url);
  await new Promise<void>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write('POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
      setTimeout(() => { socket.destroy(); resolve(); }, 50);
    });
  });
  await new Promise((r) => setTimeout(r, 50));
  expect(m.failures).toEqual([]);
  const reply = await client(m).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  expect(reply.content).toEqual([{ type: 'text', text: 'Hello from the mock.' }]);
});
