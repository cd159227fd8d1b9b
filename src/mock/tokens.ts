// The mock's token rule and the flattened view of a request that both token
// counting and prompt caching work on. Deterministic on purpose: the same bytes
// always count the same, so tests and transcripts never drift.
// This is NOT a real tokenizer; src/mock/README.md documents the rule and why it
// is close enough for teaching (real counts are roughly one token per 4 bytes).

import { Buffer } from 'node:buffer';

/** Tokens of one piece of text: ceil(UTF-8 bytes / 4), at least 1. */
export function countTokens(text: string): number {
  return Math.max(1, Math.ceil(Buffer.byteLength(text, 'utf8') / 4));
}

/** One unit of the prefix: a tool definition, a system block or a message content block. */
export interface FlatBlock {
  /** Human-readable location, e.g. "tools[3]", "system[0]", "messages[4].content[1]". */
  where: string;
  /** The bytes the cache key is made of: section, message boundary and the block's JSON
   *  with every cache_control removed (so placing a marker does not change the prefix).
   *  Made when first read (flatBlock below). */
  readonly canonical: string;
  tokens: number;
  /** Set when the block carries cache_control (directly, or nested in tool_result content). */
  cache?: { ttl: '5m' | '1h' };
}

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy without any `cache_control` key, at any depth. Key order is kept:
 *  the cache is byte-exact, so reordering keys must change the key like the real thing. */
export function stripCacheControl(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripCacheControl);
  if (isObj(v)) {
    const out: Json = {};
    for (const [k, val] of Object.entries(v)) {
      if (k === 'cache_control') continue;
      out[k] = stripCacheControl(val);
    }
    return out;
  }
  return v;
}

/**
 * JSON.stringify(stripCacheControl(v)) for a parsed JSON value, without the deep copy when
 * there is nothing to strip: a value with a `cache_control` key anywhere has that key in
 * its JSON, so JSON without it is already the answer. (A text that merely contains the
 * words is copied and stripped like a marked block: the same bytes either way.)
 */
function jsonWithoutCacheControl(v: unknown, json: string | undefined = JSON.stringify(v)): string {
  return json === undefined || json.includes('"cache_control"') ? JSON.stringify(stripCacheControl(v)) : json;
}

/** The text a block counts as, per the documented rule. */
export function blockText(block: unknown): string {
  if (!isObj(block)) return JSON.stringify(block) ?? '';
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'tool_use':
      return String(block.name ?? '') + JSON.stringify(block.input ?? {});
    case 'tool_result':
      return toolResultText(block);
    default:
      return jsonWithoutCacheControl(block);
  }
}

/** The text of a tool_result: its string content, or its text blocks joined with "\n"
 *  (other nested blocks count as their JSON). */
export function toolResultText(block: Json): string {
  const c = block.content;
  if (c === undefined || c === null) return '';
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .map((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : jsonWithoutCacheControl(b)))
      .join('\n');
  }
  return JSON.stringify(c);
}

/** Reads a cache_control value; undefined when absent or not ephemeral. */
export function readCacheControl(v: unknown): { ttl: '5m' | '1h' } | undefined {
  if (!isObj(v)) return undefined;
  if (v.type !== 'ephemeral') return undefined;
  return { ttl: v.ttl === '1h' ? '1h' : '5m' };
}

/** cache_control on the block itself, or on a block nested in a tool_result's content
 *  (the mock treats a tool_result as one block, so a nested marker marks it). */
function blockCache(block: unknown): { ttl: '5m' | '1h' } | undefined {
  if (!isObj(block)) return undefined;
  const own = readCacheControl(block.cache_control);
  if (own) return own;
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    for (const inner of block.content) {
      if (isObj(inner)) {
        const c = readCacheControl(inner.cache_control);
        if (c) return c;
      }
    }
  }
  return undefined;
}

/** How many cache_control markers a request carries (the API allows at most 4). */
export function countCacheControls(body: Json): number {
  let n = 0;
  const visit = (b: unknown): void => {
    if (!isObj(b)) return;
    if (b.cache_control !== undefined) n++;
    if (b.type === 'tool_result' && Array.isArray(b.content)) b.content.forEach(visit);
  };
  if (Array.isArray(body.tools)) body.tools.forEach(visit);
  if (Array.isArray(body.system)) body.system.forEach(visit);
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) {
      if (isObj(m) && Array.isArray(m.content)) m.content.forEach(visit);
    }
  }
  if (body.cache_control !== undefined) n++;
  return n;
}

/** A message after same-role merging, remembering where each block came from. */
export interface MergedMessage {
  role: string;
  /** Index of the first original message that was merged into this one. */
  firstIndex: number;
  blocks: { block: Json; where: string }[];
}

/** Content as a list of blocks: a string is one text block. */
export function contentBlocks(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (Array.isArray(content)) return content.filter(isObj);
  return [];
}

/** Consecutive messages with the same role become one, like the real API does. */
export function mergeMessages(messages: unknown[]): MergedMessage[] {
  const out: MergedMessage[] = [];
  messages.forEach((m, i) => {
    if (!isObj(m)) return;
    const role = String(m.role);
    const blocks = contentBlocks(m.content).map((block, j) => ({
      block,
      where: typeof m.content === 'string' ? `messages[${i}].content` : `messages[${i}].content[${j}]`,
    }));
    const last = out[out.length - 1];
    if (last && last.role === role) last.blocks.push(...blocks);
    else out.push({ role, firstIndex: i, blocks });
  });
  return out;
}

/**
 * Machine-specific strings the rule counts as others: `{ path, as }` counts every
 * occurrence of `path` as if it were `as`, in tokens and in the bytes the cache keys and
 * the transcripts measure. The runner uses it for the run's temp folder, which is in the
 * system prompt (chapter 3 on): counted as if it lay in /tmp, a scripted run counts the
 * same wherever TMPDIR points. The request itself is never rewritten.
 */
export type CountAs = readonly { path: string; as: string }[];

function rewriter(countAs: CountAs | undefined): (text: string) => string {
  const rules = (countAs ?? []).filter((r) => r.path !== '' && r.path !== r.as);
  if (rules.length === 0) return (text) => text;
  return (text) => rules.reduce((t, r) => (t.includes(r.path) ? t.split(r.path).join(r.as) : t), text);
}

// The same parsed body is flattened several times (the mock's breakpoints and its cache,
// then the runner's fork checks and --trace), and a 48,500-token body costs milliseconds
// each time: the result is kept per body object. Bodies are never changed once parsed
// (a block's canonical bytes are read from its body the first time they are asked for).
// The mock that received a body flattens it first, with its `countAs` rule; whoever asks
// later (the runner's checks, the transcript) gets that same result.
const flattened = new WeakMap<object, readonly FlatBlock[]>();

/**
 * A block whose canonical bytes are made the first time they are read. The cache reads them
 * up to its last breakpoint, the runner's fork checks and --trace compare them; a token
 * count (count_tokens, a request with no breakpoint) never does, and would otherwise
 * stringify every block of the conversation for nothing.
 */
function flatBlock(where: string, canonical: () => string, tokens: number, cache: FlatBlock['cache']): FlatBlock {
  let bytes: string | undefined;
  return { where, get canonical() { return (bytes ??= canonical()); }, tokens, cache };
}

/** The request as the ordered block list the token rule and the cache model use:
 *  tools, then system blocks, then every content block of every (merged) message. */
export function flattenRequest(body: Json, countAs?: CountAs): readonly FlatBlock[] {
  const known = flattened.get(body);
  if (known) return known;
  const as = rewriter(countAs);
  const tokensOf = (text: string) => countTokens(as(text));
  const out: FlatBlock[] = [];
  if (Array.isArray(body.tools)) {
    body.tools.forEach((t, i) => {
      const tool = isObj(t) ? t : {};
      const json = JSON.stringify(tool);
      // A tool of exactly these three keys, in this order, counts as its own JSON (markers
      // and all): one stringify of it, not two.
      const keys = Object.keys(tool);
      const plain = keys.length === 3 && keys[0] === 'name' && keys[1] === 'description' && keys[2] === 'input_schema';
      const text = plain ? json : JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.input_schema });
      out.push(flatBlock(`tools[${i}]`, () => as('T' + jsonWithoutCacheControl(tool, json)), tokensOf(text), readCacheControl(tool.cache_control)));
    });
  }
  if (typeof body.system === 'string') {
    const system = body.system;
    if (system.length > 0) out.push(flatBlock('system', () => as('S' + JSON.stringify({ type: 'text', text: system })), tokensOf(system), undefined));
  } else if (Array.isArray(body.system)) {
    body.system.forEach((b, i) => {
      out.push(flatBlock(`system[${i}]`, () => as('S' + jsonWithoutCacheControl(b)), tokensOf(blockText(b)), blockCache(b)));
    });
  }
  if (Array.isArray(body.messages)) {
    mergeMessages(body.messages).forEach((m, mi) => {
      m.blocks.forEach(({ block, where }, bi) => {
        // The message index and role are part of the bytes: the same block in another
        // message, or a message boundary moved, is a different prompt.
        const head = `M${mi}:${m.role}:${bi}:`;
        out.push(flatBlock(where, () => as(head + jsonWithoutCacheControl(block)), tokensOf(blockText(block)), blockCache(block)));
      });
    });
  }
  // Top-level cache_control (automatic caching): a breakpoint on the last block.
  const auto = readCacheControl(body.cache_control);
  if (auto && out.length > 0) {
    const last = out[out.length - 1]!;
    if (!last.cache) last.cache = auto;
  }
  flattened.set(body, out);
  return out;
}

/** The system prompt as one string (text blocks joined with "\n"). */
export function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) {
    return system.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).join('\n');
  }
  return '';
}

/** Output tokens of a response: the same rule over its content blocks, at least 1. */
export function outputTokens(content: unknown[], countAs?: CountAs): number {
  const as = rewriter(countAs);
  let n = 0;
  for (const b of content) n += countTokens(as(blockText(b)));
  return Math.max(1, n);
}
