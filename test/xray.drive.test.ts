// The x-ray's driving side without Claude Code: a stand-in binary (a small Node script
// written per test) plays the client, so what the driver really gives a child can be
// asserted from what the child saw and sent: the environment (allow-list; none of the
// user's ANTHROPIC_* / CLAUDE_CODE_* variables), the temp git workspace and HOME, the
// timeout that kills the whole process group, nothing left behind. The runs of the real
// release are in xray.pinned.test.ts.

import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CASE_SCENARIOS, childEnv, claudeVersion, driveCase, findClaude, pinnedVersion, XRAY_CASES, XRAY_ENV } from '../src/xray/drive.ts';
import { extractFacts } from '../src/xray/analyse.ts';
import { runXray } from '../src/xray/cli.ts';
import type { RequestEvent } from '../src/mock/types.ts';
import { ROOT } from '../src/runner/scenarios.ts';
import { runInProcess, runMjs } from './cli-helpers.ts';
import { runOnce } from './chapter-runs.ts';
import { scratchFolder } from './scratch-folder.ts';

const scratch = scratchFolder(() => mkdtempSync(path.join(tmpdir(), 'xray-test-')));

/**
 * A stand-in `claude`: answers --version, else sends one request carrying what it saw.
 * It asks with node:http rather than fetch, and starts git without a shell: each client is
 * a process of its own, and fetch's loading alone costs about 40 ms of CPU in each.
 */
function fakeClaude(name: string, mode: 'report' | 'hang' | 'reject' | 'silent' | 'refuse', tell?: string, first?: string): string {
  const file = path.join(scratch(), name);
  const version = '9.9.9 (Claude Code)';   // what --version says, either way
  // One that sends nothing needs no node: a shell starts in a tenth of the time.
  if (mode === 'silent' || mode === 'refuse') {
    writeFileSync(file, `#!/bin/sh\nif [ "$1" = --version ]; then echo '${version}'; exit 0; fi\n${mode === 'silent' ? 'echo done; exit 0' : "echo 'Invalid session ID.' >&2; exit 1"}\n`);
    chmodSync(file, 0o755);
    return file;
  }
  // 'reject': a request a real API refuses (a system turn without its beta), as a client
  // the mock was not calibrated for would send. `tell`: a file outside the run where the
  // client writes what it saw before it sends anything.
  const system = mode === 'reject' ? ", { role: 'system', content: 'a system turn, no beta' }" : '';
  writeFileSync(file, `#!${process.execPath}
const { execFileSync, spawn } = require('node:child_process');
const argv = process.argv.slice(2);
if (argv[0] === '--version') { console.log('${version}'); process.exit(0); }
${first ? `execFileSync('sh', ['-c', ${JSON.stringify(first)}], { stdio: 'ignore' });` : ''}
const prompt = argv[argv.indexOf('-p') + 1];
let head = '';
try { head = execFileSync('git', ['log', '--format=%s'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch {}
const sleeper = ${mode === 'hang' ? "spawn('sleep', ['60'], { stdio: 'ignore' }).pid" : 'null'};
const seen = { env: process.env, cwd: process.cwd(), argv, head, sleeper };
${tell ? `require('node:fs').writeFileSync(${JSON.stringify(tell)}, JSON.stringify(seen));` : ''}
const body = JSON.stringify({ model: 'claude-opus-5-5', max_tokens: 10, tools: [{ name: 'Agent', input_schema: { type: 'object' } }],
  messages: [{ role: 'user', content: [{ type: 'text', text: prompt }, { type: 'text', text: JSON.stringify(seen) }] }${system}] });
require('node:http').request(process.env.ANTHROPIC_BASE_URL + '/v1/messages?beta=true', {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY, 'anthropic-version': '2023-06-01' },
}, (res) => {
  res.resume();
  res.on('end', () => { ${mode === 'hang' ? 'setInterval(() => {}, 1000);' : "console.log('done'); process.exit(0);"} });
}).end(body);
`);
  chmodSync(file, 0o755);
  return file;
}

function seenBy(events: readonly unknown[]): { env: Record<string, string>; cwd: string; argv: string[]; head: string; sleeper: number | null } {
  const req = events.find((e): e is RequestEvent => (e as RequestEvent).type === 'request');
  const blocks = (req!.body.messages as { content: { text: string }[] }[])[0]!.content;
  return JSON.parse(blocks[1]!.text);
}

/** Whether a process runs: it exists and is not a zombie (Linux /proc; elsewhere, signal 0). */
function running(pid: number): boolean {
  try { process.kill(pid, 0); } catch { return false; }
  try { return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return true; }
}

/** What runXray says, kept by stream, and the io to hand it. */
const io = (env: NodeJS.ProcessEnv) => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), env, run: runOnce } };
};

const userEnv = {
  ...process.env,
  HOME: '/root',
  ANTHROPIC_API_KEY: 'sk-ant-user-secret',
  ANTHROPIC_BASE_URL: 'https://api.example.invalid',
  ANTHROPIC_MODEL: 'claude-user-choice',
  CLAUDE_CODE_USE_BEDROCK: '1',
  CLAUDE_CONFIG_DIR: '/root/.claude',
  CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS: '99',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  SUBAGENTS_RUNNER: '4242',
};

describe('the child environment', () => {
  it('is built from an allow-list: none of the user\'s ANTHROPIC_* or CLAUDE_CODE_* variables', () => {
    const env = childEnv(userEnv, { mockUrl: 'http://127.0.0.1:1234', home: '/tmp/x/home', caseEnv: { CLAUDE_CODE_FORK_SUBAGENT: '1' } });
    expect(env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:1234');
    expect(env.ANTHROPIC_API_KEY).toBe(XRAY_ENV.ANTHROPIC_API_KEY);
    expect(env.HOME).toBe('/tmp/x/home');
    expect(env.PATH).toBe(process.env.PATH);
    const anthropic = Object.keys(env).filter((k) => k.startsWith('ANTHROPIC_')).sort();
    expect(anthropic).toEqual(['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']);
    const claude = Object.keys(env).filter((k) => k.startsWith('CLAUDE_')).sort();
    expect(claude).toEqual(['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'CLAUDE_CODE_FORK_SUBAGENT']);
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    // The runner's mark goes through: what the client leaves running is found and stopped at exit.
    expect(env.SUBAGENTS_RUNNER).toBe('4242');
    expect(JSON.stringify(env)).not.toContain('secret');
  });
});

// The tests spawn clients and wait for them, each with its own files: they run side by side,
// except the one that times a client out (its deadline must not be spent waiting for a core).
describe.concurrent('driving a client', () => {
  // Claude Code puts its worktrees inside the workspace; a client told otherwise (or a later
  // release) may put one anywhere, and only the repository knows it is there.
  it('a worktree the client made outside the temp folder is removed at the end too', async () => {
    const away = mkdtempSync(path.join(tmpdir(), 'xray-worktree-away-'));
    try {
      const bin = fakeClaude('claude-worktree', 'report', undefined, `git worktree add -q -b away ${path.join(away, 'wt')}`);
      const r = await driveCase({ bin, version: '9.9.9', name: 'delegate', parentEnv: userEnv, timeoutMs: 30_000 });
      expect(r.exitCode).toBe(0);
      expect(existsSync(path.join(away, 'wt'))).toBe(false);
      expect(existsSync(r.tempDir)).toBe(false);
    } finally { rmSync(away, { recursive: true, force: true }); }
  });

  it('runs it in a temp git workspace and HOME, with the clean environment, and removes both', async () => {
    const bin = fakeClaude('claude-report', 'report');
    const r = await driveCase({ bin, version: '9.9.9', name: 'delegate', parentEnv: userEnv, timeoutMs: 30_000 });
    expect(r.problems).toEqual([]);
    expect(r.exitCode).toBe(0);
    const seen = seenBy(r.trace.events);
    // What the child really had:
    expect(Object.keys(seen.env).filter((k) => k.startsWith('ANTHROPIC_')).sort()).toEqual(['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']);
    expect(seen.env.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen.env.ANTHROPIC_API_KEY).toBe(XRAY_ENV.ANTHROPIC_API_KEY);
    expect(Object.keys(seen.env).filter((k) => k.startsWith('CLAUDE_CODE_'))).toEqual(['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC']);
    for (const k of ['DISABLE_TELEMETRY', 'DISABLE_ERROR_REPORTING', 'DISABLE_AUTOUPDATER']) expect(seen.env[k]).toBe('1');
    expect(seen.env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(seen.env.HOME).toBe(r.trace.home);
    expect(seen.env.TMPDIR?.startsWith(r.tempDir)).toBe(true);
    expect(seen.cwd).toBe(r.trace.cwd);
    expect(path.dirname(seen.cwd)).toBe(r.tempDir);
    expect(seen.head).toBe('First commit');
    expect(seen.argv.slice(0, 1)).toEqual(['-p']);
    expect(seen.argv.slice(2, 4)).toEqual(['--permission-mode', 'acceptEdits']);
    expect(seen.argv[1]).toContain('[xray:delegate]');
    expect(r.trace).toMatchObject({ source: 'claude-code', version: '9.9.9', case: 'delegate' });
    // Nothing left behind.
    expect(existsSync(r.tempDir)).toBe(false);
  });

  it("a case whose scenario names a cwd starts the client in that folder of the workspace, and its trace says so", async () => {
    const bin = fakeClaude('claude-report-subfolder', 'report');
    // (The stand-in offers only Agent, so the mock refuses the scripted Skill call: a problem of
    // the run, not of where it started.)
    const r = await driveCase({ bin, version: '9.9.9', name: 'skills', scenario: 'skills-subfolder', parentEnv: process.env, timeoutMs: 30_000 });
    expect(seenBy(r.trace.events).cwd).toBe(path.join(r.trace.cwd, 'pkg', 'app'));
    expect(r.trace.start).toBe('pkg/app');
  });

  it('--keep keeps the workspace', async () => {
    const bin = fakeClaude('claude-report-keep', 'report');
    const r = await driveCase({ bin, version: '9.9.9', name: 'delegate', keep: true, parentEnv: process.env, timeoutMs: 30_000 });
    try {
      expect(existsSync(path.join(r.trace.cwd, 'README.md'))).toBe(true);
      expect(existsSync(path.join(r.trace.cwd, '.git'))).toBe(true);
    } finally {
      rmSync(r.tempDir, { recursive: true, force: true });
    }
  });
});

describe.concurrent('a client that times out', () => {
  it('a client that does not finish is killed with everything it started, and reported', async () => {
    const bin = fakeClaude('claude-hang', 'hang');
    const r = await driveCase({ bin, version: '9.9.9', name: 'delegate', parentEnv: process.env, timeoutMs: 1500 });
    expect(r.timedOut).toBe(true);
    expect(r.problems.join('\n')).toContain('did not finish within 2 s');
    const { sleeper } = seenBy(r.trace.events);
    expect(typeof sleeper).toBe('number');
    // The grandchild was in the client's process group, so it went too (a zombie nobody has
    // reaped yet counts as gone: it runs nothing).
    expect(running(sleeper!)).toBe(false);
    expect(existsSync(r.tempDir)).toBe(false);
  });
});

describe.concurrent('a request the mock refuses', () => {
  it('is a problem of the run, and xray exits 1', async () => {
    const bin = fakeClaude('claude-reject', 'reject');
    const r = await driveCase({ bin, version: '9.9.9', name: 'delegate', parentEnv: process.env, timeoutMs: 30_000 });
    expect(r.exitCode).toBe(0);
    expect(r.problems).toEqual([
      "request #1 (/v1/messages?beta=true) was refused: 400 invalid_request_error: messages.1.role: Input should be 'user' or 'assistant'",
    ]);
    const out: string[] = [];
    const code = await runXray(['delegate', '--claude', bin], { out: (l) => out.push(l), err: (l) => out.push(l), env: process.env, run: runOnce });
    expect(code).toBe(1);
    expect(out.join('\n')).toContain('✖ request #1 (/v1/messages?beta=true) was refused');
  });
});

describe.concurrent('a client that refuses its command line and sends nothing', () => {
  it('in the session case that is what is measured: no problem, and each id reads as refused', async () => {
    const bin = fakeClaude('claude-refuse', 'refuse');
    const runs = await Promise.all(CASE_SCENARIOS.session.map((scenario) => driveCase({ bin, version: '9.9.9', name: 'session', scenario, parentEnv: process.env, timeoutMs: 30_000 })));
    expect(runs.map((r) => [r.exitCode, r.problems])).toEqual(runs.map(() => [1, []]));
    expect(extractFacts(runs.map((r) => r.trace)).find((f) => f.id === 'session.id')?.value)
      .toBe('a file name: refused, nothing sent · a plain name: refused, nothing sent · a UUID: refused, nothing sent');
  });

  it('in any other case it is a problem of the run, with the line it said', async () => {
    const bin = fakeClaude('claude-refuse-elsewhere', 'refuse');
    const r = await driveCase({ bin, version: '9.9.9', name: 'delegate', parentEnv: process.env, timeoutMs: 30_000 });
    expect(r.problems).toEqual(['delegate: Claude Code exited with status 1: Invalid session ID.']);
  });
});

describe.concurrent('a client that never asks the mock', () => {
  // It answers --version and exits 0 having sent nothing: no request was refused and no
  // expectation failed, yet nothing was measured. Facts read from it would be made of
  // nothing, and --write-facts would have replaced the measured file with them.
  it('is a problem of the run: xray exits 1, and --write-facts writes nothing', async () => {
    const bin = fakeClaude('claude-silent', 'silent');
    const r = await driveCase({ bin, version: '9.9.9', name: 'skills', parentEnv: process.env, timeoutMs: 30_000 });
    expect(r.exitCode).toBe(0);
    expect(r.problems).toEqual([`skills: ${bin} never asked the mock for the main conversation (0 requests in all): it ran none of the case`]);
    // The table measures nothing from such a run, and still names the version it drove.
    const shown = io(process.env);
    expect(await runXray(['skills', '--claude', bin], shown.io)).toBe(1);
    const table = shown.out.join('\n');
    expect(table).toMatch(/│ Claude Code 9\.9\.9 +│ same\?/);
    expect(table).not.toContain('neither reached the model');
    expect(table).not.toContain('reads none of them');
    expect(table).toContain('0 of 0 measured facts the same');
    const root = mkdtempSync(path.join(scratch(), 'facts-root-'));
    mkdirSync(path.join(root, 'xray'));
    writeFileSync(path.join(root, 'xray', 'facts-9.9.9.json'), '{"measured": true}\n');
    const t = io(process.env);
    expect(await runXray(['--write-facts', '--claude', bin], { ...t.io, root })).toBe(2);
    expect(t.err).toEqual([`--write-facts: nothing written: case delegate failed: delegate: ${bin} never asked the mock for the main conversation (0 requests in all): it ran none of the case`]);
    expect(readFileSync(path.join(root, 'xray', 'facts-9.9.9.json'), 'utf8')).toBe('{"measured": true}\n');
  });
});

describe.concurrent('Ctrl-C during a run', () => {
  it('kills the client with everything it started and removes the temp folders', async () => {
    const tell = path.join(scratch(), 'interrupted.json');
    const bin = fakeClaude('claude-interrupted', 'hang', tell);
    const runner = spawn(process.execPath, [path.join(ROOT, 'steps', 'run.mjs'), 'xray', 'delegate', '--claude', bin], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => runner.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
    try {
      for (let i = 0; i < 600 && !existsSync(tell); i++) await new Promise((r) => setTimeout(r, 100));
      expect(existsSync(tell)).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      runner.kill('SIGINT');
      expect(await exited).toBe(130);
      const seen = JSON.parse(readFileSync(tell, 'utf8')) as { cwd: string; sleeper: number };
      expect(existsSync(path.dirname(seen.cwd))).toBe(false);
      expect(running(seen.sleeper)).toBe(false);
    } finally {
      runner.kill('SIGKILL');
    }
  }, 90_000);
});

describe.concurrent('xray on the command line', () => {
  it('without a binary: one line saying how to install one, exit 2', async () => {
    const empty = mkdtempSync(path.join(scratch(), 'path-'));
    const t = io({ PATH: empty });
    expect(await runXray([], t.io)).toBe(2);
    expect(t.out).toEqual([]);
    expect(t.err).toHaveLength(1);
    expect(t.err[0]).toContain('npm install --prefix');
    expect(t.err[0]).toContain('@anthropic-ai/claude-code');
    const bad = io({ PATH: empty });
    expect(await runXray(['--claude', path.join(empty, 'nope')], bad.io)).toBe(2);
    expect(bad.err).toHaveLength(1);
    expect(bad.err[0]).toContain('nope');
  });

  it('--help lists it; through steps/run.mjs, no binary is one line on stderr and exit 2', async () => {
    const empty = mkdtempSync(path.join(scratch(), 'nopath-'));
    // --help as the runner's main() prints it: what is asked here is only whether xray is in it.
    const [help, r] = await Promise.all([
      runInProcess(['--help']),
      runMjs(['xray', '--claude', path.join(empty, 'claude')], { env: { PATH: path.dirname(process.execPath) } }),
    ]);
    expect(help.out).toContain('node steps/run.mjs xray [CASE]');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain('npm install --prefix');
  });

  it('finds `claude` on PATH', () => {
    const dir = mkdtempSync(path.join(scratch(), 'bin-'));
    const file = path.join(dir, 'claude');
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o755);
    expect(findClaude(undefined, { PATH: `/nonexistent${path.delimiter}${dir}` })).toBe(file);
    expect(findClaude(undefined, { PATH: '/nonexistent' })).toBeUndefined();
  });

  it('a binary whose --version fails: one line with how it ended and what it said last, exit 2', async () => {
    const bin = path.join(scratch(), 'claude-broken');
    writeFileSync(bin, '#!/bin/sh\necho starting\necho "no config found" >&2\nexit 3\n');
    chmodSync(bin, 0o755);
    const t = io(process.env);
    expect(await runXray(['--claude', bin], t.io)).toBe(2);
    expect(t.err).toEqual([`${bin} --version failed (exit status 3): no config found`]);
  });

  // Stopped at the limit with SIGTERM, which it ignores: the x-ray waited for it to end by
  // itself (here 30 s; for ever, for a program that never does).
  it('a binary whose --version hangs and ignores SIGTERM: killed at the limit, with what it left running', async () => {
    const bin = path.join(scratch(), 'claude-deaf');
    const pids = path.join(scratch(), 'claude-deaf.pid');
    writeFileSync(bin, `#!/bin/sh\ntrap '' TERM INT HUP\nsleep 30 &\necho $! > ${pids}\nwait\n`);
    chmodSync(bin, 0o755);
    // 2 s: on a loaded machine the script must have started and written its child's pid first.
    await expect(claudeVersion(bin, process.env, 2000)).rejects.toThrow(`${bin} --version failed (killed after 2 s)`);
    expect(existsSync(pids), 'the script never got to start its child').toBe(true);
    // SIGKILL was sent; on a loaded machine the process may take a moment to go (it sleeps 30 s otherwise).
    const pid = Number(readFileSync(pids, 'utf8'));
    for (const until = Date.now() + 3000; running(pid) && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
    expect(running(pid)).toBe(false);
  }, 15_000);

  it('a program that is not Claude Code (it answers --version with a number of its own): one line, exit 2, no case run', async () => {
    // node says "v20.20.2", a script anything: each was driven through every case as "Claude Code 20.20.2".
    for (const [name, said] of [['not-claude-node', 'v20.20.2'], ['not-claude-garbage', '%%% 1.2.3.4.5 !!!'], ['not-claude-silent', '']] as const) {
      const bin = path.join(scratch(), name);
      writeFileSync(bin, `#!/bin/sh\nif [ "$1" = --version ]; then echo '${said}'; exit 0; fi\nexit 0\n`);
      chmodSync(bin, 0o755);
      const t = io(process.env);
      expect(await runXray(['delegate', '--claude', bin], t.io), name).toBe(2);
      expect(t.out).toEqual([]);
      expect(t.err).toEqual([`${bin} is not Claude Code: its --version says ${said ? `"${said}"` : 'nothing'}, where Claude Code's says "${pinnedVersion()} (Claude Code)"`]);
    }
  });

  it('--json with --full: one line, exit 2 (the JSON report has no transcript for --full to show in full)', async () => {
    const t = io(process.env);
    expect(await runXray(['delegate', '--json', '--full', '--claude', fakeClaude('claude-json-full', 'report')], t.io)).toBe(2);
    expect(t.out).toEqual([]);
    expect(t.err).toEqual(['--json and --full do not go together: --json prints no transcript']);
  });

  it('an unknown case or option: one line, exit 2', async () => {
    const t = io(process.env);
    expect(await runXray(['nosuch', '--claude', fakeClaude('claude-x', 'report')], t.io)).toBe(2);
    expect(t.err).toEqual(['unknown x-ray case "nosuch": the cases are delegate, fork, fork-seed, guard, limits, skills, worktree, failed, stop, continue, session']);
    // The README names them too, and the x-ray page describes each.
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const page = readFileSync(path.join(ROOT, 'docs', 'xray.md'), 'utf8');
    for (const c of XRAY_CASES) {
      expect(readme, c).toContain(`\`${c}\``);
      expect(page, c).toContain(`| \`${c}\` |`);
    }
    const u = io(process.env);
    expect(await runXray(['--frobnicate'], u.io)).toBe(2);
    expect(u.err).toHaveLength(1);
  });

  it('prints the version it drove and the transcript', async () => {
    const t = io(process.env);
    const code = await runXray(['delegate', '--claude', fakeClaude('claude-cli', 'report')], t.io);
    expect(t.err).toEqual([]);
    expect(code).toBe(0);
    expect(t.out[0]).toContain('Claude Code 9.9.9');
    expect(t.out.join('\n')).toContain(`measured on ${pinnedVersion()}`);
    expect(t.out.join('\n')).toContain('you ▸ [xray:delegate]');
  });
});
