// Chapter 4's bin.ts, the real terminal's entry, run in this process as a shell would run it:
// its argv, a pipe for stdin, the environment, stdout. The runner never loads it; the model
// is the mock, over HTTP, as ANTHROPIC_BASE_URL points it there.
//
// What only bin.ts decides: a pipe carries the prompt (`echo "…" | bin.ts -p`), a pipe that
// stays silent does not keep it waiting, a session that failed makes the exit status 1, so
// that a script can tell, and a line about something wrong goes to stderr: `-p`'s stdout is
// the answer alone.

import { it, expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { refusedPort } from './cli-helpers.ts';
import { parseScenario, startMock, type Scenario } from '../src/mock/index.ts';

/** bin.ts run once in this process: its argv, `stdin` as its standard input, the mock as the API.
 *  A module runs once per process, so each run imports it under a name of its own (`run`). */
async function runBin(args: string[], stdin: Readable, scenario: Scenario, run: () => Promise<unknown>, env: Record<string, string> = {}): Promise<{ out: string; err: string; exitCode: number | string | undefined; sent: string[] }> {
  const mock = await startMock({ scenario, latencyScale: 0 });
  const work = mkdtempSync(path.join(tmpdir(), 'bin-test-'));
  const saved = {
    argv: process.argv, cwd: process.cwd(), exitCode: process.exitCode,
    stdin: Object.getOwnPropertyDescriptor(process, 'stdin')!, write: process.stdout.write, writeErr: process.stderr.write,
    env: { ...process.env },
  };
  let out = '';
  let err = '';
  try {
    process.argv = [process.execPath, 'bin.ts', ...args];
    Object.defineProperty(process, 'stdin', { value: stdin, configurable: true });
    Object.assign(process.env, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url }, env);
    process.chdir(work);
    process.stdout.write = ((chunk: string | Uint8Array) => { out += String(chunk); return true; }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => { err += String(chunk); return true; }) as typeof process.stderr.write;
    await run();
    const sent = mock.events.filter((e) => e.type === 'request').map((e) => JSON.stringify((e as { body: unknown }).body));
    return { out, err, exitCode: process.exitCode, sent };
  } finally {
    process.stdout.write = saved.write;
    process.stderr.write = saved.writeErr;
    process.argv = saved.argv;
    Object.defineProperty(process, 'stdin', saved.stdin);
    process.chdir(saved.cwd);
    process.exitCode = saved.exitCode;
    for (const name of Object.keys(process.env)) if (!(name in saved.env)) delete process.env[name];
    Object.assign(process.env, saved.env);
    await mock.close();
    rmSync(work, { recursive: true, force: true });
  }
}

// The file under a name of its own for each run: vite loads a path with a query afresh.
// @ts-expect-error: TypeScript has no declarations for a path with a query
const binFailing = () => import('../steps/04-cli-sessions/bin.ts?failing');
// @ts-expect-error: the same, for the second run
const binSilentPipe = () => import('../steps/04-cli-sessions/bin.ts?silent-pipe');
// @ts-expect-error: chapter 7's, which reads AGENT_COMPACT_AT
const binWarning = () => import('../steps/07-context/bin.ts?warning');

const scenarioOf = (turn: Record<string, unknown>) => parseScenario(JSON.stringify({ title: 'bin.ts', prompts: ['unused'], tracks: { main: { turns: [turn] } } }), 'bin.json');

it('a pipe carries the prompt to the model, and a prompt that failed makes the exit status 1', async () => {
  const r = await runBin(['-p'], Readable.from(['What is 6 times 7?\n']), scenarioOf({ error: { status: 400 } }), binFailing);
  expect(r.sent.some((body) => body.includes('What is 6 times 7?')), r.sent.join('\n')).toBe(true);
  expect(r.err).toMatch(/^✖ API error 400/m);
  expect(r.out).toBe('');
  expect(r.exitCode).toBe(1);
});

it('a prompt answered exits 0; a pipe that stays open and silent does not keep it waiting', async () => {
  const answered = await runBin(['-p', 'Say hi.'], new Readable({ read() {} }), scenarioOf({ text: 'Hi.' }), binSilentPipe);
  expect(answered.sent.some((body) => body.includes('Say hi.'))).toBe(true);
  expect(answered.out).toBe('Hi.\n');
  expect(answered.exitCode).toBe(0);
});

it("-p: the answer alone on stdout, a warning about a bad setting on stderr, and still exit 0", async () => {
  const r = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), binWarning, { AGENT_COMPACT_AT: 'lots' });
  expect(r.out).toBe('Hi.\n');
  expect(r.err).toBe('✖ AGENT_COMPACT_AT="lots" is not a whole number ≥ 1; using the default, 160000\n');
  expect(r.exitCode).toBe(0);
});

// @ts-expect-error: the same, for the runs below
const binNoPrompt = () => import('../steps/04-cli-sessions/bin.ts?no-prompt');
// @ts-expect-error: the same
const binTwice = () => import('../steps/04-cli-sessions/bin.ts?twice');
// @ts-expect-error: the same
const binRefused = () => import('../steps/04-cli-sessions/bin.ts?refused');

it('-p with no prompt (no words, an empty pipe) says so on stderr and exits 1, asking the model nothing', async () => {
  const r = await runBin(['-p'], Readable.from([]), scenarioOf({ text: 'Hi.' }), binNoPrompt);
  expect(r.err).toBe('✖ -p needs a prompt: words after the flags, or text on stdin\n');
  expect(r.out).toBe('');
  expect(r.sent).toEqual([]);
  expect(r.exitCode).toBe(1);
});

it('a flag given twice is refused in one line, exit 1, instead of reaching the API as a list', async () => {
  const r = await runBin(['--model', 'a', '--model', 'b', '-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), binTwice);
  expect(r.err).toBe('✖ --model given twice\n');
  expect(r.sent).toEqual([]);
  expect(r.exitCode).toBe(1);
});

it("an API nobody listens at: the line says what the network said, not only the SDK's 'Connection error.'", async () => {
  const closed = await refusedPort();
  const r = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), binRefused, { ANTHROPIC_BASE_URL: `http://127.0.0.1:${closed}` });
  expect(r.err).toBe(`✖ Connection error. (connect ECONNREFUSED 127.0.0.1:${closed})\n`);
  expect(r.exitCode).toBe(1);
});
