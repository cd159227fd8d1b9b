// Placeholders a scenario's turn fills in from the request it answers. `{{tool_result}}` in
// a turn's text stands for the text of the tool_result blocks in the request's last user
// message. `{{tool_result /PATTERN/}}` in a string of a tool call's input stands for what
// PATTERN's first group matched (the whole match without a group) in the request's tool
// results, the latest first: the last user message's, then the one before, and so on. It is
// for a value only the client knows: an id it made up and reported in a tool_result (a real
// Claude Code's agent ids are random), which the scripted model then passes back, as a
// real model would, later in the conversation too.
//
// Not here: where the turns come from (scenario.ts, which checks each pattern compiles) and
// how the answer is sent (server.ts).

import { mergeMessages, toolResultText } from './tokens.ts';
import type { Turn } from './types.ts';

/** `{{tool_result /PATTERN/}}`: PATTERN runs to the first `/}}`. */
export const RESULT_PATTERN = /\{\{tool_result \/(.+?)\/\}\}/g;

/** The text of the tool_result blocks of each user message of the request, the last message first. */
function toolResultsByMessage(body: Record<string, unknown>): string[] {
  const merged = mergeMessages(Array.isArray(body.messages) ? body.messages : []);
  return merged.filter((m) => m.role === 'user').reverse()
    .map((m) => m.blocks.filter((b) => b.block.type === 'tool_result').map((b) => toolResultText(b.block)).join('\n'));
}

/** The text of the tool_result blocks of the request's last user message, one per line. */
export function lastToolResults(body: Record<string, unknown>): string {
  return toolResultsByMessage(body)[0] ?? '';
}

/** Every tool result of the request, the last user message's first, one message per line. */
export function allToolResults(body: Record<string, unknown>): string {
  return toolResultsByMessage(body).filter((t) => t !== '').join('\n');
}

/** Why a pattern cannot be used, or undefined when it compiles. */
export function badPattern(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The turn with its tool calls' placeholders filled in from `results` (allToolResults), or
 * one line saying which pattern found nothing there. A turn without placeholders comes back
 * as it is.
 */
export function fillCalls(turn: Turn, results: string): Turn | string {
  if (!turn.tool_calls || !JSON.stringify(turn.tool_calls).includes('{{tool_result /')) return turn;
  let missing: string | undefined;
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      return value.replace(RESULT_PATTERN, (whole, pattern: string) => {
        const m = new RegExp(pattern).exec(results);
        if (!m) { missing ??= `{{tool_result /${pattern}/}} matches nothing in the request's tool results`; return whole; }
        return m[1] ?? m[0];
      });
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  const calls = turn.tool_calls.map((c) => ({ name: c.name, input: fill(c.input) as Record<string, unknown> }));
  return missing ?? { ...turn, tool_calls: calls };
}
