// GENERATED from src/agent/agents.ts for chapter 16 (worktree-isolation). Do not edit: change src/agent/agents.ts and run npm run gen.
// Custom agents: sub-agent types written as files instead of code. A project (or a user)
// describes a specialist in `.claude/agents/NAME.md`, and the `agent` tool can start it
// by name, exactly like the built-in explore, plan and general:
//
//   ---
//   name: reviewer
//   description: Reviews a change for bugs; read-only
//   tools: read_file, grep_search        (optional; default: every tool the parent has)
//   disallowedTools: run_shell           (optional; taken away after `tools`)
//   model: haiku                         (optional; an alias, a claude-… id; "inherit" or omitted: the parent's)
//   permissionMode: default              (optional; default, acceptEdits, plan, bypassPermissions)
//   skills: [style-guide]                (optional; skills it starts with, in full)
//   maxTurns: 8                          (optional; model calls before it must stop)
//   isolation: worktree                  (optional; always in a git worktree of its own: worktree.ts)
//   ---
//   You are a code reviewer. ...         (the body: its system prompt)
//
// Where they come from, lowest precedence first: the built-ins, the user's
// ~/.claude/agents/, the project's .claude/agents/ (of the project root, then of each folder
// down to the session's, as for skills). A later one with the same name replaces the
// earlier one whole, so a project can redefine `explore` for itself.
//
// The frontmatter is read by chapter 9's parser (skills.ts); this file only says which
// fields an agent has and what a good value is. A file with a mistake is reported in one
// line naming the file and the field, and skipped: the other agents still load.
//
// A real Claude Code agent file loads as it is. Its model aliases (sonnet, opus, haiku) become
// ids from models.ts; its tool names (Read, Grep, Bash, …) become this series' (read_file,
// grep_search, run_shell, …); each field Claude Code has and this series does not use
// (effort, memory, hooks, background, color, initialPrompt, mcpServers) costs one
// note on the terminal, not the agent. A field neither knows is still reported like a typo.
// Not here: agents passed on the command line (--agents).

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { AgentFile, AgentHost, AgentType, PermissionMode, Permissions, Skill } from './types.ts';
import { parseFrontmatter, projectPlaces, type Fields } from './skills.ts';
import { readWithin } from './linked-files.ts';
import { MODEL_ALIASES } from './models.ts';
import { AGENT_TOOL_NAME, BASE_TOOLS } from './tools.ts';

const FIELDS = ['name', 'description', 'tools', 'disallowedTools', 'model', 'permissionMode', 'skills', 'maxTurns', 'isolation'];
const MODES: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];
// Every tool an agent file may list: the base tools and the agent tool.
const TOOL_NAMES = [...BASE_TOOLS.map((t) => t.spec.name), AGENT_TOOL_NAME];

/**
 * Fields of Claude Code's agent files that have no effect in this series, each with the note
 * the loader prints: what the field does there, and why nothing happens here. The list is the
 * sub-agents page's "Supported frontmatter fields" (code.claude.com/docs/en/sub-agents,
 * checked 2026-12) minus the fields FIELDS reads.
 */
const NO_EFFECT: Readonly<Record<string, string>> = {
  effort: 'Claude Code sets the reasoning effort while this agent runs; this series sends no effort setting',
  memory: 'Claude Code gives this agent a memory folder that persists across sessions; this series keeps none',
  hooks: "Claude Code runs these hooks around this agent's tool calls; this series has no hooks",
  background: "Claude Code runs this agent as a background task; here every call of the main agent runs in the background already, and a sub-agent's calls wait",
  color: "Claude Code shows this agent's name in that colour; this series prints no colours per agent",
  initialPrompt: 'Claude Code sends it first when this agent is the main agent (--agent); this series never runs an agent file as the main agent',
  mcpServers: 'Claude Code connects these MCP servers for this agent; this series has no MCP',
};

/** Claude Code's tool names, as a real agent file lists them, to this series' tools. */
const CLAUDE_CODE_TOOLS: Readonly<Record<string, string>> = {
  Read: 'read_file', Write: 'write_file', Edit: 'edit_file', MultiEdit: 'edit_file',
  Glob: 'list_files', LS: 'list_files', Grep: 'grep_search', Bash: 'run_shell',
  Agent: AGENT_TOOL_NAME, Task: AGENT_TOOL_NAME,
};
/** Claude Code tools with no counterpart here: left out of the agent's list, with a note. Any
 *  other capitalised name is taken for one too (Claude Code's tools are named so, this
 *  series' are not): a real file naming a tool of a newer release still loads. */
const NOT_HERE = ['WebFetch', 'WebSearch', 'NotebookEdit', 'TodoWrite', 'Skill', 'ToolSearch', 'SendMessage', 'AskUserQuestion', 'BashOutput', 'KillShell'];

/**
 * The source with the NO_EFFECT fields cut out of its frontmatter, and which were there. Their
 * values may be nested YAML (hooks, mcpServers) that chapter 9's small parser cannot read, so
 * the key's line goes, and with it every indented, "- " or blank line under it.
 */
function withoutNoEffect(source: string): { source: string; present: string[] } {
  const lines = source.split(/\r?\n/);
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (lines[0]?.trim() !== '---' || end < 0) return { source, present: [] };   // parseFrontmatter says what is wrong
  const kept: string[] = [];
  const present: string[] = [];
  let cutting = false;
  lines.slice(1, end).forEach((line) => {
    const key = /^([A-Za-z][\w-]*):/.exec(line)?.[1];
    if (key !== undefined) cutting = Object.hasOwn(NO_EFFECT, key);
    if (key !== undefined && cutting) present.push(key);
    else if (!(cutting && (line.trim() === '' || /^(\s|-\s)/.test(line)))) kept.push(line);
  });
  return { source: [lines[0]!, ...kept, ...lines.slice(end)].join('\n'), present };
}

/** A mistake in one field: the message names the field, the loader adds the file. */
class FieldError extends Error {
  constructor(field: string, problem: string) {
    super(`field "${field}": ${problem}`);
  }
}

function one(fields: Fields, key: string): string | undefined {
  const v = fields[key];
  if (Array.isArray(v)) throw new FieldError(key, 'must be a single value, not a list');
  return v;
}

/** Claude Code writes tool lists comma-separated (`tools: Read, Grep`); `[a, b]` and `- a` lines work too. */
function many(fields: Fields, key: string): string[] | undefined {
  const v = fields[key];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** A tool list in this series' names. Claude Code's names are translated; its tools with no
 *  counterpart here, and the `(…)` a name may carry, are dropped with a note. */
function toolList(fields: Fields, key: string, notes: string[]): string[] | undefined {
  const names = many(fields, key);
  if (names === undefined) return undefined;
  const tools: string[] = [];
  for (const written of names) {
    const bare = written.replace(/\(.*\)$/, '');
    if (bare !== written) notes.push(`${key}: "${written}" is read as ${bare}; what the (…) allows is not applied here`);
    if (NOT_HERE.includes(bare) || bare.startsWith('mcp__')) {
      notes.push(`${key}: ${bare} is a Claude Code tool with no counterpart here; left out`);
      continue;
    }
    const name = Object.hasOwn(CLAUDE_CODE_TOOLS, bare) ? CLAUDE_CODE_TOOLS[bare]! : bare;
    if (!TOOL_NAMES.includes(name) && /^[A-Z]/.test(bare)) {
      notes.push(`${key}: ${bare} is no tool here (a Claude Code tool this series does not have?); left out`);
      continue;
    }
    if (!TOOL_NAMES.includes(name)) throw new FieldError(key, `unknown tool "${written}" (tools here: ${TOOL_NAMES.join(', ')})`);
    if (!tools.includes(name)) tools.push(name);
  }
  return tools;
}

/** One agent file's text into an agent and its notes (one line per thing that has no effect
 *  here), or a thrown one-line reason naming the field. */
export function parseAgent(text: string): { name: string; type: AgentType; notes: string[] } {
  const { source, present } = withoutNoEffect(text);
  const notes = present.map((field) => `${field} has no effect in this series (${NO_EFFECT[field]})`);
  const { fields, body } = parseFrontmatter(source);
  const unknown = Object.keys(fields).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) throw new FieldError(unknown, `unknown field (known: ${FIELDS.join(', ')})`);
  const name = one(fields, 'name');
  if (name === undefined || name === '') throw new FieldError('name', 'missing (it is required)');
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new FieldError('name', `"${name}" may use lowercase letters, digits and - only`);
  const description = one(fields, 'description');
  if (description === undefined || description === '') throw new FieldError('description', 'missing (it is required: the model picks an agent by it)');
  const written = one(fields, 'model');
  // Own names only, here and below: "constructor" is on every object, and is no alias.
  const model = written === undefined ? undefined : Object.hasOwn(MODEL_ALIASES, written) ? MODEL_ALIASES[written]! : written;
  if (model !== undefined && model !== 'inherit' && !model.startsWith('claude-')) {
    throw new FieldError('model', `"${model}" is not a model id (claude-…), an alias (${Object.keys(MODEL_ALIASES).join(', ')}) or "inherit"`);
  }
  if (model !== written) notes.push(`model: ${written} is ${model} here (models.ts)`);
  const mode = one(fields, 'permissionMode');
  if (mode !== undefined && !MODES.includes(mode as PermissionMode)) {
    throw new FieldError('permissionMode', `"${mode}" is not one of ${MODES.join(', ')}`);
  }
  const turns = one(fields, 'maxTurns');
  if (turns !== undefined && !(/^\d+$/.test(turns) && Number(turns) >= 1)) {
    throw new FieldError('maxTurns', `"${turns}" is not a whole number ≥ 1`);
  }
  const isolation = one(fields, 'isolation');
  if (isolation !== undefined && isolation !== 'worktree') throw new FieldError('isolation', `"${isolation}" is not worktree (the one isolation there is)`);
  if (body === '') throw new FieldError('body', 'empty: the body is the system prompt');
  return {
    name,
    type: {
      description,
      tools: toolList(fields, 'tools', notes) ?? '*',
      disallowedTools: toolList(fields, 'disallowedTools', notes) ?? [],
      model: model === 'inherit' ? undefined : model,
      systemPrompt: body,
      projectContext: true,   // like general: only the built-in explore and plan go without
      permissionMode: mode as PermissionMode | undefined,
      skills: many(fields, 'skills') ?? [],
      maxTurns: turns === undefined ? undefined : Number(turns),
      isolation: isolation === 'worktree' ? 'worktree' : undefined,
    },
    notes,
  };
}

/**
 * The custom agents of the project and of the user. The project's folders are read first
 * (the session's own, then each one above it up to the project root) and win: a user agent
 * whose name the project already defines is left out, and so is a root agent whose name the
 * session's folder defines (Claude Code 2.1.328, measured). A file that cannot be read or
 * parsed costs one line on the terminal and that one agent.
 */
export async function loadAgents(host: AgentHost): Promise<AgentFile[]> {
  const places = [
    ...projectPlaces(host.cwd, 'agents'),   // nearest first: pkg/app's agent wins over the root's
    { dir: path.join(host.home, '.claude', 'agents'), shown: '~/.claude/agents', tree: undefined },
  ];
  const agents: AgentFile[] = [];
  for (const { dir, shown, tree } of places) {
    let names: string[];
    try {
      // Files (or links to them): a folder named like one is no agent file.
      names = (await readdir(dir, { withFileTypes: true })).filter((e) => !e.isDirectory() && e.name.endsWith('.md')).map((e) => e.name).sort();
    } catch {
      continue;   // no agents folder here
    }
    const here: AgentFile[] = [];
    for (const fileName of names) {
      const file = `${shown}/${fileName}`;
      // A link that leads out of its tree is not read (linked-files.ts): it costs a line, and that agent.
      const text = await readWithin(path.join(dir, fileName), tree, `agent ${file}`, host.terminal);
      if (text === undefined) continue;
      try {
        const { name, type, notes } = parseAgent(text);
        // Two files of one folder for one name: a mistake, said, and the first (by file name) kept.
        const twin = here.find((a) => a.name === name);
        if (twin) {
          host.terminal.write(`✖ agent ${file} skipped: ${twin.file} already defines "${name}"\n`);
          continue;
        }
        if (agents.some((a) => a.name === name)) continue;   // the project already defines it
        const agent = { name, type: { ...type, source: file }, file };
        here.push(agent);
        agents.push(agent);
        for (const note of notes) host.terminal.write(`ⓘ agent ${file}: ${note}\n`);
      } catch (err) {
        host.terminal.write(`✖ agent ${file} skipped: ${(err as Error).message}\n`);
      }
    }
  }
  return agents;
}

// From the most restrictive to the least: what each mode lets run without a question.
const LATITUDE: Record<PermissionMode, number> = { plan: 0, default: 1, acceptEdits: 2, bypassPermissions: 3 };

/**
 * The parent's gate, with the mode the agent file asks for, as far as the parent allows
 * it. An agent file is a file in the project: anyone who can commit one must not be able
 * to lift the session's mode with it. So a sub-agent never gets more than its parent has:
 *
 * - A parent in bypassPermissions or acceptEdits keeps its own mode, whatever the file
 *   says. Claude Code documents exactly this: "If the parent uses bypassPermissions or
 *   acceptEdits, it takes precedence and cannot be overridden by the subagent" (Claude
 *   Code docs, "Create custom subagents", section "Permission modes",
 *   code.claude.com/docs/en/sub-agents).
 * - A parent in plan mode keeps the child in plan mode: read-only is never lifted.
 * - A parent in default mode lets the file narrow the mode (plan) but not widen it:
 *   acceptEdits or bypassPermissions there would be a yes the user never gave.
 */
export function withMode(permissions: Permissions, mode: PermissionMode | undefined): Permissions {
  const parent = permissions.mode;
  if (mode === undefined || parent === 'bypassPermissions' || parent === 'acceptEdits') return permissions;
  return LATITUDE[mode] < LATITUDE[parent] ? { ...permissions, mode } : permissions;
}

/**
 * A sub-agent's system prompt with the full text of each skill its type names. Not the
 * one-line list the main prompt has: the whole body, read once, so the agent starts
 * knowing it. A name with no such skill is a mistake in the agent file, said as such.
 */
export function withSkills(system: string, type: AgentType, skills: Skill[]): string {
  const sections = (type.skills ?? []).map((name) => {
    const skill = skills.find((s) => s.name === name);
    if (!skill) throw new Error(`${type.source ?? 'this agent'} names the skill "${name}" in its skills field, and there is no such skill`);
    return `# Skill: ${skill.name}\n${skill.body}`;
  });
  return [system, ...sections].join('\n\n');
}
