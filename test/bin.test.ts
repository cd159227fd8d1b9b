// Chapter 4's bin.ts, the real terminal's entry, run in this process as a shell would run it:
// its argv, a pipe for stdin, the environment, stdout. The runner never loads it; the model
// is the mock, over HTTP, as ANTHROPIC_BASE_URL points it there.
//
// What only bin.ts decides: a pipe carries the prompt (`echo "…" | bin.ts -p`), and a failure
// the agent reported makes the exit status 1, so that a script can tell.

import { it, expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseScenario, startMock } from '../src/mock/index.ts';

it('a pipe carries the prompt to the model, and a prompt that failed makes the exit status 1', async () => {
  const scenario = parseScenario(JSON.stringify({
    title: 'bin.ts through a pipe', prompts: ['unused'],
    tracks: { main: { turns: [{ error: { status: 400 } }] } },
  }), 'bin.json');
  const mock = await startMock({ scenario, latencyScale: 0 });
  const work = mkdtempSync(path.join(tmpdir(), 'bin-test-'));
  const saved = {
    argv: process.argv, cwd: process.cwd(), exitCode: process.exitCode,
    stdin: Object.getOwnPropertyDescriptor(process, 'stdin')!, write: process.stdout.write,
    key: process.env.ANTHROPIC_API_KEY, url: process.env.ANTHROPIC_BASE_URL,
  };
  let out = '';
  try {
    process.argv = [process.execPath, 'bin.ts', '-p'];
    Object.defineProperty(process, 'stdin', { value: Readable.from(['What is 6 times 7?\n']), configurable: true });
    process.env.ANTHROPIC_API_KEY = 'test-key';
    process.env.ANTHROPIC_BASE_URL = mock.url;
    process.chdir(work);
    process.stdout.write = ((chunk: string | Uint8Array) => { out += String(chunk); return true; }) as typeof process.stdout.write;
    await import('../steps/04-cli-sessions/bin.ts');
    const exitCode = process.exitCode;
    process.stdout.write = saved.write;
    const sent = mock.events.filter((e) => e.type === 'request').map((e) => JSON.stringify((e as { body: unknown }).body));
    expect(sent.some((body) => body.includes('What is 6 times 7?')), sent.join('\n')).toBe(true);
    expect(out).toMatch(/^✖ API error 400/m);
    expect(exitCode).toBe(1);
  } finally {
    process.stdout.write = saved.write;
    process.argv = saved.argv;
    Object.defineProperty(process, 'stdin', saved.stdin);
    process.chdir(saved.cwd);
    process.exitCode = saved.exitCode;
    for (const [name, value] of [['ANTHROPIC_API_KEY', saved.key], ['ANTHROPIC_BASE_URL', saved.url]] as const) {
      if (value === undefined) delete process.env[name]; else process.env[name] = value;
    }
    await mock.close();
    rmSync(work, { recursive: true, force: true });
  }
});
