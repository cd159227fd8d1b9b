// Placeholders a scenario's turn fills in from the request it answers. `{{tool_result}}` in
// a turn's text stands for the text of the tool_result blocks in the request's last user
// message. `{{tool_result /PATTERN/}}` in a string of a tool call's input stands for what
// PATTERN's first group matched (the whole match without a group) in the request's tool
// results, the latest first: the last user message's, then the one before, and so on. It is
// for a value only the client knows: an id it made up and reported in a tool_result (a real
// Claude Code's agent ids are random), which the scripted model then passes back, as a
// real model would, later in the conversation too.
//
// Not here: where the turns come from (scenario.ts, which refuses a pattern that does not
// compile, through badPatterns) and how the answer is sent (server.ts).

import { childPath } from './strict-json.ts';
import { mergeMessages, toolResultText } from './tokens.ts';
import type { Turn } from './types.ts';

/** `{{tool_result /PATTERN/}}`: PATTERN runs to the first `/}}`. */
const RESULT_PATTERN = /\{\{tool_result \/(.+?)\/\}\}/g;

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

/**
 * Why a turn's `{{tool_result}}` has nothing to stand for in this request (undefined: it
 * has): its last user message carries no tool_result (a prompt, a notification). The text
 * would go out with the placeholder quietly empty, as if the result had been empty.
 */
export function emptyTextPlaceholder(turn: Turn, body: Record<string, unknown>): string | undefined {
  if (!turn.text?.includes('{{tool_result}}')) return undefined;
  const merged = mergeMessages(Array.isArray(body.messages) ? body.messages : []);
  const last = merged.filter((m) => m.role === 'user').at(-1);
  if (last?.blocks.some((b) => b.block.type === 'tool_result')) return undefined;
  return "{{tool_result}} in the turn's text has nothing to stand for: the request's last user message carries no tool_result";
}

/** `value` with every string inside it (at any depth) passed through `change`, given its JSON path. */
function mapStrings(value: unknown, at: string, change: (text: string, at: string) => string): unknown {
  if (typeof value === 'string') return change(value, at);
  if (Array.isArray(value)) return value.map((v, i) => mapStrings(v, `${at}[${i}]`, change));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, childPath(at, k), change)]));
  return value;
}

/** Something shaped like a placeholder, `{{word}}`: a misspelt one would go out as typed. */
const PLACEHOLDER_LIKE = /\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g;

/** For the scenario loader: a `{{word}}` in a turn's text that is not `{{tool_result}}`, as a reason. */
export function badTextPlaceholder(text: string): string | undefined {
  const other = [...text.matchAll(PLACEHOLDER_LIKE)].find((m) => m[0] !== '{{tool_result}}');
  return other && `${other[0]} is no placeholder (a turn's text knows {{tool_result}})`;
}

/**
 * For the scenario loader: each placeholder in a tool call's `input` whose pattern does not
 * compile, or that is not one (`{{tool_result}}` without a pattern, a misspelt word), as [path, reason].
 */
export function badPatterns(input: unknown, at: string): [string, string][] {
  const bad: [string, string][] = [];
  mapStrings(input, at, (text, where) => {
    const other = text.match(PLACEHOLDER_LIKE)?.[0];
    if (other) bad.push([where, `${other} is no placeholder (a tool call's input knows {{tool_result /PATTERN/}})`]);
    for (const [, pattern] of text.matchAll(RESULT_PATTERN)) {
      try { new RegExp(pattern!); } catch (err) { bad.push([where, `{{tool_result /${pattern}/}}: the pattern does not compile (${(err as Error).message})`]); }
    }
    return text;
  });
  return bad;
}

/**
 * The turn with its tool calls' placeholders filled in from the request's tool results, the
 * latest first, or one line saying which pattern found nothing there. A turn without
 * placeholders comes back as it is.
 */
export function fillCalls(turn: Turn, body: Record<string, unknown>): Turn | string {
  if (!turn.tool_calls || !JSON.stringify(turn.tool_calls).includes('{{tool_result /')) return turn;
  const results = toolResultsByMessage(body).filter((t) => t !== '').join('\n');
  let missing: string | undefined;
  const fill = (text: string) => text.replace(RESULT_PATTERN, (whole, pattern: string) => {
    const m = new RegExp(pattern).exec(results);
    if (!m) { missing ??= `{{tool_result /${pattern}/}} matches nothing in the request's tool results`; return whole; }
    return m[1] ?? m[0];
  });
  const calls = turn.tool_calls.map((c) => ({ name: c.name, input: mapStrings(c.input, '', fill) as Record<string, unknown> }));
  return missing ?? { ...turn, tool_calls: calls };
}
