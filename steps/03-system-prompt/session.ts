// GENERATED from src/agent/session.ts for chapter 3 (system-prompt). Do not edit: change src/agent/session.ts and run npm run gen.
// The main agent's session: one conversation that lasts across prompts. It builds the
// loop's config from the host, and it is where each later chapter plugs its feature in:
// a tool, a field of the config, a command `send` handles. Not here: the loop (agent.ts).

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentHost, LoopConfig, PromptParts } from './types.ts';
import { agentLoop } from './agent.ts';
import { BASE_TOOLS } from './tools.ts';
import { renderSystemPrompt } from './prompt.ts';

/** The main agent: one conversation that lasts across prompts. */
export class Session {
  readonly config: LoopConfig;

  /** `parts` were gathered once at session start (prompt.ts); rendered here, once. */
  constructor(client: Anthropic, host: AgentHost, parts: PromptParts) {
    this.config = {
      client,
      model: host.model,
      system: renderSystemPrompt(parts),   // the bytes every call of this session sends
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
