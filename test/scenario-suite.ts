// The scenario suite, for the chapters a test file names (scenarios.*.test.ts: the series
// is split in three so that vitest can give the parts to different workers; one file was
// the suite's longest, alone at the end). Not a test file itself.
//
// Every chapter × every scenario in its folder: run the snapshot against the mock and
// require every expectation to hold. The expectations themselves read the mock's event log
// and the workspace (src/runner/expectations.ts), never the script.
//
// A demo run is also made over HTTP, through a socket: a scripted run's requests are
// handed to the mock in process (src/runner/wire.ts, src/mock/in-process.ts), and that must
// change nothing the mock sees, answers or logs, so the two event logs, terminals and
// verdicts are compared. Not every chapter's: the ones where the agent starts using the
// wire differently (OVER_HTTP below); a chapter between them sends other bodies the same
// way, and a body is a string either way. (The routing itself is wire.test.ts's.)
//
// Then the docs of those chapters (and, where asked, every doc that is not a chapter's):
// every generated region (code, diff, transcript, cases table) must be what `npm run gen`
// would write now. A transcript or a verdict in a doc is one of the runs just checked, so
// the same run serves both (runs are deterministic: the transcript is rendered in a
// timing-free order); a region with a mutation, or another chapter's scenario, runs anew.

import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir } from '../src/chapters.ts';
import { ROOT, casesOf, scenarioFile, snapshotDir, loadScenarioFile } from '../src/runner/scenarios.ts';
import { runChapter, type RunResult } from '../src/runner/run-chapter.ts';
import { docTranscript, docVerdicts } from '../src/runner/doc-transcript.ts';
import { defaultResolvers, fillAllDocs } from '../src/tooling/docs.ts';
import { FETCH_OWN_HEADERS } from '../src/mock/in-process.ts';
import type { MockEvent } from '../src/mock/index.ts';
import { runOnce } from './chapter-runs.ts';

/** The chapters whose demo is compared over HTTP: the first (one request, one JSON answer),
 *  streaming (5), concurrent requests (12: five forks at once; 13: caps and scripted waits),
 *  the parent's requests beside a background agent's (15) and the whole agent (16). */
const OVER_HTTP = new Set([1, 5, 12, 13, 15, 16]);

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

/** The parts the series is run in, a test file each: scenarios.FIRST-LAST.test.ts. Chapters
 *  11, 12 and 15, 16 are the longest; the parts come out about even. */
export const PARTS: readonly [first: number, last: number][] = [[1, 11], [12, 14], [15, 16]];

const chaptersOf = (part: number) => WRITTEN_CHAPTERS.filter((ch) => ch.n >= PARTS[part]![0] && ch.n <= PARTS[part]![1]);
const docOf = (ch: (typeof WRITTEN_CHAPTERS)[number]) => `docs/${chapterDir(ch)}.md`;
const CHAPTER_DOCS = new Set(WRITTEN_CHAPTERS.map(docOf));

/** Whether a part checks this doc (a path from the root): its chapters' docs; the first part also every doc of no chapter. */
function checks(part: number, doc: string): boolean {
  return chaptersOf(part).some((ch) => doc === docOf(ch)) || (part === 0 && !CHAPTER_DOCS.has(doc));
}

/**
 * The tests of one part: its chapters' scenarios, and its chapters' docs. The first part
 * also checks the docs that belong to no chapter (README.md, docs/README.md,
 * architecture.md, …), and that the parts cover every written chapter once, a file each.
 */
export function scenarioSuite(part: number): void {
  const [first, last] = PARTS[part]!;
  const otherDocs = part === 0;
  if (otherDocs) {
    it('the parts cover every written chapter and every doc once, and each has its test file', () => {
      expect(PARTS.flatMap((_, i) => chaptersOf(i).map((ch) => ch.n))).toEqual(WRITTEN_CHAPTERS.map((ch) => ch.n));
      const docs = [...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), 'README.md'];
      for (const doc of docs) expect(PARTS.filter((_, i) => checks(i, doc)).length, doc).toBe(1);
      for (const [a, b] of PARTS) expect(existsSync(path.join(ROOT, 'test', `scenarios.${a}-${b}.test.ts`)), `test/scenarios.${a}-${b}.test.ts`).toBe(true);
    });
  }
  for (const ch of chaptersOf(part)) scenarioTests(ch);
  describe(otherDocs ? `the docs of chapters ${first}-${last}, and the docs of no chapter` : `the docs of chapters ${first}-${last}`, () => {
    it('every generated region (code, diff, transcript) is fresh: run npm run gen if this fails', async () => {
      const transcript = (n: number, caseName: string, options?: Parameters<typeof docTranscript>[2]) => docTranscript(n, caseName, options, runOnce);
      const stale = await fillAllDocs(ROOT, defaultResolvers(ROOT, transcript, (n) => docVerdicts(n, runOnce)), { write: false, docs: (doc) => checks(part, doc) });
      expect(stale.map((d) => `${d.path} ${d.firstDifference}`)).toEqual([]);
    });
  });
}

/**
 * A chapter's scenarios run side by side (each in its own temp folder, against its own mock):
 * several wait on purpose (a shell command that sleeps, a person who takes a while to answer),
 * and one after another they held the worker idle meanwhile. Whole suites taken in turn, four
 * pairs: 0.5 to 1.2 s less wall time with them side by side.
 */
function scenarioTests(ch: (typeof WRITTEN_CHAPTERS)[number]): void {
  describe.concurrent(`chapter ${ch.n} (${ch.slug})`, () => {
    it('has a demo scenario', () => {
      expect(casesOf(ch)).toContain('demo');
    });
    for (const name of casesOf(ch)) {
      it(`scenario ${name}: every expectation holds`, async () => {
        const scenario = await loadScenarioFile(scenarioFile(ch, name));
        expect(scenario.expect?.length ?? 0, 'a scenario must expect something').toBeGreaterThan(0);
        const result = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
        expect(result.failures, 'scenario problems reported by the mock').toEqual([]);
        expect(result.crash, 'the agent crashed').toBeUndefined();
        expect(result.expectations.filter((e) => !e.ok).map((e) => `${e.name}: ${e.detail}`)).toEqual([]);
      });
    }
    if (OVER_HTTP.has(ch.n)) it('demo over HTTP: the mock sees and answers the same as in process', async () => {
      const scenario = await loadScenarioFile(scenarioFile(ch, 'demo'));
      const inProcess = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
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
  });
}
