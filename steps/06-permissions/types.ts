// GENERATED from src/agent/types.ts for chapter 6 (permissions). Do not edit: change src/agent/types.ts and run npm run gen.
// The shapes every file shares: the host, a tool, the loop's config. Types only.
// It imports no other file: it is the bottom of every snapshot, so any file may use it.
// What a field means is explained in the file that uses it.

import type Anthropic from '@anthropic-ai/sdk';

/** Where the agent prints what a user would see. */
export interface Terminal {
  write(text: string): void;
  /** Where a line about something wrong goes (a ✖ line), when the output must stay the answer
   *  alone (bin.ts: stderr, so that `-p`'s stdout is just the answer). Absent: write. */
  problem?(line: string): void;
}

/** Everything the agent gets from the outside world. */
export interface AgentHost {
  cwd: string;          // the workspace the tools may touch
  home: string;         // the user's home folder
  apiKey: string;
  baseURL?: string;     // undefined: the real API
  model: string;
  env: Record<string, string | undefined>;
  argv: string[];       // command-line flags
  terminal: Terminal;
  /** What the system prompt reports as the platform: process.platform on a real run. A
   *  runner may pin it, so that a scripted run counts the same bytes on every machine. */
  platform: string;
  /** Answers a permission question: true = allow. Absent, or an answer of undefined (the input
   *  ended first): nobody to ask, so the call is refused. */
  ask?(question: PermissionQuestion): Promise<boolean | undefined>;
}

/** A tool: what the model sees, and what running it does. `run` returns the text sent back. */
export interface Tool {
  spec: Anthropic.Tool;
  /** `judged`: where the permission gate found input.path leads (Decision.path); a file tool opens that file or none. */
  run(input: Record<string, unknown>, config: LoopConfig, judged?: string): Promise<string>;
}

/** Everything one run of the loop needs. */
export interface LoopConfig {
  client: Anthropic;
  model: string;
  system: string;
  tools: Tool[];
  messages: Anthropic.MessageParam[];   // the conversation; the loop appends to it
  cwd: string;
  terminal: Terminal;       // where this agent's text goes
  permissions: Permissions; // the gate's mode and who answers its questions
}

/** What the system prompt is made of, gathered once when the session starts (prompt.ts). */
export interface PromptParts {
  env: string;          // working directory, platform, date
  claudeMd: string;     // the CLAUDE.md hierarchy, most general first ('' when there is none)
  memory: string;       // the head of the memory file ('' when there is none)
  style: string;        // the output style's instructions ('' for the default)
  gitStatus: string;    // git branch and status, or why there is none
}

/** Claude Code's four classic modes (permissions.ts). */
export type PermissionMode = 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';

/** What the gate asks a person about one call. */
export interface PermissionQuestion {
  tool: string;
  input: Record<string, unknown>;
  /** One line for a human: what would happen if they say yes. */
  summary: string;
}

/** The session's permission settings. */
export interface Permissions {
  mode: PermissionMode;
  /** Absent: nobody can answer (a script, a pipe), so a call that needs a yes is refused; so is
   *  one whose question got no answer (undefined: the input ended before one came). */
  ask?: (question: PermissionQuestion) => Promise<boolean | undefined>;
}
