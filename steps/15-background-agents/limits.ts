// GENERATED from src/agent/limits.ts for chapter 15 (background-agents). Do not edit: change src/agent/limits.ts and run npm run gen.
// Parallel dispatch and its limits. When one assistant turn makes several `agent` calls,
// they run at the same time (runCalls): five sub-agents that each take a second finish in
// about a second, not five. Two caps keep that from running away, shared by every agent
// of one session:
//
//   concurrency  at most 20 sub-agents running at the same moment, whoever started them
//                (CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS)
//   depth        sub-agents at most 3 levels below the main conversation
//                (CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH; 1 = a sub-agent never starts another)
//
// Past a cap the delegation FAILS, with a tool_result that names the cap and the variable
// that sets it. It does not queue, and it does not quietly run fewer: the model that asked
// for 25 workers must learn that 5 did not start, or it will report on work nobody did.
//
// The counter is one object, shared by reference by every config of the session (a child
// config copies the reference, not the number), so a grandchild counts against the same cap
// as its grandparent's siblings.
//
// A call past the concurrency cap gets its is_error tool_result here, from runCalls; one
// past the depth cap is refused in subagent.ts, and runTool makes that an is_error result too.

import type Anthropic from '@anthropic-ai/sdk';
import type { Limits, LoopConfig } from './types.ts';
import { AGENT_TOOL_NAME, runTool } from './tools.ts';
import { wholeNumberSetting } from './context.ts';

export const CONCURRENCY_VAR = 'CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS';
export const DEPTH_VAR = 'CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH';
export const DEFAULT_MAX_CONCURRENT = 20;
export const DEFAULT_MAX_DEPTH = 3;

/**
 * The caps from the environment, each read as chapter 7 reads AGENT_COMPACT_AT: a value
 * that is not a whole number ≥ 1 is one line on the terminal naming the variable, the value
 * and the default used instead (context.ts, wholeNumberSetting). Never a crash, never silence.
 */
export function readLimits(env: Record<string, string | undefined>, warn: (line: string) => void): Limits {
  const read = (name: string, fallback: number): number => wholeNumberSetting(name, env[name], fallback, warn);
  return { maxConcurrent: read(CONCURRENCY_VAR, DEFAULT_MAX_CONCURRENT), maxDepth: read(DEPTH_VAR, DEFAULT_MAX_DEPTH), running: 0 };
}

/** The refusal for a call past the concurrency cap: the cap, the variable, and what to do. */
export function concurrencyRefusal(limits: Limits): string {
  return `Concurrent subagent limit reached: ${limits.running} sub-agents are running and at most ${limits.maxConcurrent} may run at once ` +
    `(${CONCURRENCY_VAR}=${limits.maxConcurrent}). This task did not start; run it after the others finish, or do it directly.`;
}

/** The refusal for a call past the depth cap. */
export function depthRefusal(limits: Limits, depth: number): string {
  return `Subagent spawn depth limit reached: this agent runs ${depth} level${depth === 1 ? '' : 's'} below the main conversation ` +
    `and sub-agents may nest at most ${limits.maxDepth} deep (${DEPTH_VAR}=${limits.maxDepth}). Complete the task directly with your own tools.`;
}

/**
 * Answer one turn's tool calls, results in call order. A run of consecutive `agent` calls
 * starts together and is awaited together; any other call runs alone, in its place, as
 * before: a write_file that a later sub-agent should read is done before it starts.
 *
 * Each agent call of a run first takes a slot of the session's concurrency cap. That
 * happens for the whole run before any of them starts, so which calls get a slot is
 * decided by their order in the turn, not by which sub-agent happens to finish first.
 */
export async function runCalls(calls: Anthropic.ToolUseBlock[], config: LoopConfig): Promise<Anthropic.ToolResultBlockParam[]> {
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (let i = 0; i < calls.length;) {
    let end = i;
    while (end < calls.length && calls[end]!.name === AGENT_TOOL_NAME) end++;
    if (end === i) end = i + 1;   // not an agent call: a run of one
    const run = calls.slice(i, end);
    for (const call of run) config.terminal.write(`⏺ ${call.name}(${JSON.stringify(call.input)})\n`);
    const limits = config.limits;
    const pending = run.map((call) => {
      if (call.name !== AGENT_TOOL_NAME) return runTool(call, config);
      if (limits.running >= limits.maxConcurrent) {
        return Promise.resolve<Anthropic.ToolResultBlockParam>({
          type: 'tool_result', tool_use_id: call.id, content: `Error: ${concurrencyRefusal(limits)}`, is_error: true,
        });
      }
      limits.running++;   // taken now, for every admitted call, before any of them has started
      return runTool(call, config).finally(() => { limits.running--; });
    });
    results.push(...(await Promise.all(pending)));
    i = end;
  }
  return results;
}
