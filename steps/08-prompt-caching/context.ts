// GENERATED from src/agent/context.ts for chapter 8 (prompt-caching). Do not edit: change src/agent/context.ts and run npm run gen.
// The context window: how big the conversation is, and what to do when it gets too big.
// Before each model call the loop counts the request's tokens; past a threshold it
// *compacts*: a separate model call summarises the older part of the conversation, and
// the summary replaces it. `/compact` does the same by hand.
//
// The one rule compaction must never break: every tool_use is answered by its
// tool_result in the very next message. So the cut goes only where a user *prompt*
// starts (a user message holding text, not tool results): everything before it is
// summarised, everything from it on is kept word for word.
//
// What compaction rewrites is the messages, and only the messages. Who is calling (the
// query source) lives on the loop's config, so it survives compaction unchanged.

import type Anthropic from '@anthropic-ai/sdk';
import type { AgentHost, LoopConfig } from './types.ts';
import { agentLoop } from './agent.ts';

/** Compact past this many tokens unless AGENT_COMPACT_AT says otherwise: about 80% of a
 *  200K-token window, which leaves room for the next answer and the summary call itself. */
export const DEFAULT_COMPACT_AT = 160_000;

/** The summariser's own system prompt: it also tells the mock which track answers. */
export const COMPACT_SYSTEM = 'Your job is to summarise this conversation between a user and a coding agent so that the agent can continue it with the summary alone. ' +
  'Keep: what the user asked for, decisions made, files read or changed and what matters in them, what is still to do. Drop: anything the rest of the work will not need.';

/** The first words of the message that replaces the summarised part. */
export const SUMMARY_PREFIX = 'The earlier part of this conversation was compacted. Its summary:';

/** The threshold in tokens: a setting, like a user's config, read once per session. */
export function compactThreshold(host: AgentHost): number {
  return wholeNumberSetting('AGENT_COMPACT_AT', host.env.AGENT_COMPACT_AT, DEFAULT_COMPACT_AT, (line) => host.terminal.write(`${line}\n`));
}

/**
 * A setting from the environment that must be a whole number ≥ 1. Anything else ("abc",
 * "-2", "0", "2.5") is a mistake the user must hear about: one line naming the variable,
 * the value and the default used instead. Never a crash, never silence. Unset or empty: the
 * default, without a word.
 */
export function wholeNumberSetting(name: string, raw: string | undefined, fallback: number, warn: (line: string) => void): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (Number.isSafeInteger(value) && value >= 1) return value;
  warn(`✖ ${name}="${raw}" is not a whole number ≥ 1; using the default, ${fallback}`);
  return fallback;
}

/**
 * How many input tokens the next request would carry. Asked of the API
 * (`count_tokens`): the model's own tokenizer, free, and an estimate close to what the API
 * will count (the token-counting page says it may differ by a small amount).
 */
export async function countContext(config: LoopConfig): Promise<number> {
  const { input_tokens } = await config.client.messages.countTokens({
    model: config.model,
    system: config.system,
    tools: config.tools.map((t) => t.spec),
    messages: config.messages,
  });
  return input_tokens;
}

/** Before a model call: compact when the request has grown past the threshold. */
export async function autoCompact(config: LoopConfig): Promise<void> {
  // The summary call is a loop of its own; it must never try to summarise itself.
  if (config.querySource === 'compact' || config.compactAt === undefined) return;
  const tokens = await countContext(config);
  if (tokens <= config.compactAt) return;
  const before = config.messages.length;
  if (await compact(config, lastPromptIndex(config.messages))) {
    config.terminal.write(`(context compacted at ${tokens} tokens: ${before} messages → ${config.messages.length})\n`);
  }
}

/** `/compact [what to keep]`: summarise the whole conversation so far. */
export async function compactByHand(config: LoopConfig, keep?: string): Promise<string> {
  const before = config.messages.length;
  const done = await compact(config, config.messages.length, keep);
  const line = done ? `(conversation compacted: ${before} messages → ${config.messages.length})` : '(nothing to compact yet)';
  config.terminal.write(`${line}\n`);
  return line;
}

/**
 * Where a cut may go: the index of the last user message that is a prompt, not tool
 * results. Cutting before a tool_result message would keep an answer whose question
 * (the tool_use) was summarised away, and the API rejects that request.
 */
export function lastPromptIndex(messages: Anthropic.MessageParam[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string' || !m.content.some((b) => b.type === 'tool_result')) return i;
  }
  return 0;
}

/** Summarise messages[0..cut) by a separate model call and put the summary in their place;
 *  `keep`: what the user asked the summary to keep (`/compact keep the test results`). */
async function compact(config: LoopConfig, cut: number, keep?: string): Promise<boolean> {
  const old = config.messages.slice(0, cut);
  if (old.length === 0) return false;
  // Only an earlier summary before the cut: summarising it again shrinks nothing, and would
  // cost one more call at every request while the rest stays over the threshold.
  if (old.length === 1 && typeof old[0]!.content === 'string' && old[0]!.content.startsWith(SUMMARY_PREFIX)) return false;
  const summary = await agentLoop({
    ...config,
    system: COMPACT_SYSTEM,
    tools: [],                                   // a summariser has nothing to run
    messages: [{ role: 'user', content: `Summarise this conversation${keep ? `, and keep in the summary: ${keep}` : ''}:\n\n${asText(old)}` }],
    terminal: { write: () => {} },               // its text is the result, not something to show
    querySource: 'compact',
  });
  config.messages.splice(0, cut, { role: 'user', content: `${SUMMARY_PREFIX}\n\n${summary}` });
  return true;
}

/** A conversation as plain text: the summariser reads it, it does not continue it. */
function asText(messages: Anthropic.MessageParam[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    const who = m.role === 'user' ? 'User' : 'Agent';
    if (typeof m.content === 'string') { lines.push(`${who}: ${m.content}`); continue; }
    for (const b of m.content) {
      if (b.type === 'text') lines.push(`${who}: ${b.text}`);
      else if (b.type === 'tool_use') lines.push(`Agent called ${b.name}(${JSON.stringify(b.input)})`);
      else if (b.type === 'tool_result') {
        const text = typeof b.content === 'string' ? b.content : (b.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
        lines.push(`Tool result${b.is_error ? ' (error)' : ''}: ${text}`);
      }
    }
  }
  return lines.join('\n');
}
