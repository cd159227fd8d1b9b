// GENERATED from src/agent/types.ts for chapter 4 (cli-sessions). Do not edit: change src/agent/types.ts and run npm run gen.
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
}

/** A tool: what the model sees, and what running it does. `run` returns the text sent back. */
export interface Tool {
  spec: Anthropic.Tool;
  run(input: Record<string, unknown>, config: LoopConfig): Promise<string>;
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
}

/** What the system prompt is made of, gathered once when the session starts (prompt.ts). */
export interface PromptParts {
  env: string;          // working directory, platform, date
  claudeMd: string;     // the CLAUDE.md hierarchy, most general first ('' when there is none)
  memory: string;       // the head of the memory file ('' when there is none)
  style: string;        // the output style's instructions ('' for the default)
  gitStatus: string;    // git branch and status, or why there is none
}
