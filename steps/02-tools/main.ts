// GENERATED from src/agent/main.ts for chapter 2 (tools). Do not edit: change src/agent/main.ts and run npm run gen.
// The front door of every chapter: what a terminal, the demo runner or a test calls to
// start the agent. It holds no agent logic; it hands the outside world (a workspace,
// an API key, a place to print) to a session (session.ts) and sends it the prompts.
//
// Its shape stays the same from chapter 1 to the last, runSession(prompts, host) with
// the host types of types.ts, so the same runner can drive every chapter's snapshot.

import Anthropic from '@anthropic-ai/sdk';
import type { AgentHost } from './types.ts';
import { Session } from './session.ts';

/** The model used when nobody names one. The one place it is written down. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

/** One session: each prompt is sent in turn, as if the user typed it. */
export async function runSession(prompts: string[], host: AgentHost): Promise<void> {
  // The SDK as it ships: only the base URL changes when a mock stands in for the API.
  const client = new Anthropic({ apiKey: host.apiKey, baseURL: host.baseURL });
  const session = new Session(client, host);
  for (const prompt of prompts) {
    host.terminal.write(`\n> ${prompt}\n`);
    await session.send(prompt); // the loop prints the model's text as it arrives
  }
}
