// A scripted run must count the same tokens on every machine: the docs' transcripts and
// chapter 12's exact figures are checked byte for byte. The platform line of the system
// prompt is the part that differs between a Linux and a Mac checkout; the runner pins it.

import { it, expect, afterEach } from 'vitest';
import path from 'node:path';
import { findChapter } from '../src/chapters.ts';
import { ROOT, snapshotDir, loadScenarioFile } from '../src/runner/scenarios.ts';
import { runChapter, SCRIPTED_PLATFORM } from '../src/runner/run-chapter.ts';

const realPlatform = Object.getOwnPropertyDescriptor(process, 'platform')!;
afterEach(() => { Object.defineProperty(process, 'platform', realPlatform); });

async function inputTokensOnFirstRequest(): Promise<{ system: string; input: number }> {
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/03-system-prompt/demo.json'));
  const result = await runChapter({ codeDir: snapshotDir(findChapter(3)!), scenario, latencyScale: 0 });
  expect(result.ok, result.crash ?? result.failures.join('; ')).toBe(true);
  const request = result.events.find((e) => e.type === 'request' && e.path === '/v1/messages');
  const response = result.events.find((e) => e.type === 'response');
  if (request?.type !== 'request' || response?.type !== 'response') throw new Error('the run sent no message request');
  return { system: JSON.stringify(request.body.system), input: response.usage.input_tokens };
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
