// The main agent's session: one conversation that lasts across prompts. It builds the
// loop's config from the host, and it is where each later chapter plugs its feature in:
// a tool, a field of the config, a command `send` handles. Not here: the loop (agent.ts).

import type Anthropic from '@anthropic-ai/sdk';
//> 1-2 session-import-types
import type { AgentHost, LoopConfig } from './types.ts';
//<
//> 3-8 session-import-types-prompt
import type { AgentHost, LoopConfig, PromptParts } from './types.ts';
//<
//> 9 session-import-types-skills
import type { AgentHost, LoopConfig, PromptParts, Skill } from './types.ts';
//<
import { agentLoop } from './agent.ts';
import { BASE_TOOLS } from './tools.ts';
//> 3 session-import-prompt
import { renderSystemPrompt } from './prompt.ts';
//<
//> 6 session-import-permissions
import { permissionMode } from './cli.ts';
//<
//> 7 session-import-context
import { autoCompact, compactByHand, compactThreshold } from './context.ts';
//<
//> 8 session-import-ledger
import { Ledger } from './ledger.ts';
import { isPromptCachingDisabled } from './cache.ts';
//<
//> 9 session-import-skills
import { skillCommand } from './skills.ts';
//<
//> 10 session-import-plan
import { exitPlanModeTool, planCommand, remindOfPlanMode } from './plan.ts';
//<
//> 11-13 session-import-subagent
import { agentCallRefusal, agentTool } from './subagent.ts';
//<
//> 14 session-import-agents
import { agentCallRefusal, agentToolFor, agentTypes } from './subagent.ts';
import { forkedSkill, runIsland } from './island.ts';
//<
//> 12 session-import-fork
import { isForkSubagentEnabled } from './fork.ts';
//<
//> 13 session-import-limits
import { readLimits, runCalls } from './limits.ts';
import { becomeCoordinator, isCoordinator } from './coordinator.ts';
//<
//> 15 session-import-background
import { Background, BACKGROUND_TOOLS, deliverNotifications } from './background.ts';
//<

//> 1-2 fixed-system-prompt
// A fixed one-line prompt for now; chapter 3 renders a real one.
const SYSTEM_PROMPT = 'You are a coding agent. Use your tools to work with the files in the working directory, then answer briefly.';

//<
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
      compact: autoCompact,              // the loop calls it before each model call (context.ts)
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
      refuse: agentCallRefusal,   // the agent tool's guard (subagent.ts); every sub-agent's config copies it
      //<
      //> 11 session-prompt-parts
      promptParts: parts,
      //<
      //> 12 session-fork
      forkEnabled: isForkSubagentEnabled(host.env),
      //<
      //> 13 session-limits
      limits: readLimits(host.env, (line) => host.terminal.write(`${line}\n`)),
      runCalls,   // a turn's agent calls run together, under the caps (limits.ts)
      //<
      //> 15 session-background
      background: new Background(),   // the main agent's agent calls run in the background
      deliver: deliverNotifications,  // the loop calls it at each turn boundary; no child config copies it
      //<
    };
    //> 13 session-coordinator
    if (isCoordinator(host)) becomeCoordinator(this.config);   // delegate only: coordinator.ts
    //<
  }

  /** Send one user prompt; returns the model's final answer. */
  send(prompt: string): Promise<string> {
    //> 9 send-approvals-end
    // A skill's pre-approval was for its own prompt: the next line ends it, a command
    // (/compact, /plan) too, and whatever runs after that command (chapter 15's wake-ups).
    this.config.permissions.preApproved = [];
    //<
    //> 7 send-compact
    // "/compact [what to keep]": a command, not a message to the model.
    const compactAsked = /^\/compact(?:\s+([\s\S]*))?$/.exec(prompt.trim());
    if (compactAsked) return compactByHand(this.config, compactAsked[1]?.trim());
    //<
    //> 10 send-plan
    // "/plan [task]" turns plan mode on (plan.ts); a task after it is sent as the prompt.
    prompt = planCommand(prompt, this.config);
    if (prompt === '') return Promise.resolve('');
    //<
    //> 9 send-skill
    // "/name args" runs a skill: its template becomes the prompt and its allowed-tools are
    // pre-approved for this prompt only. An unknown /name never reaches the model.
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
