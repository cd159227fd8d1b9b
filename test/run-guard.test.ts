// Chapter code that would end or stall the process it runs in: a scripted run turns each into
// a crash of that run, and the process goes on (src/runner/run-guard.ts). Made-up chapters,
// run in this process as --check runs a learner's folder; the uncaught-error case needs the
// command line's crash handlers, and is cleanup.test.ts's, in a process of its own.

import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { makeProjectScratch } from './temp-guard.ts';
import path from 'node:path';
import { runChapter } from '../src/runner/run-chapter.ts';
import { ROOT } from '../src/runner/scenarios.ts';
import type { Scenario } from '../src/mock/index.ts';
import { scratchFolder } from './scratch-folder.ts';

// Inside the project, as an exercise folder is: the loader finds esbuild from there.
const scratch = scratchFolder(() => makeProjectScratch(ROOT, 'run-guard-'));

/** A chapter folder whose runSession has this body. */
function chapter(name: string, body: string): string {
  const dir = path.join(scratch(), name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'main.ts'), `export const DEFAULT_MODEL = 'claude-sonnet-4-6';\nexport async function runSession(): Promise<void> {\n${body}\n}\n`);
  return dir;
}

const scenario: Scenario = { file: 'inline.json', title: 't', prompts: ['go'], tracks: { main: { turns: [{ text: 'done' }] } } };

describe('a scripted run stops, as a crash of its own, when the chapter code', () => {
  it('calls process.exit(0): the run fails (it would have ended the check with status 0, a pass)', async () => {
    const r = await runChapter({ codeDir: chapter('exits', '  process.exit(0);'), scenario, latencyScale: 0 });
    expect(r.ok).toBe(false);
    expect(r.crash).toBe('the code called process.exit(0): a run cannot end the process it runs in; return from runSession instead');
    expect(r.crashAt).toMatch(/exits\/main\.ts:3:\d+$/);
    expect(typeof process.exit).toBe('function');
    expect(process.exit.toString()).not.toContain('scripted run');   // put back once the run is over
  });

  it('never settles: stopped at the time limit', async () => {
    const started = performance.now();
    const r = await runChapter({ codeDir: chapter('stalls', '  await new Promise(() => {});'), scenario, latencyScale: 0, timeLimitMs: 300 });
    expect(r.ok).toBe(false);
    expect(r.crash).toBe('the run did not finish within 0.3 s (a promise that never settles?)');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('finishes in time: nothing changes', async () => {
    const r = await runChapter({ codeDir: chapter('fine', '  await new Promise((r) => setTimeout(r, 10));'), scenario, latencyScale: 0, timeLimitMs: 30_000 });
    expect(r.crash).toBeUndefined();
  });
});

it("a caller's mistake (no scenario) is named, and leaves no temp folder behind", async () => {
  // A TMPDIR of its own, outside the project (a run refuses one inside a repository).
  const tmp = mkdtempSync(path.join(tmpdir(), 'no-scenario-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  let error: unknown;
  try {
    await runChapter({ codeDir: chapter('no-scenario', ''), scenario: undefined as unknown as Scenario, latencyScale: 0 }).catch((err: unknown) => { error = err; });
  } finally {
    if (before === undefined) delete process.env.TMPDIR;   // assigning undefined would set "undefined"
    else process.env.TMPDIR = before;
  }
  const left = readdirSync(tmp);
  rmSync(tmp, { recursive: true });
  expect(left).toEqual([]);
  expect(String(error)).toBe('TypeError: runChapter: no scenario given (opts.scenario)');
});
