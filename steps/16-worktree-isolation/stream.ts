// GENERATED from src/agent/stream.ts for chapter 16 (worktree-isolation). Do not edit: change src/agent/stream.ts and run npm run gen.
// Streaming: the model's answer arrives as a stream of server-sent events instead of
// one JSON body at the end. Text is written to the terminal delta by delta, while the
// model is still writing; a tool call's input arrives as pieces of JSON text that only
// parse once the block is complete. The SDK's MessageStream puts the pieces together;
// this file decides what the user sees while they arrive.
//
// Not here: what happens when a stream breaks off (the error reaches the caller, and
// chapter 4's prompt loop reports it on one line).

import type Anthropic from '@anthropic-ai/sdk';
import type { Terminal } from './types.ts';

/** One model call, streamed. Resolves to the same Message that `messages.create` returns. */
export async function streamMessage(
  client: Anthropic, terminal: Terminal, params: Anthropic.MessageStreamParams,
): Promise<Anthropic.Message> {
  const stream = client.messages.stream(params);
  stream.on('text', (delta) => terminal.write(delta));     // one text_delta event: a few words
  stream.on('contentBlock', (block) => {                   // content_block_stop: the block is whole
    if (block.type === 'text') terminal.write('\n');
  });
  // Text joined, tool input parsed from its input_json_delta pieces, usage from
  // message_start and message_delta: the whole message, as create() would return it.
  return stream.finalMessage();
}
