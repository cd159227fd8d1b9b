// GENERATED from src/agent/session.ts for chapter 7 (context). Do not edit: change src/agent/session.ts and run npm run gen.
// The main agent's session: one conversation that lasts across prompts. It builds the
// loop's config from the host, and it is where each later chapter plugs its feature in:
// a tool, a field of the config, a command `send` handles. Not here: the loop (agent.ts).

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentHost, LoopConfig, PromptParts } from './types.ts';
import { agentLoop } from './agent.ts';
import { BASE_TOOLS } from './tools.ts';
import { renderSystemPrompt } from './prompt.ts';
import { permissionMode } from './cli.ts';
import { autoCompact, compactByHand, compactThreshold } from './context.ts';

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
      permissions: { mode: permissionMode(host), ask: host.ask },
      compactAt: compactThreshold(host),
      compact: autoCompact,              // the loop calls it before each model call (context.ts)
      querySource: 'repl_main_thread',   // Claude Code's name for the main conversation
    };
  }

  /** Send one user prompt; returns the model's final answer. */
  send(prompt: string): Promise<string> {
    // "/compact [what to keep]": a command, not a message to the model.
    const compactAsked = /^\/compact(?:\s+([\s\S]*))?$/.exec(prompt.trim());
    if (compactAsked) return compactByHand(this.config, compactAsked[1]?.trim());
    this.config.messages.push({ role: 'user', content: prompt });
    return agentLoop(this.config);
  }
}
