// The two expectation kinds of chapter 12, kept apart from expectations.ts because they
// are longer than the others: `fork_prefix` (a fork child sends its parent's exact bytes,
// and siblings differ only in their own last block) and `fork_costs` (the agent's cost
// table is built from the usage the API reported; optionally, the children's input tokens
// are the given numbers). Both read the mock's event log; fork_costs also the agent's output.

import { flattenRequest, weighUsage } from '../mock/index.ts';
import type { MockEvent, RequestEvent, ResponseEvent } from '../mock/types.ts';
import { blocksOf, modelOf, requestsOf, responsesOf } from './event-log.ts';

type Json = Record<string, unknown>;

/**
 * Would JSON.stringify write the same bytes for a and b, every cache_control left out (a
 * marker does not change the bytes the cache keys)? Compared in place, key order included:
 * serialising a 48,500-token history for every check took milliseconds each time.
 */
export function sameBytes(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameBytes(x, b[i]));
  }
  const keys = (o: object) => Object.keys(o).filter((k) => k !== 'cache_control' && (o as Json)[k] !== undefined);
  const ka = keys(a);
  const kb = keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameBytes((a as Json)[k], (b as Json)[k]));
}

export function checkForkPrefix(spec: { tracks: string[]; from: string; cached?: boolean }, events: MockEvent[]): string | true {
  const flats: { track: string; blocks: ReturnType<typeof flattenRequest>; req: RequestEvent }[] = [];
  for (const track of spec.tracks) {
    const req = requestsOf(events, track)[0];
    if (!req) return `${track} sent no request`;
    const messages = (req.body.messages as unknown[]) ?? [];
    const last = messages.at(-1) as { role?: string } | undefined;
    const lastBlocks = blocksOf(last);
    const results = lastBlocks.filter((b) => b.type === 'tool_result');
    if (last?.role !== 'user' || results.length === 0) return `${track}'s first request does not end with a user message of tool results: it is not a fork of ${spec.from}`;
    // The parent's response whose tool calls these results answer.
    const firstId = String(results[0]!.tool_use_id);
    const resp = responsesOf(events, spec.from).find((r) => r.content.some((b) => b.type === 'tool_use' && b.id === firstId));
    if (!resp) return `${track} answers tool call ${firstId}, which ${spec.from} never made`;
    const parentReq = events.find((e): e is RequestEvent => e.type === 'request' && e.seq === resp.seq)!;
    if (!sameBytes(req.body.system, parentReq.body.system)) return `${track}'s system prompt is not the bytes ${spec.from} sent`;
    if (!sameBytes(req.body.tools, parentReq.body.tools)) {
      return `${track}'s tools are not ${spec.from}'s exact tool array (${track}: ${req.tool_names.join(', ')}; ${spec.from}: ${parentReq.tool_names.join(', ')})`;
    }
    const history = (parentReq.body.messages as unknown[]) ?? [];
    if (messages.length !== history.length + 2) return `${track} sent ${messages.length} messages; a fork of ${spec.from} sends its ${history.length}, its assistant message and one more`;
    const moved = history.findIndex((m, i) => !sameBytes(m, messages[i]));
    if (moved >= 0) return `${track}'s message ${moved} is not ${spec.from}'s message ${moved}`;
    if (!sameBytes({ role: 'assistant', content: resp.content }, messages[history.length])) {
      return `${track}'s message ${history.length} is not ${spec.from}'s whole assistant message (every block, every tool call)`;
    }
    const calls = resp.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
    const answered = lastBlocks.slice(0, calls.length).map((b) => (b.type === 'tool_result' ? String(b.tool_use_id) : ''));
    const missing = calls.filter((id, i) => answered[i] !== id);
    if (missing.length > 0) return `${track}'s last message does not start with a result for every one of ${spec.from}'s ${calls.length} tool calls, in order (missing: ${missing.join(', ')})`;
    if (lastBlocks.length !== calls.length + 1 || lastBlocks.at(-1)!.type !== 'text') return `${track}'s last message should be the ${calls.length} results then one text block (the child's own)`;
    flats.push({ track, blocks: flattenRequest(req.body), req });
  }
  // Siblings: byte-identical up to their own last block.
  const [first, ...others] = flats;
  for (const o of others) {
    const n = Math.max(first!.blocks.length, o.blocks.length) - 1;
    for (let i = 0; i < n; i++) {
      if (first!.blocks[i]?.canonical !== o.blocks[i]?.canonical) {
        return `${o.track} differs from ${first!.track} at ${o.blocks[i]?.where ?? first!.blocks[i]?.where}, before its own last block`;
      }
    }
  }
  if (spec.cached) {
    for (const o of others) {
      const shared = o.blocks.slice(0, -1).reduce((n, b) => n + b.tokens, 0);
      const read = responsesOf(events, o.track)[0]?.usage.cache_read_input_tokens ?? 0;
      if (read !== shared) return `${o.track} read ${read} tokens from the cache; its shared prefix is ${shared}`;
    }
  }
  return true;
}

/**
 * `fork_prefix` with `own` (chapter 15, Claude Code 2.1.328's layout): each child's first
 * request is the parent's request that made the calls (system, tools, messages, byte for
 * byte), then an assistant message holding only the child's own tool_use, then one user
 * message: that call's result and the child's text. Children share the parent's request and
 * part at their own tool_use; `cached`: each read exactly the parent's request from the cache.
 */
export function checkOwnForkPrefix(spec: { tracks: string[]; from: string; cached?: boolean }, events: MockEvent[]): string | true {
  const seen = new Set<string>();
  for (const track of spec.tracks) {
    const req = requestsOf(events, track)[0];
    if (!req) return `${track} sent no request`;
    const messages = (req.body.messages as unknown[]) ?? [];
    const lastBlocks = blocksOf(messages.at(-1));
    const result = lastBlocks[0];
    if (result?.type !== 'tool_result') return `${track}'s first request does not end with a user message that starts with a tool result: it is not a fork of ${spec.from}`;
    const id = String(result.tool_use_id);
    const resp = responsesOf(events, spec.from).find((r) => r.content.some((b) => b.type === 'tool_use' && b.id === id));
    if (!resp) return `${track} answers tool call ${id}, which ${spec.from} never made`;
    if (seen.has(id)) return `${track} answers the same call as another child (${id})`;
    seen.add(id);
    const parentReq = events.find((e): e is RequestEvent => e.type === 'request' && e.seq === resp.seq)!;
    if (!sameBytes(req.body.system, parentReq.body.system)) return `${track}'s system prompt is not the bytes ${spec.from} sent`;
    if (!sameBytes(req.body.tools, parentReq.body.tools)) return `${track}'s tools are not ${spec.from}'s exact tool array`;
    const history = (parentReq.body.messages as unknown[]) ?? [];
    if (messages.length !== history.length + 2) return `${track} sent ${messages.length} messages; this layout sends ${spec.from}'s ${history.length}, one assistant message and one more`;
    const moved = history.findIndex((m, i) => !sameBytes(m, messages[i]));
    if (moved >= 0) return `${track}'s message ${moved} is not ${spec.from}'s message ${moved}`;
    const own = resp.content.find((b) => b.type === 'tool_use' && b.id === id);
    if (!sameBytes({ role: 'assistant', content: [own] }, messages[history.length])) {
      return `${track}'s message ${history.length} is not an assistant message holding only its own call ${id} (no text, no sibling calls)`;
    }
    if (lastBlocks.length !== 2 || lastBlocks[1]!.type !== 'text') return `${track}'s last message should be its call's result, then one text block (its own)`;
    if (spec.cached) {
      const shared = flattenRequest(parentReq.body).reduce((n, b) => n + b.tokens, 0);
      const read = responsesOf(events, track)[0]?.usage.cache_read_input_tokens ?? 0;
      if (read !== shared) return `${track} read ${read} tokens from the cache; ${spec.from}'s request, which it shares, is ${shared}`;
    }
  }
  return true;
}

export function checkForkCosts(spec: { tracks: string[]; input_each?: number; input_total?: number }, events: MockEvent[], terminal: string): string | true {
  const { tracks } = spec;
  const lines = terminal.split('\n');
  const at = lines.map((l, i) => (l.startsWith('fork cost:') ? i : -1)).filter((i) => i >= 0).at(-1);
  if (at === undefined) return 'the agent printed no "fork cost:" table';
  const numbers = (line: string | undefined) => (line?.match(/\d[\d,]*(?:\.\d+)?/g) ?? []).map((s) => Number(s.replaceAll(',', '')));
  let popular = 0;
  let documented = 0;
  let plain = 0;
  for (const [i, track] of tracks.entries()) {
    const row = lines[at + 2 + i];
    const got = numbers(row).slice(-5);
    const rs = responsesOf(events, track);
    const sum = (f: (r: ResponseEvent) => number) => rs.reduce((n, r) => n + f(r), 0);
    const input = sum((r) => r.usage.input_tokens);
    const write = sum((r) => r.usage.cache_creation_input_tokens);
    const read = sum((r) => r.usage.cache_read_input_tokens);
    // Thousandths of a token, as integers: 0.1, 0.025 and 1.25 are exact that way. "popular":
    // the source documents' accounting (writes at 1×, reads at 0.1×); "doc": each model's
    // documented cache prices (weighUsage, src/mock/cache.ts).
    const pop = input * 1000 + write * 1000 + read * 100;
    const doc = sum((r) => weighUsage(r.usage, modelOf(events, r)));
    const want = [input, write, read, Math.round(pop / 1000), Math.round(doc / 1000)];
    if (got.join() !== want.join()) return `fork cost row ${i + 1} reads "${row?.trim()}"; ${track}'s usage gives ${want.join(' / ')}`;
    if (spec.input_each !== undefined && input + write + read !== spec.input_each) {
      return `${track}'s input was ${input + write + read} tokens (${input} uncached, ${write} written, ${read} read), expected ${spec.input_each}`;
    }
    popular += pop;
    documented += doc;
    plain += input + write + read;
  }
  const withFork = numbers(lines[at + 2 + tracks.length]).slice(-2);
  if (withFork.join() !== [Math.round(popular / 1000), Math.round(documented / 1000)].join()) return `the "with fork" total reads "${lines[at + 2 + tracks.length]?.trim()}"`;
  const without = numbers(lines[at + 3 + tracks.length]).slice(-2);
  if (without.join() !== [plain, plain].join()) return `the "without fork" total reads "${lines[at + 3 + tracks.length]?.trim()}"; every token at the base price is ${plain}`;
  if (spec.input_total !== undefined && plain !== spec.input_total) return `the children's input tokens add up to ${plain}, expected ${spec.input_total}`;
  return true;
}
