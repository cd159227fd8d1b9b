// GENERATED from src/agent/subagent.ts for chapter 16 (worktree-isolation). Do not edit: change src/agent/subagent.ts and run npm run gen.
// Sub-agents, fork-return style. The main agent calls the `agent` tool with a task; a
// sub-agent runs the *same* agentLoop with its own system prompt, its own tools and a
// fresh message array; only its final text comes back as the tool_result.
//
//   Fork     the parent's context gains one tool_use block
//   Execute  the sub-agent loops in its own messages; the parent sees none of it
//   Return   the sub-agent's final text becomes the tool_result
//   Forget   the sub-agent's messages and config go out of scope
//
// Not here: how a fork child is built and run (fork.ts), the caps on parallel sub-agents
// (limits.ts, chapter 13), reading agent files (agents.ts, chapter 14).
//
// From chapter 13 on, a type that may use every tool ('*', like general) may delegate in
// turn, up to CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH levels below the main conversation
// (limits.ts); explore and plan never can. Every report is scanned (scan.ts) before the
// parent's model reads it.
//
// From chapter 15 on, the main agent's calls return at once: the sub-agent runs in the
// background (background.ts), and Return becomes a notification that arrives later. A
// sub-agent's own calls still wait for their reports.

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentFile, AgentType, LoopConfig, PromptParts, Tool } from './types.ts';
import { agentLoop } from './agent.ts';
import { AGENT_TOOL_NAME } from './tools.ts';
import { Ledger } from './ledger.ts';
import { claudeMdSection, gitStatusSection } from './prompt.ts';
import { EXIT_PLAN_MODE } from './plan.ts';
import { errorLine } from './cli.ts';
import { runForkCall, takesForkPath } from './fork.ts';
import { depthRefusal } from './limits.ts';
import { scanReport } from './scan.ts';
import { withMode, withSkills } from './agents.ts';
import { BACKGROUND_TOOLS, launch } from './background.ts';
import { createWorktree, finishWorktree, worktreeRemoved, worktreeSection } from './worktree.ts';

const READ_ONLY = ['read_file', 'list_files', 'grep_search'];

export const AGENT_TYPES: Record<string, AgentType> = {
  explore: {
    description: 'Fast read-only search: find files, definitions, usages. Cannot change anything.',
    // No shell and no writes: destructive commands are impossible by construction,
    // which is stronger than asking nicely in the prompt. This series' own design: Claude
    // Code's Explore keeps Bash (measured on 2.1.328; the v2.1.88 source has it too).
    tools: READ_ONLY,
    model: 'claude-haiku-4-5',
    systemPrompt: 'You are an explore sub-agent: a fast, read-only code searcher. Use read_file, list_files and grep_search to answer the task, then reply with a short, factual report. You cannot modify files or run commands.',
    projectContext: false,   // kept small and fast: no CLAUDE.md, no git status
  },
  plan: {
    description: 'Read-only analysis that returns a step-by-step implementation plan.',
    tools: READ_ONLY,
    systemPrompt: 'You are a plan sub-agent. Read the relevant code with your read-only tools, then reply with a structured plan: Goal, Files to change, Steps (numbered), Risks. Do not write code.',
    projectContext: false,
  },
  general: {
    description: 'A general-purpose worker with every tool; it may delegate in turn, up to the spawn-depth limit.',
    tools: '*',
    systemPrompt: 'You are a general-purpose sub-agent. Complete the task with your tools, then reply with a concise report of what you found or changed. Your report is all the caller will see.',
    projectContext: true,
  },
};

/** Every type the agent tool can start: the built-ins, replaced by name by the custom ones (agents.ts). */
export function agentTypes(custom: AgentFile[]): Record<string, AgentType> {
  const types: Record<string, AgentType> = { ...AGENT_TYPES };
  for (const a of custom) types[a.name] = a.type;
  return types;
}

/** The agent tool's spec for a set of types: every type, and what it is for, is in its words. */
function agentToolSpec(types: Record<string, AgentType>): Tool['spec'] {
  return {
    name: AGENT_TOOL_NAME,
    description:
      'Delegate a self-contained task to a sub-agent with a fresh context. Only its final report comes back. ' +
      'Types: ' + Object.entries(types).map(([name, t]) => `${name} (${t.description})`).join('; ') + '. ' +
      'Write a complete prompt: the sub-agent cannot see this conversation or ask questions.',
    input_schema: {
      type: 'object',
      properties: {
        description: { type: 'string', description: 'A short (3-5 word) label for the task' },
        prompt: { type: 'string', description: 'The complete task for the sub-agent' },
        subagent_type: { type: 'string', enum: [...Object.keys(types), 'fork'], description: 'Default: general. fork: a child that starts from this conversation' },
        model: { type: 'string', description: 'Optional model id for the sub-agent' },
        isolation: { type: 'string', enum: ['worktree'], description: 'worktree: the sub-agent works in a git worktree of its own, on a new branch; kept only if it changes something' },
      },
      required: ['description', 'prompt'],
    },
  };
}

export const agentTool: Tool = {
  spec: agentToolSpec(AGENT_TYPES),
  // As in chapter 15; and what became of an isolated sub-agent's worktree comes after the
  // scanned report, in this series' own words, where no report can forge it.
  run: async (input, config) => {
    if (config.background) return runSubagent(input, config, true);
    const notes: string[] = [];
    const report = scanReport(await runSubagent(input, config, false, notes)).text;
    return [report, ...notes].join('\n\n');
  },
};

/**
 * The agent tool of a session that has custom agents (agents.ts): the same tool, with every
 * type the session knows in its description and its enum. Those words are part of the tool
 * list, the first bytes of every request: adding or editing an agent file changes them, and
 * with them every cached prefix. They are fixed at session start, so within a session they
 * never move.
 */
export function agentToolFor(types: Record<string, AgentType>): Tool {
  return { ...agentTool, spec: agentToolSpec(types) };
}

/**
 * The tools a sub-agent of this type gets. The agent tool only when `mayNest` (the child
 * would still be above the depth cap) and the type grants it ('*', or from chapter 14 an
 * agent file that lists it); explore and plan list their three read-only tools, so they
 * never delegate.
 */
export function toolsFor(type: AgentType, parentTools: Tool[], mayNest: boolean): Tool[] {
  // exit_plan_mode asks the user to approve a plan; a sub-agent has no user of its own,
  // so it never gets the tool (nor is it in the tools Claude Code 2.1.328 sends its Explore
  // and general-purpose: the x-ray's explore.tools and general.tools).
  parentTools = parentTools.filter((t) => t.spec.name !== EXIT_PLAN_MODE);
  let granted = parentTools.filter((t) => type.tools === '*' || type.tools.includes(t.spec.name));
  // send_message and stop_agent act on the main agent's background agents: a sub-agent has none.
  granted = granted.filter((t) => !BACKGROUND_TOOLS.some((b) => b.spec.name === t.spec.name));
  // disallowedTools comes last: it takes away what `tools` (or '*') granted, agent included.
  granted = granted.filter((t) => !(type.disallowedTools ?? []).includes(t.spec.name));
  return mayNest ? granted : granted.filter((t) => t.spec.name !== AGENT_TOOL_NAME);
}

/**
 * The agent tool's guard: why this agent may not make this call, or undefined. The session
 * puts it on the config (`refuse`) and every child config copies it; runTool asks it before
 * it looks the tool up, so a call to a tool the agent was never offered still gets the reason.
 */
export function agentCallRefusal(call: Anthropic.ToolUseBlock, config: LoopConfig): string | undefined {
  const input = call.input as Record<string, unknown>;
  // A fork child is offered exit_plan_mode (its tools are the parent's, byte for byte), but the
  // plan, and leaving plan mode, are the main agent's: a child's call would put its own plan to
  // the user as the session's, and a yes would take the whole session out of plan mode.
  if (call.name === EXIT_PLAN_MODE && config.depth > 0) {
    return `${EXIT_PLAN_MODE} is the main agent's: a sub-agent has no plan of its own to present. Report what you found instead.`;
  }
  // Nesting is allowed now, up to the cap. Past it the call is refused, before runTool's
  // lookup: an agent at the cap is not offered the tool, and if its model calls it anyway
  // the refusal names the limit instead of "no tool named agent". A fork call is judged by the
  // fork guard (fork.ts) instead.
  if (call.name === AGENT_TOOL_NAME && config.depth >= config.limits.maxDepth && !takesForkPath(input, config)) {
    return depthRefusal(config.limits, config.depth);
  }
  return undefined;
}

/**
 * A sub-agent's system prompt: its type's own, then (unless the type is explore or plan)
 * the CLAUDE.md hierarchy and the git status the MAIN session gathered at its start (not
 * a new snapshot). Never the output style or the memory: those belong to the main
 * conversation with the user, not to a worker.
 */
function subagentSystemPrompt(type: AgentType, parts: PromptParts): string {
  if (!type.projectContext) return type.systemPrompt;
  return [type.systemPrompt, claudeMdSection(parts.claudeMd), gitStatusSection(parts.gitStatus)].filter((s) => s !== '').join('\n\n');
}

/**
 * Fork, execute, return, forget. A run that fails comes back as text; only a bad call (an
 * unknown type, no prompt) throws, and the loop returns that as an error result.
 * `background`: the main agent's call. It returns the launch notice at once (background.ts).
 * `notes`: where an isolated sub-agent's worktree ended up, for the caller to add after the report.
 */
export async function runSubagent(input: Record<string, unknown>, parent: LoopConfig, background = false, notes: string[] = []): Promise<string> {
  // A fork child shares its parent's bytes and its workspace; isolation is for a named type.
  if (input.isolation !== undefined && takesForkPath(input, parent)) throw new Error('isolation needs a subagent_type: a fork child works in its parent\'s workspace');
  // No type named and forks on: the child inherits the conversation instead (fork.ts).
  if (takesForkPath(input, parent)) return runForkCall(input, parent, background);
  const typeName = typeof input.subagent_type === 'string' ? input.subagent_type : 'general';
  const types = agentTypes(parent.promptParts.agents);   // built-ins, replaced by name by the agent files
  // Own names only: "constructor" or "toString" is on every object, and is no agent type.
  const type = Object.hasOwn(types, typeName) ? types[typeName] : undefined;
  if (!type) {
    throw new Error(`unknown subagent_type "${typeName}". Known types: ${Object.keys(types).join(', ')}`);
  }
  if (typeof input.prompt !== 'string' || input.prompt.trim() === '') throw new Error('prompt must be a non-empty string');

  const transcript: string[] = [];            // the sub-agent's own text: kept, never printed as the parent's
  const label = typeof input.description === 'string' ? input.description : typeName;
  const config: LoopConfig = {
    client: parent.client,
    model: typeof input.model === 'string' ? input.model : (type.model ?? parent.model),
    system: withSkills(subagentSystemPrompt(type, parent.promptParts), type, parent.promptParts.skills),
    // Offered while the child's own children would still be within the cap: depth < maxDepth.
    tools: toolsFor(type, parent.workerTools ?? parent.tools, parent.depth + 1 < parent.limits.maxDepth),
    limits: parent.limits,                      // the same object: one count for the whole session
    runCalls: parent.runCalls,
    messages: [{ role: 'user', content: input.prompt }],   // a fresh context: only the task
    cwd: parent.cwd,
    terminal: { write: (text) => { transcript.push(text); } },
    permissions: withMode(parent.permissions, type.permissionMode),   // the same gate; a file may narrow the mode, never lift it
    compactAt: parent.compactAt,
    compact: parent.compact,
    querySource: `agent:builtin:${typeName}`,   // on the config, not in the messages: compaction cannot erase it
    ledger: new Ledger(),
    promptCaching: parent.promptCaching,        // DISABLE_PROMPT_CACHING holds for the whole session
    depth: parent.depth + 1,
    name: `${typeName} sub-agent "${label}"`,   // how its permission questions name it (permissions.ts)
    refuse: parent.refuse,                      // the agent tool's guard (agentCallRefusal): a child may not do what its depth forbids
    maxTurns: type.maxTurns ?? 20,
    promptParts: parent.promptParts,
    signal: parent.signal,   // a stopped background agent stops the sub-agent it is waiting for too
  };
  const isolation = input.isolation ?? type.isolation;
  if (isolation !== undefined && isolation !== 'worktree') throw new Error(`isolation must be "worktree" or left out, not ${JSON.stringify(isolation)}`);
  // Plan mode is read-only, and so is every sub-agent it starts: a worktree would be made only
  // to be removed unchanged, a branch and a folder outside the workspace, and git's checkout
  // hook run, for nothing. None is made; the sub-agent reads where its parent does.
  if (isolation === 'worktree' && config.permissions.mode !== 'plan') {
    config.worktree = await createWorktree(parent.cwd, branchFor(typeof input.description === 'string' ? input.description : typeName));
    config.cwd = config.worktree.cwd;   // its tools, its shell, its workspace at the gate: that folder
    config.system = `${config.system}\n\n${worktreeSection(config.worktree)}`;
  }
  // The main agent's call: registered and started, and the call returns at once.
  if (background) return launch(parent, input, typeName, config, () => agentLoop(config));
  try {
    const report = await agentLoop(config);
    return report.trim() === '' ? '(the sub-agent finished without a report)' : report;
  } catch (err) {
    // An API error or a runaway loop is news for the parent's model, not a crash.
    return `Sub-agent failed: ${errorLine(err)}`;
  } finally {
    // Done, or failed: an unchanged worktree goes; a changed one stays, and the caller is told where.
    if (config.worktree) notes.push((await finishWorktree(config.worktree)) ?? worktreeRemoved(config.worktree));
    // Its spending is the parent's spending: roll it up, then let everything else go.
    parent.ledger.absorb(config.ledger);
    parent.terminal.write(`  ⎿ ${typeName} sub-agent "${label}": ${config.ledger.calls} call${config.ledger.calls === 1 ? '' : 's'}, ` +
      `${config.ledger.input + config.ledger.cacheRead + config.ledger.cacheWrite} input / ${config.ledger.output} output tokens\n`);
  }
}

/** A branch name from a call's description: "Set the port" becomes agent-set-the-port. */
function branchFor(description: string): string {
  const slug = description.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
  return `agent-${slug || 'task'}`;
}
