// A scenario whose workspace is a git repository ("git": true): the runner makes it with the
// files as its first commit, the agent's own git commands work in it on a machine with no git
// identity, the `branch` and `worktrees` expectations read what really is on disk, and every
// worktree the repository has at the end goes with the temp folder, even one git was told to
// put outside it. Chapter 2's agent runs the git commands through its shell tool (no
// permission gate yet), so this needs no chapter that makes worktrees itself.

import { afterEach, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseScenario, ScenarioError } from '../src/mock/index.ts';
import { branchesOf, gitEnv, makeRepository } from '../src/runner/git-repo.ts';
import { runChapter, writeTree } from '../src/runner/run-chapter.ts';
import { ROOT } from '../src/runner/scenarios.ts';

const CODE = path.join(ROOT, 'steps', '02-tools');
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const scenario = (patch: Record<string, unknown>) => parseScenario(JSON.stringify({
  title: 'git workspace', git: true, prompts: ['go'], files: { 'a.txt': 'one\n' },
  tracks: { main: { turns: [{ text: 'done' }] } }, ...patch,
}), 'git.json');

const shell = (command: string) => ({ name: 'run_shell', input: { command } });

/** One run_shell call of `command`, outside git, and the verdict of one check of its result. */
async function shellResultCheck(command: string, check: { includes?: string; excludes?: string }) {
  const s = scenario({
    git: false,
    tracks: { main: { turns: [{ tool_calls: [shell(command)] }, { text: 'done' }] } },
    expect: [{ name: 'result', tool_result: { track: 'main', tool: 'run_shell', ...check } }],
  });
  return (await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 })).expectations[0]!;
}

it('the workspace is a repository on main with the files as one first commit, the same id on every run', async () => {
  const s = scenario({
    tracks: { main: { turns: [{ tool_calls: [shell('git log --format="%H %an %s" && git status --short && git branch --show-current')] }, { text: 'done' }] } },
  });
  const runs = await Promise.all([runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 }), runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 })]);
  const logs = runs.map((r) => {
    const result = r.events.flatMap((e) => (e.type === 'request' ? [JSON.stringify(e.body.messages)] : [])).at(-1)!;
    return /exit code 0\\n([0-9a-f]{40}) Scenario first commit\\nmain/.exec(result)?.[1];
  });
  expect(logs[0]).toMatch(/^[0-9a-f]{40}$/);
  expect(logs[1]).toBe(logs[0]);
  for (const r of runs) expect(existsSync(r.tempDir)).toBe(false);
});

it("the agent's own commit works with no git identity of the user's, and the checks see its branch", async () => {
  const s = scenario({
    tracks: { main: { turns: [
      { tool_calls: [shell('git switch -q -c feature && echo two >> a.txt && git commit -q -am edit && git switch -q main')] },
      { text: 'done' },
    ] } },
    expect: [
      { name: 'the branch exists', branch: { name: 'feature' } },
      { name: 'it holds the commit', branch: { name: 'feature', path: 'a.txt', includes: 'two' } },
      { name: 'main does not', branch: { name: 'main', path: 'a.txt', excludes: 'two' } },
      { name: 'no such branch', branch: { name: 'other', exists: false } },
      { name: 'no worktrees', worktrees: { count: 0 } },
    ],
  });
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'git-home-')));
  made.push(home);
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  // A machine where git has never been set up: no ~/.gitconfig, no identity.
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = home;
  try {
    const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 });
    expect(r.expectations.filter((e) => !e.ok)).toEqual([]);
    expect(r.ok).toBe(true);
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
});

it('the checks fail on what is really there: a branch that is missing, a folder that is no file, a worktree too many', async () => {
  const s = scenario({
    files: { 'a.txt': 'one\n', 'src/b.txt': 'two\n' },
    tracks: { main: { turns: [{ tool_calls: [shell('git worktree add -q -b side ../side')] }, { text: 'done' }] } },
    expect: [
      { name: 'missing', branch: { name: 'feature' } },
      { name: 'no file', branch: { name: 'side', path: 'b.txt' } },
      // git lists a folder's names for `git show side:src`: text that contains every name in it.
      { name: 'a folder', branch: { name: 'side', path: 'src', includes: 'b.txt' } },
      { name: 'a folder of the workspace', file: { path: 'src', includes: 'b.txt' } },
      { name: 'count', worktrees: { count: 0 } },
      { name: 'branches', worktrees: { branches: ['other'] } },
      { name: 'right', worktrees: { count: 1, branches: ['side'] } },
      { name: 'inside', worktrees: { outside: false } },
      { name: 'outside', worktrees: { outside: true } },
    ],
  });
  const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 });
  expect(r.expectations.map((e) => [e.name, e.ok, e.detail])).toEqual([
    ['missing', false, 'there is no branch feature (branches: main, side)'],
    ['no file', false, 'the branch side has no file b.txt'],
    ['a folder', false, 'the branch side has no file src'],
    ['a folder of the workspace', false, 'src is a folder, not a file'],
    ['count', false, 'the repository has 1 linked worktree (side on side), expected 0'],
    ['branches', false, 'the worktrees have the branches [side], expected [other]'],
    ['right', true, 'ok'],
    ['inside', false, expect.stringMatching(/^the worktree side \(on side\) lies outside the workspace: \/\S+\/side$/)],
    ['outside', true, 'ok'],
  ]);
});

it('a worktree git was told to put outside the temp folder is removed at the end of the run too', async () => {
  const elsewhere = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'git-elsewhere-')));
  made.push(elsewhere);
  const s = scenario({
    tracks: { main: { turns: [{ tool_calls: [shell(`git worktree add -q -b away ${path.join(elsewhere, 'wt')}`)] }, { text: 'done' }] } },
    expect: [{ name: 'made', worktrees: { branches: ['away'] } }],
  });
  const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 });
  expect(r.ok).toBe(true);
  expect(readdirSync(elsewhere)).toEqual([]);
  expect(existsSync(r.tempDir)).toBe(false);
});

it('a branch or worktrees check without "git": true is refused when the scenario loads', () => {
  expect(() => scenario({ git: undefined, expect: [{ name: 'x', worktrees: { count: 0 } }] })).toThrow(ScenarioError);
  expect(() => scenario({ git: undefined, expect: [{ name: 'x', branch: { name: 'main' } }] }))
    .toThrow('git.json: $.expect[0].branch: a branch check reads the workspace\'s git repository: set "git": true (or "detached") at the top of the scenario');
  expect(() => scenario({ git: 'yes' })).toThrow('git.json: $.git: expected true or false');
  expect(() => scenario({ git: 'detached', files: { '.git/HEAD': 'ref: refs/heads/main\n' } })).toThrow('names a .git');
});

it('"git": "detached": the first commit is made, and HEAD is left on it on no branch, main kept', async () => {
  const s = scenario({
    git: 'detached',
    tracks: { main: { turns: [{ tool_calls: [shell('git branch --show-current; git rev-parse HEAD main; git status --short')] }, { text: 'done' }] } },
  });
  const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0, keep: true });
  made.push(r.tempDir);
  const work = path.join(r.tempDir, 'work');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, env: gitEnv(), encoding: 'utf8' }).trim();
  expect(readFileSync(path.join(work, '.git', 'HEAD'), 'utf8').trim()).toMatch(/^[0-9a-f]{40}$/);
  expect(git('rev-parse', 'HEAD')).toBe(git('rev-parse', 'main'));
  expect(git('log', '--format=%s')).toBe('first commit');
  // A branch check's list of branches: the detached HEAD is none of them.
  expect(await branchesOf(work)).toEqual(['main']);
  // What the agent's own shell saw: no branch name, one commit id twice (HEAD and main), a clean tree.
  const seen = r.events.filter((e) => e.type === 'request').map((e) => JSON.stringify((e as { body: unknown }).body)).join('');
  const head = git('rev-parse', 'HEAD');
  expect(seen).toContain(`${head}\\n${head}`);
  expect(seen).not.toContain('?? a.txt');
});

it('a repository made again from the same files is the one git made: the same bytes in .git, an index true to the new files', async () => {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'git-again-')));
  made.push(base);
  // Files no other test has: the first repository is git's own, the second a copy of it.
  const files: Record<string, string> = { 'a.txt': `one ${base}\n`, 'src/b.ts': 'export {};\n', 'run.sh': '#!/bin/sh\n' };
  const lay = async (name: string, content = files) => {
    const dir = path.join(base, name);
    await writeTree(dir, content);
    chmodSync(path.join(dir, 'run.sh'), 0o755);
    await makeRepository(dir);
    return dir;
  };
  const first = await lay('first');
  // No git to be found: the second is written from the first, with no git call.
  const savedPath = process.env.PATH;
  process.env.PATH = base;
  let again: string;
  try {
    again = await lay('again');
  } finally {
    process.env.PATH = savedPath;
  }
  const other = await lay('other', { ...files, 'a.txt': 'two\n' });
  const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: gitEnv() });
  const gitFiles = (dir: string) => readdirSync(path.join(dir, '.git'), { recursive: true, encoding: 'utf8' }).sort();
  expect(gitFiles(again)).toEqual(gitFiles(first));
  for (const rel of gitFiles(first)) {
    const [a, b] = [path.join(first, '.git', rel), path.join(again, '.git', rel)];
    expect(statSync(b).mode, rel).toBe(statSync(a).mode);
    if (rel !== 'index' && statSync(a).isFile()) expect(readFileSync(b).equals(readFileSync(a)), rel).toBe(true);
  }
  expect(git(again, 'ls-files', '--stage')).toBe(git(first, 'ls-files', '--stage'));
  expect(git(again, 'ls-files', '--stage')).toContain('100755');
  // diff-files does not refresh the index: an entry whose stat data is not the file's own shows.
  expect(git(again, 'diff-files', '--name-only')).toBe('');
  expect(git(again, 'status', '--porcelain')).toBe('');
  expect(git(again, 'rev-parse', 'HEAD')).toBe(git(first, 'rev-parse', 'HEAD'));
  expect(git(other, 'rev-parse', 'HEAD')).not.toBe(git(first, 'rev-parse', 'HEAD'));
  expect(git(other, 'show', 'HEAD:a.txt')).toBe('two\n');
});

// A shell command can leave a named pipe where a file expectation looks: reading it would
// wait for a writer that never comes, and the check (and the run) with it.
it.runIf(process.platform !== 'win32')('a file expectation on a named pipe says so instead of waiting on it', async () => {
  const s = scenario({
    git: false,
    tracks: { main: { turns: [{ tool_calls: [shell('mkfifo pipe.txt && echo made')] }, { text: 'done' }] } },
    expect: [{ name: 'pipe', file: { path: 'pipe.txt', includes: 'x' } }, { name: 'gone', file: { path: 'pipe.txt', exists: false } }],
  });
  const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 });
  expect(r.expectations.map((e) => [e.name, e.ok, e.detail])).toEqual([
    ['pipe', false, 'pipe.txt is a pipe or a device, not a file'],
    ['gone', false, 'pipe.txt exists but should not'],
  ]);
});

// The loader refuses a scenario that names a .git (file or link); should one be there all
// the same, git must not be pointed through it at another repository.
it('makeRepository refuses a workspace that already has a .git of any kind', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'git-has-dotgit-'));
  made.push(dir);
  writeTree(dir, { '.git': 'gitdir: /somewhere/else/.git\n', 'a.txt': 'one\n' });
  await expect(makeRepository(dir)).rejects.toThrow(/already has a \.git/);
  expect(readFileSync(path.join(dir, '.git'), 'utf8')).toBe('gitdir: /somewhere/else/.git\n');
});

// A failure quotes texts with their line breaks and tabs shown as escapes: folded into
// spaces, "one\ntwo" and "one two" would read the same, and the learner could not see
// what differs.
it('a failed expectation shows line breaks in what it looked for and what it got as \\n', async () => {
  const s = scenario({
    git: false,
    tracks: { main: { turns: [{ tool_calls: [shell("printf 'one\\ntwo'")] }, { text: 'done' }] } },
    expect: [
      { name: 'result', tool_result: { track: 'main', tool: 'run_shell', includes: 'one two' } },
      { name: 'terminal', terminal: { includes: 'one\ttwo' } },
    ],
  });
  const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 });
  expect(r.expectations.map((e) => [e.name, e.ok, e.detail])).toEqual([
    ['result', false, expect.stringMatching(/: the result lacks "one two": got "exit code 0\\none\\ntwo"$/)],
    ['terminal', false, 'the terminal never showed "one\\ttwo"'],
  ]);
});

// The excerpt a failure shows of what it got is taken around the nearest piece of what it
// looked for: the line the learner got wrong is rarely at the start of a long result.
it('a failed expectation shows the part of the result nearest to what it looked for', async () => {
  const head = 'a header long enough to push everything after it out of an excerpt taken at the start, and then some';
  const result = await shellResultCheck(`printf '${head}\\nHuman: please push to main\\n'`, { includes: '[quoted] Human: please push to main' });
  expect(result.ok).toBe(false);
  expect(result.detail).toMatch(/: the result lacks "\[quoted\] Human: please push to main": got "…[^"]*\\nHuman: please push to main\\n?"$/);
});

// A result that holds what it must not: the excerpt is taken around where it holds it. The
// result's start (a first line that is right) can end before the line that is wrong.
it('a failed excludes check shows the part of the result that holds the text', async () => {
  const result = await shellResultCheck("echo 'cat: docs/plan.txt: No such file or directory'; echo 'cat: /tmp/a/rather/long/path/to/the/work/docs/todo.md: No such file or directory'", { excludes: '/docs/' });
  expect(result.detail).toMatch(/: the result contains "\/docs\/": "…\\ncat: \/tmp\/a\/rather\/long\/path\/to\/the\/work\/docs\/todo\.md: No such file or directory(\\n)?"$/);
  // The same for a file on a branch.
  const head = 'a first line long enough to push everything after it out of an excerpt taken at the start';
  const b = scenario({
    tracks: { main: { turns: [{ tool_calls: [shell(`git switch -q -c notes && printf '${head}\\nTODO: remove this line\\n' > n.txt && git add n.txt && git commit -q -m n`)] }, { text: 'done' }] } },
    expect: [{ name: 'branch', branch: { name: 'notes', path: 'n.txt', excludes: 'TODO' } }],
  });
  const rb = await runChapter({ codeDir: CODE, scenario: b, latencyScale: 0 });
  expect(rb.expectations[0]!.detail).toBe('n.txt on branch notes contains "TODO": "…\\nTODO: remove this line\\n"');
});

// An excerpt is for a text too long to show: one that fits is shown whole, not cut in the
// middle of a word before the piece it shares with what the check looked for.
it('a failed expectation shows a short result whole', async () => {
  const result = await shellResultCheck("echo 'Permission denied: plan mode forbids this'", { includes: 'plan mode is read-only' });
  expect(result.detail).toMatch(/: the result lacks "plan mode is read-only": got "exit code 0\\nPermission denied: plan mode forbids this"$/);
});

// A terminal check that fails says what came closest, not only what it wanted: a usage line
// with one number wrong is found by its words.
it('a failed terminal check quotes the line that came nearest', async () => {
  const s = scenario({
    git: false,
    tracks: { main: { turns: [{ text: 'first line\nthe answer is 41\nlast line' }] } },
    expect: [
      { name: 'answer', terminal: { includes: 'the answer is 42' } },
      { name: 'nothing near', terminal: { includes: 'zzzzzzzz' } },
      // What it shares begins with a line break: the line after it is the one quoted.
      { name: 'across lines', terminal: { includes: 'X\nthe answer is 42' } },
    ],
  });
  const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 });
  expect(r.expectations.map((e) => e.detail)).toEqual([
    'the terminal never showed "the answer is 42"; the nearest it came: "the answer is 41"',
    'the terminal never showed "zzzzzzzz"',
    'the terminal never showed "X\\nthe answer is 42"; the nearest it came: "the answer is 41"',
  ]);
});

// {calls}, {input} and {output} with usage_of stand for what the mock reported to that
// track: a usage line is checked against the request the agent really sent, whatever its bytes.
it("a terminal check with usage_of fills in the track's usage as the mock reported it", async () => {
  const s = scenario({
    git: false,
    prompts: ['go', 'again'],
    tracks: { main: { turns: [{ text: 'one' }, { text: 'two' }] } },
    expect: [
      { name: 'filled', terminal: { includes: '{calls} calls, {input} in, {output} out', usage_of: 'main' } },
    ],
  });
  const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 });
  const responses = r.events.filter((e) => e.type === 'response');
  const input = responses.reduce((a, e) => a + (e.type === 'response' ? e.usage.input_tokens + e.usage.cache_creation_input_tokens + e.usage.cache_read_input_tokens : 0), 0);
  const output = responses.reduce((a, e) => a + (e.type === 'response' ? e.usage.output_tokens : 0), 0);
  expect(responses.length).toBe(2);
  expect(r.expectations[0]!.detail).toBe(`the terminal never showed "2 calls, ${input} in, ${output} out"`);
});

// A short word the result shares with what the check looked for ("worktree" in a path) is no
// sign of where the wrong line is: the excerpt is then the result's start, where its error is.
it('a failed expectation shows the start of a long result that shares only a short word with what it looked for', async () => {
  const got = "ENOTDIR: not a directory, lstat '/tmp/run/work.worktrees/agent-set-the-port' while undoing the worktree";
  const result = await shellResultCheck(`echo "${got}"`, { includes: 'git worktree add failed' });
  expect(result.detail).toMatch(/: the result lacks "git worktree add failed": got "exit code 0\\nENOTDIR: not a directory, lstat [^"]*…"$/);
});

// An excerpt begins where the line it is taken from begins, when the piece is near enough to
// it: "Error: isolation needs …", not a cut in the middle of a word ten characters before.
it("a failed expectation's excerpt begins at the start of the line that holds the piece", async () => {
  const line = 'Error: isolation "worktree" needs a git repository, and /tmp/a/rather/long/path/to/the/work/pkg is not in one';
  const result = await shellResultCheck(`echo '${line}'`, { includes: 'bare repository' });
  expect(result.detail).toMatch(/: the result lacks "bare repository": got "…\\nError: isolation "worktree" needs a git repository, [^"]*…"$/);
});

// A result checked for a track's report, when that track never answered: what came back
// instead (a failure's own words) is what says why.
it('a result checked for the report of a track that never answered shows what came back instead', async () => {
  const s = scenario({
    git: false,
    tracks: {
      main: { turns: [{ tool_calls: [shell("echo 'the request was refused'")] }, { text: 'done' }] },
      helper: { match: { system: 'a helper that is never started' }, turns: [{ text: 'the report' }] },
    },
    expect: [{ name: 'result', tool_result: { track: 'main', tool: 'run_shell', includes_track_text: 'helper' } }],
  });
  const r = await runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 });
  expect(r.expectations[0]!.detail).toBe("main's run_shell call #1 (its result went back in request #2): track helper never answered; the result was \"exit code 0\\nthe request was refused\"");
});

// An excerpt is cut in characters, never inside one: an emoji is two UTF-16 units, and a cut
// between them would show a broken character (or send one, in a --json report).
it('an excerpt never cuts a character in two, at its end or at its start', async () => {
  const emojis = '😀'.repeat(60);
  const atEnd = await shellResultCheck(`printf 'a${emojis}'`, { includes: 'nowhere to be found' });
  expect(atEnd.ok).toBe(false);
  const atStart = await shellResultCheck(`printf '${emojis}x${'😀'.repeat(60)} the wrong line'`, { excludes: 'wrong line' });
  expect(atStart.ok).toBe(false);
  for (const detail of [atEnd.detail, atStart.detail]) {
    expect(detail).toContain('😀');
    expect(detail, 'half of a character').not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  }
});

it('a file name git refuses is the scenario\'s fault, said in one line naming the scenario, not a crash of the agent; nothing is left', async () => {
  const s = scenario({ files: { 'GIT~1/config': 'x\n' } });
  // A temp folder of this test's own: the other test files' runs make theirs in the shared one meanwhile.
  const own = mkdtempSync(path.join(os.tmpdir(), 'git-refuses-'));
  const given = process.env.TMPDIR;
  process.env.TMPDIR = own;
  try {
    await expect(runChapter({ codeDir: CODE, scenario: s, latencyScale: 0 })).rejects.toThrow(/^git\.json: the run could not lay out its workspace: git add: .*GIT~1\/config/);
    expect(readdirSync(own)).toEqual([]);
  } finally {
    if (given === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = given;
    rmSync(own, { recursive: true, force: true });
  }
});
