// GENERATED from src/agent/types.ts for chapter 1 (agent-loop). Do not edit: change src/agent/types.ts and run npm run gen.
// The shapes every file shares: the host, a tool, the loop's config. Types only.
// It imports no other file: it is the bottom of every snapshot, so any file may use it.
// What a field means is explained in the file that uses it.

import type Anthropic from '@anthropic-ai/sdk';

/** Where the agent prints what a user would see. */
export interface Terminal {
  write(text: string): void;
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
