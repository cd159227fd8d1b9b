// Chapter 12's cost arithmetic rests on two sizes the demo scenario was built to have:
// a 48,500-token prefix every fork child shares and a 200-token tail of its own. This
// test measures both by the mock's token rule on the requests the children really sent.

import { describe, it, expect } from 'vitest';
import { countTokens, flattenRequest, type RequestEvent } from '../src/mock/index.ts';
import { findChapter } from '../src/chapters.ts';
import { loadScenarioFile, scenarioFile, snapshotDir } from '../src/runner/scenarios.ts';
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
      const blocks = flattenRequest(req.body);
      const messages = req.body.messages as { content: { type: string; text?: string }[] }[];
      const own = messages.at(-1)!.content.at(-1)!;
      expect(own.type).toBe('text');
      expect(countTokens(own.text!)).toBe(200);
      expect(blocks.at(-1)!.tokens).toBe(200);
      const shared = blocks.slice(0, -1).reduce((n, b) => n + b.tokens, 0);
      // The workspace's path is in the system prompt; the mock counts the run's temp folder
      // as if it lay in /tmp, so the prefix is exact wherever TMPDIR points.
      // A new tool or a longer system prompt in an earlier chapter moves it: then change spec.md
      // in demo.json by 4 bytes per token (the padding is the spaces after "End of spec.").
      expect(shared, `spec.md must change by ${(48_500 - shared) * 4} bytes`).toBe(48_500);
    }
    // The write-ups' arithmetic, from those sizes.
    expect(5 * (48_500 + 200)).toBe(243_500);
    expect(4 * (48_500 / 10 + 200)).toBe(20_200);
  });
});
