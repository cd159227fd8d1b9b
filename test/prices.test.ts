// The model-specific numbers: the agent's cache prices (src/agent/ledger.ts, which a snapshot
// carries with it) must equal the checker's (src/mock/cache.ts), and both tables must match a
// model by its id or its id and a date, never by a shorter id that merely starts it. Not a
// test of the numbers against the pricing page: that check is by hand, with the page named in
// the tables' comments.
import { describe, expect, it } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import { CACHE_PRICES as AGENT_PRICES, STANDARD_CACHE_PRICES as AGENT_STANDARD, Ledger, cachePrices as agentPrices } from '../src/agent/ledger.ts';
import { CACHE_PRICES, STANDARD_CACHE_PRICES, cachePrices, minCacheableTokens, weighUsage } from '../src/mock/index.ts';

const usage = (input: number, write5m: number, write1h: number, read: number) => ({
  input_tokens: input, output_tokens: 0, cache_creation_input_tokens: write5m + write1h, cache_read_input_tokens: read,
  cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
});

describe('cache prices and minimums', () => {
  it("the agent's table is the checker's table", () => {
    expect(AGENT_PRICES).toEqual(CACHE_PRICES);
    expect(AGENT_STANDARD).toEqual(STANDARD_CACHE_PRICES);
  });

  it('a row matches its id and its dated id, not a longer id it starts', () => {
    for (const lookup of [agentPrices, cachePrices]) {
      expect(lookup('claude-opus-5-5').read).toBe(50);
      expect(lookup('claude-opus-5-5-20260901').read).toBe(50);
      expect(lookup('claude-opus-5').read).toBe(100);
      expect(lookup('claude-fable-5-1').read).toBe(25);
      expect(lookup('claude-fable-5').read).toBe(100);
      expect(lookup('claude-sonnet-4-6').read).toBe(100);
    }
    expect(minCacheableTokens('claude-opus-5')).toBe(512);
    expect(minCacheableTokens('claude-opus-5-5')).toBe(1024);   // not on the page as checked: the default
    expect(minCacheableTokens('claude-opus-4-7')).toBe(2048);
    expect(minCacheableTokens('claude-opus-4-8')).toBe(1024);
    expect(minCacheableTokens('claude-haiku-4-5-20251001')).toBe(4096);
  });

  it("the ledger weighs each response at its own model's prices, as the checker does", () => {
    const ledger = new Ledger();
    const a = usage(100, 1000, 0, 4000);
    const b = usage(10, 0, 500, 2000);
    // The SDK's Usage has more fields (service tier, server tools, …) that the ledger never reads.
    ledger.add(a as unknown as Anthropic.Usage, 'claude-opus-5-5');
    ledger.add(b as unknown as Anthropic.Usage, 'claude-sonnet-4-6');
    // Opus 5.5: 100 + 1.25 × 1000 + 0.05 × 4000 = 1550; Sonnet 4.6: 10 + 2 × 500 + 0.1 × 2000 = 1210.
    expect(ledger.cost()).toBe(2760);
    expect(ledger.cost()).toBe((weighUsage(a, 'claude-opus-5-5') + weighUsage(b, 'claude-sonnet-4-6')) / 1000);
    const parent = new Ledger();
    parent.absorb(ledger);
    expect(parent.cost()).toBe(2760);
  });
});
