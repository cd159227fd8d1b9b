// Scenario validation: each kind of mistake a teacher can make gives ONE line with
// the file, the JSON path and what was expected. Also the token rule itself.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScenarioError, countTokens, loadScenario, parseScenario } from '../src/mock/index.ts';
import { EXPECTATION_KINDS, ROOT_FIELDS, TURN_FIELDS } from '../src/mock/scenario.ts';

const F = 'scenarios/11-subagents/demo.json';
const base = () => ({
  title: 'Demo',
  prompts: ['Explore the repo'],
  tracks: {
    main: { turns: [{ text: 'Delegating.', tool_calls: [{ name: 'Agent', input: { prompt: 'look' } }] }, { text: 'Done.' }] },
    explorer: { match: { system: 'explorer' }, turns: [{ text: 'Looking.' }, { text: 'Found it.' }] },
  },
});
type S = ReturnType<typeof base> & Record<string, unknown>;

function errorOf(mutate: (s: S) => void): string {
  const s = base() as S;
  mutate(s);
  try {
    parseScenario(JSON.stringify(s, null, 2), F);
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    const msg = (e as Error).message;
    expect(msg).not.toContain('\n');
    return msg;
  }
  throw new Error('expected a ScenarioError');
}

describe('parseScenario accepts a good scenario', () => {
  it('returns it with the file set', () => {
    const s = parseScenario(JSON.stringify({ $schema: '../../src/mock/scenario.schema.json', ...base() }), F);
    expect(s.file).toBe(F);
    expect(s.tracks.explorer!.match).toEqual({ system: 'explorer' });
  });

  // "detached" makes the same repository as true, HEAD aside: its branches and worktrees can be read.
  it('with branch and worktrees checks on a detached repository', () => {
    const s = parseScenario(JSON.stringify({ ...base(), git: 'detached', expect: [
      { name: 'main is still there', branch: { name: 'main', exists: true } },
      { name: 'no worktree', worktrees: { count: 0 } },
    ] }), F);
    expect(s.expect).toHaveLength(2);
  });
  it('with a check that the track was offered no tool at all (exactly: [])', () => {
    expect(parseScenario(JSON.stringify({ ...base(), expect: [{ name: 'no tools', tools: { track: 'explorer', exactly: [] } }] }), F).expect).toHaveLength(1);
  });
});

describe('parseScenario rejects mistakes with one precise line', () => {
  const cases: [string, (s: S) => void, string][] = [
    ['a tool call without input', (s) => ((s.tracks.explorer.turns[1] as Record<string, unknown>).tool_calls = [{ name: 'grep' }]),
    `${F}: $.tracks.explorer.turns[1].tool_calls[0]: missing "input" (a tool call needs an input object)`],
    ['a tool call whose input is not an object', (s) => ((s.tracks.main.turns[0]!.tool_calls![0] as Record<string, unknown>).input = ['x']),
      `${F}: $.tracks.main.turns[0].tool_calls[0].input: expected an object (the tool's arguments), got an array`],
    // A misspelt placeholder would go out as typed, and the run pass with it.
    ['a cache TTL the API has not', (s) => ((s.tracks.main.turns[0] as Record<string, unknown>).cache_ttl = '2h'),
      `${F}: $.tracks.main.turns[0].cache_ttl: expected "5m" or "1h" (the TTL this request's cache writes get, whatever its markers ask for), got "2h"`],
    ['a 1-hour share larger than all the writes allowed', (s) => (s.expect = [{ name: 'x', usage: { track: 'main', request: 1, cache_write_1h_min: 2000, cache_write_max: 1000 } }]),
      `${F}: $.expect[0].usage.cache_write_1h_min: can never hold: cache_write_1h_min 2000 is more than cache_write_max 1000`],
    ['a misspelt placeholder in a turn\'s text', (s) => (s.tracks.main.turns[0]!.text = 'It says {{tool_reslt}}.'),
      `${F}: $.tracks.main.turns[0].text: {{tool_reslt}} is no placeholder (a turn's text knows {{tool_result}})`],
    ['a text placeholder in a tool call\'s input, where only a pattern is filled in', (s) => (s.tracks.main.turns[0]!.tool_calls![0]!.input = { path: '{{tool_result}}' } as never),
      `${F}: $.tracks.main.turns[0].tool_calls[0].input.path: {{tool_result}} is no placeholder (a tool call's input knows {{tool_result /PATTERN/}})`],
    ['a value taken from the request whose pattern does not compile', (s) => (s.tracks.main.turns[0]!.tool_calls![0]!.input = { ids: ['{{tool_result /agentId: (\\w+/}}'] } as never),
      `${F}: $.tracks.main.turns[0].tool_calls[0].input.ids[0]: {{tool_result /agentId: (\\w+/}}: the pattern does not compile (Invalid regular expression: /agentId: (\\w+/: Unterminated group)`],
    ['a tool call without a name', (s) => (s.tracks.main.turns[0]!.tool_calls![0] = { input: {} } as never),
      `${F}: $.tracks.main.turns[0].tool_calls[0]: missing "name" (a tool call needs the name of the tool to call)`],
    ['an unknown field', (s) => (s.promts = ['x']),
      `${F}: $.promts: unknown field "promts" (allowed here: $schema, title, description, model, files, home_files, links, pipes, env, argv, git, cwd, prompts, answers, unattended, tracks, expect)`],
    ['an unknown field in a turn', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).txt = 'x'),
      `${F}: $.tracks.main.turns[1].txt: unknown field "txt" (allowed here: text, tool_calls, stop_reason, usage, latency_ms, idle_ms, cache_ttl, error, allow_unoffered)`],
    ['a wrong type', (s) => ((s as Record<string, unknown>).title = 42), `${F}: $.title: expected a string (what the scenario shows), got a number`],
    ['a missing required field', (s) => delete (s as Record<string, unknown>).prompts, `${F}: $: missing "prompts" (what the user types, in order)`],
    ['an empty prompt', (s) => (s.prompts = ['  ']), `${F}: $.prompts[0]: must not be empty (a prompt the user types)`],
    ['no prompts at all', (s) => (s.prompts = []), `${F}: $.prompts: must not be empty (give at least one prompt)`],
    ['a bad stop_reason', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).stop_reason = 'done'),
      `${F}: $.tracks.main.turns[1].stop_reason: expected one of end_turn, tool_use, max_tokens, stop_sequence, got "done"`],
    ['a negative idle_ms', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).idle_ms = -1),
      `${F}: $.tracks.main.turns[1].idle_ms: expected a number of milliseconds from 0 to 600000 (ten minutes: time that passes on the mock's clock before the response), got -1`],
    ['an idle_ms beyond ten minutes', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).idle_ms = 600_001),
      `${F}: $.tracks.main.turns[1].idle_ms: expected a number of milliseconds from 0 to 600000 (ten minutes: time that passes on the mock's clock before the response), got 600001`],
    ['a latency_ms Node could not wait (over 2^31 ms: it would fire after 1 ms)', (s) => ((s.tracks.main.turns[0] as Record<string, unknown>).latency_ms = 2 ** 31),
      `${F}: $.tracks.main.turns[0].latency_ms: expected a number of milliseconds from 0 to 600000 (ten minutes), got 2147483648`],
    ['a file and a file below it', (s) => (s.files = { 'src': 'x', 'src/a.ts': 'y' }),
      `${F}: $.files["src/a.ts"]: needs a folder "src", but $.files["src"] is a file: a path cannot be both`],
    ['a file below a file written later', (s) => (s.home_files = { '.claude/agents/x.md/y': 'y', '.claude/agents/x.md': 'x' }),
      `${F}: $.home_files[".claude/agents/x.md/y"]: needs a folder ".claude/agents/x.md", but $.home_files[".claude/agents/x.md"] is a file: a path cannot be both`],
    ['a folder name with a trailing slash', (s) => (s.files = { 'docs/': '' }),
      `${F}: $.files["docs/"]: ends with a slash: a file needs a name (folders are made as needed)`],
    ['a NUL byte in a name', (s) => (s.files = { 'a\u0000b': '' }),
      `${F}: $.files["a\\u0000b"]: contains a NUL byte: no file name can`],
    ['a name over 255 bytes', (s) => (s.files = { [`src/${'é'.repeat(128)}.md`]: '' }),
      `${F}: $.files["src/${'é'.repeat(128)}.md"]: has a name of 259 bytes ("${'é'.repeat(24)}…"); a file or folder name may have at most 255`],
    ['an empty name between slashes', (s) => (s.files = { 'a//b': '' }), `${F}: $.files["a//b"]: has an empty name between two slashes`],
    ['a "." in a path', (s) => (s.files = { './a': '' }), `${F}: $.files["./a"]: has a "." in it: write the path without it`],
    // A .git file of the scenario's would lead the run's git to any repository on the disk.
    ['a .git of its own in a scenario whose repository the runner makes', (s) => Object.assign(s, { git: true, files: { '.git': 'gitdir: /elsewhere/.git\n', 'a.txt': '' } }),
      `${F}: $.files[".git"]: names a .git, which "git": true makes itself: leave git's own files out of the scenario`],
    ['a file inside that .git (whatever its case)', (s) => Object.assign(s, { git: true, files: { 'sub/.GIT/config': '' } }),
      `${F}: $.files["sub/.GIT/config"]: names a .git, which "git": true makes itself: leave git's own files out of the scenario`],
    ['two names that differ only in case', (s) => (s.files = { 'README.md': 'a', 'docs/x': 'b', 'readme.md': 'c' }),
      `${F}: $.files["readme.md"]: is the same file as "README.md" on a disk that ignores case (macOS, Windows): give them names that differ in more than case`],
    ['a key with a newline: the message stays one line', (s) => ((s as Record<string, unknown>)['pro\nmpts'] = 1),
      `${F}: $["pro\\nmpts"]: unknown field "pro\\nmpts" (allowed here: $schema, title, description, model, files, home_files, links, pipes, env, argv, git, cwd, prompts, answers, unattended, tracks, expect)`],
    ['a bad error status', (s) => ((s.tracks.main.turns[1] as Record<string, unknown>).error = { status: 503 }),
      `${F}: $.tracks.main.turns[1].error.status: expected one of 400, 401, 404, 429, 500, 529, got 503`],
    ['an unknown expectation kind', (s) => (s.expect = [{ name: 'x', calls: { track: 'main' } }]),
      `${F}: $.expect[0].calls: unknown field "calls" (allowed here: name, hint and exactly one check of: tool_result, file, requests, tools, system, system_stable, never, streamed, usage, breakpoints, terminal, model, fresh_context, isolated, history, ledger, fork_prefix, fork_costs, concurrent, while_running, notification, branch, worktrees)`],
    ['two kinds in one expectation', (s) => (s.expect = [{ name: 'x', never: { track: 'explorer' }, requests: { track: 'main', count: 2 } }]),
      `${F}: $.expect[0]: two checks "requests" and "never" in one expectation (give exactly one; split it in two)`],
    ['an expectation naming an undefined track', (s) => (s.expect = [{ name: 'x', requests: { track: 'planner', count: 1 } }]),
      `${F}: $.expect[0].requests.track: no track named "planner" (defined: main, explorer)`],
    ['a track with no turns', (s) => (s.tracks.explorer.turns = []), `${F}: $.tracks.explorer.turns: must not be empty (a track needs at least one turn)`],
    ['a main-less scenario with a track lacking match', (s) => {
      const t = s.tracks as Record<string, unknown>;
      t.helper = t.main;
      delete t.main;
    }, `${F}: $.tracks.helper: missing "match" (only the track named "main" may omit it: it is the fallback; any other track without a match would never receive a request)`],
    ['an absolute file path', (s) => (s.files = { '/etc/passwd': 'x' }),
      `${F}: $.files["/etc/passwd"]: "/etc/passwd" is not a relative path inside the workspace (no leading "/", no drive letter, no "..")`],
    ['a path climbing out', (s) => (s.expect = [{ name: 'x', file: { path: 'src/../../secret', exists: false } }]),
      `${F}: $.expect[0].file.path: "src/../../secret" is not a relative path inside the workspace (no leading "/", no drive letter, no "..")`],
    ['a cwd outside the workspace', (s) => (s.cwd = '../elsewhere'),
      `${F}: $.cwd: "../elsewhere" is not a relative path inside the workspace (no leading "/", no drive letter, no "..")`],
    ['a cwd below a file', (s) => Object.assign(s, { files: { 'pkg': 'x' }, cwd: 'pkg/app' }),
      `${F}: $.cwd: "pkg/app" needs a folder "pkg", but $.files["pkg"] is a file`],
    ['a cwd with a trailing slash', (s) => (s.cwd = 'pkg/'), `${F}: $.cwd: "pkg/" ends with a slash: write the folder without it`],
    ['a link climbing out by its path', (s) => (s.links = { '../x': 'a.txt' }),
      `${F}: $.links["../x"]: "../x" is not a relative path inside the workspace (no leading "/", no drive letter, no "..")`],
    ['a link with an absolute target', (s) => (s.links = { 'key': '/home/me/.ssh/id_rsa' }),
      `${F}: $.links["key"]: "/home/me/.ssh/id_rsa" is an absolute target: write it relative to the link's folder (the run's folders are made anew each time)`],
    ['a link with no target', (s) => (s.links = { 'key': '' }), `${F}: $.links["key"]: must not be empty (the link's target, relative to its folder)`],
    ['a link where a file is', (s) => Object.assign(s, { files: { 'a.txt': 'x' }, links: { 'A.txt': 'b' } }),
      `${F}: $.links["A.txt"]: is the same file as "a.txt" on a disk that ignores case (macOS, Windows): give them names that differ in more than case`],
    ['a link named .git', (s) => (s.links = { '.git': '../../elsewhere/repo/.git' }),
      `${F}: $.links[".git"]: names a .git: a link there would lead git to another repository`],
    ['a link leading out of the run', (s) => (s.links = { 'up': '../../victim' }),
      `${F}: $.links["up"]: "../../victim" leads out of the workspace and the home folder: a link may lead only into them (the home folder is ../home from the workspace's top)`],
    ['a link leading to the folder that holds the workspace', (s) => (s.links = { 'a/up': '../..' }),
      `${F}: $.links["a/up"]: "../.." leads out of the workspace and the home folder: a link may lead only into them (the home folder is ../home from the workspace's top)`],
    ['a link climbing after a name', (s) => (s.links = { 'k': 'home/../../x' }), `${F}: $.links["k"]: "home/../../x" has a ".." after a name: put every ".." at the start`],
    ['a link with a backslash in its name', (s) => (s.links = { 'k\\x\\y': '../../../work/secret' }), `${F}: $.links["k\\\\x\\\\y"]: has a backslash: write a link's path and target with /`],
    ['a link with a backslash in its target', (s) => (s.links = { 'k': '..\\..\\x' }), `${F}: $.links["k"]: has a backslash: write a link's path and target with /`],
    ['pipes that are no list', (s) => (s.pipes = 'session.json'), `${F}: $.pipes: expected a list of workspace paths, one for each named pipe to make, got "session.json"`],
    ['an empty list of pipes', (s) => (s.pipes = []), `${F}: $.pipes: expected a list of workspace paths, one for each named pipe to make, got []`],
    ['a pipe climbing out', (s) => (s.pipes = ['../x']), `${F}: $.pipes[0]: "../x" is not a relative path inside the workspace (no leading "/", no drive letter, no "..")`],
    ['a pipe where a file is', (s) => Object.assign(s, { files: { 'session.json': '{}' }, pipes: ['session.json'] }),
      `${F}: $.pipes[0]: is the same file as "session.json" on a disk that ignores case (macOS, Windows): give them names that differ in more than case`],
    ['a pipe in .git', (s) => (s.pipes = ['.git/x']), `${F}: $.pipes[0]: names a .git: git keeps no pipe there`],
    ['pipes in a git workspace', (s) => Object.assign(s, { git: true, pipes: ['p'] }), `${F}: $.pipes: and "git" do not go together: git cannot commit a named pipe`],
    ['a cwd through a link', (s) => Object.assign(s, { links: { 'up': '../home' }, cwd: 'up/deeper' }),
      `${F}: $.cwd: "up/deeper" passes through $.links["up"]: the agent's folder must be a real folder of the workspace`],
    ['a file below a link', (s) => Object.assign(s, { files: { 'docs/a.md': 'x' }, links: { 'docs': '../home' } }),
      `${F}: $.files["docs/a.md"]: needs a folder "docs", but $.links["docs"] is a file: a path cannot be both`],
    ['a .git file that leads to another repository of the machine', (s) => (s.files = { '.git': 'gitdir: /srv/other/.git\n' }),
      `${F}: $.files[".git"]: a .git file must say "gitdir: PATH", PATH relative and inside the run's folder (its ".." first): git would follow it to another repository`],
    ['a .git file that climbs out of the run\'s folder', (s) => (s.files = { 'pkg/.git': 'gitdir: ../../../other/.git\n' }),
      `${F}: $.files["pkg/.git"]: a .git file must say "gitdir: PATH", PATH relative and inside the run's folder (its ".." first): git would follow it to another repository`],
    ['a made repository whose commondir is elsewhere', (s) => (s.files = { '.git/HEAD': 'ref: refs/heads/main\n', '.git/commondir': '/srv/other/.git\n' }),
      `${F}: $.files[".git/commondir"]: names git's commondir, which can send git to another repository's files: for a real repository, use "git": true`],
    ['a .git file naming a folder of the workspace whose commondir is elsewhere', (s) => (s.files = { 'w/.git': 'gitdir: ../repo\n', 'repo/HEAD': 'ref: refs/heads/main\n', 'repo/commondir': '/srv/other/.git\n' }),
      `${F}: $.files["repo/commondir"]: names git's commondir, which can send git to another repository's files: for a real repository, use "git": true`],
    ['a worktree record deeper in a made .git', (s) => (s.files = { 'a/.git/HEAD': 'ref: refs/heads/main\n', 'a/.git/worktrees/x/commondir': '/srv/other/.git\n' }),
      `${F}: $.files["a/.git/worktrees/x/commondir"]: names git's worktrees/x/commondir, which can send git to another repository's files: for a real repository, use "git": true`],
    ['a made repository with a config (core.worktree can be anywhere)', (s) => (s.files = { '.git/HEAD': 'ref: refs/heads/main\n', '.git/config': '[core]\n\tworktree = /srv/other\n' }),
      `${F}: $.files[".git/config"]: names git's config, which can send git to another repository's files: for a real repository, use "git": true`],
    ['a --resume of a file outside the workspace, which the session would be saved over', (s) => (s.argv = ['--resume', '/tmp/victim.json']),
      `${F}: $.argv[1]: --resume "/tmp/victim.json" leads out of the workspace: a scenario resumes a session of its own files (an id, or a path inside the workspace)`],
    ['the same, climbing out', (s) => (s.argv = ['--resume=../x/s.json']),
      `${F}: $.argv[0]: --resume "../x/s.json" leads out of the workspace: a scenario resumes a session of its own files (an id, or a path inside the workspace)`],
    ['a link target with a NUL in it', (s) => (s.links = { 'l': 'a\u0000b' }), `${F}: $.links["l"]: has a NUL character in its target, which no file system takes`],
    ['answers in an unattended run', (s) => Object.assign(s, { unattended: true, answers: [{ tool: 'write_file', allow: true }] }),
      `${F}: $.answers: an unattended run has nobody to answer permission prompts: give no answers, or drop "unattended"`],
    ['an answer that is neither allow, deny nor no answer', (s) => (s.answers = [{ tool: 'run_shell', allow: 'yes' as never }]),
      `${F}: $.answers[0].allow: expected true (allow), false (deny) or null (no answer: the input ended), got a string`],
    ['an empty text an answer requires the question to show', (s) => (s.answers = [{ tool: 'run_shell', allow: true, shows: '' }]),
      `${F}: $.answers[0].shows: must not be empty (text the question must show)`],
    ['a person who takes longer to answer than a run may last', (s) => (s.answers = [{ tool: 'run_shell', allow: true, after_ms: 60_000 }]),
      `${F}: $.answers[0].after_ms: expected a number of milliseconds from 0 to 10000 (how long the person takes to answer), got 60000`],
    ['a question to be withdrawn while the person takes no time', (s) => (s.answers = [{ tool: 'run_shell', allow: true, withdrawn: true }]),
      `${F}: $.answers[0].withdrawn: a question is withdrawn while the person takes time to answer: give after_ms too`],
    ['withdrawn in words', (s) => (s.answers = [{ tool: 'run_shell', allow: true, after_ms: 500, withdrawn: 'yes' as never }]),
      `${F}: $.answers[0].withdrawn: expected true or false (whether the question must be withdrawn before the person answers), got a string`],
    ['an answer that waits for a question no later answer is for', (s) => (s.answers = [{ tool: 'run_shell', allow: true, after_asked: 'write_file' }, { tool: 'run_shell', allow: false }]),
      `${F}: $.answers[0].after_asked: waits for a question for "write_file", but no later answer is for that tool: give the answer it will need after this one`],
    ['an answer that comes after a stop, to a question taken back at the stop', (s) => (s.answers = [{ tool: 'write_file', allow: true, after_ms: 500, after_stopped: true, withdrawn: true }]),
      `${F}: $.answers[0].after_stopped: a withdrawn question is taken back at the stop, so no answer comes after it: give one of the two`],
    ['after_stopped in words', (s) => (s.answers = [{ tool: 'write_file', allow: true, after_stopped: 'yes' as never }]),
      `${F}: $.answers[0].after_stopped: expected true or false (whether the person answers only once the agent that asks is stopped), got a string`],
    ['an answer that waits for a question for no tool', (s) => (s.answers = [{ tool: 'run_shell', allow: true, after_asked: '' }, { tool: 'write_file', allow: true }]),
      `${F}: $.answers[0].after_asked: must not be empty (the tool whose question this answer waits for)`],
    ['an empty match', (s) => (s.tracks.explorer.match = {} as never), `${F}: $.tracks.explorer.match: needs at least one condition (system, user, first_user or not_user)`],
    ['a missing check field', (s) => (s.expect = [{ name: 'x', usage: { track: 'main' } }]), `${F}: $.expect[0].usage: missing "request" (a usage check needs "request")`],
    ['an order of one text', (s) => (s.expect = [{ name: 'x', history: { track: 'main', request: 1, in_order: ['alone'] } }]),
      `${F}: $.expect[0].history.in_order: expected an array of at least two texts, in the order they must appear, got 1`],
    ['an empty text in an order', (s) => (s.expect = [{ name: 'x', system: { track: 'main', in_order: ['first', ''] } }]),
      `${F}: $.expect[0].system.in_order[1]: must not be empty (a text)`],
    ['a breakpoint place no request has', (s) => (s.expect = [{ name: 'x', breakpoints: { track: 'main', at: ['tools[last]', 'messages[-1]'] } }]),
      `${F}: $.expect[0].breakpoints.at[1]: "messages[-1]" is no place in a request: write tools[N], system[N], messages[N].content[N] or messages[N].content (a string content), each N a number or "last"`],
    ['a breakpoint place listed twice', (s) => (s.expect = [{ name: 'x', breakpoints: { track: 'main', at: ['system[0]', 'system[0]'] } }]),
      `${F}: $.expect[0].breakpoints.at[1]: "system[0]" is listed twice: a block carries one marker at most`],
    ['no block for a message', (s) => (s.expect = [{ name: 'x', history: { track: 'main', request: 1, last_user_blocks: [] } }]),
      `${F}: $.expect[0].history.last_user_blocks: expected an array of texts, one for each block, each what that block starts with, got none`],
    ['a block that starts with nothing', (s) => (s.expect = [{ name: 'x', history: { track: 'main', request: 1, last_user_blocks: ['Look', ''] } }]),
      `${F}: $.expect[0].history.last_user_blocks[1]: must not be empty (the text a block starts with)`],
    // Checks that would always hold, or never.
    ['a check that only says where to look', (s) => (s.expect = [{ name: 'x', requests: { track: 'main' } }]),
      `${F}: $.expect[0].requests: checks nothing: give at least one of count, min, max, counted (track only says where to look)`],
    ['a usage check with no bound', (s) => (s.expect = [{ name: 'x', usage: { track: 'main', request: 1 } }]),
      `${F}: $.expect[0].usage: checks nothing: give at least one of cache_read_min, cache_read_max, cache_write_min, cache_write_max, cache_write_1h_min, cache_write_1h_max (track and request only say where to look)`],
    ['bounds that cross', (s) => (s.expect = [{ name: 'x', requests: { track: 'main', min: 5, max: 2 } }]),
      `${F}: $.expect[0].requests.min: can never hold: min 5 is more than max 2`],
    ['a count outside its bounds', (s) => (s.expect = [{ name: 'x', requests: { track: 'main', count: 1, min: 2 } }]),
      `${F}: $.expect[0].requests.count: can never hold: count 1 is less than min 2`],
    ['cache bounds that cross', (s) => (s.expect = [{ name: 'x', usage: { track: 'main', request: 2, cache_read_min: 10, cache_read_max: 5 } }]),
      `${F}: $.expect[0].usage.cache_read_min: can never hold: cache_read_min 10 is more than cache_read_max 5`],
    ['a tool both included and excluded', (s) => (s.expect = [{ name: 'x', tools: { track: 'main', include: ['read_file'], exclude: ['read_file'] } }]),
      `${F}: $.expect[0].tools.exclude: can never hold: read_file is both included and excluded`],
    ['a text required and forbidden at once', (s) => (s.expect = [{ name: 'x', terminal: { includes: 'all done', excludes: 'done' } }]),
      `${F}: $.expect[0].terminal.excludes: can never hold: "done" is part of what includes asks for ("all done"): whatever shows one shows the other`],
    ['content asked of a file that must not exist', (s) => (s.expect = [{ name: 'x', file: { path: 'a.txt', exists: false, equals: 'x' } }]),
      `${F}: $.expect[0].file.exists: can never hold: "exists": false leaves nothing for equals to look at`],
    ['a branch file check with no file', (s) => Object.assign(s, { git: true, expect: [{ name: 'x', branch: { name: 'agent-1', includes: 'x' } }] }),
      `${F}: $.expect[0].branch.includes: can never hold: includes looks inside a file of the branch: give its "path"`],
    ['a branch with no name', (s) => Object.assign(s, { git: true, expect: [{ name: 'x', branch: { name: '' } }] }),
      `${F}: $.expect[0].branch.name: can never hold: no branch has an empty name`],
    ['a notification status no notification has', (s) => (s.expect = [{ name: 'x', notification: { track: 'main', tool: 'agent', status: 'done' } }]),
      `${F}: $.expect[0].notification.status: can never hold: a notification's status is completed, failed, stopped, never "done"`],
    ['worktrees: a branch listed twice', (s) => Object.assign(s, { git: true, expect: [{ name: 'x', worktrees: { branches: ['a', 'a'] } }] }),
      `${F}: $.expect[0].worktrees.branches: can never hold: "a" is listed twice, and git checks a branch out in one worktree at most`],
    ['worktrees: a count the branches disagree with', (s) => Object.assign(s, { git: true, expect: [{ name: 'x', worktrees: { count: 0, branches: ['a'] } }] }),
      `${F}: $.expect[0].worktrees.branches: can never hold: it lists 1 branch for count 0: a worktree has one`],
    ['worktrees: where they lie, when there may be none', (s) => Object.assign(s, { git: true, expect: [{ name: 'x', worktrees: { count: 0, outside: true } }] }),
      `${F}: $.expect[0].worktrees.outside: can never hold: it looks at where the worktrees lie, and there may be none`],
    ['usage_with without usage', (s) => (s.expect = [{ name: 'x', notification: { track: 'main', tool: 'agent', status: 'completed', usage_with: ['explorer'] } }]),
      `${F}: $.expect[0].notification.usage_with: checks nothing: it adds tracks to the usage check: set "usage": true`],
    ['a usage placeholder with no usage_of to fill it in', (s) => (s.expect = [{ name: 'x', terminal: { includes: 'explorer: {calls} calls' } }]),
      `${F}: $.expect[0].terminal.includes: has {calls}, which only usage_of fills in: name the track whose usage it is`],
    ['usage_of with nothing to fill in', (s) => (s.expect = [{ name: 'x', terminal: { includes: 'explorer: 2 calls', usage_of: 'explorer' } }]),
      `${F}: $.expect[0].terminal.usage_of: checks nothing: it fills in {calls}, {input} and {output}, and neither includes nor excludes has one`],
    ['concurrent with a track listed twice', (s) => (s.expect = [{ name: 'x', concurrent: { tracks: ['explorer', 'explorer'] } }]),
      `${F}: $.expect[0].concurrent.tracks: checks nothing: "explorer" is listed twice, and a track always runs at the same time as itself`],
    ['while_running of a track with itself', (s) => (s.expect = [{ name: 'x', while_running: { track: 'main', request: 1, other: 'main' } }]),
      `${F}: $.expect[0].while_running.other: checks nothing: a track is always running while it sends its own requests: name another track`],
    // A track that can never be routed to, a check of a request past the track's last turn,
    // and a file comparison with nothing to compare: each passed the loader, and
    // the run showed nothing wrong or failed with no word of why.
    ['a match whose not_user is part of its user text', (s) => (s.tracks.explorer.match = { user: 'Read the config', not_user: 'config' } as never),
      `${F}: $.tracks.explorer.match.not_user: can never match: "config" is part of what user asks for ("Read the config"): a request that has one has the other`],
    ['a match whose not_user is part of its first_user text', (s) => (s.tracks.explorer.match = { first_user: 'Explore the repo', not_user: 'the repo' } as never),
      `${F}: $.tracks.explorer.match.not_user: can never match: "the repo" is part of what first_user asks for ("Explore the repo"): a request that has one has the other`],
    ['a request number past the track\'s last turn', (s) => (s.expect = [{ name: 'x', usage: { track: 'explorer', request: 3, cache_read_max: 0 } }]),
      `${F}: $.expect[0].usage.request: can never hold: request 3: track "explorer" has 2 turns, and a request past its last turn is a scenario failure`],
    ['a history of a request past the track\'s last turn', (s) => (s.expect = [{ name: 'x', history: { track: 'main', request: 4, max: 9 } }]),
      `${F}: $.expect[0].history.request: can never hold: request 4: track "main" has 2 turns, and a request past its last turn is a scenario failure`],
    ['two expectations of one name (their verdicts could not be told apart)', (s) => (s.expect = [{ name: 'x', never: { track: 'explorer' } }, { name: 'y', never: { track: 'explorer' } }, { name: 'x', requests: { track: 'main', max: 2 } }]),
      `${F}: $.expect[2].name: "x" is the name of $.expect[0] too: give each expectation a name of its own, the one its verdict is shown under`],
    ['more requests asked for than the track has turns', (s) => (s.expect = [{ name: 'x', requests: { track: 'explorer', count: 3 } }]),
      `${F}: $.expect[0].requests.count: can never hold: count 3: track "explorer" has 2 turns, and a request past its last turn is a scenario failure`],
    ['at least more requests than the track has turns', (s) => (s.expect = [{ name: 'x', requests: { track: 'main', min: 3 } }]),
      `${F}: $.expect[0].requests.min: can never hold: min 3: track "main" has 2 turns, and a request past its last turn is a scenario failure`],
    ['a file comparison with a file the scenario does not write', (s) => Object.assign(s, { files: { 'a.txt': 'x' }, expect: [{ name: 'x', history: { track: 'main', request: 1, includes_file: 'b.txt' } }] }),
      `${F}: $.expect[0].history.includes_file: no file "b.txt" in $.files: includes_file compares the setup content of a file the scenario writes (written: a.txt)`],
    ['a file comparison with a file only in the home folder', (s) => Object.assign(s, { home_files: { 'notes.md': 'x' }, expect: [{ name: 'x', tool_result: { track: 'main', tool: 'Agent', includes_file: 'notes.md' } }] }),
      `${F}: $.expect[0].tool_result.includes_file: no file "notes.md" in $.files: includes_file compares the setup content of a file the scenario writes (it writes none)`],
    ['a result that must include an empty file', (s) => Object.assign(s, { files: { 'empty.txt': '\n' }, expect: [{ name: 'x', tool_result: { track: 'main', tool: 'Agent', includes_file: 'empty.txt' } }] }),
      `${F}: $.expect[0].tool_result.includes_file: checks nothing: $.files["empty.txt"] is empty (or only white space), and every text holds that`],
    ['a request that must lack an empty file', (s) => Object.assign(s, { files: { 'empty.txt': '' }, expect: [{ name: 'x', history: { track: 'main', request: 1, excludes_file: 'empty.txt' } }] }),
      `${F}: $.expect[0].history.excludes_file: can never hold: $.files["empty.txt"] is empty (or only white space), and every text holds that`],
    ['a title on two lines', (s) => (s.title = 'Demo\nsecond line'),
      `${F}: $.title: has a line break: write it on one line (put the detail in "description" or "hint")`],
    ['an expectation name on two lines', (s) => (s.expect = [{ name: 'one\r\ntwo', never: { track: 'explorer' } }]),
      `${F}: $.expect[0].name: has a line break: write it on one line (put the detail in "description" or "hint")`],
    ['a text a check must include that is empty', (s) => (s.expect = [{ name: 'x', terminal: { includes: '' } }]),
      `${F}: $.expect[0].terminal.includes: must not be empty (every text holds the empty text, so includes would always hold)`],
    ['a text a check must lack that is empty', (s) => (s.expect = [{ name: 'x', tool_result: { track: 'main', tool: 'Agent', excludes: '' } }]),
      `${F}: $.expect[0].tool_result.excludes: must not be empty (every text holds the empty text, so excludes would never hold)`],
    ['an empty list of tools to include', (s) => (s.expect = [{ name: 'x', tools: { track: 'main', include: [] } }]),
      `${F}: $.expect[0].tools.include: checks nothing: an empty list includes no tool (name the tools, or leave include out)`],
    ['a model check naming an id the mock never answers', (s) => (s.expect = [{ name: 'x', model: { track: 'main', equals: 'gpt-4o' } }]),
      `${F}: $.expect[0].model.equals: can never hold: "gpt-4o" is no model id the mock answers (it answers only ids starting with "claude-"), so no request can name it`],
    // The SDK waits a retry-after out for real: a day's wait timed the run out, blamed on the agent.
    ['a retry-after longer than 20 s (the SDK waits it out before each of two retries)', (s) => (s.tracks.main.turns[0] = { error: { status: 429, retry_after: 100000 } } as never),
      `${F}: $.tracks.main.turns[0].error.retry_after: expected a whole number from 0 to 20 (seconds for the retry-after header, which the SDK really waits before its retry), got 100000`],
    ['a count no number holds exactly', (s) => ((s.tracks.main.turns[0] as Record<string, unknown>).usage = { output_tokens: 1e300 }),
      `${F}: $.tracks.main.turns[0].usage.output_tokens: expected a whole number from 1 to 9007199254740991 (output tokens to report), got 1e+300`],
    // Names no environment can hold were dropped on the way to the agent, without a word.
    ['an environment variable no shell can set', (s) => (s.env = { OK: '1', 'A=B': 'x' }),
      `${F}: $.env["A=B"]: is not a variable name a shell can set: letters, digits and _, not starting with a digit`],
    ['an environment variable named __proto__', (s) => (s.env = JSON.parse('{"__proto__": "x"}')),
      `${F}: $.env.__proto__: is a name JavaScript objects treat as their prototype, so it would never reach the agent's shell commands: pick another`],
  ];
  for (const [what, mutate, expected] of cases) {
    it(what, () => expect(errorOf(mutate)).toBe(expected));
  }

  it('a number too large for a double is named as the Infinity it reads as, not as JSON\'s null', () => {
    const text = JSON.stringify(base()).replace('"turns":[', '"turns":[{"text":"x","latency_ms":1e400},');
    expect(() => parseScenario(text, F)).toThrow(`${F}: $.tracks.main.turns[0].latency_ms: expected a number of milliseconds from 0 to 600000 (ten minutes), got Infinity`);
  });

  it('ten minutes of latency_ms and idle_ms are still fine (chapter 12 cold idles six)', () => {
    const s = base() as S;
    Object.assign(s.tracks.main.turns[1]!, { latency_ms: 600_000, idle_ms: 600_000 });
    expect(parseScenario(JSON.stringify(s), F).tracks.main!.turns[1]!.idle_ms).toBe(600_000);
  });

  it('a key given twice is refused, naming the key, the object that holds it and the line', () => {
    const text = '{\n  "title": "x",\n  "prompts": ["a"],\n  "tracks": {\n    "main": {\n      "turns": [{"text": "a"}],\n      "turns": [{"text": "b"}]\n    }\n  }\n}';
    expect(() => parseScenario(text, F)).toThrow(
      `${F}: $.tracks.main: duplicate key "turns" (line 7, column 7): JSON would keep only the last one and lose the first without a word; give each key once`);
    // The same key spelt with an escape is the same key; a path key is named in brackets.
    expect(() => parseScenario('{"title":"x","prompts":["a"],"files":{"a.md":"1","a\\u002emd":"2"},"tracks":{}}', F))
      .toThrow(`${F}: $.files: duplicate key "a.md" (line 1, column 50)`);
  });

  it('bad JSON is placed exactly, also where the engine names no position', () => {
    // JSON.parse says only "Unexpected token '}'" here; the place used to be the end of the text.
    expect(() => parseScenario('{\n  "title": "x",\n  "prompts": \n}\n\n', F))
      .toThrow(`${F}: line 4, column 1: not valid JSON (expected a value (an object, array, string, number, true, false or null), found "}")`);
    expect(() => parseScenario('{"title": "x",}', F)).toThrow(`${F}: line 1, column 15: not valid JSON (a comma before "}" (JSON allows no trailing comma))`);
    expect(() => parseScenario('{"title": "a\tb"}', F)).toThrow(`${F}: line 1, column 13: not valid JSON (a raw control character (U+0009) inside a string: write it as an escape such as \\n or \\t)`);
  });

  it('a byte order mark at the start is skipped, as editors do; anywhere else it is reported where it is', () => {
    expect(parseScenario(`\uFEFF${JSON.stringify(base())}`, F).title).toBe('Demo');
    expect(() => parseScenario(`{"title":"x",\uFEFF"prompts":["a"]}`, F))
      .toThrow(`${F}: line 1, column 14: not valid JSON (expected a key in double quotes, found U+FEFF)`);
  });

  it('reads exactly what JSON.parse reads, for every scenario of the series', async () => {
    const { readdirSync } = await import('node:fs');
    const { parseStrictJson } = await import('../src/mock/strict-json.ts');
    const root = new URL('../scenarios/', import.meta.url);
    let n = 0;
    for (const dir of readdirSync(root).filter((d) => /^\d\d-/.test(d))) {
      for (const f of readdirSync(new URL(`${dir}/`, root)).filter((x) => x.endsWith('.json'))) {
        const text = await readFile(new URL(`${dir}/${f}`, root), 'utf8');
        expect(parseStrictJson(text), `${dir}/${f}`).toStrictEqual(JSON.parse(text));
        n++;
      }
    }
    expect(n).toBeGreaterThan(50);
    for (const text of ['{"__proto__": {"x": 1}, "a": [1.5e3, -0, "\\ud83d\\ude00", null, true]}', '"\\u0000"', ' [ ] ', '-12.5E-3']) {
      expect(parseStrictJson(text)).toStrictEqual(JSON.parse(text));
    }
  });

  it('bad JSON gives line and column', () => {
    const text = '{\n  "title": "x",\n  "prompts": ["a"]\n  "tracks": {}\n}';
    expect(() => parseScenario(text, F)).toThrow(ScenarioError);
    try {
      parseScenario(text, F);
    } catch (e) {
      expect((e as Error).message).toMatch(new RegExp(`^${F.replace(/\./g, '\\.')}: line 4, column 3: not valid JSON \\(`));
      expect((e as Error).message).not.toContain('\n');
    }
  });
});

describe('loadScenario', () => {
  it('refuses bytes that are not UTF-8, naming the byte; skips a BOM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mock-scn-'));
    try {
      const file = join(dir, 'bytes.json');
      const good = Buffer.from(JSON.stringify(base(), null, 2));
      const at = good.indexOf('Delegating');
      const bad = async (insert: number[]) => {
        await writeFile(file, Buffer.concat([good.subarray(0, at), Buffer.from(insert), good.subarray(at)]));
        return loadScenario(file).then(() => 'accepted', (e: Error) => e.message);
      };
      const line = good.subarray(0, at).toString().split('\n').length;
      expect(await bad([0xff])).toBe(`${file}: byte ${at} (line ${line}): not valid UTF-8 (bytes 0xFF 0x44 0x65 0x6C…): save the file as UTF-8`);
      expect(await bad([0x80])).toMatch(new RegExp(`: byte ${at} \\(line ${line}\\): not valid UTF-8 \\(bytes 0x80 `));   // a stray continuation byte
      expect(await bad([0xc0, 0xaf])).toMatch(new RegExp(`: byte ${at} `));   // an overlong "/"
      expect(await bad([0xed, 0xa0, 0x80])).toMatch(new RegExp(`: byte ${at} `));   // a UTF-16 surrogate
      expect(await bad([0x61, 0xe2, 0x82])).toMatch(new RegExp(`: byte ${at + 1} `));   // a sequence cut short
      expect(await bad([0xf4, 0x90, 0x80, 0x80])).toMatch(new RegExp(`: byte ${at} `));   // beyond U+10FFFF
      expect(await bad([0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80])).toBe('accepted');   // € and 😀 are fine
      await writeFile(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), good]));
      expect((await loadScenario(file)).title).toBe('Demo');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads a file, and reports a missing one in one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mock-scn-'));
    try {
      const file = join(dir, 'demo.json');
      await writeFile(file, JSON.stringify(base()));
      expect((await loadScenario(file)).file).toBe(file);
      await expect(loadScenario(join(dir, 'nope.json'))).rejects.toThrow(`${join(dir, 'nope.json')}: file not found`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('countTokens', () => {
  it('is ceil(UTF-8 bytes / 4), at least 1', () => {
    expect(countTokens('')).toBe(1);
    expect(countTokens('abcd')).toBe(1);
    expect(countTokens('abcde')).toBe(2);
    expect(countTokens('é')).toBe(1); // 2 bytes
    expect(countTokens('ééé')).toBe(2); // 6 bytes
    expect(countTokens('—'.repeat(4))).toBe(3); // em dash: 3 bytes each
  });
});

describe('scenario.schema.json stays in step with the loader', () => {
  it('has the same top-level fields, turn fields and expectation kinds', async () => {
    const schema = JSON.parse(await readFile(new URL('../src/mock/scenario.schema.json', import.meta.url), 'utf8'));
    expect(Object.keys(schema.properties).sort()).toEqual([...ROOT_FIELDS].sort());
    expect(Object.keys(schema.$defs.turn.properties).sort()).toEqual([...TURN_FIELDS].sort());
    const kinds = Object.keys(schema.$defs.expectation.properties).filter((k) => k !== 'name' && k !== 'hint');
    expect(kinds.sort()).toEqual(Object.keys(EXPECTATION_KINDS).sort());
    for (const kind of kinds) {
      expect(Object.keys(schema.$defs.expectation.properties[kind].properties).sort()).toEqual(Object.keys(EXPECTATION_KINDS[kind]!).sort());
    }
  });
});
