// What one x-ray run hands to the analysis: the wire, as the mock logged it.
// The driver (drive.ts) fills it by running a real Claude Code against the mock;
// the series' side fills it by running a chapter's own agent against the same mock.
// Both go through the same analysis (analyse.ts), so the two columns of the fact
// table are measured the same way. This file is only the shape; it runs nothing.

import type { MockEvent } from '../mock/types.ts';

export type XrayCase = 'delegate' | 'fork' | 'fork-seed' | 'guard' | 'limits' | 'skills';

export interface XrayTrace {
  /** Who sent the requests. */
  source: 'claude-code' | 'series';
  /** "2.1.328" for Claude Code (from `claude --version`), "chapter 12" for the series. */
  version: string;
  case: XrayCase;
  /** The mock's event log of the run: request, response and error events in order. */
  events: MockEvent[];
  /** The workspace and home folders the run used (so analysis can strip them from text). */
  cwd: string;
  home: string;
}
