// Placeholders a scenario's turn fills in from the request it answers: the text of the
// tool_result blocks in the request's last user message. `{{tool_result}}` in a turn's
// text stands for all of it; `{{tool_result /PATTERN/}}` in a string of a tool call's input
// stands for what PATTERN's first group matched in it (the whole match without a group).
// The second is for a value only the client knows: an id it made up and reported in a
// tool_result (a real Claude Code's agent ids are random), which the scripted model then
// passes back, as a real model would.
//
// Not here: where the turns come from (scenario.ts, which checks each pattern compiles) and
// how the answer is sent (server.ts).

import { mergeMessages, toolResultText } from './tokens.ts';
import type { Turn } from './types.ts';

/** `{{tool_result /PATTERN/}}`: PATTERN runs to the first `/}}`. */
export const RESULT_PATTERN = /\{\{tool_result \/(.+?)\/\}\}/g;

/** The text of the tool_result blocks of the request's last user message, one per line. */
export function lastToolResults(body: Record<string, unknown>): string {
  const merged = mergeMessages(Array.isArray(body.messages) ? body.messages : []);
  const lastUser = [...merged].reverse().find((m) => m.role === 'user');
  return (lastUser?.blocks ?? []).filter((b) => b.block.type === 'tool_result').map((b) => toolResultText(b.block)).join('\n');
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
 * The turn with its tool calls' placeholders filled in from `results`, or one line saying
 * which pattern found nothing there. A turn without placeholders comes back as it is.
 */
export function fillCalls(turn: Turn, results: string): Turn | string {
  if (!turn.tool_calls || !JSON.stringify(turn.tool_calls).includes('{{tool_result /')) return turn;
  let missing: string | undefined;
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      return value.replace(RESULT_PATTERN, (whole, pattern: string) => {
        const m = new RegExp(pattern).exec(results);
        if (!m) { missing ??= `{{tool_result /${pattern}/}} matches nothing in the tool results of the request's last user message`; return whole; }
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
