// GENERATED from src/agent/agent.ts for chapter 5 (streaming). Do not edit: change src/agent/agent.ts and run npm run gen.
// The agent loop: ask the model, run the tools it asks for, send the results back, and
// repeat until it answers without asking for a tool. That loop is the whole idea of a
// coding agent; every later chapter adds to it rather than replacing it.
//
// `agentLoop` runs the loop for one configuration (model, system prompt, tools and the
// message array: a LoopConfig, types.ts). It keeps nothing between prompts: the main
// agent's conversation is the session's (session.ts).

import type Anthropic from '@anthropic-ai/sdk';
import type { LoopConfig } from './types.ts';
import { runTool } from './tools.ts';
import { streamMessage } from './stream.ts';

const MAX_TOKENS = 4096;

/** Run the loop until the model stops asking for tools; returns its final text. */
export async function agentLoop(config: LoopConfig): Promise<string> {
  const { messages } = config;
  while (true) {
    // Streamed: the text reaches the terminal while the model is still writing it (stream.ts).
    const response = await streamMessage(config.client, config.terminal, {
      model: config.model,
      max_tokens: MAX_TOKENS,
      system: config.system,
      tools: config.tools.map((t) => t.spec),
      messages,
    });
    if (response.content.length > 0) messages.push({ role: 'assistant', content: response.content });   // an empty answer is not kept: no request would be valid after it

    const calls: Anthropic.ToolUseBlock[] = [];
    for (const block of response.content) {
      if (block.type === 'tool_use') calls.push(block);
    }
    if (calls.length === 0) return finalText(response.content);

    // Every tool_use must be answered, in one user message, before the model is called again.
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const call of calls) {
      config.terminal.write(`⏺ ${call.name}(${JSON.stringify(call.input)})\n`);
      results.push(await runTool(call, config));
    }
    messages.push({ role: 'user', content: results });
  }
}

function finalText(content: Anthropic.ContentBlock[]): string {
  return content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}
