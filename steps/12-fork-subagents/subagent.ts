// GENERATED from src/agent/subagent.ts for chapter 12 (fork-subagents). Do not edit: change src/agent/subagent.ts and run npm run gen.
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

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentType, LoopConfig, PromptParts, Tool } from './types.ts';
import { agentLoop } from './agent.ts';
import { AGENT_TOOL_NAME } from './tools.ts';
import { Ledger } from './ledger.ts';
import { claudeMdSection, gitStatusSection } from './prompt.ts';
import { EXIT_PLAN_MODE } from './plan.ts';
import { errorLine } from './cli.ts';
import { runForkCall, takesForkPath } from './fork.ts';

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
    description: 'A general-purpose worker with every tool except starting other sub-agents.',
    tools: '*',
    systemPrompt: 'You are a general-purpose sub-agent. Complete the task with your tools, then reply with a concise report of what you found or changed. Your report is all the caller will see.',
    projectContext: true,
  },
};

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
        subagent_type: { type: 'string', enum: Object.keys(types), description: 'Default: general' },
        model: { type: 'string', description: 'Optional model id for the sub-agent' },
      },
      required: ['description', 'prompt'],
    },
  };
}

export const agentTool: Tool = {
  spec: agentToolSpec(AGENT_TYPES),
  run: (input, config) => runSubagent(input, config),
};

/** The tools a sub-agent of this type gets: never the agent tool, whatever the type says. */
export function toolsFor(type: AgentType, parentTools: Tool[]): Tool[] {
  // exit_plan_mode asks the user to approve a plan; a sub-agent has no user of its own,
  // so it never gets the tool (nor is it in the tools Claude Code 2.1.328 sends its Explore
  // and general-purpose: the x-ray's explore.tools and general.tools).
  parentTools = parentTools.filter((t) => t.spec.name !== EXIT_PLAN_MODE);
  const allowed = parentTools.filter((t) => type.tools === '*' || type.tools.includes(t.spec.name));
  return allowed.filter((t) => t.spec.name !== AGENT_TOOL_NAME);
}

/**
 * The agent tool's guard: why this agent may not make this call, or undefined. The session
 * puts it on the config (`refuse`) and every child config copies it; runTool asks it before
 * it looks the tool up, so a call to a tool the agent was never offered still gets the reason.
 */
export function agentCallRefusal(call: Anthropic.ToolUseBlock, config: LoopConfig): string | undefined {
  const input = call.input as Record<string, unknown>;
  // A named sub-agent still may not start another. A call on the fork path is judged by the
  // fork guard instead (fork.ts): a fork child keeps the agent tool, so that guard must hold.
  if (call.name === AGENT_TOOL_NAME && config.depth > 0 && !takesForkPath(input, config)) {
    return 'The agent tool is not available inside a sub-agent. Complete the task directly with your own tools.';
  }
  // A fork child is offered exit_plan_mode (its tools are the parent's, byte for byte), but the
  // plan, and leaving plan mode, are the main agent's: a child's call would put its own plan to
  // the user as the session's, and a yes would take the whole session out of plan mode.
  if (call.name === EXIT_PLAN_MODE && config.depth > 0) {
    return `${EXIT_PLAN_MODE} is the main agent's: a sub-agent has no plan of its own to present. Report what you found instead.`;
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
 */
export async function runSubagent(input: Record<string, unknown>, parent: LoopConfig): Promise<string> {
  // No type named and forks on: the child inherits the conversation instead (fork.ts).
  if (takesForkPath(input, parent)) return runForkCall(input, parent);
  const typeName = typeof input.subagent_type === 'string' ? input.subagent_type : 'general';
  const types = AGENT_TYPES;
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
    system: subagentSystemPrompt(type, parent.promptParts),
    tools: toolsFor(type, parent.tools),
    messages: [{ role: 'user', content: input.prompt }],   // a fresh context: only the task
    cwd: parent.cwd,
    terminal: { write: (text) => { transcript.push(text); } },
    permissions: parent.permissions,            // the same gate: a sub-agent cannot do what its parent may not
    compactAt: parent.compactAt,
    compact: parent.compact,
    querySource: `agent:builtin:${typeName}`,   // on the config, not in the messages: compaction cannot erase it
    ledger: new Ledger(),
    promptCaching: parent.promptCaching,        // DISABLE_PROMPT_CACHING holds for the whole session
    depth: parent.depth + 1,
    name: `${typeName} sub-agent "${label}"`,   // how its permission questions name it (permissions.ts)
    refuse: parent.refuse,                      // the agent tool's guard (agentCallRefusal): a child may not do what its depth forbids
    maxTurns: 20,
    promptParts: parent.promptParts,
  };
  try {
    const report = await agentLoop(config);
    return report.trim() === '' ? '(the sub-agent finished without a report)' : report;
  } catch (err) {
    // An API error or a runaway loop is news for the parent's model, not a crash.
    return `Sub-agent failed: ${errorLine(err)}`;
  } finally {
    // Its spending is the parent's spending: roll it up, then let everything else go.
    parent.ledger.absorb(config.ledger);
    parent.terminal.write(`  ⎿ ${typeName} sub-agent "${label}": ${config.ledger.calls} call${config.ledger.calls === 1 ? '' : 's'}, ` +
      `${config.ledger.input + config.ledger.cacheRead + config.ledger.cacheWrite} input / ${config.ledger.output} output tokens\n`);
  }
}
