// GENERATED from src/agent/ledger.ts for chapter 14 (custom-agents). Do not edit: change src/agent/ledger.ts and run npm run gen.
// The token ledger: what this agent has spent, read from the usage block of every
// response. It only adds numbers the API reported; it never estimates.
//
// The four input counters do not overlap: a request's input is input_tokens (after the
// last cache hit or write) + cache_creation_input_tokens + cache_read_input_tokens. They
// are priced differently, so `cost()` weighs them; output is priced separately.

import type Anthropic from '@anthropic-ai/sdk';

export class Ledger {
  input = 0;        // uncached input tokens
  output = 0;
  cacheWrite = 0;   // cache_creation_input_tokens (5-minute and 1-hour writes together)
  cacheWrite1h = 0; // the part of cacheWrite written with ttl "1h"
  cacheRead = 0;    // cache_read_input_tokens
  calls = 0;

  add(usage: Anthropic.Usage): void {
    this.input += usage.input_tokens ?? 0;
    this.output += usage.output_tokens;
    this.cacheWrite += usage.cache_creation_input_tokens ?? 0;
    this.cacheRead += usage.cache_read_input_tokens ?? 0;
    this.cacheWrite1h += usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    this.calls += 1;
  }

  /**
   * The input side in base-input-token equivalents, at the documented multipliers:
   * uncached ×1, 5-minute write ×1.25, 1-hour write ×2, read ×0.1. Output tokens are
   * not in it: they have their own (higher) price.
   */
  cost(): number {
    // In hundredths of a token, as integers, so the sum is exact (0.1 is not, in binary).
    const write5m = this.cacheWrite - this.cacheWrite1h;
    return (this.input * 100 + write5m * 125 + this.cacheWrite1h * 200 + this.cacheRead * 10) / 100;
  }

  /** Roll another ledger (a finished sub-agent's) into this one. */
  absorb(other: Ledger): void {
    this.input += other.input;
    this.output += other.output;
    this.cacheWrite += other.cacheWrite;
    this.cacheRead += other.cacheRead;
    this.cacheWrite1h += other.cacheWrite1h;
    this.calls += other.calls;
  }

  /** Two lines, in a fixed format that the tests read back. */
  report(): string {
    const uncachedPrice = this.input + this.cacheWrite + this.cacheRead;   // what it would cost with no cache at all
    return `ledger: calls=${this.calls} input=${this.input} output=${this.output} cache_write=${this.cacheWrite} cache_read=${this.cacheRead}\n` +
      `cost: ${this.cost()} input-token equivalents (${uncachedPrice} without caching); output ${this.output} tokens priced separately`;
  }
}
