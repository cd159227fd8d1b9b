// The mock's prompt cache: prefix keys, breakpoints, the 20-block walk-back,
// visibility, TTLs and the three usage counters. It keeps only keys and times,
// never content, and it is NOT the real cache's implementation: it reproduces the
// documented rules (SPEC.md §4, src/mock/README.md) so that usage numbers in
// lessons behave like the real API's.

import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { Breakpoint, Usage } from './types.ts';
import type { FlatBlock } from './tokens.ts';

/**
 * Minimum cacheable prefix, in tokens, by model id prefix (first match wins).
 * From the prompt-caching docs: Opus 4.5/4.6 and Haiku 4.5 need 4096, the Haiku 3
 * family 2048, Sonnet 4.x and Opus 4/4.1 1024; the Opus 5 generation (Opus, Fable,
 * Mythos 5) 512. Reports on Opus 4.7 disagree, so it falls to the default. An unknown
 * claude- model gets 1024. Keep every model-specific number in this one table.
 */
export const MIN_CACHEABLE_TOKENS: readonly (readonly [string, number])[] = [
  ['claude-opus-4-5', 4096],
  ['claude-opus-4-6', 4096],
  ['claude-haiku-4-5', 4096],
  ['claude-3-5-haiku', 2048],
  ['claude-3-haiku', 2048],
  ['claude-haiku-3', 2048],
  ['claude-opus-5', 512],
  ['claude-fable-5', 512],
  ['claude-mythos-5', 512],
];
export const DEFAULT_MIN_CACHEABLE_TOKENS = 1024;

export function minCacheableTokens(model: string): number {
  for (const [prefix, n] of MIN_CACHEABLE_TOKENS) if (model.startsWith(prefix)) return n;
  return DEFAULT_MIN_CACHEABLE_TOKENS;
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

/** Prefix keys for every position: a running hash over the model id and the
 *  canonical bytes of blocks 0..p (length-prefixed so blocks cannot run together). */
export function prefixKeys(model: string, blocks: readonly FlatBlock[]): string[] {
  const h = createHash('sha256');
  h.update(`model:${model}\n`);
  return blocks.map((b) => {
    h.update(`${Buffer.byteLength(b.canonical)}:${b.canonical}\n`);
    return h.copy().digest('hex');
  });
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
   * `start`: when its response starts (recorded on the entries it writes).
   */
  apply(model: string, blocks: readonly FlatBlock[], arrival: number, start: number, write: boolean): CacheOutcome {
    const keys = prefixKeys(model, blocks);
    const prefix: number[] = [];
    let sum = 0;
    for (const b of blocks) prefix.push((sum += b.tokens));
    const total = sum;
    const breakpoints = breakpointsOf(blocks);
    const min = minCacheableTokens(model);

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
      if (bp.ttl === '1h') h1 += seg;
      else m5 += seg;
      covered = bp.position;
      if (write) this.#store(keys[bp.position]!, bp.ttl, arrival, start);
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
    // Readable only by requests that arrived after the writer's response started.
    return e.start < arrival;
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
