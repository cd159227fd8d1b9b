//> 8 cache-file
// Prompt caching, the agent's half: where the cache_control breakpoints go. The API
// keeps the prefix of a request (tools, then system, then messages) up to a marked
// block, and a later request that starts with the same bytes reads it back at a tenth
// of the price. The agent's whole job is to mark the right blocks and to keep the bytes
// before them identical from call to call. It does not decide what gets cached (the
// API does, by the rules in the prompt-caching docs) and it never edits stored history.

import type Anthropic from '@anthropic-ai/sdk';

/** The default 5-minute TTL. `{ type: 'ephemeral', ttl: '1h' }` costs 2× to write instead of 1.25×. */
const BREAKPOINT: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

/** DISABLE_PROMPT_CACHING=1 (or true/yes/on), Claude Code's own switch: no breakpoint anywhere. */
export function isPromptCachingDisabled(env: Record<string, string | undefined>): boolean {
  return ['1', 'true', 'yes', 'on'].includes((env.DISABLE_PROMPT_CACHING ?? '').trim().toLowerCase());
}

/** What the prefix of a request is made of, in the order the cache sees it. */
export interface CachedPrefix {
  tools: Anthropic.Tool[];
  system: Anthropic.TextBlockParam[];
  messages: Anthropic.MessageParam[];
}

/**
 * The same request with three breakpoints (the API allows four):
 *   1. the last tool: the tool list rarely changes, so it is cached on its own;
 *   2. the system prompt: tools + system, the part every call of the session shares;
 *   3. the last block of the latest message: the whole conversation so far, which the
 *      next call (one assistant reply and one user message longer) reads back.
 * Only copies are marked: the stored messages stay clean, or the markers of earlier
 * calls would pile up past the limit of four.
 * With `caching` false (DISABLE_PROMPT_CACHING) the same bytes go out with no marker at
 * all: the API then caches nothing, and every request pays for its whole prompt.
 */
export function withBreakpoints(system: string, tools: Anthropic.Tool[], messages: Anthropic.MessageParam[], caching = true): CachedPrefix {
  if (!caching) return { tools, system: [{ type: 'text', text: system }], messages };
  //> 8 with-breakpoints
  //! hint: Copy the last tool with cache_control: BREAKPOINT, send the system prompt as one text block
  //! hint: carrying a breakpoint, and mark the last block of the last message (see markLastBlock). New
  //! hint: arrays: the tools and messages passed in are the session's own, and stay unmarked.
  return {
    tools: tools.map((t, i) => (i === tools.length - 1 ? { ...t, cache_control: BREAKPOINT } : t)),
    system: [{ type: 'text', text: system, cache_control: BREAKPOINT }],
    messages: messages.map((m, i) => (i === messages.length - 1 ? markLastBlock(m) : m)),
  };
  //<
}

/** A copy of a message whose last content block carries a breakpoint. A string content
 *  becomes one text block: the same bytes to the cache, which ignores the marker itself. */
function markLastBlock(message: Anthropic.MessageParam): Anthropic.MessageParam {
  if (message.role === 'system') return message;   // the agent never sends one; its system prompt is marked above
  const blocks: Anthropic.ContentBlockParam[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  const last = blocks.at(-1);
  if (!last || last.type === 'thinking' || last.type === 'redacted_thinking') return message;   // nothing markable
  return { role: message.role, content: [...blocks.slice(0, -1), { ...last, cache_control: BREAKPOINT }] };
}
//<
