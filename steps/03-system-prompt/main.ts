// GENERATED from src/agent/main.ts for chapter 3 (system-prompt). Do not edit: change src/agent/main.ts and run npm run gen.
// The front door of every chapter: what a terminal, the demo runner or a test calls to
// start the agent. It holds no agent logic; it wires the outside world (a workspace,
// an API key, a place to print) to the loop in agent.ts.
//
// The shapes here stay the same from chapter 1 to the last, so the same runner can
// drive every chapter's snapshot.

import Anthropic from '@anthropic-ai/sdk';
import { Session } from './agent.ts';
import { gatherPromptParts } from './prompt.ts';

/** The model used when nobody names one. The one place it is written down. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

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
  /** What the system prompt reports as the platform: process.platform on a real run. A
   *  runner may pin it, so that a scripted run counts the same bytes on every machine. */
  platform: string;
}

/** One session: each prompt is sent in turn, as if the user typed it. */
export async function runSession(prompts: string[], host: AgentHost): Promise<void> {
  // The SDK as it ships: only the base URL changes when a mock stands in for the API.
  const client = new Anthropic({ apiKey: host.apiKey, baseURL: host.baseURL });
  // The prompt's parts are read now, at session start, and never again in this session.
  const session = new Session(client, host, await gatherPromptParts(host));
  for (const prompt of prompts) {
    host.terminal.write(`\n> ${prompt}\n`);
    await session.send(prompt); // the loop prints the model's text as it arrives
  }
}
