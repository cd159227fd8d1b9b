// A scripted run's requests are handed to the mock in process (src/runner/wire.ts,
// src/mock/in-process.ts) instead of going through a socket. Only the mock's own address is
// answered in process, only while the run lasts, and an abort is an abort. That this changes
// nothing the mock sees, answers or logs is the scenario suite's (scenario-suite.ts): it runs
// the demos of the chapters that use the wire in a new way over HTTP too, beside the
// in-process run it checks, and compares the two.

import { describe, it, expect } from 'vitest';
import { answerInProcess } from '../src/runner/wire.ts';
import { startMock, type Scenario } from '../src/mock/index.ts';

const oneTurn: Scenario = {
  file: 'wire.test.ts', title: 'one answer', prompts: ['hi'],
  tracks: { main: { turns: [{ text: 'hello' }] } },
};
const request = (model = 'claude-sonnet-4-6') => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
  body: JSON.stringify({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }),
});

describe('the routing', () => {
  it('answers only the routed mock in process, and only until the route is taken down', async () => {
    const routed = await startMock({ scenario: oneTurn, latencyScale: 0 });
    const other = await startMock({ scenario: oneTurn, latencyScale: 0 });
    try {
      const unroute = answerInProcess(routed);
      const a = await fetch(`${routed.url}/v1/messages`, request());
      const b = await fetch(`${other.url}/v1/messages`, request());
      expect([a.status, b.status]).toEqual([200, 200]);
      expect((await a.json() as { content: { text: string }[] }).content[0]!.text).toBe('hello');
      await b.text();
      const headersOf = (m: typeof routed) => (m.events.find((e) => e.type === 'request') as { headers: Record<string, string> }).headers;
      expect('connection' in headersOf(routed)).toBe(false);   // in process
      expect('connection' in headersOf(other)).toBe(true);     // through a socket
      unroute();
      await routed.close();
      // The route is gone with the run: a request to the closed mock finds nobody listening.
      await expect(fetch(`${routed.url}/v1/messages`, request())).rejects.toThrow();
    } finally {
      await other.close();
      await routed.close();
    }
  });

  it('an aborted request rejects, before its answer or in the middle of it', async () => {
    const scenario: Scenario = { ...oneTurn, tracks: { main: { turns: [{ text: 'a long answer '.repeat(40) }, { text: 'again' }] } } };
    const mock = await startMock({ scenario, latencyScale: 0 });
    try {
      const before = new AbortController();
      before.abort();
      await expect(mock.fetch(`${mock.url}/v1/messages`, { ...request(), signal: before.signal })).rejects.toThrow(/abort/i);
      const during = new AbortController();
      const streamed = JSON.stringify({ ...JSON.parse(request().body), stream: true });
      const res = await mock.fetch(`${mock.url}/v1/messages`, { ...request(), body: streamed, signal: during.signal });
      const reader = res.body!.getReader();
      await reader.read();
      during.abort();
      await expect((async () => { for (;;) { const { done } = await reader.read(); if (done) return; } })()).rejects.toThrow(/abort/i);
    } finally {
      await mock.close();
    }
  });
});
