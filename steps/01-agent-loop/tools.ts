// GENERATED from src/agent/tools.ts for chapter 1 (agent-loop). Do not edit: change src/agent/tools.ts and run npm run gen.
// The tools the model may call, and the one function that runs a call. A tool is a
// spec (what the model is told: name, description, JSON schema of the input) plus a
// `run` function (what really happens).
// This file does not decide *whether* a call may run; that gate arrives in chapter 6.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { LoopConfig, Tool } from './types.ts';

/**
 * Resolve a path the model gave against the workspace. That is all it does: "../x" and
 * "/etc/hostname" resolve too, and nothing refuses them yet. Chapter 6's permission gate
 * is the first check that a path stays in the workspace.
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
  run: async (input, config) => readFile(resolvePath(config, input.path), 'utf8'),
};

/** Every tool this chapter knows. */
export const BASE_TOOLS: Tool[] = [
  readFileTool,
];

/** Run one tool call and turn the outcome into the tool_result block the API expects. */
export async function runTool(call: Anthropic.ToolUseBlock, config: LoopConfig): Promise<Anthropic.ToolResultBlockParam> {
  const input = call.input as Record<string, unknown>;
  // Chapter 1 trusts the call: an unknown tool or a missing file throws and ends the run.
  const tool = config.tools.find((t) => t.spec.name === call.name);
  if (!tool) throw new Error(`the model called an unknown tool: ${call.name}`);
  return { type: 'tool_result', tool_use_id: call.id, content: await tool.run(input, config) };
}
