// The mutation self-check inside `npm test`: every mutation in the catalogue
// (src/tooling/mutations.ts) must turn its chapter's scenarios red.

import { describe, it, expect } from 'vitest';
import { MUTATIONS } from '../src/tooling/mutations.ts';
import { runMutation } from '../src/tooling/selfcheck.ts';
import { ROOT } from '../src/runner/scenarios.ts';

describe('mutation self-check', () => {
  for (const m of MUTATIONS) {
    it(`catches ${m.id} (${m.breaks})`, async () => {
      const outcome = await runMutation(ROOT, m);
      expect(outcome.killed, outcome.detail).toBe(true);
    });
  }
});
