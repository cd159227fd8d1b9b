// GENERATED from src/agent/tools.ts for chapter 16 (worktree-isolation). Do not edit: change src/agent/tools.ts and run npm run gen.
// The tools the model may call, and the one function that runs a call. A tool is a
// spec (what the model is told: name, description, JSON schema of the input) plus a
// `run` function (what really happens).
// Whether a call may run is not decided here: runTool asks the permission gate
// (permissions.ts) first, and a refused call never reaches `run`.

import { exec } from 'node:child_process';
import { makeFolders, readFolder, readPlainFile, writePlainFile } from './plain-files.ts';
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { LoopConfig, Tool } from './types.ts';
import { decide } from './permissions.ts';

/**
 * Resolve a path the model gave against the workspace. It does not check: the permission
 * gate (permissions.ts) has already refused a path that leads outside, by its text or
 * through a symbolic link, before any tool runs.
 */
function resolvePath(config: LoopConfig, p: unknown): string {
  if (typeof p !== 'string' || p === '') throw new Error('path must be a non-empty string');
  return path.resolve(config.cwd, p);
}

export const readFileTool: Tool = {
  spec: {
    name: 'read_file',
    description: 'Read a text file in the working directory and return its contents.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path relative to the working directory' } },
      required: ['path'],
    },
  },
  // Not readFile: a name may stand for a named pipe, and reading one would wait for ever; and
  // the file opened must lie in the workspace, whatever a link says by then (plain-files.ts).
  run: async (input, config) => readPlainFile(resolvePath(config, input.path), config.cwd),
};

export const writeFileTool: Tool = {
  spec: {
    name: 'write_file',
    description: 'Create or overwrite a file with the given content.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  run: async (input, config, judged) => {
    const file = resolvePath(config, input.path);
    if (typeof input.content !== 'string') throw new Error('content must be a string');
    // Not mkdir -p: each missing folder is made on its own and must lie in the workspace (plain-files.ts).
    await makeFolders(path.dirname(file), config.cwd);
    await writePlainFile(file, input.content, config.cwd, judged);
    return `Wrote ${input.content.length} characters to ${input.path}`;
  },
};

export const editFileTool: Tool = {
  spec: {
    name: 'edit_file',
    description: 'Replace one exact occurrence of old_text with new_text in a file.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, old_text: { type: 'string' }, new_text: { type: 'string' } },
      required: ['path', 'old_text', 'new_text'],
    },
  },
  run: async (input, config, judged) => {
    const file = resolvePath(config, input.path);
    const { old_text: oldText, new_text: newText } = input;
    if (typeof oldText !== 'string' || typeof newText !== 'string') throw new Error('old_text and new_text must be strings');
    // An empty old_text occurs everywhere and nowhere ("ab".split("") is letters): refused.
    if (oldText === '') throw new Error('old_text must not be empty: give the exact text to replace (write_file makes a whole file)');
    const text = await readPlainFile(file, config.cwd, judged);
    // Exactly one match, or the edit is ambiguous: the model must give more context.
    const count = text.split(oldText).length - 1;
    if (count !== 1) throw new Error(`old_text must occur exactly once in ${input.path}; found ${count}`);
    // A function, not a string: in a string, replace reads $&, $$ and $` as patterns; new_text is written as given.
    await writePlainFile(file, text.replace(oldText, () => newText), config.cwd, judged);
    return `Edited ${input.path}`;
  },
};

/**
 * The files under a folder of the workspace, as paths from the workspace, sorted. A list,
 * never a text to split again: a file or folder name may hold a line break ("q\n.."), and
 * a line of such a name read as a path of its own would lead out of the workspace.
 */
async function filesUnder(config: LoopConfig, dir: unknown): Promise<string[]> {
  const files: string[] = [];
  // One folder at a time, into real folders only: a link to a folder is not followed, since
  // it may lead out of the workspace (readdir's own recursive walk follows such links on
  // some Node versions, 20 and 26 among them).
  async function walk(folder: string): Promise<void> {
    // The folder opened must lie in the workspace, whatever a link says by then (plain-files.ts).
    for (const entry of await readFolder(folder, config.cwd)) {
      // git's own bookkeeping (.git, a folder in a repository, a file in a worktree) is not the
      // project's files: in a repository it would be most of the listing, every object and ref.
      if (entry.name === '.git') continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push(path.relative(config.cwd, full).split(path.sep).join('/'));
    }
  }
  await walk(resolvePath(config, dir));
  return files.sort();
}

export const listFilesTool: Tool = {
  spec: {
    name: 'list_files',
    description: 'List the files under a directory of the workspace (recursively).',
    input_schema: { type: 'object', properties: { path: { type: 'string', description: 'Directory; default "."' } } },
  },
  run: async (input, config) => (await filesUnder(config, input.path ?? '.')).join('\n') || '(no files)',
};

export const grepSearchTool: Tool = {
  spec: {
    name: 'grep_search',
    description: 'Search the workspace files for a regular expression; returns path:line: text for each match.',
    input_schema: {
      type: 'object',
      properties: { pattern: { type: 'string' }, path: { type: 'string', description: 'Directory; default "."' } },
      required: ['pattern'],
    },
  },
  run: async (input, config) => {
    if (typeof input.pattern !== 'string') throw new Error('pattern must be a string');
    const regex = new RegExp(input.pattern);
    const hits: string[] = [];
    for (const rel of await filesUnder(config, input.path ?? '.')) {
      const lines = (await readPlainFile(path.join(config.cwd, rel), config.cwd)).split('\n');
      lines.forEach((line, i) => { if (regex.test(line)) hits.push(`${rel}:${i + 1}: ${line}`); });
    }
    return hits.join('\n') || 'No matches.';
  },
};

export const runShellTool: Tool = {
  spec: {
    name: 'run_shell',
    description: 'Run a shell command in the working directory; returns exit code, stdout and stderr.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
  run: (input, config) => new Promise((resolve, reject) => {
    if (typeof input.command !== 'string') return reject(new Error('command must be a string'));
    // A background agent's signal (stop_agent) ends its command too, its shell sent SIGTERM:
    // the stop need not wait out a long build, nor let the command go on when it has returned.
    exec(input.command, { cwd: config.cwd, timeout: 30_000, signal: config.signal }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      // No exit code of the command's own: Node stopped it (after 30 s, or past 1 MB of output),
      // or a signal ended it. Said as such, not as an "exit code 1" it never returned.
      const stopped = !error || typeof error.code === 'number' ? undefined
        : error.killed ? 'stopped after 30 s (the time limit)'
        : error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' ? 'stopped: its output passed 1 MB'
        : error.signal ? `ended by ${error.signal}` : error.message.split('\n')[0];
      const text = `${stopped ?? `exit code ${code}`}\n${stdout}${stderr ? `\nstderr:\n${stderr}` : ''}`;
      // A failing command is still a result the model should read, so it goes back as an error result.
      if (code !== 0) reject(new Error(text)); else resolve(text);
    });
  }),
};

/** The agent tool's name. The tool itself is subagent.ts's; the name is here, with the other
 *  tools, so that a file that only recognises a call to it need not import subagent.ts. */
export const AGENT_TOOL_NAME = 'agent';

/** Every tool this chapter knows. */
export const BASE_TOOLS: Tool[] = [
  readFileTool,
  writeFileTool, editFileTool, listFilesTool, grepSearchTool, runShellTool,
];

/** Run one tool call and turn the outcome into the tool_result block the API expects. */
export async function runTool(call: Anthropic.ToolUseBlock, config: LoopConfig): Promise<Anthropic.ToolResultBlockParam> {
  const input = call.input as Record<string, unknown>;
  try {
    // A call this agent may not make whatever its tools are (the agent tool's guard,
    // subagent.ts) is refused first, so the reason is said, not "no such tool".
    const refusal = config.refuse(call, config);
    if (refusal !== undefined) throw new Error(refusal);
    // Only the tools this agent was given can run: a name it was not offered is refused.
    const tool = config.tools.find((t) => t.spec.name === call.name);
    if (!tool) throw new Error(`no tool named ${call.name} is available here`);
    // A background agent stopped by an earlier call of this turn runs nothing more, and asks nothing.
    config.signal?.throwIfAborted();
    const decision = await decide(call.name, input, config);
    if (!decision.allow) {
      config.terminal.write(`  ✖ denied: ${decision.reason}\n`);
      throw new Error(`Permission denied: ${decision.reason}`);
    }
    // Stopped while its question waited for the person: a yes that comes after the stop is too late.
    config.signal?.throwIfAborted();
    // The file the gate judged goes with the call: the tool opens that one or none (plain-files.ts).
    return { type: 'tool_result', tool_use_id: call.id, content: await tool.run(input, config, decision.path) };
  } catch (err) {
    // A failure is information for the model, not a crash: it can read it and try another way.
    // Paths are shown relative to the workspace, the way the model wrote them.
    const message = (err instanceof Error ? err.message : String(err)).replaceAll(config.cwd + path.sep, '');
    return { type: 'tool_result', tool_use_id: call.id, content: `Error: ${message}`, is_error: true };
  }
}
