// Small helpers for the mock's own test suites (test/mock.*.test.ts): build an
// in-memory scenario, start a mock for it, and a controllable clock. NOT used by
// the runner or the chapters.

import Anthropic from '@anthropic-ai/sdk';
import { parseScenario } from './scenario.ts';
import { startMock } from './server.ts';
import type { Clock, MockServer } from './server.ts';
import type { Scenario, Track } from './types.ts';

/** A validated scenario from tracks alone (goes through the real loader checks). */
export function scenarioOf(tracks: Record<string, Track>, file = 'test/inline.json'): Scenario {
  return parseScenario(JSON.stringify({ title: 'inline', prompts: ['go'], tracks }), file);
}

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  t: number;
  constructor(start = 1_000_000) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export async function mockFor(
  tracks: Record<string, Track>, opts: { clock?: Clock; file?: string; logFile?: string; latencyScale?: number } = {},
): Promise<MockServer> {
  return startMock({ scenario: scenarioOf(tracks, opts.file), clock: opts.clock, logFile: opts.logFile, latencyScale: opts.latencyScale ?? 0 });
}

export function client(mock: MockServer, maxRetries = 0): Anthropic {
  return new Anthropic({ apiKey: 'test', baseURL: mock.url, maxRetries });
}

/** A main track that answers `n` times with a short text. */
export function repeatTrack(n: number, text = 'ok'): Track {
  return { turns: Array.from({ length: n }, () => ({ text })) };
}
