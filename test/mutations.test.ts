// The mutation self-check inside `npm test`: every mutation in the catalogue
// (src/tooling/mutations.ts) must turn its chapter's scenarios red.
//
// It runs as `node steps/run.mjs --selfcheck --json` in a child process: the same
// command a contributor runs, in a process of its own that works alongside the test
// workers instead of holding one of them for its whole run.

import { describe, it, expect, beforeAll } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { MUTATIONS } from '../src/tooling/mutations.ts';
import type { MutationOutcome } from '../src/tooling/selfcheck.ts';
import { ROOT } from '../src/runner/scenarios.ts';

let outcomes = new Map<string, MutationOutcome>();
let failure = '';

beforeAll(async () => {
  const child = spawn(process.execPath, [path.join(ROOT, 'steps/run.mjs'), '--selfcheck', '--json'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += String(d); });
  child.stderr.on('data', (d) => { err += String(d); });
  await new Promise((resolve) => child.on('close', resolve));
  try {
    outcomes = new Map((JSON.parse(out) as MutationOutcome[]).map((o) => [o.id, o]));
  } catch {
    failure = `the self-check did not print its JSON report:\n${out.slice(0, 2000)}\n${err.slice(0, 2000)}`;
  }
}, 300_000);

describe('mutation self-check', () => {
  for (const m of MUTATIONS) {
    it(`catches ${m.id} (${m.breaks})`, () => {
      expect(failure).toBe('');
      const outcome = outcomes.get(m.id);
      expect(outcome, `no outcome for ${m.id}`).toBeDefined();
      expect(outcome!.killed, outcome!.detail).toBe(true);
    });
  }
});
