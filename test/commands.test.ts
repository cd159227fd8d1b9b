// The command line as a learner or a teacher types it, read as they would see it: stdout,
// stderr and the exit code. Each command here (--live, --list-cases, --diff, --solution,
// --exercise, a usage error, `npm run mock`) is spawned as typed at least once, the real
// `node steps/run.mjs …` (a demo run is, in cli.test.ts): the exit status the shell sees
// and the streams as a process writes them are what a person meets. The other cases of a
// command only vary what is printed, and go to main() in this process (cli-helpers.ts: the
// same command line, its console and streams captured), at a fraction of a spawn's cost.
// The --live failures that wait out the SDK's retries stay spawned, so that they wait at the
// same time; the other causes of a failed request are named in process.

import { describe, it, expect } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, existsSync, writeFileSync, readFileSync, cpSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { ROOT, casesOf } from '../src/runner/scenarios.ts';
import { findChapter } from '../src/chapters.ts';
import { WORKER_ENV, sh, runMjs, runInProcess, refusedPort, type Ran } from './cli-helpers.ts';
import { tracked } from './children.ts';
import { watchFetch } from '../src/runner/live.ts';
import { makeProjectScratch } from './temp-guard.ts';

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

const liveEnv = (url: string) => ({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: url, ANTHROPIC_MODEL: undefined });

describe.concurrent('--live that cannot reach the API: exit 1, one line naming the URL and the cause, no resume offered', () => {
  const expectFailure = (r: Ran, url: RegExp, cause: RegExp) => {
    expect(r.code, r.err).toBe(1);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^live run failed: /);
    expect(lines[0]).toMatch(url);
    expect(lines[0]).toMatch(cause);
    expect(r.err).not.toMatch(/\n\s+at /);
    // The workspace is deleted: the agent's hint to resume a session saved there would lie.
    expect(r.out).not.toContain('continue it with --resume');
    expect(r.out).toContain('is removed now');
  };

  // Refused on the first chapter --live runs and on the one whose sub-agents call the API side by side;
  // a refused key on chapter 11 below, and the other causes after this block.
  for (const n of ['6', '13']) {
    it(`chapter ${n}: connection refused`, async () => {
      const url = `http://127.0.0.1:${await refusedPort()}`;
      const r = await runMjs([n, '--live'], { env: liveEnv(url) });
      expectFailure(r, new RegExp(`${url}/v1/messages`), /connection refused/);
      const work = /^Live: chapter \d+ in (\S+),/m.exec(r.out)?.[1];
      expect(work).toBeDefined();
      expect(existsSync(path.dirname(work!))).toBe(false);
    });
  }

  it('401: the key is refused (in this process: a 4xx is not retried, so nothing is waited out)', async () => {
    const { url, server } = await serve((_q, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    });
    try {
      expectFailure(await runInProcess(['11', '--live'], { env: liveEnv(url) }), new RegExp(url), /401 authentication_error invalid x-api-key \(the API key was refused: check ANTHROPIC_API_KEY\)/);
    } finally { server.close(); }
  });

  // Answered 200, but not by the Messages API: no request failed on the wire, and from
  // chapter 4 the agent says what went wrong in a ✖ line and goes on. The run must not end 0.
  it('a server that answers 200 with a page, not the API: exit 1 all the same, on chapter 6 and chapter 11', async () => {
    const { url, server } = await serve((_q, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html>not the API</html>'); });
    try {
      for (const n of ['6', '11']) {
        const r = await runInProcess([n, '--live', 'hi'], { env: liveEnv(url) });
        expect(r.code, r.err).toBe(1);
        expect(r.err.trim().split('\n').at(-1)).toMatch(new RegExp(`^live run failed: ${url} answered, but a prompt failed`));
        expect(r.out).toContain('is removed now');
      }
    } finally { server.close(); }
  });
});

// The other ways a request can fail before any answer, named as the one line above names
// them: real requests through the watch a live run puts on the wire (live.ts), here in
// process. The runs above show that line end to end; each of these, as a run, would only
// wait out the SDK's retries to print another cause.
describe('--live names why a request got no answer', () => {
  it('a blocked port, a host that does not exist, TLS to a server that speaks plain http', async () => {
    const { url, server } = await serve((_q, res) => res.end());
    const https = url.replace('http://', 'https://');
    const watch = watchFetch();
    try {
      const urls = ['http://127.0.0.1:9/v1/messages', 'http://no-such-host.invalid/v1/messages', `${https}/v1/messages`];
      await Promise.all(urls.map((u) => fetch(u, { method: 'POST', body: '{}' }).then(() => { throw new Error(`${u} answered`); }, () => undefined)));
      const causes = Object.fromEntries(watch.failures().filter((f) => urls.includes(f.url)).map((f) => [f.url, f.cause]));
      expect(causes[urls[0]!]).toMatch(/blocked ports/);
      expect(causes[urls[1]!]).toMatch(/DNS lookup failed/);
      expect(causes[urls[2]!]).toMatch(/^TLS failed: .*an https:\/\/ address for an http:\/\/ server\?/);
    } finally {
      watch.restore();
      server.close();
    }
  });

  it("given the API's origin, a failed request to anywhere else in the process is not the run's", async () => {
    const refuse = (status: number) => serve((_q, res) => { res.statusCode = status; res.setHeader('content-type', 'application/json'); res.end('{"error":{"type":"invalid_request_error","message":"no"}}'); });
    const api = await refuse(400);
    const other = await refuse(500);
    const watch = watchFetch(new URL(api.url).origin);
    try {
      await fetch(`${other.url}/v1/messages`, { method: 'POST', body: '{}' });
      expect(watch.failures()).toEqual([]);
      await fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' });
      await fetch(`${other.url}/v1/messages`, { method: 'POST', body: '{}' });
      expect(watch.failures()).toEqual([{ url: `${api.url}/v1/messages`, cause: '400 invalid_request_error no' }]);
    } finally {
      watch.restore();
      api.server.close();
      other.server.close();
    }
  });
});

// A scripted run is safe whatever its tools reach: every call is written in the scenario. A
// real model's are not, so --live runs only an agent that asks before a shell command.
describe.concurrent('--live refuses an agent that would not ask: one line, exit 2, nothing laid out, nothing sent', () => {
  async function refused(args: string[]): Promise<Ran> {
    const { startMock } = await import('../src/mock/index.ts');
    const { loadScenarioFile } = await import('../src/runner/scenarios.ts');
    const mock = await startMock({ scenario: await loadScenarioFile(path.join(ROOT, 'scenarios/11-subagents/demo.json')), latencyScale: 0 });
    try {
      const r = await runInProcess(args, { env: liveEnv(mock.url) });
      expect(r.code, r.out + r.err).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.out).toBe('');   // no "Live: chapter N in …": no workspace was made
      expect(mock.events.filter((e) => e.type === 'request')).toEqual([]);
      return r;
    } finally { await mock.close(); }
  }

  it('chapters 1 to 5: no permission gate yet', async () => {
    for (const n of ['1', '2', '3', '4', '5']) {
      const r = await refused([n, '--live', 'hi']);
      expect(r.err).toContain(`--live: chapter ${n}'s agent has no permission gate yet (chapter 6 adds it)`);
      expect(r.err).toContain('node steps/run.mjs 6 --live');
      // What a real model could do says what the chapter's tools can: chapter 1 only reads.
      expect(r.err).toContain(n === '1' ? 'could read any file on this machine (its read_file)' : 'could read, write and run anything on this machine');
    }
  });

  it('a case that starts the agent in bypassPermissions, or with a skill that approves run_shell in advance', async () => {
    expect((await refused(['6', '--live', '--case', 'bypass'])).err).toMatch(/^--live: scenarios\/06-permissions\/bypass\.json starts the agent in bypassPermissions \(its argv\)/);
    expect((await refused(['15', '--live', '--case', 'later-skills'])).err).toMatch(/^--live: scenarios\/15-background-agents\/later-skills\.json has a skill whose allowed-tools list run_shell \(\.claude\/skills\/tidy\/SKILL\.md\)/);
  });

  it('a scenario of your own: bypass in any spelling, and a skill in the home folder or under another name', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'live-refused-'));
    try {
      const skill = '---\ndescription: tidy\nallowed-tools:\n- read_file\n-   "run_shell"\n---\nTidy up.\n';
      const own: [string, Record<string, unknown>][] = [
        ['dashes', { argv: ['--dangerously-skip-permissions'] }],
        ['equals', { argv: ['--permission-mode=bypassPermissions'] }],
        ['home', { home_files: { '.claude/skills/tidy/SKILL.md': skill } }],
        ['linked', { files: { 'notes/tidy.md': skill }, links: { '.claude/skills/tidy/SKILL.md': '../../../notes/tidy.md' } }],
      ];
      for (const [name, extra] of own) {
        const file = path.join(dir, `${name}.json`);
        writeFileSync(file, JSON.stringify({ title: name, prompts: ['hi'], tracks: { main: { turns: [{ text: 'hi' }] } }, ...extra }));
        expect((await refused(['11', '--live', '--scenario', file])).err, name).toMatch(/^--live: .* (bypassPermissions|run_shell)/);
      }
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});

describe.concurrent('--live with a question of your own, the mock standing in for the API', () => {
  it('node steps/run.mjs 11 --live "my own question": the question is sent, the demo files are there', async () => {
    const { startMock } = await import('../src/mock/index.ts');
    const { loadScenarioFile } = await import('../src/runner/scenarios.ts');
    // A scenario that answers any question (no match on main): the mock plays the real API.
    const base = await loadScenarioFile(path.join(ROOT, 'scenarios/11-subagents/demo.json'));
    const mock = await startMock({ scenario: { ...base, tracks: { main: { turns: [{ tool_calls: [{ name: 'read_file', input: { path: 'greeting.txt' } }] }, { text: 'It says hello.' }] } } }, latencyScale: 0 });
    try {
      const r = await runInProcess(['11', '--live', 'what is in greeting.txt, in my own words?'], { env: liveEnv(mock.url) });
      expect(r.code, r.err).toBe(0);
      const first = mock.events.find((e) => e.type === 'request' && e.path === '/v1/messages');
      expect(JSON.stringify(first?.type === 'request' && first.body.messages)).toContain('what is in greeting.txt, in my own words?');
      // The demo's greeting.txt was laid out in the workspace: the tool result carries it.
      const second = mock.events.filter((e) => e.type === 'request' && e.path === '/v1/messages')[1];
      expect(JSON.stringify(second?.type === 'request' && second.body.messages)).toContain(base.files!['greeting.txt']!.trim());
    } finally { await mock.close(); }
  });

  it('a prompt of your own goes with --live only', async () => {
    const r = await runInProcess(['11', 'my own question']);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe('"my own question": only --live takes a prompt of your own (node steps/run.mjs 11 --live "your question")');
  });
});

describe.concurrent('flags that do not go together: one line, exit 2, nothing dropped silently', () => {
  const cases: [string[], string][] = [
    [['11', '--json', '--trace'], '--json and --trace do not go together: the JSON report replaces the transcript that --trace annotates'],
    [['11', '--diff', '--case', 'failing'], '--case does not go with --diff (see --help)'],
    [['11', '--case', 'failing', '--scenario', 'x.json'], '--case and --scenario do not go together: one scenario at a time'],
    [['11', '--all', '--case', 'failing'], '--all and --case do not go together: --all runs every case already'],
    [['11', '--live', '--trace'], '--trace does not go with --live (see --help)'],
    [['11', '--list-cases', '--json'], '--json does not go with --list-cases (see --help)'],
    [['11', '--check', '--trace'], '--trace does not go with --check (see --help)'],
    [['11', '--exercise', '--keep'], '--keep does not go with --exercise (see --help)'],
    [['11', '--diff', '--live'], 'give one of --live, --diff, not several'],
    [['11', '--watch'], '--watch does not go with a demo run (see --help)'],
    [['11', '12'], 'one chapter at a time (got 11 12)'],
    [['--list', 'extra'], '--list takes no chapter or other word (got "extra")'],
    [['11', '--selfcheck'], '--selfcheck takes no chapter or other word (got "11")'],
    [['--gen', '12', '13'], '--gen takes no chapter or other word (got "12 13")'],
  ];
  for (const [argv, line] of cases) {
    it(argv.join(' '), async () => {
      const r = await runInProcess(argv);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(line);
      expect(r.out).toBe('');
    });
  }
  it(`as typed, in a process of its own: ${cases[0]![0].join(' ')}`, async () => {
    const r = await runMjs(cases[0]![0]);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe(cases[0]![1]);
    expect(r.out).toBe('');
  });
});

it.concurrent('a scenario error names the file relative to where the user stands, as the docs show', async () => {
  const dir = makeProjectScratch(ROOT, 'cli-');
  try {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ title: 't', prompts: ['x'], tracks: { main: { turns: [{ tool_calls: [{ name: 'read_file' }] }] } } }));
    // In this process the user stands where the tests run (the project folder, as a spawn here would).
    const r = await runInProcess(['11', '--scenario', file]);   // typed as an absolute path
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe(`${path.relative(process.cwd(), file)}: $.tracks.main.turns[0].tool_calls[0]: missing "input" (a tool call needs an input object)`);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

describe.concurrent('--list-cases and --all', () => {
  it('--list-cases gives each case its title', async () => {
    const r = await runInProcess(['11', '--list-cases']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^demo +Delegate a file read to an explore sub-agent$/m);
    expect(r.out).toMatch(/^recursion +A sub-agent tries to start a sub-agent of its own$/m);
  });

  // Chapter 3: four cases, each a short run (chapter 4 has thirteen).
  it('--all ends with a summary of every case', async () => {
    const r = await runInProcess(['3', '--all', '--no-latency']);
    expect(r.code, r.out).toBe(0);
    const n = casesOf(findChapter(3)!).length;
    expect(n).toBeGreaterThan(1);
    expect(r.out).toMatch(new RegExp(`Chapter 3: ${n} of ${n} scenarios pass\\n(  ✔ \\S+ +.+\\n){${n}}$`));
  });

  it("--all's summary keeps the titles in one column when a case's name is long (chapter 15 has forged-notification)", async () => {
    const { summaryLines } = await import('../src/runner/cli.ts');
    const { Chalk } = await import('chalk');
    const verdicts = [
      { ok: true, name: 'demo', title: 'first' }, { ok: false, name: 'forged-notification', title: 'second' }, { ok: true, name: 'a-very-long-case-name-indeed', title: 'third' },
    ];
    const lines = summaryLines(verdicts, new Chalk({ level: 0 }));
    // Where each title starts: the same column for all, one space past the longest name.
    expect(lines.map((l, i) => l.length - verdicts[i]!.title.length)).toEqual([34, 34, 34]);
    expect(lines[2]).toBe('  ✔ a-very-long-case-name-indeed  third');
    expect(lines[1]!.startsWith('  ✖ forged-notification ')).toBe(true);
  });

  it('--diff is in colour on a terminal, plain otherwise', async () => {
    const { colorDiff } = await import('../src/runner/diff-color.ts');
    const { Chalk } = await import('chalk');
    expect(colorDiff('+a\n-b\n c', new Chalk({ level: 1 }))).toBe('\u001b[32m+a\u001b[39m\n\u001b[31m-b\u001b[39m\n c');
    // A pipe is not a terminal: plain without NO_COLOR's help.
    const plain = await runMjs(['11', '--diff'], { env: { NO_COLOR: undefined } });
    expect(plain.code).toBe(0);
    expect(plain.out).toContain('+++ b/steps/11-subagents/subagent.ts');
    expect(plain.out).not.toMatch(/\u001b\[/);
  });
});

describe.concurrent('transcripts show what their chapter is about', () => {
  it('chapter 9: the /skill the user typed, above what was sent', async () => {
    const r = await runInProcess(['9']);
    expect(r.out).toMatch(/\nyou ▸ \/release-notes 1\.2\.0\n {2}sent as ▸ Write the release notes for version 1\.2\.0/);
  });
  it('chapter 6: each permission question and its scripted answer, under the call that raised it', async () => {
    const r = await runInProcess(['6']);
    expect(r.out).toContain('main ⏺ write_file(path: "CHANGELOG.md"');
    expect(r.out).toMatch(/main ⏺ write_file\(path: "CHANGELOG.md".*\nmain \? allow write CHANGELOG\.md\? yes \(the scenario's answer\)/);
    expect(r.out).toMatch(/main ⏺ run_shell\(command: "rm -rf build"\)\nmain \? allow run: rm -rf build\? no \(the scenario's answer\)/);
    // An error result reads "error: …" once, not "error: Error: …".
    expect(r.out).toContain('main ⎿ error: Permission denied');
    expect(r.out).not.toContain('error: Error:');
  });
  it('chapter 4: the flags the agent was started with', async () => {
    const r = await runInProcess(['4']);
    expect(r.out).toContain('(the agent is started with the flags: -p --model claude-haiku-4-5 --output-style concise --permission-mode plan --session-id demo)');
  });
  it("chapter 13: the agent's ✖ warning for a bad limit variable reaches the transcript", async () => {
    const r = await runInProcess(['13', '--case', 'bad-env', '--no-latency']);
    expect(r.out).toMatch(/the agent's own warnings \(from its terminal\):\n {2}✖ CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS="twenty" is not a whole number/);
  });
  it("a later chapter's scenario on an earlier chapter's agent: no hints about code it lacks, and one line saying why it fails", async () => {
    const r = await runInProcess(['8', '--scenario', 'scenarios/09-skills/demo.json', '--no-latency']);
    expect(r.code).toBe(1);
    expect(r.out).toContain("(this is chapter 9's scenario: chapter 8's agent lacks what chapter 9 adds, so failures are expected; its hints, about chapter 9's code, are left out)");
    expect(r.out).not.toContain('hint:');
    const own = await runInProcess(['9', '--scenario', 'scenarios/08-prompt-caching/demo.json', '--no-latency']);
    expect(own.out).not.toContain("'s scenario: chapter");
    // The same from another folder of the project: the scenario's chapter is read from its place in the project.
    const fromDocs = await runMjs(['8', '--scenario', '../scenarios/09-skills/demo.json', '--no-latency'], { cwd: path.join(ROOT, 'docs') });
    expect(fromDocs.out).toContain("(this is chapter 9's scenario: chapter 8's agent lacks what chapter 9 adds");
    expect(fromDocs.out).not.toContain('hint:');
  });
  it('an error inside a stream names itself "mid-stream", not "undefined"', async () => {
    const r = await runInProcess(['5', '--case', 'interrupted']);
    expect(r.out).toContain('✖ API error mid-stream (overloaded_error): Overloaded');
    expect(r.out).not.toContain('undefined');
  });
  it('--trace numbers count_tokens requests too, before the call each one measured', async () => {
    const r = await runInProcess(['11', '--trace']);
    const numbers = [...r.out.matchAll(/→ request #(\d+)/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));   // none skipped
    expect(r.out).toMatch(/→ request #1 count_tokens: \d+ tokens .*\n {2}→ request #2 claude-sonnet-4-6/);
  });
});

describe.concurrent('the classroom commands', () => {
  const scratch = () => makeProjectScratch(ROOT, 'cli-');

  it('--solution with no exercise folder says so in one line, exit 2 (like --check)', async () => {
    for (const [flag, run] of [['--solution', runMjs], ['--check', runInProcess]] as const) {
      const r = await run(['13', flag, 'exercises/no-such-folder']);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe('exercises/no-such-folder: no such folder; create the exercise first with: node steps/run.mjs 13 --exercise exercises/no-such-folder');
      expect(r.out).toBe('');
    }
  });

  it("a folder typed from a subfolder of the project as if from its top: the folder at the top is named, with the command that reaches it", async () => {
    const dir = scratch();
    try {
      cpSync(path.join(ROOT, 'steps/01-agent-loop'), dir, { recursive: true });
      const typed = path.relative(ROOT, dir);   // what a learner in docs/ types, meaning the top's
      const r = await runMjs(['1', '--solution', typed], { cwd: path.join(ROOT, 'docs') });
      expect(r.code).toBe(2);
      const top = path.join(ROOT, typed);
      expect(r.err).toBe(`${typed}: no such folder here; the project's top has ${top}: node ${path.join(ROOT, 'steps', 'run.mjs')} 1 --solution ${top}\n`);
      expect(existsSync(path.join(ROOT, 'docs', typed))).toBe(false);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('started from a folder that was deleted since: one line saying so, exit 2', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'gone-cwd-'));
    try {
      const r = await sh('sh', ['-c', `mkdir gone && cd gone && rmdir ../gone && exec "${process.execPath}" "${path.join(ROOT, 'steps/run.mjs')}" 1`], { cwd: base });
      expect([r.code, r.err, r.out]).toEqual([2, 'the current folder no longer exists (it was deleted or moved): cd into another one and run again\n', '']);
    } finally { rmSync(base, { recursive: true, force: true }); }
  });

  it("--solution on a folder outside the project suggests an exercise folder --exercise will make: the default one", async () => {
    const outside = path.join(tmpdir(), `no-such-exercise-${process.pid}`);
    const r = await runInProcess(['13', '--solution', outside]);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe(`${outside}: no such folder; create the exercise first with: node steps/run.mjs 13 --exercise exercises/13-parallel-limits`);
  });

  it('--solution shows a file of the learner\'s own, in a subfolder too, even one of one line', async () => {
    const dir = scratch();
    try {
      cpSync(path.join(ROOT, 'steps/11-subagents'), dir, { recursive: true });
      expect((await runInProcess(['11', '--solution', dir])).out).toBe('Your code matches the reference exactly.\n');
      writeFileSync(path.join(dir, 'helper.ts'), 'export const x = 1;\n');
      mkdirSync(path.join(dir, 'lib'));
      writeFileSync(path.join(dir, 'lib', 'more.ts'), 'export const y = 2;\n');
      const r = await runInProcess(['11', '--solution', dir]);
      expect(r.code).toBe(0);
      expect(r.out).toContain('--- yours/helper.ts\n+++ reference/helper.ts\n@@ -1 +0,0 @@\n-export const x = 1;\n');
      expect(r.out).toContain(`--- yours/${path.join('lib', 'more.ts')}\n`);
      // A changed line is named by its line in the file, header line included.
      const lines = readFileSync(path.join(dir, 'agent.ts'), 'utf8').split('\n');
      const line30 = lines[29]!;
      lines[29] = `${line30} // mine`;
      writeFileSync(path.join(dir, 'agent.ts'), lines.join('\n'));
      expect((await runInProcess(['11', '--solution', dir])).out).toContain(`--- yours/agent.ts\n+++ reference/agent.ts\n@@ -27,7 +27,7 @@\n`);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('a file where the folder should be, or a word after it: one line each, exit 2, nothing made', async () => {
    for (const [args, line] of [
      [['11', '--exercise', 'package.json'], 'package.json: a file, not a folder'],
      [['11', '--exercise', 'README.md/sub'], 'README.md/sub: README.md is a file, not a folder'],
      [['11', '--check', 'package.json'], "package.json: a file, not a folder (give the exercise's folder)"],
      [['11', '--solution', 'docs/README.md'], "docs/README.md: a file, not a folder (give the exercise's folder)"],
      [['11', '--check', 'exercises/my', 'work'], '"work": --check takes one folder (a path with spaces goes in quotes)'],
    ] as const) {
      const r = await runInProcess([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toBe(`${line}\n`);
      expect(r.out).toBe('');
    }
  });

  it('--exercise prints a check command that can be pasted as it is: a folder with a space is quoted', async () => {
    const holder = makeProjectScratch(ROOT, 'cli-');
    const dir = path.join(holder, 'with space');
    try {
      const r = await runInProcess(['11', '--exercise', path.relative(ROOT, dir)]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(`Then check your work:  node steps/run.mjs 11 --check '${path.relative(ROOT, dir)}'\n`);
    } finally { rmSync(holder, { recursive: true, force: true }); }
  });

  it('--check DIR --scenario FILE grades with the teacher\'s scenario; --case with one of the chapter\'s', async () => {
    const dir = scratch();
    try {
      // The reference passes the chapter's scenarios; a teacher's scenario that asks for
      // something the chapter does not do fails it, so the scenario really was used.
      cpSync(path.join(ROOT, 'steps/11-subagents'), dir, { recursive: true });
      const own = path.join(dir, 'teacher.json');
      const demo = JSON.parse(readFileSync(path.join(ROOT, 'scenarios/11-subagents/demo.json'), 'utf8'));
      writeFileSync(own, JSON.stringify({ ...demo, title: 'the teacher\'s own', expect: [{ name: 'the greeting is written to out.txt', file: { path: 'out.txt', exists: true } }] }));
      const r = await runInProcess(['11', '--check', dir, '--scenario', own]);
      expect(r.code).toBe(1);
      expect(r.out).toContain('✖ teacher: the teacher\'s own');
      expect(r.out).toContain('missing behaviour: the greeting is written to out.txt');
      expect(r.out).toContain('0/1 scenarios pass so far');
      const one = await runInProcess(['11', '--check', dir, '--case', 'failing']);
      expect(one.code, one.out).toBe(0);
      // One case passing is not the chapter's whole check, and is not called done.
      expect(one.out).toMatch(/^✔ failing\n\nPassed: chapter 11 passes the scenario checked; its whole check \(without --case or --scenario\) runs all \d+\.\n$/);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('--check on a folder made for another chapter names the chapter it was made for', async () => {
    const dir = scratch();
    try {
      rmSync(dir, { recursive: true });
      const made = await runInProcess(['9', '--exercise', path.relative(ROOT, dir)]);
      expect(made.code, made.err).toBe(0);
      const r = await runInProcess(['11', '--check', path.relative(ROOT, dir)]);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(`${path.relative(ROOT, dir)} was made for chapter 9, not chapter 11: check it with node steps/run.mjs 9 --check ${path.relative(ROOT, dir)}`);
      const diff = await runInProcess(['11', '--solution', path.relative(ROOT, dir)]);
      expect(diff.err.trim()).toBe(`${path.relative(ROOT, dir)} was made for chapter 9, not chapter 11: compare it with node steps/run.mjs 9 --solution ${path.relative(ROOT, dir)}`);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('--exercise outside exercises/ leaves nothing untracked for git', async () => {
    const dir = scratch();
    try {
      rmSync(dir, { recursive: true });
      const r = await runInProcess(['11', '--exercise', path.relative(ROOT, dir)]);
      expect(r.code, r.err).toBe(0);
      const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', path.relative(ROOT, dir)], { cwd: ROOT, encoding: 'utf8' });
      expect(status).toBe('');
      expect(existsSync(path.join(dir, 'main.ts'))).toBe(true);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});

it('mock with no scenario: one line on stderr naming what it needs, exit 2 (the usage is for --help)', async () => {
  const r = await runInProcess(['mock']);
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  expect(r.err).toBe('mock needs a scenario file: npm run mock -- SCENARIO.json (see mock --help)\n');
});

it("--live with an empty prompt: one line, exit 2, before any key is asked for or any request sent", async () => {
  const r = await runInProcess(['11', '--live', ''], { env: { ANTHROPIC_API_KEY: undefined } });
  expect(r.code).toBe(2);
  expect(r.err).toBe("--live: the prompt is empty (give a question, or none for the demo's)\n");
});

it.each(['.git/ex1', 'node_modules/ex1'])('--exercise %s: refused in one line, exit 2, nothing written there', async (where) => {
  const r = await runInProcess(['1', '--exercise', where]);
  expect(r.code).toBe(2);
  expect(r.err).toBe(`${path.join(ROOT, where)}: an exercise folder cannot be inside ${where.split('/')[0]}/\n`);
  expect(existsSync(path.join(ROOT, where))).toBe(false);
});

it('--check on a folder with other things in it and no main.ts suggests where an exercise goes, not that folder', async () => {
  const r = await runInProcess(['1', '--check', 'src']);
  expect(r.code).toBe(2);
  expect(r.err).toBe('src: no main.ts here; create the exercise first with: node steps/run.mjs 1 --exercise exercises/01-agent-loop\n');
});

describe.concurrent('npm run mock', () => {
  // What `npm run mock --` starts (npm itself left out): the runner's command line, from its
  // compiled bundle as a chapter run starts, which hands `mock` over to src/mock/cli.ts.
  const script = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.mock!;
  const mockArgs = (args: string[]) => {
    const [program, ...scriptArgs] = script.split(' ');
    expect(program).toBe('node');
    return [...scriptArgs, ...args];
  };
  const mockCli = (args: string[]) => tracked(spawn(process.execPath, mockArgs(args), { cwd: ROOT, env: { ...WORKER_ENV, NO_COLOR: '1' } }), `npm run mock -- ${args.join(' ')}`);

  /** Starts the mock on a scenario; resolves once it has printed its example. */
  function startCli(args: string[]): Promise<{ out: () => string; stop: () => Promise<number | null> }> {
    const child = mockCli(args);
    let out = '';
    child.stdout.on('data', (d) => { out += String(d); });
    child.stderr.on('data', (d) => { out += String(d); });
    return new Promise((resolve, reject) => {
      const t = setInterval(() => {
        if (out.includes('Ctrl-C to stop.')) {
          clearInterval(t);
          resolve({ out: () => out, stop: () => new Promise((r) => { child.on('close', (code) => r(code)); child.kill('SIGINT'); }) });
        }
      }, 50);
      child.on('close', () => { clearInterval(t); reject(new Error(`mock exited: ${out}`)); });
    });
  }

  /** Runs the printed curl (the two lines after "try"); the answer must be the first scripted turn. */
  async function curlAnswers(printed: string, file: string) {
    const curl = printed.split('\n').filter((l, i, all) => l.includes('curl -s') || all[i - 1]?.includes('curl -s')).join('\n');
    const r = await sh('sh', ['-c', curl]);
    expect(r.code, r.err).toBe(0);
    const answer = JSON.parse(r.out) as { type: string; content: { type: string }[] };
    expect(answer.type, r.out).toBe('message');
    const scenario = JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
    const firstTurn = scenario.tracks.main.turns[0];
    expect(answer.content.filter((b) => b.type === 'tool_use')).toHaveLength(firstTurn.tool_calls?.length ?? 0);
  }

  it('the printed curl works against scenarios/11-subagents/demo.json, and answers with its first scripted turn; Ctrl-C lists what failed, exit 130', async () => {
    const file = 'scenarios/11-subagents/demo.json';
    const mock = await startCli([file]);
    let code: number | null | undefined;
    try {
      // First a request the script cannot answer (the first turn calls a tool, and no tool is
      // offered): refused, a failure to list at the end, and the turn is not used up.
      const url = /listening on (\S+)/.exec(mock.out())![1]!;
      const refused = await fetch(`${url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'any', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user', content: 'no tools here' }] }),
      });
      expect(refused.status).toBe(400);
      // Any JSON may arrive, and the mock prints each request before judging it: a message or
      // a block that is null is refused like any other malformed one, not an internal error
      // (which would be a 500, and one more failure in the list at the end).
      for (const [messages, why] of [
        [[null], 'messages.0: Input should be a valid dictionary'],
        [[{ role: 'user', content: [null] }], 'messages.0.content.0: Input should be a content block with a type'],
      ] as const) {
        const odd = await fetch(`${url}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'any', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 16, messages }),
        });
        expect(odd.status).toBe(400);
        expect(((await odd.json()) as { error: { message: string } }).error.message).toBe(why);
      }
      await curlAnswers(mock.out(), file);
    } finally { code = await mock.stop(); }
    expect(code).toBe(130);
    expect(mock.out()).toMatch(/\n1 scenario failure\(s\):\n {2}scenarios\/11-subagents\/demo\.json: /);
  });

  // The example for other shapes of scenario (a system match, no tools), from the same
  // function the command prints it with, against the same mock in this process.
  for (const file of ['scenarios/02-tools/demo.json', 'scenarios/01-agent-loop/demo.json']) {
    it(`the curl it would print works against ${file}, and answers with its first scripted turn`, async () => {
      const { startMock, loadScenario } = await import('../src/mock/index.ts');
      const { curlExample } = await import('../src/mock/example.ts');
      const scenario = await loadScenario(path.join(ROOT, file));
      const mock = await startMock({ scenario, latencyScale: 0 });
      try { await curlAnswers(curlExample(scenario, mock.url).join('\n'), file); } finally { await mock.close(); }
    });
  }

  it('a refused request does not use up a turn: the same request with the tools then gets the first turn', async () => {
    const { startMock, loadScenario } = await import('../src/mock/index.ts');
    const mock = await startMock({ scenario: await loadScenario(path.join(ROOT, 'scenarios/11-subagents/demo.json')), latencyScale: 0 });
    try {
      const send = (body: unknown) => fetch(`${mock.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const messages = [{ role: 'user', content: 'Use a sub-agent to find out what greeting.txt says.' }];
      expect((await send({ model: 'claude-sonnet-4-6', max_tokens: 100, messages })).status).toBe(400);
      const ok = await send({ model: 'claude-sonnet-4-6', max_tokens: 100, messages, tools: [{ name: 'agent', input_schema: { type: 'object' } }] });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { content: { type: string; name?: string }[] }).content.find((b) => b.type === 'tool_use')?.name).toBe('agent');
    } finally { await mock.close(); }
  });

  it('a --log it could not write: one line, exit 2, before it serves (in this process)', async () => {
    const demo = 'scenarios/11-subagents/demo.json';
    const missing = path.join(ROOT, 'no-such-folder', 'events.jsonl');
    for (const [log, line] of [
      [missing, `--log ${missing}: no such folder ${path.dirname(missing)}`],
      ['docs', '--log docs: a folder, not a file'],
      ['package.json/events.jsonl', `--log package.json/events.jsonl: ${path.join(ROOT, 'package.json')} is not a folder`],
      // Where nobody may write, root included (a permission check alone lets root through).
      ...(process.platform === 'linux' ? [['/sys/events.jsonl', '--log /sys/events.jsonl: cannot make a file in /sys']] : []),
      // A named pipe would hold the open until a reader came, Ctrl-C included.
      ...(existsSync('/dev/null') ? [['/dev/null', '--log /dev/null: not a regular file (a pipe, a device)']] : []),
    ]) {
      const r = await runInProcess(['mock', demo, '--log', log!]);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(line);
      expect(r.out).toBe('');
    }
    expect((await runInProcess(['mock', demo, '--log'])).err.trim()).toBe('--log needs a value');
    expect(existsSync(path.dirname(missing))).toBe(false);
  });

  it('an option it does not know, given twice or given wrong, or a second scenario: one line, exit 2, before it serves (in this process)', async () => {
    const demo = 'scenarios/11-subagents/demo.json';
    for (const [argv, line] of [
      [[demo, '--bogus'], 'unknown option --bogus (see mock --help)'],
      [[demo, '--port=0', '-x'], 'unknown option -x (see mock --help)'],
      [[demo, '--no-log'], 'unknown option --no-log (see mock --help)'],   // minimist: log = false, a path of false
      [[demo, '--log', 'a.jsonl', '--log', 'b.jsonl'], '--log given twice (see mock --help)'],
      [[demo, '--port', '8787', '--port=8788'], '--port given twice (see mock --help)'],
      [[demo, '--help=yes'], '--help takes no value (got --help=yes) (see mock --help)'],
      // Number() would read "" as 0 (a free port) and 0x50 as port 80.
      [[demo, '--port', ''], '--port needs a value'],
      [[demo, '--port', '0x50'], '--port: expected a port number, got "0x50"'],
      [[demo, '--port', '-1'], '--port -1: a value starting with - is read as an option (and a negative number fits no option here) (see mock --help)'],
      [[demo, 'scenarios/01-agent-loop/demo.json'], `one scenario at a time (got ${demo} scenarios/01-agent-loop/demo.json)`],
      // Appended to, the scenario would no longer load (written as another path to the same file).
      [[demo, '--log', `./${demo}`], `--log ./${demo}: is the scenario being served: the log would be appended to it`],
    ] as const) {
      const r = await runInProcess(['mock', ...argv]);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(line);
      expect(r.out).toBe('');
    }
  });

  it('on a busy port: one line, exit 2', async () => {
    const busy = createNetServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = await sh(process.execPath, mockArgs(['scenarios/11-subagents/demo.json', '--port', String(port)]));
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(`port ${port} is in use; pass --port 0 for a free one`);
    } finally { busy.close(); }
  });
});
