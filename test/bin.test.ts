// Chapter 4's bin.ts, the real terminal's entry, run in this process as a shell would run it:
// its argv, a pipe for stdin, the environment, stdout. The runner never loads it; the model
// is the mock, over HTTP, as ANTHROPIC_BASE_URL points it there.
//
// What only bin.ts decides: a pipe carries the prompt (`echo "…" | bin.ts -p`), a pipe that
// stays silent does not keep it waiting, a session that failed makes the exit status 1, so
// that a script can tell, and a line about something wrong goes to stderr: `-p`'s stdout is
// the answer alone.
//
// The tests after those run it in a process of its own, under a terminal, side by side: the
// permission question, which bin.ts asks only there, and Ctrl-C.

import { it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { build, version as esbuildVersion } from 'esbuild';
import { inTerminal, noTerminal, refusedPort, screenOf } from './cli-helpers.ts';
import { parseScenario, startMock, type Scenario } from '../src/mock/index.ts';
import { ROOT, loadScenarioFile } from '../src/runner/scenarios.ts';

/** Variables for the run; undefined unsets one. */
type Env = Record<string, string | undefined>;

class Exited extends Error {
  readonly code: number;
  constructor(code: number) { super(`process.exit(${code})`); this.code = code; }
}

/** bin.ts run once in this process: its argv, `stdin` as its standard input, the mock as the API.
 *  A module runs once per process, so each run imports it under a name of its own (`run`). */
async function runBin(args: string[], stdin: Readable, scenario: Scenario, run: () => Promise<unknown>, env: Env | ((mockUrl: string) => Env) = {}): Promise<{ out: string; err: string; exitCode: number | string | undefined; sent: string[] }> {
  const mock = await startMock({ scenario, latencyScale: 0 });
  const work = mkdtempSync(path.join(tmpdir(), 'bin-test-'));
  const saved = {
    argv: process.argv, cwd: process.cwd(), exitCode: process.exitCode,
    stdin: Object.getOwnPropertyDescriptor(process, 'stdin')!, write: process.stdout.write, writeErr: process.stderr.write, exit: process.exit,
    env: { ...process.env },
  };
  // What bin.ts listens to as a program (a closed stdout, Ctrl-C, SIGTERM): each run's own, taken
  // off again after it, or they pile up in this worker (Node warns past ten) and a later run's
  // signal would reach an earlier one's handlers.
  const listened: [EventEmitter, string][] = [[process.stdout, 'error'], [process, 'SIGINT'], [process, 'SIGTERM']];
  const before = listened.map(([emitter, event]) => emitter.listeners(event));
  let out = '';
  let err = '';
  try {
    process.argv = [process.execPath, 'bin.ts', ...args];
    Object.defineProperty(process, 'stdin', { value: stdin, configurable: true });
    for (const [name, value] of Object.entries({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url, ...(typeof env === 'function' ? env(mock.url) : env) })) {
      if (value === undefined) delete process.env[name]; else process.env[name] = value;
    }
    process.chdir(work);
    process.stdout.write = ((chunk: string | Uint8Array) => { out += String(chunk); return true; }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => { err += String(chunk); return true; }) as typeof process.stderr.write;
    // process.exit, which bin.ts calls where it refuses to start, ends the import instead of this process.
    process.exit = ((code?: number) => { throw new Exited(code ?? 0); }) as typeof process.exit;
    await run().catch((e: unknown) => { if (e instanceof Exited) process.exitCode = e.code; else throw e; });
    const sent = mock.events.filter((e) => e.type === 'request').map((e) => JSON.stringify((e as { body: unknown }).body));
    return { out, err, exitCode: process.exitCode, sent };
  } finally {
    listened.forEach(([emitter, event], i) => {
      for (const listener of emitter.listeners(event)) if (!before[i]!.includes(listener)) emitter.off(event, listener as (...args: unknown[]) => void);
    });
    process.exit = saved.exit;
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
// @ts-expect-error: the same, for the unknown output style
const binBadStyle = () => import('../steps/04-cli-sessions/bin.ts?bad-style');
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

it('an OUTPUT_STYLE variable nobody knows is refused in one line, exit 1, before any request (no stack trace)', async () => {
  const r = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), binBadStyle, { OUTPUT_STYLE: 'bogus' });
  expect(r.err).toBe('✖ unknown output style "bogus" (known: explanatory, learning, concise)\n');
  expect(r.out).toBe('');
  expect(r.sent).toEqual([]);
  expect(r.exitCode).toBe(1);
});

// @ts-expect-error: the same
const binNoMock = () => import('../steps/04-cli-sessions/bin.ts?no-mock');
// @ts-expect-error: chapter 5's, the last without a gate
const binNoMock5 = () => import('../steps/05-streaming/bin.ts?no-mock');
// @ts-expect-error: chapter 6's, the first with one
const binGated = () => import('../steps/06-permissions/bin.ts?gated');

it("before chapter 6's gate, bin.ts talks to a loopback address only (the mock): elsewhere, one line, exit 1, nothing sent", async () => {
  for (const [run, url] of [[binNoMock, undefined], [binNoMock5, 'https://api.example.invalid']] as const) {
    // The mock is running; only the address differs: unset (the real API), or another host.
    const r = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), run, { ANTHROPIC_BASE_URL: url });
    expect(r.err).toMatch(/^This chapter's agent has no permission gate yet \(chapter 6 adds it\): .* run chapter 6's bin\.ts or a later one; .*\n$/);
    expect(r.err.split('\n')).toHaveLength(2);
    expect(r.out).toBe('');
    expect(r.exitCode).toBe(1);
  }
  // Chapter 6's goes on at an address that is no loopback name (0.0.0.0 reaches this machine's mock all the same).
  const gated = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), binGated, (mockUrl) => ({ ANTHROPIC_BASE_URL: mockUrl.replace('127.0.0.1', '0.0.0.0') }));
  expect(gated.err).toBe('');
  expect(gated.out).toBe('Hi.\n');
  expect(gated.sent.some((body) => body.includes('Say hi.'))).toBe(true);
});

it("an API nobody listens at: the line says what the network said, not only the SDK's 'Connection error.'", async () => {
  const closed = await refusedPort();
  const r = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), binRefused, { ANTHROPIC_BASE_URL: `http://127.0.0.1:${closed}` });
  expect(r.err).toBe(`✖ Connection error. (connect ECONNREFUSED 127.0.0.1:${closed})\n`);
  expect(r.exitCode).toBe(1);
});

// The SDK said only "Invalid URL", at the first request. Chapter 4 (before its loopback rule,
// which would blame the missing gate) and chapter 6 (after it) alike.
// @ts-expect-error: the same
const binBadUrl4 = () => import('../steps/04-cli-sessions/bin.ts?bad-url');
// @ts-expect-error: the same
const binBadUrl6 = () => import('../steps/06-permissions/bin.ts?bad-url');
it('an ANTHROPIC_BASE_URL that is no http(s) address: one line naming it, exit 1, nothing sent', async () => {
  // (A port past 65535 looks like an address, but is none.)
  for (const [bin, url] of [[binBadUrl4, 'notaurl'], [binBadUrl6, 'http://127.0.0.1:99999']] as const) {
    const r = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), bin, { ANTHROPIC_BASE_URL: url });
    expect(r.err).toBe(`ANTHROPIC_BASE_URL=${url}: not an http:// or https:// address\n`);
    expect(r.exitCode).toBe(1);
    expect(r.sent).toEqual([]);
  }
});

// @ts-expect-error: the same
const binNoKey4 = () => import('../steps/04-cli-sessions/bin.ts?no-key');
// @ts-expect-error: the same
const binNoKeyMock6 = () => import('../steps/06-permissions/bin.ts?no-key-mock');
// @ts-expect-error: the same
const binNoKeyReal6 = () => import('../steps/06-permissions/bin.ts?no-key-real');
it('no ANTHROPIC_API_KEY: one line, exit 1, nothing sent; beside a mock address it says that any value will do', async () => {
  for (const bin of [binNoKey4, binNoKeyMock6]) {
    const r = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), bin, (mockUrl) => ({ ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: mockUrl }));
    expect(r.err).toMatch(/^Set ANTHROPIC_API_KEY: any value will do for the mock at http:\/\/127\.0\.0\.1:\d+ \(e\.g\. ANTHROPIC_API_KEY=mock\); the real API needs your key\.\n$/);
    expect(r.exitCode).toBe(1);
    expect(r.sent).toEqual([]);
  }
  const real = await runBin(['-p', 'Say hi.'], Readable.from([]), scenarioOf({ text: 'Hi.' }), binNoKeyReal6, { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined });
  expect(real.err).toBe('Set ANTHROPIC_API_KEY to talk to the real API (or run a chapter against the mock: node steps/run.mjs N).\n');
  expect(real.exitCode).toBe(1);
});

// From chapter 6, bin.ts asks the person at the terminal before a call that needs a yes, and
// the question quotes the model's input. It asks only when stdin is a terminal, which no run
// above has, so this one runs it in a process of its own under a pseudo-terminal made by
// util-linux script(1): the bytes it writes are what a terminal would be sent. A command with
// an ESC sequence after a `#` (erase the line, back to its start) and a right-to-left override
// must be shown as escapes, or it could redraw the line the person is approving.

const withoutTerminal = noTerminal();

/**
 * A test under a terminal, run side by side with the others of its kind: each has its own
 * terminal, mock and folder, and most of their time is spent waiting on the model's scripted
 * latency, so one after another they held a worker for twice as long. Without script(1), skipped, its name saying why.
 */
function atTerminal(name: string, test: () => Promise<void>): void {
  if (withoutTerminal === undefined) it.concurrent(name, test);
  else it.skip(`${name} (skipped: ${withoutTerminal})`, test);
}

/** `text` as one word for sh. */
const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * `line` run by sh in a terminal (script(1)), in `cwd`; `typed` goes to the terminal once a
 * permission question is on it. What the terminal showed, and the exit status.
 */
function typedAtQuestion(line: string, cwd: string, env: NodeJS.ProcessEnv, typed: string): Promise<{ out: string; code: number | null }> {
  // Typed once the question is there: readline drops a line typed before anything asks for
  // one, and the session would wait for an answer that never comes.
  return inTerminal(line, { cwd, env, label: 'a command', react: (out, keys) => { if (out.includes('[y/N]')) keys.end(typed); } });
}

/**
 * A chapter's bin.ts as one ES module, its packages inside it: plain node starts it in about
 * two fifths of the CPU time it takes with the packages left to node_modules (0.10 s instead
 * of 0.25 s here, most of it the ES module loader walking the SDK's files), and in about a
 * third of what the tsx loader takes. Built once for the chapter's files as they are, and kept
 * in node_modules/.cache beside the runner's bundles (the key: every file of the chapter's
 * folder, the lock file and esbuild's version), so a run builds only what changed.
 */
async function binBundle(chapterDir: string): Promise<string> {
  const folder = path.join(ROOT, 'steps', chapterDir);
  const key = createHash('sha256').update(`${esbuildVersion}\0`).update(readFileSync(path.join(ROOT, 'package-lock.json'))).update('\0');
  for (const name of readdirSync(folder).sort()) key.update(`${name}\0`).update(readFileSync(path.join(folder, name))).update('\0');
  const cache = path.join(ROOT, 'node_modules', '.cache', 'subagents-bin');
  const bundle = path.join(cache, `${chapterDir}-${key.digest('hex').slice(0, 16)}.mjs`);
  if (existsSync(bundle)) return bundle;
  mkdirSync(cache, { recursive: true });
  // Written under a name of its own, then renamed: two tests of one chapter may build it at
  // once, and neither may start a half-written file.
  const partial = `${bundle}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  await build({
    entryPoints: [path.join(folder, 'bin.ts')], outfile: partial, bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent',
    // The packages written as CommonJS call require(), which an ES module does not have.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  renameSync(partial, bundle);
  // The chapter's older builds go: the cache holds one per chapter, as its files are now.
  for (const name of readdirSync(cache)) {
    if (name.startsWith(`${chapterDir}-`) && name.endsWith('.mjs') && path.join(cache, name) !== bundle) rmSync(path.join(cache, name), { force: true });
  }
  return bundle;
}

/** The chapter's bin.ts bundle (above), given to `use` with a workspace that has a home folder, removed afterwards. */
async function withBinBundle<T>(chapterDir: string, use: (bundle: string, work: string) => Promise<T>): Promise<T> {
  const work = mkdtempSync(path.join(tmpdir(), 'bin-tty-test-'));
  try {
    mkdirSync(path.join(work, 'home'));
    return await use(await binBundle(chapterDir), work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A chapter's bin.ts in a terminal, against the mock answering `scenario`, started with
 * `prompt` (not -p: an interactive session); `react` types what the person would. What the
 * terminal showed (`plain`: without its colour and cursor codes), the exit status, the
 * requests each track got, and what the workspace holds after it.
 */
type Keyboard = Parameters<Parameters<typeof inTerminal>[1]['react']>[1];

/**
 * Call `then` once the mock has answered `track` (the scenario's first answer to a sub-agent,
 * which asks its question right after) and `ms` more have passed: a scenario's "after_asked",
 * for a test that types the answers itself. Polled, since nothing new reaches the terminal
 * then (the sub-agent's question queues behind the one on screen). Given up after 30 s.
 */
function whenAnswered(answered: (track: string) => number, track: string, ms: number, then: () => void): void {
  const started = Date.now();
  const poll = setInterval(() => {
    if (answered(track) > 0) { clearInterval(poll); setTimeout(then, ms); } else if (Date.now() - started > 30_000) clearInterval(poll);
  }, 20);
}

async function binInTerminal(chapterDir: string, scenario: Scenario, prompt: string, label: string, react: (out: string, keys: Keyboard, answered: (track: string) => number) => void, o: { latencyScale?: number } = {}) {
  const mock = await startMock({ latencyScale: o.latencyScale ?? 0, scenario });
  // How many answers the mock has sent a track so far: what the agent is about to do next.
  const answered = (track: string) => mock.events.filter((e) => e.type === 'response' && e.track === track).length;
  try {
    return await withBinBundle(chapterDir, async (bundle, work) => {
      const { out, code } = await inTerminal([process.execPath, bundle, prompt].map(quoted).join(' '), {
        cwd: work, env: { HOME: path.join(work, 'home'), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url }, label,
        react: (out, keys) => react(out, keys, answered),
      });
      const requests = (track: string) => mock.events.filter((e) => e.type === 'request' && e.track === track) as unknown as { body: { messages: unknown[] } }[];
      return { out, plain: out.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''), code, requests, left: readdirSync(work) };
    });
  } finally {
    await mock.close();
  }
}

/**
 * Chapter 6's bin.ts in a terminal, in a session whose first prompt is "Run it." (not -p:
 * print mode asks nobody), against a model that asks to run each of `commands`, in one
 * turn: what the terminal showed, the first question as shown, what the model was last
 * sent, and the exit status. The input ends after what is typed at the first question,
 * and the session with it.
 */
async function askedInTerminal(commands: string[], typed: string) {
  return askedInTerminalBy('06-permissions', { main: { turns: [
    { tool_calls: commands.map((command) => ({ name: 'run_shell', input: { command } })) },
    { text: 'Not run.' },
  ] } }, typed);
}

/** The same, for a chapter's bin.ts and a model of several tracks (a sub-agent's questions). */
async function askedInTerminalBy(chapterDir: string, tracks: Record<string, unknown>, typed: string) {
  const mock = await startMock({ latencyScale: 0, scenario: parseScenario(JSON.stringify({ title: 'bin.ts in a terminal', prompts: ['unused'], tracks }), 'bin.json') });
  try {
    return await withBinBundle(chapterDir, async (bundle, work) => {
      const line = [process.execPath, bundle, 'Run it.'].map(quoted).join(' ');
      const { out, code } = await typedAtQuestion(line, work, { HOME: path.join(work, 'home'), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url }, typed);
      const sent = mock.events.filter((e) => e.type === 'request').map((e) => JSON.stringify((e as { body: unknown }).body));
      return { out, question: /Allow (.*?)\? \[y\/N\]/s.exec(out)?.[1], lastSent: sent.at(-1), code };
    });
  } finally {
    await mock.close();
  }
}

atTerminal(`the permission question shows control characters, bidi overrides and invisible characters in the model's input as escapes`, async () => {
  // A zero-width space hides in a path; a Unicode tag letter (U+E0041, past \uffff) hides a whole word.
  const { out, question, lastSent, code } = await askedInTerminal(['echo hi # \u001b[2K\u001b[1Gharmless \u202eevil > no\u200bte \u{E0041}'], 'n\r');
  expect(question, JSON.stringify(out)).toBeDefined();
  expect(question, `raw bytes in the question: ${JSON.stringify(question)}`).not.toMatch(/[\u001b\u202e\u200b\u{E0041}]/u);
  expect(question).toBe('run: echo hi # \\u001b[2K\\u001b[1Gharmless \\u202eevil > no\\u200bte \\u{e0041}');
  // The "n" typed at the terminal was read: the model was told the user said no.
  expect(lastSent, JSON.stringify(out)).toContain('the user denied this call');
  expect(code, JSON.stringify(out)).toBe(0);
});

atTerminal(`chapter 11: a sub-agent's question names the sub-agent that asks, its type and task, escaped as the rest`, async () => {
  const { out, code } = await askedInTerminalBy('11-subagents', {
    main: { turns: [
      { tool_calls: [{ name: 'agent', input: { description: 'Tidy \u001b[2Kup', prompt: 'Tidy the workspace.', subagent_type: 'general' } }] },
      { text: 'Not tidied.' },
    ] },
    tidier: { match: { first_user: 'Tidy the workspace.' }, turns: [
      { tool_calls: [{ name: 'run_shell', input: { command: 'rm -r build' } }] },
      { text: 'Not allowed.' },
    ] },
  }, 'n\r');
  const shown = out.replace(/\u001b\[[0-9;]*m/g, '');   // chalk's colours only: an escape the model wrote must not be there raw
  expect(shown, JSON.stringify(out)).toContain('general sub-agent "Tidy \\u001b[2Kup" asks: Allow run: rm -r build? [y/N]');
  expect(code, JSON.stringify(out)).toBe(0);
});

atTerminal(`a question the input ends on (Ctrl-D) is refused as one nobody can answer, and the terminal says so`, async () => {
  const { out, lastSent, code } = await askedInTerminal(['npm test', 'npm run lint'], '\u0004');
  expect(out).toContain('(no answer: the input is closed)');
  // The next question, asked once the input had ended, is shown all the same, with its answer.
  expect(out.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')).toContain('Allow run: npm run lint? [y/N] (no answer: the input is closed)');
  // The model is told the truth: nobody said no; nobody can answer any more.
  expect(lastSent, JSON.stringify(out)).toContain("run_shell needs the user's permission and nobody can be asked here");
  expect(lastSent).not.toContain('the user denied this call');
  expect(code, JSON.stringify(out)).toBe(0);
});

atTerminal(`--live at a terminal: Ctrl-D at a question ends the waiting; every call that needs a yes is refused as nobody can answer`, async () => {
  const mock = await startMock({ latencyScale: 0, scenario: await loadScenarioFile(path.join(ROOT, 'scenarios/06-permissions/demo.json')) });
  try {
    const line = [process.execPath, path.join(ROOT, 'steps/run.mjs'), '6', '--live'].map(quoted).join(' ');
    const { out, code } = await typedAtQuestion(line, ROOT, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url }, '\u0004');
    expect(code, JSON.stringify(out)).toBe(0);
    expect(out).toContain('(no answer: the input is closed)');
    // The next question, asked once the input had ended, is shown all the same, with its answer.
    expect(out.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')).toContain('Allow run: rm -rf build? [y/N] (no answer: the input is closed)');
    const sent = mock.events.filter((e) => e.type === 'request').map((e) => JSON.stringify((e as { body: unknown }).body)).join('');
    expect(sent).toContain("write_file needs the user's permission and nobody can be asked here");
    expect(sent).not.toContain('the user denied this call');
  } finally {
    await mock.close();
  }
});

// Ctrl-C while the model is still answering. While readline holds the terminal, the key
// reaches it, not the process, as a signal would; left to readline, it only ends the input.

/** A model that takes its time over one answer (the mock's real clock). */
const slowScenario = { title: 'a slow answer', prompts: ['Take your time.'], tracks: { main: { turns: [{ latency_ms: 1500, text: 'A slow answer.' }] } } };

/**
 * `line` run by sh in a terminal (script(1)) with `env`; Ctrl-C typed `presses` times: first
 * once the mock holds the prompt's request, then each time `again` is on the terminal. The
 * prompt itself is typed first at a `you ▸ ` prompt, when there is one.
 */
async function ctrlCWhileAnswering(line: string, cwd: string, env: NodeJS.ProcessEnv, mock: { events: { type: string }[] }, presses: number, again: string): Promise<{ out: string; code: number | null }> {
  let typed = false;
  let pressed = 0;
  const { out, code } = await inTerminal(line, { cwd, env, label: 'a run interrupted', react: (shown, keys) => {
    if (!typed && shown.includes('you ▸ ')) { typed = true; keys.type('Take your time.\r'); }
    // The first Ctrl-C once the request is at the mock (the model is answering), the next ones each after `again`.
    const due = pressed === 0 ? mock.events.some((e) => e.type === 'request') : shown.split(again).length - 1 >= pressed;
    if (pressed < presses && due) { pressed++; keys.type('\u0003'); }
    if (pressed === presses) keys.end();
  } });
  return { out: out.replaceAll('\r\n', '\n'), code };
}

atTerminal(`bin.ts at a terminal: Ctrl-C while the model answers is said at once and lets the answer come; a second one stops it`, async () => {
  for (const presses of [1, 2]) {
    const mock = await startMock({ latencyScale: 1, scenario: parseScenario(JSON.stringify(slowScenario), 'slow.json') });
    try {
      await withBinBundle('04-cli-sessions', async (bundle, work) => {
        const line = [process.execPath, bundle].map(quoted).join(' ');
        const { out, code } = await ctrlCWhileAnswering(line, work, { HOME: path.join(work, 'home'), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url }, mock, presses, '(Ctrl-C: no more prompts');
        const said = out.indexOf('(Ctrl-C: no more prompts; the session ends once this one is answered. Ctrl-C again stops it now)');
        expect(said, out).toBeGreaterThan(out.indexOf('Take your time.'));
        if (presses === 1) {
          expect(code, out).toBe(0);
          expect(out.indexOf('A slow answer.'), out).toBeGreaterThan(said);   // the prompt was answered all the same
          expect(out.split('you ▸').length - 1).toBe(1);                      // and no prompt came after it
        } else {
          expect(code, out).toBe(130);                                         // ended by the signal
          expect(out).not.toContain('A slow answer.');
        }
      });
    } finally {
      await mock.close();
    }
  }
});

atTerminal(`--live at a terminal: Ctrl-C stops the run there, as a signal would, and removes its workspace`, async () => {
  const mock = await startMock({ latencyScale: 1, scenario: parseScenario(JSON.stringify(slowScenario), 'slow.json') });
  const dir = mkdtempSync(path.join(tmpdir(), 'bin-live-ctrl-c-'));
  try {
    const file = path.join(dir, 'slow.json');
    writeFileSync(file, JSON.stringify(slowScenario));
    const tmp = path.join(dir, 'tmp');
    mkdirSync(tmp);
    const line = [process.execPath, path.join(ROOT, 'steps/run.mjs'), '6', '--live', '--scenario', file].map(quoted).join(' ');
    const { out, code } = await ctrlCWhileAnswering(line, ROOT, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url, TMPDIR: tmp }, mock, 1, '');
    expect(code, out).toBe(130);
    expect(out).toContain('interrupted: the run is stopped and its temporary folder removed');
    expect(out).not.toContain('A slow answer.');
    expect(readdirSync(tmp)).toEqual([]);
  } finally {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

atTerminal(`a long session at a terminal: prompt after prompt, no listener piles up (Node warns past ten)`, async () => {
  await withBinBundle('04-cli-sessions', async (bundle, work) => {
    // /clear needs no model: twelve prompts answered at once, then Ctrl-D.
    let prompts = 0;
    const { out, code } = await inTerminal([process.execPath, bundle].map(quoted).join(' '), {
      cwd: work, env: { HOME: path.join(work, 'home'), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: `http://127.0.0.1:${await refusedPort()}` }, label: 'bin.ts, many prompts',
      react: (shown, keys) => {
        const seen = shown.split('you ▸').length - 1;
        if (seen <= prompts) return;
        prompts = seen;
        if (prompts <= 12) keys.type('/clear\r');
        else keys.end('\u0004');
      },
    });
    expect(prompts, JSON.stringify(out)).toBe(13);
    expect(out).not.toContain('MaxListenersExceededWarning');
    expect(code, JSON.stringify(out)).toBe(0);
  });
});

// Sub-agents working at the same time (chapter 13) may each ask before a call: the questions
// are put one at a time, each answered by the line typed while it is on screen. readline's
// question() drops a second question asked while one waits: it was never shown, and its
// sub-agent waited for good.
atTerminal(`two sub-agents asking at once at a terminal: each question is shown and gets its own answer`, async () => {
  const shell = (command: string) => ({ name: 'run_shell', input: { command } });
  const scenario = parseScenario(JSON.stringify({ title: 'two ask', prompts: ['unused'], tracks: {
    main: { turns: [
      { tool_calls: ['A', 'B'].map((x) => ({ name: 'agent', input: { description: `Task ${x}`, prompt: `Task ${x}: run echo ${x}`, subagent_type: 'general' } })) },
      { text: 'Both reported.' },
    ] },
    a: { match: { first_user: 'Task A' }, turns: [{ tool_calls: [shell('echo ran-A')] }, { text: 'A done.' }] },
    b: { match: { first_user: 'Task B' }, turns: [{ tool_calls: [shell('echo ran-B')] }, { text: 'B done.' }] },
  } }), 'bin.json');
  // Questions are counted on the screen, not in the bytes: a line written while a question
  // waits goes above it, and the question is drawn again below (chapter 12's write-above).
  const questionsOn = (screen: string[]) => screen.flatMap((l) => /Allow run: echo ran-([AB])\? \[y\/N\]/.exec(l)?.[1] ?? []);
  let answered = 0;
  const { out, code, requests } = await binInTerminal('13-parallel-limits', scenario, 'Run both.', 'bin.ts, two questions', (shown, keys) => {
    const asked = questionsOn(screenOf(shown)).length;
    if (asked > answered && answered < 2) { answered++; keys.type(answered === 1 ? 'y\r' : 'n\r'); }
    if (shown.includes('Both reported.')) keys.end('\u0004');
  });
  const questions = questionsOn(screenOf(out));
  expect([...questions].sort(), JSON.stringify(out)).toEqual(['A', 'B']);
  // The first question shown got the yes, the second the no: each as typed while it was on screen.
  const results = Object.fromEntries(['a', 'b'].map((track) => [track, JSON.stringify(requests(track).at(-1)!.body.messages.at(-1))]));
  const [first, second] = questions.map((x) => x.toLowerCase());
  expect(results[first!]).toContain(`ran-${first!.toUpperCase()}`);
  expect(results[first!]).not.toContain('"is_error":true');
  expect(results[second!]).toContain('the user denied');
  expect(code, JSON.stringify(out)).toBe(0);
});

atTerminal(`chapter 15 at a terminal: a stopped agent's question on screen is taken back, and the stop waits for no answer`, async () => {
  // The stop-withdraws case's model: the main agent launches a tidier and asks to run ls;
  // the tidier asks to write a file; once ls has run, the main agent stops the tidier.
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios', '15-background-agents', 'stop-withdraws.json'));
  let typed = false;
  const { plain, code, requests, left } = await binInTerminal('15-background-agents', scenario, scenario.prompts[0]!, 'bin.ts, a question withdrawn', (shown, keys, answered) => {
    // One answer only, to the main agent's question, given once the tidier's has had time to
    // queue behind it (its model's answer sent, and 300 ms). The tidier's is never answered: a
    // stop that waited for it would never end the session.
    if (!typed && shown.includes('[y/N]')) { typed = true; whenAnswered(answered, 'tidier', 300, () => keys.type('y\r')); }
    if (shown.includes('nothing of it ran')) keys.end('\u0004');
  });
  const question = plain.indexOf('general sub-agent "Tidy up" asks: Allow write tidied.txt? [y/N]');
  expect(question, plain).toBeGreaterThan(plain.indexOf('Allow run: ls? [y/N]'));
  expect(plain.indexOf('(withdrawn: the agent that asked was stopped)', question), plain).toBeGreaterThan(question);
  expect(code, plain).toBe(0);
  expect(left).not.toContain('tidied.txt');
  // The main agent was told the stop took effect; the tidier was never answered.
  expect(JSON.stringify(requests('main').at(-1)!.body.messages)).toContain('agent-1 stopped. Its notification follows.');
  expect(requests('tidier')).toHaveLength(1);
});

atTerminal(`chapter 15 at a terminal: what was typed toward a withdrawn question goes with it, and answers nothing after`, async () => {
  // stop-withdraws, with the stop a second and a half late: time for the person to type "y"
  // at the tidier's question, without Enter, before it is withdrawn. Left in readline's line,
  // that "y" began the next line typed: here an empty prompt became the prompt "y".
  const text = readFileSync(path.join(ROOT, 'scenarios', '15-background-agents', 'stop-withdraws.json'), 'utf8');
  const json = JSON.parse(text) as { tracks: { main: { turns: Record<string, unknown>[] } } };
  json.tracks.main.turns[1]!.latency_ms = 1500;
  const scenario = parseScenario(JSON.stringify(json), 'stop-withdraws-late.json');
  const typed = { ls: false, tidier: false, enter: false };
  const { out, plain, code, requests } = await binInTerminal('15-background-agents', scenario, scenario.prompts[0]!, 'bin.ts, half an answer withdrawn', (shown, keys, answered) => {
    if (!typed.ls && shown.includes('[y/N]')) { typed.ls = true; whenAnswered(answered, 'tidier', 300, () => keys.type('y\r')); }
    if (!typed.tidier && shown.includes('asks: Allow write tidied.txt? [y/N]')) { typed.tidier = true; keys.type('y'); }
    // At the prompt once the stop is over: Enter, then the end of the input.
    if (!typed.enter && shown.includes('nothing of it ran')) { typed.enter = true; setTimeout(() => { keys.type('\r'); setTimeout(() => keys.end('\u0004'), 300); }, 300); }
  }, { latencyScale: 1 });
  expect(plain.indexOf('(withdrawn: the agent that asked was stopped)'), plain).toBeGreaterThan(plain.indexOf('asks: Allow write tidied.txt? [y/N] y'));
  // The main agent's text, printed while the question waited, went above it; the question was
  // drawn again below, the "y" typed still there (chapter 12 on).
  const screen = screenOf(out);
  const question = screen.indexOf('general sub-agent "Tidy up" asks: Allow write tidied.txt? [y/N] y');
  expect(question, screen.join('\n')).toBeGreaterThan(screen.indexOf('Stopping it.'));
  expect(screen.indexOf('Stopping it.'), screen.join('\n')).toBeGreaterThan(0);
  expect(screen[question + 1]).toBe('(withdrawn: the agent that asked was stopped)');
  expect(code, plain).toBe(0);
  // The prompts the main agent got: the first only. No "y" came after the withdrawal.
  const prompts = requests('main').map((r) => JSON.stringify(r.body.messages.filter((m) => (m as { role: string }).role === 'user').at(-1)));
  expect(prompts.join('\n')).not.toMatch(/"(?:text|content)":"y"/);
  expect(requests('main').length, plain).toBe(3);
});

atTerminal(`--live at a terminal, chapter 15: a stopped agent's question on screen is taken back, and the stop waits for no answer`, async () => {
  const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios', '15-background-agents', 'stop-withdraws.json'));
  const mock = await startMock({ latencyScale: 0, scenario });
  try {
    let typed = false;
    const line = [process.execPath, path.join(ROOT, 'steps/run.mjs'), '15', '--live', '--case', 'stop-withdraws'].map(quoted).join(' ');
    const { out, code } = await inTerminal(line, {
      cwd: ROOT, env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url }, label: 'run.mjs 15 --live, a question withdrawn',
      // One answer only, to the main agent's ls, once the tidier's question has queued behind it:
      // 0.3 s after the tidier got its answer from the model (a set time from the ls question
      // alone was sometimes too short on a busy machine: the stop came before the tidier asked).
      react: (shown, keys) => {
        const tidierAnswered = mock.events.some((e) => e.type === 'response' && e.track === 'tidier');
        if (!typed && shown.includes('[y/N]') && tidierAnswered) { typed = true; setTimeout(() => keys.type('y\r'), 300); }
      },
    });
    const plain = out.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    const question = plain.indexOf('general sub-agent "Tidy up" asks: Allow write tidied.txt? [y/N]');
    expect(question, plain).toBeGreaterThan(plain.indexOf('Allow run: ls? [y/N]'));
    expect(plain.indexOf('(withdrawn: the agent that asked was stopped)', question), plain).toBeGreaterThan(question);
    expect(plain).toContain('nothing of it ran');
    // The main agent's text, printed while the question waited, went above it (write-above.ts).
    const screen = screenOf(out);
    expect(screen.indexOf('general sub-agent "Tidy up" asks: Allow write tidied.txt? [y/N]'), screen.join('\n')).toBeGreaterThan(screen.indexOf('Stopping it.'));
    expect(screen.indexOf('Stopping it.'), screen.join('\n')).toBeGreaterThan(0);
    expect(code, plain).toBe(0);
    expect(mock.events.filter((e) => e.type === 'request' && e.track === 'tidier')).toHaveLength(1);
  } finally {
    await mock.close();
  }
});

atTerminal(`chapter 15 at a terminal: a background agent that asks a dozen questions in one run leaves no listener behind on its signal, and what the main agent prints meanwhile goes above the question`, async () => {
  // Each question waits on the agent's signal (it is withdrawn should the agent be stopped);
  // answered, it lets go of it. Past ten left on one signal, Node warns of a leak.
  const commands = Array.from({ length: 12 }, (_, i) => `echo step-${i + 1}`);
  const scenario = parseScenario(JSON.stringify({ title: 'many questions', prompts: ['unused'], tracks: {
    main: { turns: [
      { tool_calls: [{ name: 'agent', input: { description: 'Steps', prompt: 'STEPS: run the steps', subagent_type: 'general' } }] },
      { text: 'Launched.' },
      { text: 'All steps ran.' },
    ] },
    steps: { match: { first_user: 'STEPS' }, turns: [{ tool_calls: commands.map((command) => ({ name: 'run_shell', input: { command } })) }, { text: 'Done.' }] },
  } }), 'bin.json');
  let answered = 0;
  const { out, code } = await binInTerminal('15-background-agents', scenario, 'Run the steps.', 'bin.ts, a dozen questions', (shown, keys) => {
    // Questions, not "[y/N]"s: one is drawn again below what the agents print while it waits.
    const asked = new Set(shown.match(/echo step-\d+\?/g)).size;
    if (asked > answered) { answered = asked; keys.type('y\r'); }
    // Its work done, the session is ended (Ctrl-D at the prompt): it wakes the main agent first.
    if (shown.includes('(agent-1, completed)')) keys.end('\u0004');
  });
  expect(answered, out).toBe(12);
  // What the main agent printed meanwhile (its text, the banner, the notification) is on lines
  // of its own above the question or the prompt, never run on after one.
  const screen = screenOf(out);
  expect(screen.filter((line) => /\[y\/N\] (?!y$)|you ▸ \S/.test(line)), screen.join('\n')).toEqual([]);
  expect(screen).toContain('Launched.');
  expect(screen.some((line) => line.startsWith('  ⎿ general sub-agent "Steps" (agent-1, completed)')), screen.join('\n')).toBe(true);
  expect(out).toContain('All steps ran.');
  expect(out).not.toContain('MaxListenersExceededWarning');
  expect(code, out).toBe(0);
});

// The screen the terminal tests read (cli-helpers.ts): what readline's moves and erasures
// leave, not every byte sent. Held to the codes it must know, so that a test reading it
// cannot pass on a screen it misdrew. Last in the file: a test that is not side by side
// with the others ends their group, and the terminal tests after it waited for those before.
it('screenOf: a waiting line cleared and drawn again below new text shows once, where it was drawn last', () => {
  const question = '\x1b[33m\nAllow run: ls? [y/N] \x1b[39m';
  const out = `> go\r\n${question}y\x1b[1A\x1b[1G\x1b[0JStopping it.\r\n${question}y\x1b[1Dn\r\nnext\x1b[K`;
  expect(screenOf(out)).toEqual(['> go', 'Stopping it.', '', 'Allow run: ls? [y/N] n', 'next']);
  expect(screenOf('abc\x1b[2Dz\rX\x1b[2J')).toEqual(['']);
  expect(screenOf('abc\x1b[2DZ')).toEqual(['aZc']);
});
