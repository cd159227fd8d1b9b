// GENERATED from src/agent/session.ts for chapter 2 (tools). Do not edit: change src/agent/session.ts and run npm run gen.
// The main agent's session: one conversation that lasts across prompts. It builds the
// loop's config from the host, and it is where each later chapter plugs its feature in:
// a tool, a field of the config, a command `send` handles. Not here: the loop (agent.ts).

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentHost, LoopConfig } from './types.ts';
import { agentLoop } from './agent.ts';
import { BASE_TOOLS } from './tools.ts';

// A fixed one-line prompt for now; chapter 3 renders a real one.
const SYSTEM_PROMPT = 'You are a coding agent. Use your tools to work with the files in the working directory, then answer briefly.';

/** The main agent: one conversation that lasts across prompts. */
export class Session {
  readonly config: LoopConfig;

  constructor(client: Anthropic, host: AgentHost) {
    this.config = {
      client,
      model: host.model,
      system: SYSTEM_PROMPT,
      tools: [
        ...BASE_TOOLS,
      ],
      messages: [],
      cwd: host.cwd,
      terminal: host.terminal,
    };
  }

  /** Send one user prompt; returns the model's final answer. */
  send(prompt: string): Promise<string> {
    this.config.messages.push({ role: 'user', content: prompt });
    return agentLoop(this.config);
  }
}
