// The runner as a user meets it: bad input gets one line and exit code 2, good input
// runs and verifies itself, temp folders never outlive a run. Most cases call main()
// in-process (fast); three spawn the real `node steps/run.mjs` end to end (the compiled fast
// path, the fallback without it, colours off on a pipe).

import { describe, it, expect } from 'vitest';
import { cpSync, writeFileSync, mkdtempSync, rmSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, snapshotDir, loadScenarioFile, scenarioFile } from '../src/runner/scenarios.ts';
import { runChapter } from '../src/runner/run-chapter.ts';
import { loadFolder } from '../src/runner/load-folder.ts';
import { WRITTEN_CHAPTERS, findChapter } from '../src/chapters.ts';
import { startMock } from '../src/mock/index.ts';
import { runInProcess, runMjs, sh } from './cli-helpers.ts';
import { makeProjectScratch } from './temp-guard.ts';

// main() in this process, its output captured (cli-helpers.ts).
const run = runInProcess;


describe('bad input: one line, exit 2', () => {
  const cases: [string, string[], RegExp][] = [
    ['no chapter', [], /which chapter\?/],
    ['unknown chapter', ['99'], /unknown chapter "99"/],
    ['not a number', ['eleven'], /unknown chapter "eleven"/],
    ['unknown flag', ['11', '--frobnicate'], /unknown option --frobnicate/],
    ['unknown case', ['11', '--case', 'nope'], /chapter 11 has no case "nope"; its cases: demo/],
    ['flag without value', ['11', '--case'], /--case needs a value/],
    // minimist alone would read these otherwise: a list of both, "no" as on, 1e1 as 10.
    ['an option given twice', ['11', '--case', 'demo', '--case=demo'], /^--case given twice \(see --help\)$/m],
    ['a switch given a value', ['11', '--keep=no'], /^--keep takes no value \(got --keep=no\) \(see --help\)$/m],
    // minimist would read --no-X as X set to false: an exercise folder named "false", a switch off.
    ['--no- before an option that takes a folder', ['11', '--no-exercise'], /^unknown option --no-exercise \(see --help\)$/m],
    ['--no- before a switch other than latency', ['11', '--no-json'], /^unknown option --no-json \(see --help\)$/m],
    // minimist takes both, but --help names neither: --latency is on already, --h is -h.
    ['latency turned on, as it already is', ['11', '--latency'], /^unknown option --latency \(it is on unless --no-latency\) \(see --help\)$/m],
    ['a one-letter option with two dashes', ['11', '--h'], /^unknown option --h \(see --help\)$/m],
    ['a chapter written as another number', ['1e1'], /^unknown chapter "1e1"/],
    ['a chapter in hex', ['0x10'], /^unknown chapter "0x10"/],
    ['a model id the mock would answer with a 404', ['1', '--model', 'gpt-4o'], /^--model gpt-4o: the mock answers only model ids that start with "claude-"/],
    ['a --model the scenario\'s own flags would override', ['4', '--model', 'claude-opus-4-6'], /^--model would be ignored: scenarios\/04-cli-sessions\/demo\.json starts the agent with a --model of its own/],
    ['missing scenario file', ['11', '--scenario', 'no/such/file.json'], /no\/such\/file\.json/],
    // An empty name (a shell variable that was never set) is not the flag alone, which means
    // the default exercise folder: checking or overwriting that one was not asked for.
    ['an empty folder name', ['11', '--check', ''], /^--check '': the folder name is empty \(leave it out for exercises\/11-subagents\)$/m],
    ['an empty folder name, with =', ['11', '--exercise='], /^--exercise '': the folder name is empty \(leave it out for exercises\/11-subagents\)$/m],
    ['a scenario file starting with a dash', ['11', '--scenario', '-x.json'], /^--scenario -x\.json: a name starting with - is read as an option; write \.\/-x\.json \(see --help\)$/m],
  ];
  for (const [name, argv, pattern] of cases) {
    it(name, async () => {
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(pattern);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    });
  }

  it('a malformed scenario names the file and the JSON path', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cli-test-'));
    try {
      const file = path.join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify({ title: 't', prompts: ['x'], tracks: { main: { turns: [{ tool_calls: [{ name: 'read_file' }] }] } } }));
      const r = await run(['11', '--scenario', file]);
      expect(r.code).toBe(2);
      expect(r.err).toContain('bad.json');
      expect(r.err).toContain('$.tracks.main.turns[0].tool_calls[0]');
      expect(r.err.trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a scenario's argv where the chapter's agent reads no flags: refused, not printed and dropped (but a later chapter's own scenario runs, saying so)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cli-test-'));
    try {
      const file = path.join(dir, 'flags.json');
      writeFileSync(file, JSON.stringify({ title: 't', prompts: ['x'], argv: ['--plan'], tracks: { main: { turns: [{ text: 'ok' }] } } }));
      const early = await run(['3', '--scenario', file]);
      expect(early.code).toBe(2);
      expect(early.err).toBe(`${file}: its argv (--plan) would be ignored: the agent reads flags from chapter 4 on, and this is chapter 3\n`);
      expect(early.out).toBe('');
      // From chapter 4 on the same file runs (chapter 10 reads --plan).
      expect((await run(['10', '--scenario', file, '--no-latency'])).code).toBe(0);
      // Chapter 4's own demo on chapter 3's agent is how doc 4 shows chapter 3 falling short:
      // it runs, and a line says the flags go unread.
      const shown = await run(['3', '--scenario', path.join(ROOT, 'scenarios/04-cli-sessions/demo.json'), '--no-latency']);
      expect(shown.code).toBe(1);
      expect(shown.err).toMatch(/demo\.json: its argv \(-p --model claude-haiku-4-5 .*\) goes unread: the agent reads flags from chapter 4 on, and this is chapter 3 \(a later chapter's scenario: it runs, to show what this chapter lacks\)\n$/);
      expect(shown.out).toContain('FAIL 2/8 expectations');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--live with an ANTHROPIC_BASE_URL that is no http(s) address: one line naming it, exit 2, before anything is laid out', async () => {
    for (const url of ['api.example.test', 'ftp://127.0.0.1/']) {
      const r = await run(['6', '--live'], { env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: url } });
      expect(r.code).toBe(2);
      expect(r.err).toBe(`ANTHROPIC_BASE_URL=${url}: not an http:// or https:// address (unset it for the API's own)\n`);
      expect(r.out).toBe('');
    }
  });

  it('--live without a key says so and exits 2', async () => {
    const r = await run(['11', '--live'], { env: { ANTHROPIC_API_KEY: undefined } });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/ANTHROPIC_API_KEY/);
  });

  it('--live with a key no HTTP header can carry (pasted with curly quotes, or a line break): one line, exit 2, the key not echoed', async () => {
    for (const [key, shown] of [['\u201csk-ant-secret\u201d', '"\u201c" at position 1'], ['sk-ant\nsecret', '"\\n" at position 7']]) {
      const r = await run(['11', '--live'], { env: { ANTHROPIC_API_KEY: key } });
      expect(r.code).toBe(2);
      expect(r.err).toBe(`ANTHROPIC_API_KEY: the character ${shown} cannot go in an HTTP header (a key pasted with quotes or a line break?)\n`);
      expect(r.out + r.err).not.toContain('secret');
    }
  });
});

describe('--live, with the mock standing in for the API (ANTHROPIC_BASE_URL)', () => {
  // The real API is out of reach in tests; the mock speaks the same protocol, so the live
  // path (key from the environment, base URL, a person's terminal) runs for real.
  async function liveRun(extra: string[]) {
    const scenario = await loadScenarioFile(path.join(ROOT, 'scenarios/06-permissions/demo.json'));
    const mock = await startMock({ scenario, latencyScale: 0 });
    try {
      const r = await run(['6', '--live', ...extra], { env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.url } });
      return { ...r, requests: mock.events.filter((e) => e.type === 'request').length };
    } finally {
      await mock.close();
    }
  }
  const workspaceOf = (out: string) => /Live: chapter 6 in (\S+),/.exec(out)?.[1];

  it('runs against the given base URL, then says the temporary workspace and its saved session are gone', async () => {
    const r = await liveRun([]);
    expect(r.code, r.err).toBe(0);
    expect(r.requests).toBeGreaterThan(0);
    expect(r.out).toContain('(the temporary workspace, saved session included, is removed now: add --keep to keep it)');
    const work = workspaceOf(r.out);
    expect(work).toBeDefined();
    expect(existsSync(path.dirname(work!))).toBe(false);
  });

  it('--keep keeps the workspace, with the session the agent saved', async () => {
    const r = await liveRun(['--keep']);
    expect(r.code, r.err).toBe(0);
    const kept = /workspace kept at (\S+)/.exec(r.out)?.[1];
    try {
      expect(kept).toBe(path.dirname(workspaceOf(r.out)!));
      expect(readdirSync(path.join(kept!, 'work', '.agent', 'sessions')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    } finally {
      if (kept) rmSync(kept, { recursive: true, force: true });
    }
  });
});

describe('good input', () => {
  it('--help and --list', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: node steps/run.mjs');
    // --no-latency names the chapters whose demo waits on purpose: every one, and only those.
    const waiting = WRITTEN_CHAPTERS.filter((ch) => /"latency_ms":\s*[1-9]/.test(readFileSync(scenarioFile(ch, 'demo'), 'utf8'))).map((ch) => ch.n);
    const named = /\(chapters ([\d, and]+) wait on purpose/.exec(help.out)?.[1]?.split(/, | and /).map(Number);
    expect(named).toEqual(waiting);
    const list = await run(['--list']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/11\s+Sub-agents: fork-return/);
  });

  it('a run checks its expectations and prints a verdict', async () => {
    const r = await run(['11']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/PASS \d+\/\d+ expectations/);
    expect(r.out).toContain('explorer ⏺ read_file');
  });

  it('the temp folder is removed after a run, a failing run and a crashing run', async () => {
    const ch = findChapter(11)!;
    for (const [file, codeDir] of [
      ['scenarios/11-subagents/demo.json', snapshotDir(ch)],
      ['scenarios/11-subagents/demo.json', snapshotDir(findChapter(2)!)],   // fails its expectations
      ['scenarios/11-subagents/demo.json', path.join(ROOT, 'no-such-chapter-dir')],  // cannot even load
    ] as const) {
      const result = await runChapter({ codeDir, scenario: await loadScenarioFile(path.join(ROOT, file)), latencyScale: 0 });
      expect(existsSync(result.tempDir), result.tempDir).toBe(false);
    }
  });

  it('--keep keeps the workspace and says where', async () => {
    const r = await run(['1', '--keep']);
    const kept = /workspace kept at (\S+)/.exec(r.out)?.[1];
    expect(kept).toBeDefined();
    expect(existsSync(path.join(kept!, 'work', 'greeting.txt'))).toBe(true);
    rmSync(kept!, { recursive: true, force: true });
  });

  it('--keep --json: the report says where, the only place it can', async () => {
    const r = await run(['1', '--keep', '--json']);
    const report = JSON.parse(r.out) as { ok: boolean; workspace_kept_at?: string };
    expect(report.ok).toBe(true);
    try {
      expect(existsSync(path.join(report.workspace_kept_at!, 'work', 'greeting.txt'))).toBe(true);
    } finally {
      if (report.workspace_kept_at) rmSync(report.workspace_kept_at, { recursive: true, force: true });
    }
    expect(JSON.parse((await run(['1', '--json'])).out)).not.toHaveProperty('workspace_kept_at');
  });

  it('--json reports requests, tool calls, usage per agent and expectations', async () => {
    const r = await run(['11', '--json']);
    const report = JSON.parse(r.out);
    expect(report.ok).toBe(true);
    expect(report.tool_calls.map((t: { name: string }) => t.name)).toEqual(['agent', 'read_file']);
    expect(Object.keys(report.usage_by_track).sort()).toEqual(['explorer', 'main']);
    expect(report.requests.filter((q: { path: string }) => q.path === '/v1/messages').length).toBe(4);
  });

  it('--diff shows what chapter 11 added, with no OS tricks', async () => {
    const r = await run(['11', '--diff']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('+++ b/steps/11-subagents/subagent.ts');
    expect(r.out).toMatch(/^\+export async function runSubagent/m);
  });

  it('--trace shows each request shape and usage', async () => {
    const r = await run(['11', '--trace']);
    expect(r.out).toMatch(/→ request #\d+ .*tools \[read_file, .*agent\]/);
    expect(r.out).toMatch(/← usage: input \d+, cache write \d+, cache read \d+, output \d+/);
  });

  // Chapter 1's code, edited to throw: a copy, handed to the runner where it would load the
  // snapshot (the hook steps/run.mjs sets for the compiled bundles; fast-start.test.ts maps a
  // bundle's crash the same way). The runs of this describe are one at a time.
  it('a crash in chapter code says where, in the transcript and in --json', async () => {
    const copy = makeProjectScratch(ROOT, 'crash-');
    const hook = Symbol.for('subagents.loadSnapshot');
    const global = globalThis as Record<symbol, unknown>;
    const before = global[hook];
    try {
      cpSync(snapshotDir(findChapter(1)!), copy, { recursive: true });
      const agent = readFileSync(path.join(copy, 'agent.ts'), 'utf8').split('\n');
      const at = agent.findIndex((l) => l.startsWith('export async function agentLoop'));
      agent.splice(at + 1, 0, "  if (config) throw new Error('an edit that throws');");
      writeFileSync(path.join(copy, 'agent.ts'), agent.join('\n'));
      global[hook] = (dir: string) => (dir === snapshotDir(findChapter(1)!) ? { how: 'compiled on the spot', load: () => loadFolder(copy) } : undefined);
      const place = `${path.relative(process.cwd(), path.join(copy, 'agent.ts'))}:${at + 2}:21`;
      const r = await run(['1']);
      expect(r.code).toBe(1);
      expect(r.out).toContain(`✖ the agent crashed: an edit that throws\n    at ${place}\n`);
      const report = JSON.parse((await run(['1', '--json'])).out) as { crash: string; crash_at: string | null };
      expect(report).toMatchObject({ crash: 'an edit that throws', crash_at: place });
      global[hook] = before;
      expect(JSON.parse((await run(['1', '--json'])).out)).toMatchObject({ crash: null, crash_at: null });
    } finally {
      global[hook] = before;
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('a failing expectation exits 1 (a scenario written for chapter 11, run on chapter 2)', async () => {
    const r = await run(['2', '--scenario', path.join(ROOT, 'scenarios/11-subagents/demo.json')]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('FAIL');
  });
});

// The three runs after this one are real processes (what steps/run.mjs and its loader do
// happens before main()), spawned at the same time; this one, in process, mostly waits out
// chapter 13's scripted latency, so it waits beside them.
it.concurrent('--no-latency runs chapter 13 with its scripted waits skipped, and still passes', async () => {
  type Report = { ok: boolean; latency: { scripted_ms: number; waited_ms: number } };
  // The mock logs the real time it waited before each answer: none with the flag, whatever
  // the machine's speed; without it, every scripted turn is waited for.
  const skipped = await run(['13', '--no-latency', '--json']);
  expect(skipped.code, skipped.err).toBe(0);
  const fast = JSON.parse(skipped.out) as Report;
  expect(fast.ok).toBe(true);
  expect(fast.latency.scripted_ms).toBe(10 * 500);   // five sub-agents, two answers each, 500 ms scripted
  expect(fast.latency.waited_ms).toBe(0);
  const waited = JSON.parse((await run(['13', '--json'])).out) as Report;
  expect(waited.latency.scripted_ms).toBe(10 * 500);
  expect(waited.latency.waited_ms).toBeGreaterThan(0);
  expect((await run(['13', '--no-latencyy'])).err).toMatch(/unknown option --no-latencyy/);
});

it.concurrent('end to end on the fast path: chapter 12 (concurrent forks) from its quick-loaded copy passes', async () => {
  const r = await runMjs(['12', '--json']);
  expect(r.code).toBe(0);
  const report = JSON.parse(r.out) as { ok: boolean; code_loaded: string };
  expect(report.ok).toBe(true);
  // The snapshot runs from the bundle fast-start.mjs built, on every Node version. A build
  // that broke would fall back silently to slower loading, so the report must say.
  expect(report.code_loaded).toBe('compiled ahead');
}, 60_000);

it.concurrent('the fallback, without the compiled bundles (SUBAGENTS_NO_BUNDLE=1), runs a chapter and says how it loaded', async () => {
  const r = await runMjs(['1', '--json'], { env: { SUBAGENTS_NO_BUNDLE: '1' } });
  expect(r.code, r.err).toBe(0);
  const report = JSON.parse(r.out) as { ok: boolean; code_loaded: string };
  expect(report.ok).toBe(true);
  // Node >= 22.18 imports the snapshot natively; older Node compiles it on the spot (the
  // runner itself then runs through tsx).
  const [major, minor] = process.versions.node.split('.').map(Number);
  expect(report.code_loaded).toBe(major! > 22 || (major === 22 && minor! >= 18) ? 'native import' : 'compiled on the spot');
}, 60_000);

it.concurrent('end to end: `node steps/run.mjs 1` in a child process, colours off when not a terminal', async () => {
  const r = await runMjs(['1'], { env: { NO_COLOR: undefined } });   // off because stdout is a pipe, not because of NO_COLOR
  expect(r.code).toBe(0);
  expect(r.out).toContain('main ⎿ hello from the agent loop');
  expect(r.out).not.toMatch(/\u001b\[/);
}, 30_000);

// The tests' own helpers: a run in this process sets variables while it runs, and a command
// a test beside it starts meanwhile gets the worker's environment, not those (a TMPDIR of
// another test's, once, had a spawned run make its folder inside that test's).
it('a command started while a run in this process has set its variables does not get them', async () => {
  const worker = tmpdir();   // read now: while the run lasts, this process's own TMPDIR is the run's
  const own = mkdtempSync(path.join(worker, 'cli-env-'));
  let done = false;
  const run = runInProcess(['1'], { env: { SUBAGENTS_PROBE: 'the in-process run', TMPDIR: own } }).finally(() => { done = true; });
  try {
    while (process.env.SUBAGENTS_PROBE === undefined && !done) await new Promise((r) => setImmediate(r));
    const seen = sh(process.execPath, ['-e', 'console.log(JSON.stringify([process.env.SUBAGENTS_PROBE ?? null, process.env.TMPDIR]))']);
    expect(process.env.SUBAGENTS_PROBE).toBe('the in-process run');   // still set when the child was started
    const r = await seen;
    expect(JSON.parse(r.out)).toEqual([null, worker]);
  } finally {
    await run;
    rmSync(own, { recursive: true, force: true });
  }
});
