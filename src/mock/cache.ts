// The mock's prompt cache: prefix keys, breakpoints, the 20-block walk-back,
// visibility, TTLs and the three usage counters. It keeps only keys and times,
// never content, and it is NOT the real cache's implementation: it reproduces the
// rules the API documents (listed in src/mock/README.md) so that usage numbers in
// lessons behave like the real API's.

import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { Breakpoint, Usage } from './types.ts';
import type { FlatBlock } from './tokens.ts';

/**
 * Whether a model id is the one a table row names: the same id, or that id with a date or
 * "-latest" after it (claude-haiku-4-5-20251001). Not a plain prefix: claude-opus-5 must not
 * stand for claude-opus-5-5, a model with its own numbers.
 */
export function isModel(model: string, id: string): boolean {
  return model === id || (model.startsWith(`${id}-`) && /^(\d{8}|latest)$/.test(model.slice(id.length + 1)));
}

/**
 * Minimum cacheable prefix, in tokens, by model id (first match wins). Source: the Claude
 * API's prompt-caching page (platform.claude.com/docs/en/build-with-claude/prompt-caching,
 * "Cache limitations", as quoted in mid-2026 and checked 2026-12): 512 for Opus 5, Fable 5 and
 * Mythos 5; 2,048 for Opus 4.7 (and Mythos Preview); 4,096 for Opus 4.6, Opus 4.5 and Haiku
 * 4.5; 2,048 for Haiku 3.5 (and Haiku 3, on the page's earlier versions); 1,024 for Opus 4.8,
 * Sonnet 5, Sonnet 4.6 and 4.5, Opus 4.1 and 4, Sonnet 4. The page as checked does not list
 * the 5.5 models or Fable and Mythos 5.1: they, and any other claude- model, get the default
 * 1,024. Keep every model-specific number in this file's two tables.
 */
export const MIN_CACHEABLE_TOKENS: readonly (readonly [string, number])[] = [
  ['claude-opus-5', 512],
  ['claude-fable-5', 512],
  ['claude-mythos-5', 512],
  ['claude-opus-4-7', 2048],
  ['claude-opus-4-6', 4096],
  ['claude-opus-4-5', 4096],
  ['claude-haiku-4-5', 4096],
  ['claude-3-5-haiku', 2048],
  ['claude-3-haiku', 2048],
  ['claude-haiku-3', 2048],
  ['claude-opus-4-8', 1024],
  ['claude-sonnet-5', 1024],
];
export const DEFAULT_MIN_CACHEABLE_TOKENS = 1024;

export function minCacheableTokens(model: string): number {
  for (const [id, n] of MIN_CACHEABLE_TOKENS) if (isModel(model, id)) return n;
  return DEFAULT_MIN_CACHEABLE_TOKENS;
}

/** A model's cache prices as multiples of its base input price, in thousandths (exact integers). */
export interface CachePrices { write5m: number; write1h: number; read: number }

/**
 * Cache prices by model id (first match wins), for the checks that recompute the agent's
 * cost line; the mock itself prices nothing. Source: the Claude API pricing page
 * (platform.claude.com/docs/en/about-claude/pricing, "Model pricing") and each model's
 * overview page, checked 2026-12: every model listed writes at 1.25× (5 minutes) and 2×
 * (1 hour); reads cost 0.1× except on Fable 5.1 and Mythos 5.1 (0.025×) and Opus 5.5
 * (0.05×). The agent's copy is CACHE_PRICES in src/agent/ledger.ts (a snapshot carries its
 * own); test/prices.test.ts keeps the two equal.
 */
export const STANDARD_CACHE_PRICES: CachePrices = { write5m: 1250, write1h: 2000, read: 100 };
export const CACHE_PRICES: readonly (readonly [string, CachePrices])[] = [
  ['claude-fable-5-1', { write5m: 1250, write1h: 2000, read: 25 }],
  ['claude-mythos-5-1', { write5m: 1250, write1h: 2000, read: 25 }],
  ['claude-opus-5-5', { write5m: 1250, write1h: 2000, read: 50 }],
];

export function cachePrices(model: string): CachePrices {
  for (const [id, prices] of CACHE_PRICES) if (isModel(model, id)) return prices;
  return STANDARD_CACHE_PRICES;
}

/** One response's input side in thousandths of base input tokens, at its model's prices. */
export function weighUsage(usage: Omit<Usage, 'output_tokens'>, model: string): number {
  const p = cachePrices(model);
  return usage.input_tokens * 1000 + usage.cache_creation.ephemeral_5m_input_tokens * p.write5m +
    usage.cache_creation.ephemeral_1h_input_tokens * p.write1h + usage.cache_read_input_tokens * p.read;
}

/** How far a read looks back from each breakpoint: the breakpoint itself and the
 *  20 positions before it. */
export const LOOKBACK_BLOCKS = 20;
const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

interface Entry {
  /** When the response that wrote it started (the mock clock). */
  start: number;
  /** Expiry time; refreshed by hits. */
  expires: number;
  ttl: '5m' | '1h';
}

/** What one request did to the cache, for the usage block and the event log. */
export interface CacheOutcome {
  usage: Omit<Usage, 'output_tokens'>;
  breakpoints: Breakpoint[];
  total: number;
  /** Position of the longest hit, -1 when none. */
  hit: number;
}

/** Prefix keys: a running hash over the model id and the canonical bytes of blocks 0..p
 *  (length-prefixed so blocks cannot run together), for every position p, or only for the
 *  positions in `at` (the others left out, and no block after the last of them hashed). */
export function prefixKeys(model: string, blocks: readonly FlatBlock[], at?: ReadonlySet<number>): string[] {
  const keys: string[] = [];
  const last = at ? Math.max(-1, ...at) : blocks.length - 1;
  if (last < 0) return keys;
  const h = createHash('sha256');
  h.update(`model:${model}\n`);
  for (let p = 0; p <= last && p < blocks.length; p++) {
    const b = blocks[p]!;
    h.update(`${Buffer.byteLength(b.canonical)}:${b.canonical}\n`);
    if (!at || at.has(p)) keys[p] = h.copy().digest('hex');
  }
  return keys;
}

/** Breakpoints of a flattened request, with their prefix token counts. */
export function breakpointsOf(blocks: readonly FlatBlock[]): Breakpoint[] {
  const out: Breakpoint[] = [];
  let sum = 0;
  blocks.forEach((b, i) => {
    sum += b.tokens;
    if (b.cache) out.push({ where: b.where, position: i, ttl: b.cache.ttl, prefix_tokens: sum });
  });
  return out;
}

export class PromptCache {
  #entries = new Map<string, Entry>();

  /** Number of live-or-stale entries kept (for tests and debugging). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Looks up and (when `write`) stores the request's prefixes.
   * `arrival`: when the request arrived (decides visibility and expiry);
   * `start`: when its response starts (recorded on the entries it writes);
   * `ttl`: the TTL every write gets, whatever its marker asks for (a turn's `cache_ttl`).
   */
  apply(model: string, blocks: readonly FlatBlock[], arrival: number, start: number, write: boolean, ttl?: '5m' | '1h'): CacheOutcome {
    const prefix: number[] = [];
    let sum = 0;
    for (const b of blocks) prefix.push((sum += b.tokens));
    const total = sum;
    const breakpoints = breakpointsOf(blocks);
    const min = minCacheableTokens(model);
    // Only a breakpoint and the positions a read looks back to are ever looked up or
    // written: a key for any other position would be a hash of a long prefix for nothing
    // (a request without a breakpoint needs none).
    const looked = new Set<number>();
    for (const bp of breakpoints) for (let p = Math.max(0, bp.position - LOOKBACK_BLOCKS); p <= bp.position; p++) looked.add(p);
    const keys = prefixKeys(model, blocks, looked);

    // Read: for each breakpoint, the breakpoint itself then up to LOOKBACK_BLOCKS back.
    let hit = -1;
    for (const bp of breakpoints) {
      const lowest = Math.max(0, bp.position - LOOKBACK_BLOCKS);
      for (let p = bp.position; p >= lowest && p > hit; p--) {
        if (this.#live(keys[p]!, arrival)) {
          hit = p;
          break;
        }
      }
    }
    if (hit >= 0) {
      // A hit refreshes the entry's TTL, free of charge.
      const e = this.#entries.get(keys[hit]!)!;
      e.expires = Math.max(e.expires, arrival + TTL_MS[e.ttl]);
    }

    // Write: breakpoints after the hit whose prefix reaches the model's minimum.
    const writable = breakpoints.filter((bp) => bp.position > hit && bp.prefix_tokens >= min);
    let m5 = 0;
    let h1 = 0;
    let covered = hit; // last position whose tokens are already read or written
    for (const bp of writable) {
      const seg = prefix[bp.position]! - (covered >= 0 ? prefix[covered]! : 0);
      const lasts = ttl ?? bp.ttl;
      if (lasts === '1h') h1 += seg;
      else m5 += seg;
      covered = bp.position;
      if (write) this.#store(keys[bp.position]!, lasts, arrival, start);
    }
    const read = hit >= 0 ? prefix[hit]! : 0;
    const creation = m5 + h1;
    return {
      usage: {
        input_tokens: total - read - creation,
        cache_creation_input_tokens: creation,
        cache_read_input_tokens: read,
        cache_creation: { ephemeral_5m_input_tokens: m5, ephemeral_1h_input_tokens: h1 },
      },
      breakpoints,
      total,
      hit,
    };
  }

  #live(key: string, arrival: number): boolean {
    const e = this.#entries.get(key);
    if (!e) return false;
    if (e.expires <= arrival) {
      this.#entries.delete(key);
      return false;
    }
    // Readable only by requests that arrived once the writer's response had started. (The
    // server's clock puts every start at least a time to first token after its request's
    // arrival, so two requests at the same instant both miss.)
    return e.start <= arrival;
  }

  #store(key: string, ttl: '5m' | '1h', arrival: number, start: number): void {
    const expires = arrival + TTL_MS[ttl];
    const old = this.#entries.get(key);
    if (old && old.expires > arrival) {
      // Two writers of the same prefix: the earliest start wins visibility, the
      // longest TTL wins lifetime.
      old.start = Math.min(old.start, start);
      if (expires > old.expires) {
        old.expires = expires;
        old.ttl = ttl;
      }
      return;
    }
    this.#entries.set(key, { start, expires, ttl });
  }
}
