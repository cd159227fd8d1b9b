// The agent loop: ask the model, run the tools it asks for, send the results back, and
// repeat until it answers without asking for a tool. That loop is the whole idea of a
// coding agent; every later chapter adds to it rather than replacing it.
//
// `agentLoop` runs the loop for one configuration (model, system prompt, tools and the
// message array: a LoopConfig, types.ts). It keeps nothing between prompts: the main
// agent's conversation is the session's (session.ts).
//> 7 header-config-hooks
//
// A feature that itself runs the loop (compaction does, for its summary) is called
// through the config, set by the session, never imported: the loop cannot import a file
// that imports it back, and the imports of every snapshot run one way.
//<
//> 11 header-subagents
// A sub-agent (subagent.ts) is this same `agentLoop` with another configuration,
// not a second implementation.
//<

import type Anthropic from '@anthropic-ai/sdk';
import type { LoopConfig } from './types.ts';
//> 1-12 agent-import-tools
import { runTool } from './tools.ts';
//<
//> 5 agent-import-stream
import { streamMessage } from './stream.ts';
//<
//> 8 agent-import-cache
import { withBreakpoints } from './cache.ts';
//<

const MAX_TOKENS = 4096;

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
    // message of their own (background.ts, through the config); a stopped agent goes no further.
    config.deliver?.(config);
    config.signal?.throwIfAborted();
    //<
    //> 7 loop-compact
    await config.compact(config);   // may replace old messages by a summary (context.ts); the rest of config stays as it is
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
    config.ledger.add(response.usage, config.model);   // priced at the model it asked for
    //<
    //> 15 loop-stopped
    config.signal?.throwIfAborted();   // stopped while the model answered: its answer is paid for, not acted on
    //<
    if (response.content.length > 0) messages.push({ role: 'assistant', content: response.content });   // an empty answer is not kept: no request would be valid after it

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
    //! hint: then push them all as ONE user message, so the next call can see them. Show each call on
    //! hint: config.terminal before it runs, on a line of its own: ⏺ name(input as JSON).
    // Every tool_use must be answered, in one user message, before the model is called again.
    const results: Anthropic.ToolResultBlockParam[] = [];
    //> 1-12 run-calls-in-order
    for (const call of calls) {
      config.terminal.write(`⏺ ${call.name}(${JSON.stringify(call.input)})\n`);
      results.push(await runTool(call, config));
    }
    //<
    //> 13 run-calls-together
    results.push(...(await config.runCalls(calls, config)));   // a turn's agent calls run at the same time (limits.ts)
    //<
    messages.push({ role: 'user', content: results });
    //<
  }
}
//<

function finalText(content: Anthropic.ContentBlock[]): string {
  return content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}
