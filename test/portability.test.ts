// A scripted run must count the same tokens on every machine: the docs' transcripts and
// chapter 12's exact figures are checked byte for byte. The platform line of the system
// prompt differs between a Linux and a Mac checkout (the runner pins it), and so does the
// workspace path, which is wherever TMPDIR points (the mock counts it as if in /tmp).

import { it, expect, afterEach } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findChapter } from '../src/chapters.ts';
import { ROOT, snapshotDir, loadScenarioFile } from '../src/runner/scenarios.ts';
import { runChapter, SCRIPTED_PLATFORM } from '../src/runner/run-chapter.ts';

const realPlatform = Object.getOwnPropertyDescriptor(process, 'platform')!;
afterEach(() => { Object.defineProperty(process, 'platform', realPlatform); });

async function inputTokensOnFirstRequest(): Promise<{ system: string; input: number; total: number }> {
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/03-system-prompt/demo.json'));
  const result = await runChapter({ codeDir: snapshotDir(findChapter(3)!), scenario, latencyScale: 0 });
  expect(result.ok, result.crash ?? result.failures.join('; ')).toBe(true);
  const request = result.events.find((e) => e.type === 'request' && e.path === '/v1/messages');
  const response = result.events.find((e) => e.type === 'response');
  if (request?.type !== 'request' || response?.type !== 'response') throw new Error('the run sent no message request');
  const total = result.events.reduce((n, e) => n + (e.type === 'response' ? e.usage.input_tokens + e.usage.output_tokens : 0), 0);
  return { system: JSON.stringify(request.body.system), input: response.usage.input_tokens, total };
}

it('a scripted run reports the pinned platform, and counts the same tokens, on a Mac as on Linux', async () => {
  Object.defineProperty(process, 'platform', { ...realPlatform, value: 'linux' });
  const onLinux = await inputTokensOnFirstRequest();
  Object.defineProperty(process, 'platform', { ...realPlatform, value: 'darwin' });
  const onMac = await inputTokensOnFirstRequest();
  expect(onMac.system).toContain(`Platform: ${SCRIPTED_PLATFORM}`);
  expect(onMac.system).not.toContain('darwin');
  expect(onMac.input).toBe(onLinux.input);
});

it('the workspace of a run is made under TMPDIR, and the run counts the same tokens as under /tmp', async () => {
  const before = process.env.TMPDIR;
  // Longer than /tmp by far: unnormalised, the system prompt would count several tokens more.
  const long = mkdtempSync(path.join(tmpdir(), 'portability-a-much-longer-temp-folder-name-'));
  try {
    const inTmp = await inputTokensOnFirstRequest();
    process.env.TMPDIR = long;
    const inLong = await inputTokensOnFirstRequest();
    expect(inLong.system).toContain(`Working directory: ${long}${path.sep}subagents-run-`);   // the agent is told the truth
    expect(inTmp.system).not.toContain(long);
    expect(inLong.input).toBe(inTmp.input);
    expect(inLong.total).toBe(inTmp.total);
    expect(readdirSync(long)).toEqual([]);   // and removed it afterwards
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(long, { recursive: true, force: true });
  }
});
