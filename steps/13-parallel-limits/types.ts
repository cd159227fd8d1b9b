// GENERATED from src/agent/types.ts for chapter 13 (parallel-limits). Do not edit: change src/agent/types.ts and run npm run gen.
// The shapes every file shares: the host, a tool, the loop's config. Types only.
// It imports no file above it: only, for a type, a few leaves below it (ledger.ts's Ledger
// and the like) that import nothing of it back. So any file may use it.
// What a field means is explained in the file that uses it.

import type Anthropic from '@anthropic-ai/sdk';
import type { Ledger } from './ledger.ts';

/** Where the agent prints what a user would see. */
export interface Terminal {
  write(text: string): void;
  /** Where a line about something wrong goes (a ✖ line), when the output must stay the answer
   *  alone (bin.ts: stderr, so that `-p`'s stdout is just the answer). Absent: write. */
  problem?(line: string): void;
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
  /** Answers a permission question: true = allow. Absent, or an answer of undefined (the input
   *  ended first): nobody to ask, so the call is refused. */
  ask?(question: PermissionQuestion): Promise<boolean | undefined>;
}

/** A tool: what the model sees, and what running it does. `run` returns the text sent back. */
export interface Tool {
  spec: Anthropic.Tool;
  /** `judged`: where the permission gate found input.path leads (Decision.path); a file tool opens that file or none. */
  run(input: Record<string, unknown>, config: LoopConfig, judged?: string): Promise<string>;
}

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
  querySource: string;      // who is calling: 'repl_main_thread' (the main agent), 'compact' (its summary call), …
  /** Before each model call: compacts once the conversation is past compactAt (context.ts).
   *  The loop gets it here, not by import: compaction runs the loop itself for its summary. */
  compact: (config: LoopConfig) => Promise<void>;
  ledger: Ledger;           // token usage of this agent
  promptCaching: boolean;   // false under DISABLE_PROMPT_CACHING: no request carries a breakpoint
  depth: number;            // 0: the main agent; a sub-agent: its parent's depth + 1
  name?: string;            // a sub-agent's, as its permission questions name it: type and task
  maxTurns: number;         // a runaway loop ends with an error instead of running forever
  /** Asked before each tool call (runTool): a reason to refuse it whatever the tool list says,
   *  or undefined. The agent tool's guard (subagent.ts) comes in this way. */
  refuse: (call: Anthropic.ToolUseBlock, config: LoopConfig) => string | undefined;
  promptParts: PromptParts; // what the main session's prompt was made of: sub-agents reuse some of it
  forkEnabled?: boolean;    // CLAUDE_CODE_FORK_SUBAGENT: an agent call without a type forks
  limits: Limits;           // the session's caps and its count of running sub-agents: one object, shared
  workerTools?: Tool[];     // coordinator mode: the tools its sub-agents choose from (its own: agent, and exit_plan_mode)
  /** How the loop answers one turn's tool calls: agent calls together, under the caps (limits.ts). */
  runCalls: (calls: Anthropic.ToolUseBlock[], config: LoopConfig) => Promise<Anthropic.ToolResultBlockParam[]>;
}

/** What the system prompt is made of, gathered once when the session starts (prompt.ts). */
export interface PromptParts {
  env: string;          // working directory, platform, date
  claudeMd: string;     // the CLAUDE.md hierarchy, most general first ('' when there is none)
  memory: string;       // the head of the memory file ('' when there is none)
  style: string;        // the output style's instructions ('' for the default)
  gitStatus: string;    // git branch and status, or why there is none
  skills: Skill[];      // .claude/skills/*/SKILL.md and the user's (skills.ts); a broken one is reported and skipped
}

/** Claude Code's four classic modes (permissions.ts). */
export type PermissionMode = 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';

/** What the gate asks a person about one call. */
export interface PermissionQuestion {
  tool: string;
  input: Record<string, unknown>;
  /** One line for a human: what would happen if they say yes. */
  summary: string;
  /** Who asks: a sub-agent's name (LoopConfig.name); the main agent's questions have none. */
  from?: string;
}

/** The session's permission settings; sub-agents share the parent's. */
export interface Permissions {
  mode: PermissionMode;
  /** Absent: nobody can answer (a script, a pipe), so a call that needs a yes is refused; so is
   *  one whose question got no answer (undefined: the input ended before one came). */
  ask?: (question: PermissionQuestion) => Promise<boolean | undefined>;
  /** Tools the running skill's allowed-tools pre-approve: no question for them. Reset on every prompt. */
  preApproved?: string[];
  /** The mode before plan mode was entered: approving a plan goes back to it (plan.ts). */
  prePlanMode?: PermissionMode;
}

/** A skill as read from its SKILL.md (skills.ts). */
export interface Skill {
  name: string;            // the command: /name
  description: string;     // one line for the model and for the list of skills
  allowedTools: string[];  // pre-approved while the skill runs; never a restriction
  context?: string;        // 'fork': chapter 14 runs the skill in a sub-agent (a policy island)
  agent?: string;          // which agent type runs a forked skill (chapter 14)
  body: string;            // the template
  file: string;            // where it came from, as shown to the user
}

/** A sub-agent type: the configuration that makes the same loop a specialist (subagent.ts). */
export interface AgentType {
  description: string;
  /** Tool names it gets; '*' means every tool of the parent except `agent` and `exit_plan_mode`. */
  tools: string[] | '*';
  /** Its own model, when the type has one; otherwise it inherits the parent's. */
  model?: string;
  systemPrompt: string;
  /** Whether it also starts with the CLAUDE.md hierarchy and the session's git status. */
  projectContext: boolean;
}

/** The session's caps on sub-agents, and how many run right now (limits.ts). */
export interface Limits {
  maxConcurrent: number;
  /** Levels of sub-agents below the main conversation (depth 0). The agent tool is offered while depth < maxDepth. */
  maxDepth: number;
  /** Sub-agents running right now, in the whole session. */
  running: number;
}
