// The agent loop: ask the model, run the tools it asks for, send the results back, and
// repeat until it answers without asking for a tool. That loop is the whole idea of a
// coding agent; every later chapter adds to it rather than replacing it.
//
// `agentLoop` runs the loop for one configuration (model, system prompt, tools and
// the message array). `Session` is the main agent: it keeps the conversation between
// prompts.
//> 11 header-subagents
// A sub-agent (subagent.ts) is this same `agentLoop` with another configuration,
// not a second implementation.
//<

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentHost, Terminal } from './main.ts';
import { BASE_TOOLS, runTool, type Tool } from './tools.ts';
//> 3 agent-import-prompt
import { renderSystemPrompt, type PromptParts } from './prompt.ts';
//<
//> 5 agent-import-stream
import { streamMessage } from './stream.ts';
//<
//> 6 agent-import-permissions
import { permissionMode, type Permissions } from './permissions.ts';
//<
//> 7 agent-import-context
import { autoCompact, compactByHand, compactThreshold } from './context.ts';
//<
//> 8 agent-import-ledger
import { Ledger } from './ledger.ts';
import { isPromptCachingDisabled, withBreakpoints } from './cache.ts';
//<
//> 9 agent-import-skills
import { skillCommand, type Skill } from './skills.ts';
//<
//> 10 agent-import-plan
import { exitPlanModeTool, planCommand, remindOfPlanMode } from './plan.ts';
//<
//> 11-13 agent-import-subagent
import { agentTool } from './subagent.ts';
//<
//> 14 agent-import-agents
import { agentToolFor } from './subagent.ts';
import { agentTypes, forkedSkill, runIsland } from './agents.ts';
//<
//> 12 agent-import-fork
import { isForkSubagentEnabled } from './fork.ts';
//<
//> 13 agent-import-limits
import { readLimits, runCalls, type Limits } from './limits.ts';
import { becomeCoordinator, isCoordinator } from './coordinator.ts';
//<
//> 15 agent-import-background
import { Background, BACKGROUND_TOOLS, deliverNotifications } from './background.ts';
//<

const MAX_TOKENS = 4096;

//> 1-2 fixed-system-prompt
// A fixed one-line prompt for now; chapter 3 renders a real one.
const SYSTEM_PROMPT = 'You are a coding agent. Use your tools to work with the files in the working directory, then answer briefly.';
//<

/** Everything one run of the loop needs. A sub-agent is this same loop with another config. */
export interface LoopConfig {
  client: Anthropic;
  model: string;
  system: string;
  tools: Tool[];
  messages: Anthropic.MessageParam[];   // the conversation; the loop appends to it
  cwd: string;
  terminal: Terminal;       // where this agent's text goes (a sub-agent's goes to a buffer)
  //> 6 config-permissions
  permissions: Permissions; // the gate's mode and who answers its questions
  //<
  //> 7 config-context
  compactAt?: number;       // compact past this many tokens; undefined: never
  querySource: string;      // who is calling: 'repl_main_thread', 'compact', 'agent:builtin:explore', …
  //<
  //> 8 config-ledger
  ledger: Ledger;           // token usage of this agent
  //<
  //> 8 config-caching
  promptCaching: boolean;   // false under DISABLE_PROMPT_CACHING: no request carries a breakpoint
  //<
  //> 11 config-depth
  depth: number;            // 0: the main agent; 1: a sub-agent it started
  maxTurns: number;         // a runaway loop ends with an error instead of running forever
  //<
  //> 11 config-prompt-parts
  promptParts: PromptParts; // what the main session's prompt was made of: sub-agents reuse some of it
  //<
  //> 12 config-fork
  forkEnabled?: boolean;    // CLAUDE_CODE_FORK_SUBAGENT: an agent call without a type forks
  //<
  //> 13 config-limits
  limits: Limits;           // the session's caps and its count of running sub-agents: one object, shared
  workerTools?: Tool[];     // coordinator mode: the tools its sub-agents choose from (its own are only agent)
  //<
  //> 15 config-background
  background?: Background;  // the main agent's: its background agents by id, and their notifications
  signal?: AbortSignal;     // a background agent's: stop_agent aborts it
  //<
}

//> 1 loop
/** Run the loop until the model stops asking for tools; returns its final text. */
export async function agentLoop(config: LoopConfig): Promise<string> {
  const { messages } = config;
  //> 11 loop-turn-count
  let turns = 0;
  //<
  while (true) {
    //> 11 loop-turn-limit
    if (++turns > config.maxTurns) throw new Error(`stopped after ${config.maxTurns} model calls without a final answer`);
    //<
    //> 15 loop-deliver
    // A turn boundary: notifications of background agents that finished go in now, in a
    // message of their own; a stopped agent goes no further.
    deliverNotifications(config);
    config.signal?.throwIfAborted();
    //<
    //> 7 loop-compact
    await autoCompact(config);   // may replace old messages by a summary; the rest of config stays as it is
    //<
    //> 1-4 call-create
    const response = await config.client.messages.create({
    //<
    //> 5 call-stream
    // Streamed: the text reaches the terminal while the model is still writing it (stream.ts).
    const response = await streamMessage(config.client, config.terminal, {
    //<
      model: config.model,
      max_tokens: MAX_TOKENS,
      //> 1-7 request-prefix
      system: config.system,
      tools: config.tools.map((t) => t.spec),
      messages,
      //<
      //> 8 request-breakpoints
      // The same bytes as before, plus cache_control markers on copies: see cache.ts.
      ...withBreakpoints(config.system, config.tools.map((t) => t.spec), messages, config.promptCaching),
      //<
    });
    //> 8 loop-ledger-add
    config.ledger.add(response.usage, config.model);   // priced at the model that answered
    //<
    //> 15 loop-stopped
    config.signal?.throwIfAborted();   // stopped while the model answered: its answer is paid for, not acted on
    //<
    messages.push({ role: 'assistant', content: response.content });

    const calls: Anthropic.ToolUseBlock[] = [];
    for (const block of response.content) {
      //> 1-4 print-text
      if (block.type === 'text') config.terminal.write(`${block.text}\n`);
      //<
      if (block.type === 'tool_use') calls.push(block);
    }
    if (calls.length === 0) return finalText(response.content);

    //> 1 answer-tools
    //! hint: Run each tool call with runTool and collect the tool_result blocks it returns,
    //! hint: then push them all as ONE user message, so the next call can see them.
    // Every tool_use must be answered, in one user message, before the model is called again.
    const results: Anthropic.ToolResultBlockParam[] = [];
    //> 1-12 run-calls-in-order
    for (const call of calls) {
      config.terminal.write(`⏺ ${call.name}(${JSON.stringify(call.input)})\n`);
      results.push(await runTool(call, config));
    }
    //<
    //> 13 run-calls-together
    results.push(...(await runCalls(calls, config)));   // a turn's agent calls run at the same time (limits.ts)
    //<
    messages.push({ role: 'user', content: results });
    //<
  }
}
//<

function finalText(content: Anthropic.ContentBlock[]): string {
  return content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}

/** The main agent: one conversation that lasts across prompts. */
export class Session {
  readonly config: LoopConfig;
  //> 9 session-skills
  readonly skills: Skill[];   // read at session start with the rest of the prompt's parts
  //<
  //> 8 session-ledger
  readonly ledger = new Ledger();
  //<

  //> 1-2 session-constructor-fixed
  constructor(client: Anthropic, host: AgentHost) {
  //<
  //> 3 session-constructor-parts
  /** `parts` were gathered once at session start (prompt.ts); rendered here, once. */
  constructor(client: Anthropic, host: AgentHost, parts: PromptParts) {
  //<
    //> 9 session-skills-init
    this.skills = parts.skills;
    //<
    this.config = {
      client,
      model: host.model,
      //> 1-2 session-system-fixed
      system: SYSTEM_PROMPT,
      //<
      //> 3 session-system-rendered
      system: renderSystemPrompt(parts),   // the bytes every call of this session sends
      //<
      tools: [
        ...BASE_TOOLS,
        //> 10 session-plan-tool
        exitPlanModeTool,   // offered in every mode, so the tool list (and the cache) never changes
        //<
        //> 11-13 session-agent-tool
        agentTool,
        //<
        //> 14 session-agent-tool-custom
        agentToolFor(agentTypes(parts.agents)),   // its description lists the custom agents too
        //<
        //> 15 session-background-tools
        ...BACKGROUND_TOOLS,   // send_message, stop_agent: they act on background agents by id
        //<
      ],
      messages: [],
      cwd: host.cwd,
      terminal: host.terminal,
      //> 6 session-permissions
      permissions: { mode: permissionMode(host), ask: host.ask },
      //<
      //> 7 session-context
      compactAt: compactThreshold(host),
      querySource: 'repl_main_thread',   // Claude Code's name for the main conversation
      //<
      //> 8 session-config-ledger
      ledger: this.ledger,
      //<
      //> 8 session-caching
      promptCaching: !isPromptCachingDisabled(host.env),
      //<
      //> 11 session-depth
      depth: 0,
      maxTurns: 50,
      //<
      //> 11 session-prompt-parts
      promptParts: parts,
      //<
      //> 12 session-fork
      forkEnabled: isForkSubagentEnabled(host.env),
      //<
      //> 13 session-limits
      limits: readLimits(host.env, (line) => host.terminal.write(`${line}\n`)),
      //<
      //> 15 session-background
      background: new Background(),   // the main agent's agent calls run in the background
      //<
    };
    //> 13 session-coordinator
    if (isCoordinator(host)) becomeCoordinator(this.config);   // delegate only: coordinator.ts
    //<
  }

  /** Send one user prompt; returns the model's final answer. */
  send(prompt: string): Promise<string> {
    //> 7 send-compact
    if (prompt.trim() === '/compact') return compactByHand(this.config);   // a command, not a message to the model
    //<
    //> 10 send-plan
    // "/plan [task]" turns plan mode on (plan.ts); a task after it is sent as the prompt.
    prompt = planCommand(prompt, this.config);
    if (prompt === '') return Promise.resolve('');
    //<
    //> 9 send-skill
    // "/name args" runs a skill: its template becomes the prompt and its allowed-tools are
    // pre-approved for this prompt only. An unknown /name never reaches the model.
    this.config.permissions.preApproved = [];
    const skill = skillCommand(prompt, this.skills);
    if (skill && 'error' in skill) {
      this.config.terminal.write(`✖ ${skill.error}\n`);
      return Promise.resolve('');
    }
    //> 14 send-policy-island
    // A skill marked `context: fork` is not sent as the prompt: it runs as a policy island.
    const island = skill && forkedSkill(prompt, this.skills);
    if (skill && island) return runIsland(island, skill.prompt, this.config);
    //<
    if (skill) {
      prompt = skill.prompt;
      this.config.permissions.preApproved = skill.allowedTools;
    }
    //<
    this.config.messages.push({ role: 'user', content: prompt });
    //> 10 send-plan-reminder
    remindOfPlanMode(this.config);   // plan mode on: the message just pushed says so
    //<
    return agentLoop(this.config);
  }
  //> 15 session-settle

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
  //<
}
