// The mutation self-check inside `npm test`: every mutation in the catalogue
// (src/tooling/mutations.ts) must turn its chapter's scenarios red.
//
// It runs as `node steps/run.mjs --selfcheck --json --cached` in a child process: the same
// command a contributor runs, in a process of its own that works alongside the test
// workers instead of holding one of them for its whole run. --cached skips a mutation
// killed before by exactly the same inputs (its chapter's files as mutated, its chapter's
// scenarios, the code that runs and judges them: src/tooling/selfcheck.ts); the last tests
// here hold that cache to never keeping a survivor and to a new key for any changed input.

import { describe, it, expect, beforeAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MUTATIONS } from '../src/tooling/mutations.ts';
import { harnessDigest, mutantFiles, runSelfcheck, verdictKey, type MutationOutcome } from '../src/tooling/selfcheck.ts';
import { loadAgentSources } from '../src/tooling/generate.ts';
import { ROOT } from '../src/runner/scenarios.ts';

let outcomes = new Map<string, MutationOutcome>();
let failure = '';

beforeAll(async () => {
  const child = spawn(process.execPath, [path.join(ROOT, 'steps/run.mjs'), '--selfcheck', '--json', '--cached'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
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

describe('the kept verdicts (--cached)', () => {
  it('keeps a kill and reuses it; never keeps a survivor', async () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'selfcheck-cache-'));
    try {
      const real = MUTATIONS.find((m) => m.chapter === 1)!;
      // A mutation that changes nothing survives every scenario.
      const noop = { ...real, id: 'changes-nothing', replace: real.find };
      const run = async () => {
        let out = '';
        const code = await runSelfcheck(ROOT, (l) => { out += l; }, { json: true, cached: true, cacheDir, mutations: [real, noop] });
        return { code, outcomes: JSON.parse(out) as MutationOutcome[] };
      };
      const first = await run();
      expect(first.code).toBe(1);
      expect(first.outcomes.map((o) => [o.id, o.killed, o.cached ?? false])).toEqual([[real.id, true, false], [noop.id, false, false]]);
      expect(readdirSync(cacheDir)).toHaveLength(1);
      const second = await run();
      expect(second.outcomes.map((o) => [o.id, o.killed, o.cached ?? false])).toEqual([[real.id, true, true], [noop.id, false, false]]);
    } finally { rmSync(cacheDir, { recursive: true, force: true }); }
  });

  it('a changed mutant, harness or mutation is another key', async () => {
    const sources = await loadAgentSources(ROOT);
    const m = MUTATIONS.find((x) => x.chapter === 11)!;
    const files = mutantFiles(sources, m);
    const harness = harnessDigest(ROOT);
    const key = await verdictKey(ROOT, harness, m, files);
    expect(await verdictKey(ROOT, harness, m, new Map(files))).toBe(key);
    const [name, body] = [...files][0]!;
    expect(await verdictKey(ROOT, harness, m, new Map([...files, [name, `${body} `]]))).not.toBe(key);
    expect(await verdictKey(ROOT, `${harness}x`, m, files)).not.toBe(key);
    expect(await verdictKey(ROOT, harness, { ...m, caughtBy: undefined }, files)).not.toBe(key);
    // The harness is the code around the agent, not the agent (that is in the files).
    expect(harness).toBe(harnessDigest(ROOT));
  });
});
