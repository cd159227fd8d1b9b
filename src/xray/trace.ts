// What one x-ray run hands to the analysis: the wire, as the mock logged it.
// The driver (drive.ts) fills it by running a real Claude Code against the mock;
// the series' side fills it by running a chapter's own agent against the same mock.
// Both go through the same analysis (analyse.ts), so the two columns of the fact
// table are measured the same way. This file is only the shape; it runs nothing.

import type { MockEvent } from '../mock/types.ts';
import type { RepoAfter } from './repo.ts';

export type XrayCase = 'delegate' | 'fork' | 'fork-seed' | 'guard' | 'limits' | 'skills' | 'worktree' | 'failed' | 'stop' | 'continue' | 'session';

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
  /** The case's environment variables (the caps, CLAUDE_CODE_FORK_SUBAGENT): the wire cannot say. */
  env?: Record<string, string>;
  /** The workspace and home files the run set up (relative path → content), so the analysis
   *  can tell whether a CLAUDE.md or which of two same-name skills reached the model. */
  files?: Record<string, string>;
  homeFiles?: Record<string, string>;
  /** The scenario's own flags for the client (beyond the prompt and the permission mode): a session id, say. */
  argv?: string[];
  /** The folder of the workspace the session started in (the scenario's cwd), when not its root. */
  start?: string;
  /** The workspace repository as the run left it (worktrees, branches): read from disk, not the wire. */
  repo?: RepoAfter;
}
