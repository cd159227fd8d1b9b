// A scripted run's requests are handed to the mock in process (src/runner/wire.ts,
// src/mock/in-process.ts) instead of going through a socket. That must change nothing the
// mock sees, answers or logs: every chapter's demo is run both ways here and the two event
// logs, terminals and verdicts compared. Then the routing itself: only the mock's own
// address is answered in process, only while the run lasts, and an abort is an abort.

import { describe, it, expect } from 'vitest';
import { WRITTEN_CHAPTERS } from '../src/chapters.ts';
import { loadScenarioFile, scenarioFile, snapshotDir } from '../src/runner/scenarios.ts';
import { runChapter, type RunResult } from '../src/runner/run-chapter.ts';
import { answerInProcess } from '../src/runner/wire.ts';
import { startMock, type MockEvent, type Scenario } from '../src/mock/index.ts';
import { FETCH_OWN_HEADERS } from '../src/mock/in-process.ts';

/** An event as the mock decided it, without what depends on the clock, the socket or the
 *  order in which concurrent sub-agents happened to arrive (the sequence number). */
function decided(e: MockEvent): unknown {
  const { time: _time, started: _started, waited_ms: _waited, seq: _seq, headers, ...rest } = e as MockEvent & { started?: number; waited_ms?: number; headers?: Record<string, string> };
  if (!headers) return rest;
  const kept = Object.entries(headers).filter(([name]) => name !== 'host' && !FETCH_OWN_HEADERS.includes(name)).sort(([a], [b]) => (a < b ? -1 : 1));
  return { ...rest, headers: Object.fromEntries(kept) };
}

/** What differs from run to run whatever the transport: the run's temp folder, session ids. */
function alike(text: string, r: RunResult): string {
  return text.replaceAll(r.tempDir, '<temp>').replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>');
}

/** Events in a fixed order: concurrent sub-agents may reach the mock in either order. */
function logOf(r: RunResult): unknown[] {
  return r.events.map((e) => alike(JSON.stringify(decided(e)), r)).sort().map((e) => JSON.parse(e) as unknown);
}

describe.concurrent('in process or over HTTP, the mock sees and answers the same', () => {
  for (const ch of WRITTEN_CHAPTERS) {
    it(`chapter ${ch.n}'s demo`, async () => {
      const scenario = await loadScenarioFile(scenarioFile(ch, 'demo'));
      const inProcess = await runChapter({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
      const overHttp = await runChapter({ codeDir: snapshotDir(ch), scenario, latencyScale: 0, overHttp: true });
      expect(overHttp.ok, 'the demo passes over HTTP').toBe(true);
      expect(inProcess.events.length).toBeGreaterThan(0);
      expect(logOf(inProcess)).toEqual(logOf(overHttp));
      // Lines in a fixed order too: concurrent sub-agents print as they finish.
      const lines = (r: RunResult) => alike(r.terminal, r).split('\n').sort();
      expect(lines(inProcess)).toEqual(lines(overHttp));
      expect(alike(JSON.stringify(inProcess.expectations), inProcess)).toBe(alike(JSON.stringify(overHttp.expectations), overHttp));
      // Over the socket the fetch machinery adds headers of its own; in process there is none.
      const sent = (r: RunResult) => r.events.flatMap((e) => (e.type === 'request' && e.headers ? [e.headers] : []));
      expect(sent(overHttp).every((h) => 'connection' in h)).toBe(true);
      expect(sent(inProcess).some((h) => FETCH_OWN_HEADERS.some((name) => name in h))).toBe(false);
    });
  }
});

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
