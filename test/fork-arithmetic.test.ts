// Chapter 12's cost arithmetic rests on two sizes the demo scenario was built to have:
// a 48,500-token prefix every fork child shares and a 200-token tail of its own. This
// test measures both by the mock's token rule on the requests the children really sent.

import { describe, it, expect } from 'vitest';
import { countTokens, flattenRequest, type RequestEvent } from '../src/mock/index.ts';
import { findChapter } from '../src/chapters.ts';
import { loadScenarioFile, scenarioFile, snapshotDir } from '../src/runner/scenarios.ts';
import { countedAsScripted } from '../src/runner/run-chapter.ts';
import { runOnce } from './chapter-runs.ts';

describe('chapter 12 demo: the sizes behind the cost table', () => {
  it('each child sends a 200-token tail after a 48,500-token shared prefix', async () => {
    const ch = findChapter(12)!;
    const scenario = await loadScenarioFile(scenarioFile(ch, 'demo'));
    const result = await runOnce({ codeDir: snapshotDir(ch), scenario, latencyScale: 0 });
    expect(result.ok, result.expectations.filter((e) => !e.ok).map((e) => e.detail).join('; ')).toBe(true);
    const kids = [1, 2, 3, 4, 5].map((i) => result.events.find((e): e is RequestEvent =>
      e.type === 'request' && e.track === `child-${i}` && e.path === '/v1/messages')!);
    for (const req of kids) {
      // Counted as the mock counted it: the run's temp folder, which is in the system prompt,
      // as if it lay in /tmp; so the prefix is exact wherever TMPDIR points.
      const blocks = flattenRequest(req.body, countedAsScripted(result.tempDir));
      const messages = req.body.messages as { content: { type: string; text?: string }[] }[];
      const own = messages.at(-1)!.content.at(-1)!;
      expect(own.type).toBe('text');
      expect(countTokens(own.text!)).toBe(200);
      expect(blocks.at(-1)!.tokens).toBe(200);
      const shared = blocks.slice(0, -1).reduce((n, b) => n + b.tokens, 0);
      // A new tool or a longer system prompt in an earlier chapter moves it: then change spec.md
      // in demo.json by 4 bytes per token (the padding is the spaces after "End of spec.").
      expect(shared, `spec.md must change by ${(48_500 - shared) * 4} bytes`).toBe(48_500);
    }
    // The write-ups' arithmetic, from those sizes.
    expect(5 * (48_500 + 200)).toBe(243_500);
    expect(4 * (48_500 / 10 + 200)).toBe(20_200);
  });
});

describe("chapter 12's fork cost table", () => {
  // A second call of a child reads its own first turn back from the cache: its summed cache
  // reads are no longer the shared prefix, and "own part = total - prefix" went negative.
  it('works out a shared prefix only for children of one call each, and never prints a negative count', async () => {
    const { forkCostReport } = await import('../steps/12-fork-subagents/fork.ts');
    const { Ledger } = await import('../steps/12-fork-subagents/ledger.ts');
    const child = (label: string, calls: { input: number; write: number; read: number }[]) => {
      const ledger = new Ledger();
      for (const c of calls) ledger.add({ input_tokens: c.input, output_tokens: 5, cache_creation_input_tokens: c.write, cache_read_input_tokens: c.read } as never, 'claude-sonnet-4-6');
      return { label, ledger };
    };
    const oneEach = forkCostReport([child('a', [{ input: 0, write: 1000, read: 0 }]), child('b', [{ input: 50, write: 0, read: 1000 }])]);
    expect(oneEach).toContain('shared prefix 1,000; own part per child 0, 50');
    const twice = forkCostReport([child('a', [{ input: 0, write: 1000, read: 0 }]), child('b', [{ input: 50, write: 0, read: 1000 }, { input: 20, write: 100, read: 1050 }])]);
    expect(twice).not.toMatch(/^shared prefix/m);
    expect(twice).toContain('no shared prefix is worked out');
    expect(twice).not.toMatch(/-\d/);
    expect(forkCostReport([child('only', [{ input: 10, write: 0, read: 0 }])])).toMatch(/^fork cost: 1 child,/);
  });
});
