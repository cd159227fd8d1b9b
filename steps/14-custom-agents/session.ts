// GENERATED from src/agent/session.ts for chapter 14 (custom-agents). Do not edit: change src/agent/session.ts and run npm run gen.
// The main agent's session: one conversation that lasts across prompts. It builds the
// loop's config from the host, and it is where each later chapter plugs its feature in:
// a tool, a field of the config, a command `send` handles. Not here: the loop (agent.ts).

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentHost, LoopConfig, PromptParts, Skill } from './types.ts';
import { agentLoop } from './agent.ts';
import { BASE_TOOLS } from './tools.ts';
import { renderSystemPrompt } from './prompt.ts';
import { permissionMode } from './cli.ts';
import { autoCompact, compactByHand, compactThreshold } from './context.ts';
import { Ledger } from './ledger.ts';
import { isPromptCachingDisabled } from './cache.ts';
import { skillCommand } from './skills.ts';
import { exitPlanModeTool, planCommand, remindOfPlanMode } from './plan.ts';
import { agentCallRefusal, agentToolFor, agentTypes } from './subagent.ts';
import { forkedSkill, runIsland } from './island.ts';
import { isForkSubagentEnabled } from './fork.ts';
import { readLimits, runCalls } from './limits.ts';
import { becomeCoordinator, isCoordinator } from './coordinator.ts';

/** The main agent: one conversation that lasts across prompts. */
export class Session {
  readonly config: LoopConfig;
  readonly skills: Skill[];   // read at session start with the rest of the prompt's parts
  readonly ledger = new Ledger();

  /** `parts` were gathered once at session start (prompt.ts); rendered here, once. */
  constructor(client: Anthropic, host: AgentHost, parts: PromptParts) {
    this.skills = parts.skills;
    this.config = {
      client,
      model: host.model,
      system: renderSystemPrompt(parts),   // the bytes every call of this session sends
      tools: [
        ...BASE_TOOLS,
        exitPlanModeTool,   // offered in every mode, so the tool list (and the cache) never changes
        agentToolFor(agentTypes(parts.agents)),   // its description lists the custom agents too
      ],
      messages: [],
      cwd: host.cwd,
      terminal: host.terminal,
      permissions: { mode: permissionMode(host), ask: host.ask },
      compactAt: compactThreshold(host),
      compact: autoCompact,              // the loop calls it before each model call (context.ts)
      querySource: 'repl_main_thread',   // Claude Code's name for the main conversation
      ledger: this.ledger,
      promptCaching: !isPromptCachingDisabled(host.env),
      depth: 0,
      maxTurns: 50,
      refuse: agentCallRefusal,   // the agent tool's guard (subagent.ts); every sub-agent's config copies it
      promptParts: parts,
      forkEnabled: isForkSubagentEnabled(host.env),
      limits: readLimits(host.env, (line) => host.terminal.write(`${line}\n`)),
      runCalls,   // a turn's agent calls run together, under the caps (limits.ts)
    };
    if (isCoordinator(host)) becomeCoordinator(this.config);   // delegate only: coordinator.ts
  }

  /** Send one user prompt; returns the model's final answer. */
  send(prompt: string): Promise<string> {
    // A skill's pre-approval was for its own prompt: the next line ends it, a command
    // (/compact, /plan) too, and whatever runs after that command (chapter 15's wake-ups).
    this.config.permissions.preApproved = [];
    // "/compact [what to keep]": a command, not a message to the model.
    const compactAsked = /^\/compact(?:\s+([\s\S]*))?$/.exec(prompt.trim());
    if (compactAsked) return compactByHand(this.config, compactAsked[1]?.trim());
    // "/plan [task]" turns plan mode on (plan.ts); a task after it is sent as the prompt.
    prompt = planCommand(prompt, this.config);
    if (prompt === '') return Promise.resolve('');
    // "/name args" runs a skill: its template becomes the prompt and its allowed-tools are
    // pre-approved for this prompt only. An unknown /name never reaches the model.
    const skill = skillCommand(prompt, this.skills);
    if (skill && 'error' in skill) {
      this.config.terminal.write(`✖ ${skill.error}\n`);
      return Promise.resolve('');
    }
    // A skill marked `context: fork` is not sent as the prompt: it runs as a policy island.
    const island = skill && forkedSkill(prompt, this.skills);
    if (skill && island) return runIsland(island, skill.prompt, this.config);
    if (skill) {
      prompt = skill.prompt;
      this.config.permissions.preApproved = skill.allowedTools;
    }
    this.config.messages.push({ role: 'user', content: prompt });
    remindOfPlanMode(this.config);   // plan mode on: the message just pushed says so
    return agentLoop(this.config);
  }
}
