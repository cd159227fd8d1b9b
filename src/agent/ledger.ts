//> 8 ledger-file
// The token ledger: what this agent has spent, read from the usage block of every
// response. It only adds numbers the API reported; it never estimates.
//
// The three input counters do not overlap: a request's input is input_tokens (after the
// last cache hit or write) + cache_creation_input_tokens + cache_read_input_tokens (of the
// writes, cache_creation says how many were 1-hour ones). They are priced differently, and
// differently per model, so `add` weighs each response at its model's cache prices and
// `cost()` reports the sum; output is priced separately.

import type Anthropic from '@anthropic-ai/sdk';

/** A model's cache prices as multiples of its base input price, in thousandths (exact integers). */
export interface CachePrices { write5m: number; write1h: number; read: number }

/**
 * Cache prices by model id, a date suffix allowed (first match wins); any other model pays the
 * standard ones. Source: the Claude API pricing page (platform.claude.com/docs/en/about-claude/
 * pricing, "Model pricing") and each model's overview page, checked 2026-12: every model listed
 * writes at 1.25× (5-minute TTL) and 2× (1 hour); reads cost 0.1× of base input, except on
 * Fable 5.1 and Mythos 5.1 (0.025×) and Opus 5.5 (0.05×).
 */
export const STANDARD_CACHE_PRICES: CachePrices = { write5m: 1250, write1h: 2000, read: 100 };
export const CACHE_PRICES: readonly (readonly [string, CachePrices])[] = [
  ['claude-fable-5-1', { write5m: 1250, write1h: 2000, read: 25 }],
  ['claude-mythos-5-1', { write5m: 1250, write1h: 2000, read: 25 }],
  ['claude-opus-5-5', { write5m: 1250, write1h: 2000, read: 50 }],
];

export function cachePrices(model: string): CachePrices {
  // The id itself or the id and a date: claude-opus-5 is not claude-opus-5-5.
  const row = CACHE_PRICES.find(([id]) => model === id ||
    (model.startsWith(`${id}-`) && /^(\d{8}|latest)$/.test(model.slice(id.length + 1))));
  return row?.[1] ?? STANDARD_CACHE_PRICES;
}

export class Ledger {
  input = 0;        // uncached input tokens
  output = 0;
  cacheWrite = 0;   // cache_creation_input_tokens (5-minute and 1-hour writes together)
  cacheWrite1h = 0; // the part of cacheWrite written with ttl "1h"
  cacheRead = 0;    // cache_read_input_tokens
  calls = 0;
  weighed = 0;      // the input side in thousandths of base input tokens, each response at its model's prices

  /** One response's usage, from a request to `model`. */
  add(usage: Anthropic.Usage, model: string): void {
    this.input += usage.input_tokens ?? 0;
    this.output += usage.output_tokens;
    this.cacheWrite += usage.cache_creation_input_tokens ?? 0;
    this.cacheRead += usage.cache_read_input_tokens ?? 0;
    this.cacheWrite1h += usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    this.calls += 1;
    this.weighed += weigh(usage, cachePrices(model));
  }

  /**
   * The input side in base-input-token equivalents: uncached ×1, and the cache counters at
   * their model's prices (most models: 5-minute write ×1.25, 1-hour write ×2, read ×0.1).
   * Output tokens are not in it: they have their own (higher) price.
   */
  cost(): number {
    return this.weighed / 1000;
  }

  //> 11 ledger-absorb
  /** Roll another ledger (a finished sub-agent's) into this one. */
  absorb(other: Ledger): void {
    this.input += other.input;
    this.output += other.output;
    this.cacheWrite += other.cacheWrite;
    this.cacheRead += other.cacheRead;
    this.cacheWrite1h += other.cacheWrite1h;
    this.calls += other.calls;
    this.weighed += other.weighed;
  }

  //<
  /** Two lines, in a fixed format that the tests read back. */
  report(): string {
    const uncachedPrice = this.input + this.cacheWrite + this.cacheRead;   // what it would cost with no cache at all
    return `ledger: calls=${this.calls} input=${this.input} output=${this.output} cache_write=${this.cacheWrite} cache_read=${this.cacheRead}\n` +
      `cost: ${this.cost()} input-token equivalents (${uncachedPrice} without caching); output ${this.output} tokens priced separately`;
  }
}

/** One response's input side in thousandths of base input tokens, at the given prices. */
export function weigh(usage: Anthropic.Usage, prices: CachePrices): number {
  //> 8 ledger-cost
  //! hint: Weigh each counter by the prices given (input ×1000, the rest at prices.write5m, .write1h and
  //! hint: .read: they differ by model); 5-minute writes are all writes minus the 1-hour ones.
  // In thousandths of a token, as integers, so the sum is exact (0.1 is not, in binary).
  const write1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const write5m = (usage.cache_creation_input_tokens ?? 0) - write1h;
  return (usage.input_tokens ?? 0) * 1000 + write5m * prices.write5m + write1h * prices.write1h +
    (usage.cache_read_input_tokens ?? 0) * prices.read;
  //<
}
//<
