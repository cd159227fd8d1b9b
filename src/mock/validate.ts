// Request validation: the rules the real Messages API enforces that an agent
// loop most easily breaks (tool_use/tool_result pairing, empty content, the
// 4-breakpoint limit …), with messages worded close to the real ones; which
// top-level fields exist at all, and which ones only under an `anthropic-beta`.
// It is NOT a full schema check of every API parameter: fields the mock accepts
// without simulating them (thinking, metadata, temperature …) are not checked
// inside, only named (unmodelledFields), so a report can say what was taken on trust.

import { countCacheControls, mergeMessages } from './tokens.ts';

type Json = Record<string, unknown>;

/** A rejected request: HTTP status, API error type and message. */
export interface Rejection {
  status: number;
  type: string;
  message: string;
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const bad = (message: string): Rejection => ({ status: 400, type: 'invalid_request_error', message });

/** "messages[3].content[1]" → "messages.3.content.1", the API's path spelling. */
function apiPath(where: string): string {
  return where.replace(/\[(\d+)\]/g, '.$1');
}

/** Top-level fields the mock simulates. */
const MODELLED_FIELDS = new Set(['model', 'max_tokens', 'messages', 'system', 'tools', 'stream', 'cache_control']);

/** Top-level fields the real API accepts without a beta that the mock does not simulate:
 *  accepted, not checked inside, named in `unmodelledFields`. */
const ACCEPTED_FIELDS = new Set([
  'metadata', 'stop_sequences', 'temperature', 'top_k', 'top_p', 'tool_choice', 'thinking', 'service_tier', 'output_config',
]);

/**
 * What only exists under a beta, and which one. The pairs are the ones a real client
 * shows: Claude Code 2.1.328 sends each field only together with its beta, and drops
 * both together when its experimental betas are turned off
 * (CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=1). What is left then, a `system` turn inside
 * `messages`, travels with the client's own beta, the one beta it always sends.
 */
export const BETA_FOR = {
  context_management: 'context-management-2025-06-27',
  'output_config.effort': 'effort-2025-11-24',
  'tools[].defer_loading': 'advanced-tool-use-2025-11-20',
  'messages[].role=system': 'claude-code-20250219',
} as const;

/** The beta names of an `anthropic-beta` header value (comma-separated; repeated headers joined). */
export function betasOf(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : header ?? '';
  return text.split(',').map((b) => b.trim()).filter((b) => b !== '');
}

/** Keys of a tool definition the mock simulates (the rest are named as unmodelled). */
const MODELLED_TOOL_KEYS = new Set(['name', 'description', 'input_schema', 'cache_control']);
/** Content block types the mock simulates (others are counted as their JSON, and named). */
const MODELLED_BLOCK_TYPES = new Set(['text', 'tool_use', 'tool_result']);

/**
 * The fields of an accepted request that the mock took without simulating them, as
 * names without indices, sorted: "thinking", "context_management",
 * "messages[].role=system", "tools[].defer_loading", "messages[].content[].type=thinking" ….
 * Empty for everything the chapters send.
 */
export function unmodelledFields(body: unknown): string[] {
  if (!isObj(body)) return [];
  const out = new Set<string>();
  for (const k of Object.keys(body)) if (!MODELLED_FIELDS.has(k)) out.add(k);
  if (Array.isArray(body.tools)) {
    for (const t of body.tools) if (isObj(t)) for (const k of Object.keys(t)) if (!MODELLED_TOOL_KEYS.has(k)) out.add(`tools[].${k}`);
  }
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) {
      if (!isObj(m)) continue;
      if (m.role === 'system') out.add('messages[].role=system');
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content) if (isObj(b) && typeof b.type === 'string' && !MODELLED_BLOCK_TYPES.has(b.type)) out.add(`messages[].content[].type=${b.type}`);
    }
  }
  return [...out].sort();
}

const needsBeta = (what: string, beta: string): Rejection =>
  bad(`${what}: this field needs the anthropic-beta header "${beta}"`);

/**
 * Checks a /v1/messages (or count_tokens) body. Returns the first problem found,
 * or null when the request is acceptable. `betas`: the request's `anthropic-beta` values.
 */
export function validateRequest(
  body: unknown,
  opts: { countTokens: boolean; betas?: readonly string[] },
): Rejection | null {
  if (!isObj(body)) return bad('Request body must be a JSON object.');
  const betas = new Set(opts.betas ?? []);

  // A field the API does not know is refused, not ignored: a typo must not pass silently.
  for (const k of Object.keys(body)) {
    if (k === 'context_management') {
      if (!betas.has(BETA_FOR.context_management)) return needsBeta(k, BETA_FOR.context_management);
    } else if (!MODELLED_FIELDS.has(k) && !ACCEPTED_FIELDS.has(k)) {
      return bad(`${k}: Extra inputs are not permitted`);
    }
  }
  if (isObj(body.output_config) && body.output_config.effort !== undefined && !betas.has(BETA_FOR['output_config.effort'])) {
    return needsBeta('output_config.effort', BETA_FOR['output_config.effort']);
  }

  const model = body.model;
  if (model === undefined) return bad('model: Field required');
  if (typeof model !== 'string') return bad('model: Input should be a valid string');
  if (!model.startsWith('claude-')) return { status: 404, type: 'not_found_error', message: `model: ${model}` };

  if (!opts.countTokens) {
    const mt = body.max_tokens;
    if (mt === undefined) return bad('max_tokens: Field required');
    if (typeof mt !== 'number' || !Number.isInteger(mt)) return bad('max_tokens: Input should be a valid integer');
    if (mt < 1) return bad('max_tokens: Input should be greater than or equal to 1');
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return bad('stream: Input should be a valid boolean');

  // system: a string or a list of text blocks.
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system)) return bad('system: Input should be a valid string or a list of text blocks');
    for (const [i, b] of body.system.entries()) {
      if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string') {
        return bad(`system.${i}: Input should be a text block`);
      }
      if (b.text === '') return bad(`system.${i}.text: text content blocks must be non-empty`);
    }
  }

  // tools: each needs a name.
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad('tools: Input should be a valid list');
    for (const [i, t] of body.tools.entries()) {
      if (!isObj(t) || typeof t.name !== 'string' || t.name === '') return bad(`tools.${i}.name: Field required`);
      if (t.defer_loading !== undefined && !betas.has(BETA_FOR['tools[].defer_loading'])) {
        return needsBeta(`tools.${i}.defer_loading`, BETA_FOR['tools[].defer_loading']);
      }
    }
  }

  const messages = body.messages;
  if (messages === undefined) return bad('messages: Field required');
  if (!Array.isArray(messages)) return bad('messages: Input should be a valid list');
  if (messages.length === 0) return bad('messages: List should have at least 1 item after validation, not 0');

  for (const [i, m] of messages.entries()) {
    if (!isObj(m)) return bad(`messages.${i}: Input should be a valid dictionary`);
    // A `system` turn inside the conversation exists only under its beta; without it the
    // API knows two roles, and so does every chapter.
    const systemTurn = m.role === 'system' && betas.has(BETA_FOR['messages[].role=system']);
    if (m.role !== 'user' && m.role !== 'assistant' && !systemTurn) return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const c = m.content;
    if (c === undefined) return bad(`messages.${i}.content: Field required`);
    if (typeof c !== 'string' && !Array.isArray(c)) return bad(`messages.${i}.content: Input should be a valid string or list of content blocks`);
    const isFinalAssistant = i === messages.length - 1 && m.role === 'assistant';
    if ((c === '' || (Array.isArray(c) && c.length === 0)) && !isFinalAssistant) {
      return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    if (Array.isArray(c)) {
      for (const [j, b] of c.entries()) {
        if (!isObj(b) || typeof b.type !== 'string') return bad(`messages.${i}.content.${j}: Input should be a content block with a type`);
        if (b.type === 'text' && (typeof b.text !== 'string' || b.text === '')) {
          return bad(`messages.${i}.content.${j}.text: text content blocks must be non-empty`);
        }
        if (b.type === 'tool_use') {
          if (m.role !== 'assistant') return bad(`messages.${i}.content.${j}: tool_use blocks can only appear in assistant messages`);
          if (typeof b.id !== 'string' || typeof b.name !== 'string' || !isObj(b.input)) {
            return bad(`messages.${i}.content.${j}: a tool_use block needs an id, a name and an input object`);
          }
        }
        if (b.type === 'tool_result') {
          if (m.role !== 'user') return bad(`messages.${i}.content.${j}: tool_result blocks can only appear in user messages`);
          if (typeof b.tool_use_id !== 'string') return bad(`messages.${i}.content.${j}.tool_use_id: Field required`);
        }
      }
    }
  }
  if ((messages[0] as Json).role !== 'user') return bad('messages: first message must use the "user" role');

  const n = countCacheControls(body);
  if (n > 4) return bad(`A maximum of 4 blocks with cache_control may be provided. Found ${n}.`);

  // Pairing, after merging consecutive same-role messages like the API does.
  const merged = mergeMessages(messages);
  let usesTools = false;
  for (const msg of merged) {
    for (const { block } of msg.blocks) if (block.type === 'tool_use' || block.type === 'tool_result') usesTools = true;
  }
  if (usesTools && body.tools === undefined) {
    return bad('Requests which include `tool_use` or `tool_result` blocks must define tools.');
  }

  // A tool_use in the history may name a tool this request no longer offers: the API
  // accepts it (only the prompt cache notices the changed tool list). What a real model
  // cannot do is *call* a tool it was not offered; the server refuses to script that.
  for (const [k, msg] of merged.entries()) {
    if (msg.role === 'assistant') {
      const ids = msg.blocks.filter((b) => b.block.type === 'tool_use').map((b) => String(b.block.id));
      if (ids.length === 0) continue;
      const next = merged[k + 1];
      const answered = new Set<string>();
      if (next) {
        for (const { block } of next.blocks) {
          if (block.type !== 'tool_result') break;
          answered.add(String(block.tool_use_id));
        }
      }
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        if (next && next.blocks.some((b) => b.block.type === 'tool_result' && missing.includes(String(b.block.tool_use_id)))) {
          // The results are there but not at the start of the message.
          return bad(
            `messages.${next.firstIndex}: Did not find ${ids.length} tool_result block(s) at the beginning of this message. ` +
              'Messages following tool_use blocks must begin with a matching number of tool_result blocks.',
          );
        }
        return bad(
          `messages.${msg.firstIndex}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
            'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
        );
      }
    } else {
      // Every tool_result must answer a tool_use of the message right before it.
      const prev = merged[k - 1];
      const prevIds = new Set(
        prev && prev.role === 'assistant'
          ? prev.blocks.filter((b) => b.block.type === 'tool_use').map((b) => String(b.block.id))
          : [],
      );
      for (const { block, where } of msg.blocks) {
        if (block.type === 'tool_result' && !prevIds.has(String(block.tool_use_id))) {
          return bad(
            `${apiPath(where)}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. ` +
              'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
          );
        }
      }
      // tool_result blocks first: text may follow them, never precede them.
      let seenOther = false;
      for (const { block, where } of msg.blocks) {
        if (block.type === 'tool_result' && seenOther) {
          return bad(`${apiPath(where)}: tool_result blocks must come first in a user message, before any other content.`);
        }
        if (block.type !== 'tool_result') seenOther = true;
      }
    }
  }
  return null;
}
