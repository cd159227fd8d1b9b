// Prompt caching in the mock, seen through the real SDK: writes at breakpoints,
// byte-exact reads, the minimum length, TTLs on an injected clock, visibility of
// entries written by responses that have not started, the 20-block walk-back and
// the usage arithmetic. Token numbers follow the documented rule (4 bytes → 1 token).

import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { ManualClock, client, repeatTrack } from '../src/mock/testkit.ts';
import { TIME_TO_FIRST_TOKEN_MS } from '../src/mock/server.ts';
import { useMocks } from './use-mocks.ts';

const MODEL = 'claude-sonnet-4-6'; // minimum cacheable prefix: 1024 tokens
const SYS = 'S'.repeat(4400); // 4400 bytes → 1100 tokens
const MIN = 60_000;

const mock = useMocks();

type Params = Anthropic.MessageCreateParamsNonStreaming;
function req(system: string, user = 'hi', extra: Partial<Params> = {}): Params {
  return {
    model: MODEL,
    max_tokens: 50,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: user }],
    ...extra,
  };
}

async function usageOf(c: Anthropic, p: Params): Promise<Anthropic.Usage> {
  return (await c.messages.create(p)).usage;
}

async function total(c: Anthropic, p: Params): Promise<number> {
  const { max_tokens: _m, ...rest } = p;
  return (await c.messages.countTokens(rest as Anthropic.MessageCountTokensParams)).input_tokens;
}

describe('writes and reads', () => {
  it('cold request writes the prefix; the same prefix again reads it', async () => {
    const m = await mock({ main: repeatTrack(3) });
    const c = client(m);
    const first = await usageOf(c, req(SYS));
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBe(1100);
    expect(first.cache_creation?.ephemeral_5m_input_tokens).toBe(1100);
    expect(first.input_tokens).toBe(1); // "hi"
    const second = await usageOf(c, req(SYS, 'another question'));
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBe(0);
    expect(second.input_tokens).toBe(await total(c, req(SYS, 'another question')) - 1100);
  });

  it('one byte changed in the system prompt: no read', async () => {
    const m = await mock({ main: repeatTrack(2) });
    const c = client(m);
    await usageOf(c, req(SYS));
    const changed = SYS.slice(0, -1) + 'T';
    const u = await usageOf(c, req(changed));
    expect(u.cache_read_input_tokens).toBe(0);
    expect(u.cache_creation_input_tokens).toBe(1100);
  });

  it('a changed tool definition invalidates the system breakpoint after it', async () => {
    const m = await mock({ main: repeatTrack(3) });
    const c = client(m);
    const tool = (description: string): Anthropic.Tool => ({ name: 'grep', description, input_schema: { type: 'object', properties: {} } });
    const a = await usageOf(c, req(SYS, 'hi', { tools: [tool('Search files.')] }));
    const same = await usageOf(c, req(SYS, 'hi', { tools: [tool('Search files.')] }));
    const changed = await usageOf(c, req(SYS, 'hi', { tools: [tool('Search files!')] }));
    expect(a.cache_creation_input_tokens).toBeGreaterThan(1100);
    expect(same.cache_read_input_tokens).toBe(a.cache_creation_input_tokens);
    expect(changed.cache_read_input_tokens).toBe(0);
  });

  it('the model is part of the key', async () => {
    const m = await mock({ main: repeatTrack(2) });
    const c = client(m);
    await usageOf(c, req(SYS));
    const other = await usageOf(c, req(SYS, 'hi', { model: 'claude-sonnet-5' }));
    expect(other.cache_read_input_tokens).toBe(0);
  });

  it('moving a cache_control marker does not change the prefix bytes', async () => {
    const m = await mock({ main: repeatTrack(2) });
    const c = client(m);
    await usageOf(c, req(SYS));
    // Same system block, marker now on the user message: the walk-back finds the system entry.
    const u = await usageOf(c, {
      model: MODEL, max_tokens: 50, system: [{ type: 'text', text: SYS }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
    });
    expect(u.cache_read_input_tokens).toBe(1100);
    expect(u.cache_creation_input_tokens).toBe(1);
  });

  it('below the model minimum nothing is cached and nothing fails', async () => {
    const m = await mock({ main: repeatTrack(4) });
    const c = client(m);
    const short = 'S'.repeat(400); // 100 tokens
    for (let i = 0; i < 2; i++) {
      const u = await usageOf(c, req(short));
      expect([u.cache_read_input_tokens, u.cache_creation_input_tokens]).toEqual([0, 0]);
      expect(u.input_tokens).toBe(101);
    }
    // 1100 tokens is enough for Sonnet (1024) but not for Haiku 4.5 (4096).
    for (let i = 0; i < 2; i++) {
      const u = await usageOf(c, req(SYS, 'hi', { model: 'claude-haiku-4-5' }));
      expect([u.cache_read_input_tokens, u.cache_creation_input_tokens]).toEqual([0, 0]);
    }
  });

  it('splits creation by TTL: a 1h breakpoint on tools, a 5m one on the system', async () => {
    const m = await mock({ main: repeatTrack(2) });
    const c = client(m);
    const tool: Anthropic.Tool = {
      name: 'doc', description: 'D'.repeat(4400), input_schema: { type: 'object', properties: {} },
      cache_control: { type: 'ephemeral', ttl: '1h' },
    };
    const p = req(SYS, 'hi', { tools: [tool] });
    const u = await usageOf(c, p);
    const toolTokens = m.events.find((e) => e.type === 'request' && e.breakpoints.length === 2);
    if (toolTokens?.type !== 'request') throw new Error('no request event');
    const [bpTool, bpSys] = toolTokens.breakpoints;
    expect(bpTool).toMatchObject({ where: 'tools[0]', position: 0, ttl: '1h' });
    expect(bpSys).toMatchObject({ where: 'system[0]', position: 1, ttl: '5m' });
    expect(u.cache_creation?.ephemeral_1h_input_tokens).toBe(bpTool!.prefix_tokens);
    expect(u.cache_creation?.ephemeral_5m_input_tokens).toBe(bpSys!.prefix_tokens - bpTool!.prefix_tokens);
    expect(u.cache_creation_input_tokens).toBe(bpSys!.prefix_tokens);
  });

  it('a breakpoint below the minimum is not written; its tokens go to the next one', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const tool: Anthropic.Tool = {
      name: 'doc', description: 'short', input_schema: { type: 'object', properties: {} },
      cache_control: { type: 'ephemeral', ttl: '1h' },
    };
    const u = await usageOf(client(m), req(SYS, 'hi', { tools: [tool] }));
    const ev = m.events.find((e) => e.type === 'request');
    if (ev?.type !== 'request') throw new Error('no request event');
    expect(ev.breakpoints[0]!.prefix_tokens).toBeLessThan(1024);
    expect(u.cache_creation?.ephemeral_1h_input_tokens).toBe(0);
    expect(u.cache_creation?.ephemeral_5m_input_tokens).toBe(ev.breakpoints[1]!.prefix_tokens);
  });

  it('more than 4 breakpoints is a 400', async () => {
    const m = await mock({ main: repeatTrack(1) });
    const block = (t: string) => ({ type: 'text' as const, text: t, cache_control: { type: 'ephemeral' as const } });
    const err = await client(m).messages.create({
      model: MODEL, max_tokens: 10, system: [block('a'), block('b'), block('c')],
      messages: [{ role: 'user', content: [block('d'), block('e')] }],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as Error).message).toContain('A maximum of 4 blocks with cache_control may be provided. Found 5.');
    expect(m.events.at(-1)).toMatchObject({ type: 'error', injected: false, status: 400 });
  });

  it('an injected error before the response starts stores nothing', async () => {
    const m = await mock({ main: { turns: [{ error: { status: 500 } }, { text: 'ok' }, { text: 'ok' }] } });
    const c = client(m, 0);
    await expect(c.messages.create(req(SYS))).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    expect((await usageOf(c, req(SYS))).cache_creation_input_tokens).toBe(1100);
    expect((await usageOf(c, req(SYS))).cache_read_input_tokens).toBe(1100);
  });
});

describe('the 20-block walk-back', () => {
  const blocks = (prefix: string, n: number): Anthropic.TextBlockParam[] =>
    Array.from({ length: n }, (_, i) => ({ type: 'text' as const, text: `${prefix}${i}`, ...(i === n - 1 ? { cache_control: { type: 'ephemeral' as const } } : {}) }));
  const grown = (n: number): Params => ({
    model: MODEL, max_tokens: 10, system: [{ type: 'text', text: SYS }], messages: [{ role: 'user', content: blocks('b', n) }],
  });

  it('finds an entry 20 blocks before the breakpoint', async () => {
    const m = await mock({ main: repeatTrack(2) });
    const c = client(m);
    await usageOf(c, req(SYS)); // entry at position 0 (the system block)
    const u = await usageOf(c, grown(20)); // breakpoint at position 20
    expect(u.cache_read_input_tokens).toBe(1100);
    expect(u.cache_creation_input_tokens).toBe(20);
  });

  it('does not find one 21 blocks back', async () => {
    const m = await mock({ main: repeatTrack(2) });
    const c = client(m);
    await usageOf(c, req(SYS));
    const u = await usageOf(c, grown(21)); // breakpoint at position 21
    expect(u.cache_read_input_tokens).toBe(0);
    expect(u.cache_creation_input_tokens).toBe(1121);
  });
});

describe('time: TTLs and visibility', () => {
  it('a 5m entry expires: the same prefix is written again', async () => {
    const clock = new ManualClock();
    const m = await mock({ main: repeatTrack(2) }, { clock });
    const c = client(m);
    await usageOf(c, req(SYS));
    clock.advance(5 * MIN + 1);
    const u = await usageOf(c, req(SYS));
    expect(u.cache_read_input_tokens).toBe(0);
    expect(u.cache_creation_input_tokens).toBe(1100);
  });

  it('a 1h entry survives 6 minutes', async () => {
    const clock = new ManualClock();
    const m = await mock({ main: repeatTrack(2) }, { clock });
    const c = client(m);
    const oneHour = (): Params => ({
      ...req(SYS), system: [{ type: 'text', text: SYS, cache_control: { type: 'ephemeral', ttl: '1h' } }],
    });
    const first = await usageOf(c, oneHour());
    expect(first.cache_creation?.ephemeral_1h_input_tokens).toBe(1100);
    clock.advance(6 * MIN);
    expect((await usageOf(c, oneHour())).cache_read_input_tokens).toBe(1100);
  });

  it('a hit refreshes the TTL', async () => {
    const clock = new ManualClock();
    const m = await mock({ main: repeatTrack(4) }, { clock });
    const c = client(m);
    await usageOf(c, req(SYS));
    clock.advance(4 * MIN);
    expect((await usageOf(c, req(SYS))).cache_read_input_tokens).toBe(1100);
    clock.advance(4 * MIN); // 8 minutes after the write, 4 after the hit
    expect((await usageOf(c, req(SYS))).cache_read_input_tokens).toBe(1100);
    clock.advance(5 * MIN + 1);
    expect((await usageOf(c, req(SYS))).cache_read_input_tokens).toBe(0);
  });

  it('idle_ms moves the mock clock past a 5m TTL without waiting: the next identical request writes again', async () => {
    const clock = new ManualClock();
    const m = await mock({ main: { turns: [{ text: 'ok' }, { text: 'ok', idle_ms: 6 * MIN }, { text: 'ok' }] } }, { clock });
    const c = client(m);
    const began = Date.now();
    expect((await usageOf(c, req(SYS))).cache_creation_input_tokens).toBe(1100);
    clock.advance(1);
    // The idle turn's own request arrived before the gap: it still reads (and refreshes).
    expect((await usageOf(c, req(SYS))).cache_read_input_tokens).toBe(1100);
    clock.advance(1);
    const after = await usageOf(c, req(SYS));
    expect(after.cache_read_input_tokens).toBe(0);
    expect(after.cache_creation_input_tokens).toBe(1100);
    expect(Date.now() - began).toBeLessThan(5000); // six minutes passed on the mock's clock only
    // The next request arrives once the idle turn's answer has started: six minutes and a
    // time to first token after the idle turn's own request.
    const times = m.events.filter((e) => e.type === 'request').map((e) => e.time);
    expect(times[2]! - times[1]!).toBe(6 * MIN + TIME_TO_FIRST_TOKEN_MS);
  });

  it('idle_ms of six minutes leaves a 1h entry readable', async () => {
    const clock = new ManualClock();
    const m = await mock({ main: { turns: [{ text: 'ok' }, { text: 'ok', idle_ms: 6 * MIN }, { text: 'ok' }] } }, { clock });
    const c = client(m);
    const oneHour = (): Params => ({
      ...req(SYS), system: [{ type: 'text', text: SYS, cache_control: { type: 'ephemeral', ttl: '1h' } }],
    });
    expect((await usageOf(c, oneHour())).cache_creation?.ephemeral_1h_input_tokens).toBe(1100);
    clock.advance(1);
    await usageOf(c, oneHour());
    clock.advance(1);
    const after = await usageOf(c, oneHour());
    expect(after.cache_read_input_tokens).toBe(1100);
    expect(after.cache_creation_input_tokens).toBe(0);
  });

  it("a turn's cache_ttl gives its request's writes that TTL, whatever the markers ask: reported as 1-hour writes, and readable after six idle minutes", async () => {
    const clock = new ManualClock();
    const m = await mock({ main: { turns: [{ text: 'ok', cache_ttl: '1h' }, { text: 'ok', idle_ms: 6 * MIN }, { text: 'ok' }] } }, { clock });
    const c = client(m);
    const first = await usageOf(c, req(SYS));   // a 5-minute marker
    expect(first.cache_creation_input_tokens).toBe(1100);
    expect(first.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1100 });
    // The request event keeps the marker as sent: only the write took the hour.
    expect(m.events.find((e) => e.type === 'request')!.breakpoints.map((b) => b.ttl)).toEqual(['5m']);
    clock.advance(1);
    await usageOf(c, req(SYS));
    clock.advance(1);
    expect((await usageOf(c, req(SYS))).cache_read_input_tokens).toBe(1100);
  });

  it('two simultaneous identical prefixes on a frozen clock both miss', async () => {
    const clock = new ManualClock();
    const m = await mock(
      { a: { match: { user: 'task A' }, turns: [{ text: 'a' }, { text: 'a' }] }, b: { match: { user: 'task B' }, turns: [{ text: 'b' }] } },
      { clock },
    );
    const c = client(m);
    const [ua, ub] = await Promise.all([usageOf(c, req(SYS, 'task A')), usageOf(c, req(SYS, 'task B'))]);
    expect([ua.cache_read_input_tokens, ub.cache_read_input_tokens]).toEqual([0, 0]);
    expect([ua.cache_creation_input_tokens, ub.cache_creation_input_tokens]).toEqual([1100, 1100]);
    clock.advance(1);
    expect((await usageOf(c, req(SYS, 'task A'))).cache_read_input_tokens).toBe(1100);
  });

  it('two identical requests sent together, no latency, real clock: both miss, however fast the machine answers', async () => {
    const m = await mock(
      { a: { match: { user: 'task A' }, turns: [{ text: 'a' }, { text: 'a' }] }, b: { match: { user: 'task B' }, turns: [{ text: 'b' }] } },
      { latencyScale: 0 },
    );
    const c = client(m);
    const [ua, ub] = await Promise.all([usageOf(c, req(SYS, 'task A')), usageOf(c, req(SYS, 'task B'))]);
    expect([ua.cache_read_input_tokens, ub.cache_read_input_tokens]).toEqual([0, 0]);
    expect([ua.cache_creation_input_tokens, ub.cache_creation_input_tokens]).toEqual([1100, 1100]);
    // Each response started a time to first token after its request, on the mock's clock,
    // and both requests arrived before either start.
    const arrivals = m.events.filter((e) => e.type === 'request').map((e) => e.time);
    const starts = m.events.flatMap((e) => (e.type === 'response' ? [e.started!] : []));
    expect(Math.max(...arrivals)).toBeLessThan(Math.min(...starts));
    for (const e of m.events) {
      if (e.type === 'response') expect(e.started! - arrivals[e.seq - 1]!).toBeGreaterThanOrEqual(TIME_TO_FIRST_TOKEN_MS);
    }
    // Asked once an answer is back, the same prefix is read: it arrives after that start.
    expect((await usageOf(c, req(SYS, 'task A'))).cache_read_input_tokens).toBe(1100);
  });

  it('a request sent once a response has begun reads what it writes, with no latency and no waiting', async () => {
    const m = await mock({ main: repeatTrack(2) }, { latencyScale: 0 });
    const c = client(m);
    await usageOf(c, req(SYS));
    expect((await usageOf(c, req(SYS))).cache_read_input_tokens).toBe(1100);
    // The time to first token passed on the mock's clock only: nothing was waited for.
    expect(m.events.flatMap((e) => (e.type === 'response' ? [e.waited_ms] : []))).toEqual([0, 0]);
  });

  it('with a real clock, a request sent while the writer is still waiting misses', async () => {
    const m = await mock(
      { a: { match: { user: 'task A' }, turns: [{ text: 'a', latency_ms: 1500 }] }, b: { match: { user: 'task B' }, turns: [{ text: 'b' }] } },
      { latencyScale: 1 },
    );
    const c = client(m);
    const pa = usageOf(c, req(SYS, 'task A'));
    // B goes once the mock has A, well inside A's 1.5 s wait even on a loaded machine (with a
    // 60 ms wait and a 20 ms timer, B once arrived after A had begun, and read the cache).
    while (!m.events.some((e) => e.type === 'request')) await new Promise((r) => setTimeout(r, 5));
    const ub = await usageOf(c, req(SYS, 'task B'));
    const ua = await pa;
    expect(ua.cache_creation_input_tokens).toBe(1100);
    expect(ub.cache_read_input_tokens).toBe(0);
  });
});

describe('usage arithmetic', () => {
  it('the three counters add up to count_tokens over a growing conversation', async () => {
    const m = await mock({ main: repeatTrack(4) });
    const c = client(m);
    const history: Anthropic.MessageParam[] = [];
    for (let i = 0; i < 4; i++) {
      history.push({ role: 'user', content: [{ type: 'text', text: `question ${i} `.repeat(50), cache_control: { type: 'ephemeral' } }] });
      const p: Params = { model: MODEL, max_tokens: 10, system: SYS, messages: structuredClone(history) };
      // Only the last user message keeps its marker, as an agent loop would do.
      p.messages.slice(0, -1).forEach((msg) => {
        if (Array.isArray(msg.content)) msg.content.forEach((b) => delete (b as { cache_control?: unknown }).cache_control);
      });
      const msg = await c.messages.create(p);
      const u = msg.usage;
      const sum = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
      expect(sum).toBe(await total(c, p));
      expect((u.cache_creation?.ephemeral_5m_input_tokens ?? 0) + (u.cache_creation?.ephemeral_1h_input_tokens ?? 0)).toBe(u.cache_creation_input_tokens);
      if (i > 0) expect(u.cache_read_input_tokens).toBeGreaterThan(0);
      history.push({ role: 'assistant', content: msg.content });
    }
  });

  it('streaming and non-streaming report the same usage', async () => {
    const tracks = { main: repeatTrack(2, 'some answer text') };
    const a = await mock(tracks);
    const b = await mock(tracks);
    const plain = [await usageOf(client(a), req(SYS)), await usageOf(client(a), req(SYS))];
    const streamed: Anthropic.Usage[] = [];
    const starts: Anthropic.Usage[] = [];
    for (let i = 0; i < 2; i++) {
      const s = client(b).messages.stream(req(SYS));
      s.on('streamEvent', (ev) => {
        if (ev.type === 'message_start') starts.push(ev.message.usage);
      });
      streamed.push((await s.finalMessage()).usage);
    }
    expect(streamed).toEqual(plain);
    expect(starts.map((u) => u.cache_read_input_tokens)).toEqual(plain.map((u) => u.cache_read_input_tokens));
    expect(starts.map((u) => u.cache_creation_input_tokens)).toEqual(plain.map((u) => u.cache_creation_input_tokens));
    expect(plain[1]!.cache_read_input_tokens).toBe(1100);
  });
});
