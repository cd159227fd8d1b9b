// GENERATED from src/agent/agent.ts for chapter 15 (background-agents). Do not edit: change src/agent/agent.ts and run npm run gen.
// The agent loop: ask the model, run the tools it asks for, send the results back, and
// repeat until it answers without asking for a tool. That loop is the whole idea of a
// coding agent; every later chapter adds to it rather than replacing it.
//
// `agentLoop` runs the loop for one configuration (model, system prompt, tools and
// the message array). `Session` is the main agent: it keeps the conversation between
// prompts.
// A sub-agent (subagent.ts) is this same `agentLoop` with another configuration,
// not a second implementation.

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentHost, Terminal } from './main.ts';
import { BASE_TOOLS, runTool, type Tool } from './tools.ts';
import { renderSystemPrompt, type PromptParts } from './prompt.ts';
import { streamMessage } from './stream.ts';
import { permissionMode, type Permissions } from './permissions.ts';
import { autoCompact, compactByHand, compactThreshold } from './context.ts';
import { Ledger } from './ledger.ts';
import { isPromptCachingDisabled, withBreakpoints } from './cache.ts';
import { skillCommand, type Skill } from './skills.ts';
import { exitPlanModeTool, planCommand, remindOfPlanMode } from './plan.ts';
import { agentToolFor } from './subagent.ts';
import { agentTypes, forkedSkill, runIsland } from './agents.ts';
import { isForkSubagentEnabled } from './fork.ts';
import { readLimits, runCalls, type Limits } from './limits.ts';
import { becomeCoordinator, isCoordinator } from './coordinator.ts';
import { Background, BACKGROUND_TOOLS, deliverNotifications } from './background.ts';

const MAX_TOKENS = 4096;


/** Everything one run of the loop needs. A sub-agent is this same loop with another config. */
export interface LoopConfig {
  client: Anthropic;
  model: string;
  system: string;
  tools: Tool[];
  messages: Anthropic.MessageParam[];   // the conversation; the loop appends to it
  cwd: string;
  terminal: Terminal;       // where this agent's text goes (a sub-agent's goes to a buffer)
  permissions: Permissions; // the gate's mode and who answers its questions
  compactAt?: number;       // compact past this many tokens; undefined: never
  querySource: string;      // who is calling: 'repl_main_thread', 'compact', 'agent:builtin:explore', …
  ledger: Ledger;           // token usage of this agent
  promptCaching: boolean;   // false under DISABLE_PROMPT_CACHING: no request carries a breakpoint
  depth: number;            // 0: the main agent; 1: a sub-agent it started
  maxTurns: number;         // a runaway loop ends with an error instead of running forever
  promptParts: PromptParts; // what the main session's prompt was made of: sub-agents reuse some of it
  forkEnabled?: boolean;    // CLAUDE_CODE_FORK_SUBAGENT: an agent call without a type forks
  limits: Limits;           // the session's caps and its count of running sub-agents: one object, shared
  workerTools?: Tool[];     // coordinator mode: the tools its sub-agents choose from (its own are only agent)
  background?: Background;  // the main agent's: its background agents by id, and their notifications
  signal?: AbortSignal;     // a background agent's: stop_agent aborts it
}

/** Run the loop until the model stops asking for tools; returns its final text. */
export async function agentLoop(config: LoopConfig): Promise<string> {
  const { messages } = config;
  let turns = 0;
  while (true) {
    if (++turns > config.maxTurns) throw new Error(`stopped after ${config.maxTurns} model calls without a final answer`);
    // A turn boundary: notifications of background agents that finished go in now, in a
    // message of their own; a stopped agent goes no further.
    deliverNotifications(config);
    config.signal?.throwIfAborted();
    await autoCompact(config);   // may replace old messages by a summary; the rest of config stays as it is
    // Streamed: the text reaches the terminal while the model is still writing it (stream.ts).
    const response = await streamMessage(config.client, config.terminal, {
      model: config.model,
      max_tokens: MAX_TOKENS,
      // The same bytes as before, plus cache_control markers on copies: see cache.ts.
      ...withBreakpoints(config.system, config.tools.map((t) => t.spec), messages, config.promptCaching),
    });
    config.ledger.add(response.usage, config.model);   // priced at the model that answered
    config.signal?.throwIfAborted();   // stopped while the model answered: its answer is paid for, not acted on
    messages.push({ role: 'assistant', content: response.content });

    const calls: Anthropic.ToolUseBlock[] = [];
    for (const block of response.content) {
      if (block.type === 'tool_use') calls.push(block);
    }
    if (calls.length === 0) return finalText(response.content);

    // Every tool_use must be answered, in one user message, before the model is called again.
    const results: Anthropic.ToolResultBlockParam[] = [];
    results.push(...(await runCalls(calls, config)));   // a turn's agent calls run at the same time (limits.ts)
    messages.push({ role: 'user', content: results });
  }
}

function finalText(content: Anthropic.ContentBlock[]): string {
  return content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}

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
        ...BACKGROUND_TOOLS,   // send_message, stop_agent: they act on background agents by id
      ],
      messages: [],
      cwd: host.cwd,
      terminal: host.terminal,
      permissions: { mode: permissionMode(host), ask: host.ask },
      compactAt: compactThreshold(host),
      querySource: 'repl_main_thread',   // Claude Code's name for the main conversation
      ledger: this.ledger,
      promptCaching: !isPromptCachingDisabled(host.env),
      depth: 0,
      maxTurns: 50,
      promptParts: parts,
      forkEnabled: isForkSubagentEnabled(host.env),
      limits: readLimits(host.env, (line) => host.terminal.write(`${line}\n`)),
      background: new Background(),   // the main agent's agent calls run in the background
    };
    if (isCoordinator(host)) becomeCoordinator(this.config);   // delegate only: coordinator.ts
  }

  /** Send one user prompt; returns the model's final answer. */
  send(prompt: string): Promise<string> {
    if (prompt.trim() === '/compact') return compactByHand(this.config);   // a command, not a message to the model
    // "/plan [task]" turns plan mode on (plan.ts); a task after it is sent as the prompt.
    prompt = planCommand(prompt, this.config);
    if (prompt === '') return Promise.resolve('');
    // "/name args" runs a skill: its template becomes the prompt and its allowed-tools are
    // pre-approved for this prompt only. An unknown /name never reaches the model.
    this.config.permissions.preApproved = [];
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

  /**
   * The prompts are done, but background agents may still run, or their notifications wait
   * unread. The session does not end on them: it waits until none runs, then wakes the main
   * agent, whose loop delivers every notification at its first turn boundary. Its answer
   * may start more work (send_message), so this goes round until nothing is left.
   */
  async settle(): Promise<string | undefined> {
    const background = this.config.background!;
    let answer: string | undefined;
    while (background.busy()) {
      await background.idle();
      answer = await agentLoop(this.config);
    }
    return answer;
  }
}
