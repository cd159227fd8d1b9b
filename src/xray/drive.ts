// The x-ray's driving side: runs a real Claude Code binary, in print mode, against the
// project's own mock, on one case (scenarios/xray/CASE.json), and hands back what went
// over the wire as an XrayTrace. The run happens in a temp git workspace and a temp HOME,
// with an environment built from an allow-list, so the user's own settings, credentials
// and ANTHROPIC_* / CLAUDE_CODE_* variables never reach the binary and the binary talks
// to the mock on 127.0.0.1 only. It does NOT analyse anything (analyse.ts does) and
// prints nothing (cli.ts does).

import { spawn, execFile } from 'node:child_process';
import { statSync, accessSync, constants } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startMock, type MockEvent, type Scenario } from '../mock/index.ts';
import { makeTempDir, release, removeFolder, removeWorktreesOf, stopProcessesIn, trackChild, trackWorktreesOf } from '../runner/cleanup.ts';
import { checkExpectations, type ExpectationResult } from '../runner/expectations.ts';
import { ROOT, loadScenarioFile } from '../runner/scenarios.ts';
import { writeTree } from '../runner/run-chapter.ts';
import type { XrayCase, XrayTrace } from './trace.ts';
import { pinnedVersion as pinnedIn } from './facts-file.ts';
import { readRepo } from './repo.ts';
import { makeRepository, type FirstCommit } from '../runner/git-repo.ts';

export const XRAY_CASES: readonly XrayCase[] = ['delegate', 'fork', 'fork-seed', 'guard', 'limits', 'skills', 'worktree', 'failed', 'stop', 'continue', 'session'];

/** The Claude Code release the project is measured against: xray/PINNED, one line. */
export function pinnedVersion(root = ROOT): string {
  return pinnedIn(root);
}

/**
 * The scenarios of a case, each one run of the binary: one, except where two settings must
 * not share a run (a concurrency cap and a depth cap would blur which one removed what).
 */
export const CASE_SCENARIOS: Readonly<Record<XrayCase, readonly string[]>> = {
  delegate: ['delegate'], fork: ['fork'], 'fork-seed': ['fork-seed'], guard: ['guard'],
  limits: ['limits', 'limits-depth', 'limits-default', 'limits-chain', 'limits-malformed'], skills: ['skills', 'skills-subfolder', 'skills-write', 'agent-models'], worktree: ['worktree', 'worktree-kept'], failed: ['failed'], stop: ['stop'], continue: ['continue', 'continue-running'],
  session: ['session-id-file', 'session-id-name', 'session-id-uuid'],
};

/**
 * Cases whose command line the client may refuse before it sends anything: whether it
 * starts at all is what they measure, so an exit with an error and no request are no
 * problem of the run there (a timeout, or a request the mock refused, still is).
 */
const MAY_REFUSE_TO_START: ReadonlySet<XrayCase> = new Set(['session']);

export function xrayScenarioFile(name: string, root = ROOT): string {
  return path.join(root, 'scenarios', 'xray', `${name}.json`);
}

/** The one line printed when no Claude Code can be found. */
export function installHint(): string {
  return `no Claude Code found: give --claude PATH, or put \`claude\` on PATH ` +
    `(e.g. npm install --prefix /tmp/cc @anthropic-ai/claude-code@${safePinned()} and --claude /tmp/cc/node_modules/.bin/claude)`;
}

function safePinned(): string {
  try { return pinnedVersion(); } catch { return 'latest'; }
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The binary to drive: `--claude PATH` if given (it must be an executable file), else
 * the first `claude` on PATH. undefined when there is none.
 */
export function findClaude(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flag !== undefined) {
    const file = path.resolve(flag);
    return isExecutable(file) ? file : undefined;
  }
  const names = process.platform === 'win32' ? ['claude.exe', 'claude.cmd', 'claude'] : ['claude'];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    for (const n of names) {
      const file = path.join(dir, n);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}

const VERSION_TIMEOUT_MS = 20_000;

/** `claude --version` → "2.1.328". Run with a clean environment and a temp HOME, removed after. */
export async function claudeVersion(bin: string, parentEnv: NodeJS.ProcessEnv = process.env, timeoutMs = VERSION_TIMEOUT_MS): Promise<string> {
  const home = await makeTempDir('subagents-xray-version-');
  try {
    // Port 9 (discard) on loopback: should --version ever call out, it reaches nothing.
    const env = childEnv(parentEnv, { mockUrl: 'http://127.0.0.1:9', home, tmp: home });
    return await new Promise<string>((resolve, reject) => {
      // SIGKILL: execFile answers once the program has exited, and one that ignores SIGTERM
      // (execFile's default) held the x-ray for as long as it chose to run, past the limit.
      execFile(bin, ['--version'], { env, cwd: home, timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
        if (err) {
          // execFile's own message repeats the command; what is news is how it ended.
          const how = err.killed ? `killed after ${timeoutMs / 1000} s` : typeof err.code === 'number' ? `exit status ${err.code}` : err.code ?? err.message.split('\n')[0];
          const said = (stderr || stdout).trim().split('\n').at(-1);
          reject(new Error(`${bin} --version failed (${how})${said ? `: ${said}` : ''}`));
          return;
        }
        // Claude Code says "2.1.328 (Claude Code)". Any other program that answers --version
        // with a number (node, python, git) would be driven through every case, each failing,
        // under the heading "Claude Code 20.20.2": refused here, in one line.
        const said = stdout.trim().split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 80) ?? '';
        if (!said.includes('Claude Code')) {
          reject(new Error(`${bin} is not Claude Code: its --version says ${said ? `"${said}"` : 'nothing'}, where Claude Code's says "${safePinned()} (Claude Code)"`));
          return;
        }
        const v = /\d+\.\d+\.\d+\S*/.exec(said)?.[0];
        if (!v) { reject(new Error(`${bin} --version printed no version: ${JSON.stringify(said)}`)); return; }
        resolve(v);
      });
    });
  } finally {
    // The timeout above kills the client, not what it started (a child still in this folder).
    stopProcessesIn(home);
    removeFolder(home);
    release(home);
  }
}

/**
 * The variables taken from the user's environment: what a process needs to run and to
 * print (PATH, locale, terminal, time zone, who the user is), nothing that configures
 * Claude Code or points it anywhere. Everything else is set here or by the case.
 */
export const ENV_ALLOW = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TERM', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'SYSTEMROOT', 'COMSPEC', 'PATHEXT',
  // The runner's mark (src/runner/cleanup.ts): whatever the client starts carries it, so a
  // process that left its group and its folder (`cd / && setsid sleep …`) still goes at exit.
  'SUBAGENTS_RUNNER'] as const;

/** What every case sets: the mock as the API, a dummy key, and no traffic beyond the model calls. */
export const XRAY_ENV = {
  ANTHROPIC_API_KEY: 'xray-dummy-key',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
} as const;

/**
 * The child's environment: the allow-listed variables of `parent`, then HOME, the
 * temp folder and the XDG folders inside the temp home (so nothing the binary writes
 * lands outside the run's temp folder), the mock's URL and XRAY_ENV, then the case's
 * own variables (CLAUDE_CODE_FORK_SUBAGENT …), which come from the scenario, never
 * from the user.
 */
export function childEnv(parent: NodeJS.ProcessEnv, o: { mockUrl: string; home: string; tmp?: string; caseEnv?: Record<string, string> }): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ENV_ALLOW) {
    const v = parent[k];
    if (typeof v === 'string' && v !== '') env[k] = v;
  }
  const tmp = o.tmp ?? path.join(o.home, 'tmp');
  Object.assign(env, {
    HOME: o.home,
    USERPROFILE: o.home,
    TMPDIR: tmp, TMP: tmp, TEMP: tmp,
    XDG_CONFIG_HOME: path.join(o.home, '.config'),
    XDG_CACHE_HOME: path.join(o.home, '.cache'),
    XDG_DATA_HOME: path.join(o.home, '.local', 'share'),
    XDG_STATE_HOME: path.join(o.home, '.local', 'state'),
    ANTHROPIC_BASE_URL: o.mockUrl,
    ...XRAY_ENV,
    ...o.caseEnv,
  });
  return env;
}

export interface DriveResult {
  trace: XrayTrace;
  /** The scenario that ran (scenarios/xray/NAME.json). */
  scenario: string;
  /** What went wrong, one line each: scenario failures, a 400 the case did not script,
   *  a timeout, a non-zero exit, an expectation of the case that did not hold. [] = clean. */
  problems: string[];
  expectations: ExpectationResult[];
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
  /** The run's temp folder (work/, home/): removed unless keep. */
  tempDir: string;
}

export interface DriveOptions {
  bin: string;
  version: string;
  name: XrayCase;
  /** Which of the case's scenarios (CASE_SCENARIOS); default the case's first. */
  scenario?: string;
  /** Kill the binary's process group after this long (default 90 s). */
  timeoutMs?: number;
  keep?: boolean;
  /** The environment the allow-list reads from (default process.env; tests pass their own). */
  parentEnv?: NodeJS.ProcessEnv;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try { process.kill(-pid, signal); } catch { /* already gone */ }
}

/**
 * The x-ray workspace's first commit: an identity of its own, nothing added to the
 * repository's configuration, and git's templates, so Claude Code meets the repository as
 * `git init` left it.
 */
const XRAY_FIRST_COMMIT: FirstCommit = { identity: { name: 'xray', email: 'xray@example.invalid' }, message: 'First commit', config: '', templates: true };

/** A git repository with the case's files as its first commit (Claude Code reads git status). */
async function gitWorkspace(dir: string, files: Record<string, string> | undefined): Promise<void> {
  writeTree(dir, files);
  await makeRepository(dir, XRAY_FIRST_COMMIT);
}

/** Scenario problems a real-client case can have that the loader does not know about. */
function checkCase(s: Scenario): void {
  if (s.prompts.length !== 1) throw new Error(`${s.file}: $.prompts: an x-ray case runs Claude Code in print mode, so it has exactly one prompt (got ${s.prompts.length})`);
}

/**
 * Requests the mock refused that the case did not script: a rule of the real API the
 * mock applies (or applies wrongly) that the real client broke. For the pinned release
 * that is the mock's calibration failing, so it is a problem of the run.
 */
export function unscriptedRejections(events: readonly MockEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type !== 'error' || e.injected || e.message.startsWith('[mock]')) continue;
    const req = events.find((r) => r.type === 'request' && r.seq === e.seq);
    const where = req?.type === 'request' ? `${req.path}${req.query ? `?${req.query}` : ''}` : '?';
    out.push(`request #${e.seq} (${where}) was refused: ${e.status} ${e.error_type}: ${e.message}`);
  }
  return out;
}

/** Runs one case. Never throws for what the binary does; throws for a broken case file. */
export async function driveCase(o: DriveOptions): Promise<DriveResult> {
  const started = performance.now();
  const scenarioName = o.scenario ?? CASE_SCENARIOS[o.name][0]!;
  if (!CASE_SCENARIOS[o.name].includes(scenarioName)) throw new Error(`case ${o.name} has no scenario "${scenarioName}" (it has ${CASE_SCENARIOS[o.name].join(', ')})`);
  const scenario = await loadScenarioFile(xrayScenarioFile(scenarioName));
  checkCase(scenario);
  // Registered with the shared cleanup (src/runner/cleanup.ts): should the x-ray be
  // interrupted (Ctrl-C, SIGTERM, a crash), the folder goes, and so does the binary's
  // whole process group (it is spawned detached, leading its own group).
  const tempDir = await makeTempDir('subagents-xray-');
  const entry: { pid?: number } = {};
  const work = path.join(tempDir, 'work');
  const home = path.join(tempDir, 'home');
  const tmp = path.join(tempDir, 'tmp');
  let mock: Awaited<ReturnType<typeof startMock>> | undefined;
  let stdout = '';
  let stderr = '';
  let exitCode: number | null = null;
  let timedOut = false;
  const problems: string[] = [];
  let releaseRepo = (): void => {};
  try {
    try {
      await mkdir(work);
      await mkdir(home);
      await mkdir(tmp);
      writeTree(home, scenario.home_files);
      mock = await startMock({ scenario });
      const env = childEnv(o.parentEnv ?? process.env, { mockUrl: mock.url, home, tmp, caseEnv: scenario.env });
      await gitWorkspace(work, scenario.files);
      // A worktree the client makes is removed at the end wherever git put it, as a chapter's are.
      releaseRepo = trackWorktreesOf(work);
      const args = ['-p', scenario.prompts[0]!, '--permission-mode', 'acceptEdits', ...(scenario.argv ?? [])];
      // Its own process group, so a timeout or a Ctrl-C takes whatever it started along with it.
      const child = spawn(o.bin, args, { cwd: scenario.cwd ? path.join(work, scenario.cwd) : work, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      entry.pid = child.pid;
      trackChild(child);
      child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
      child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
      const timeoutMs = o.timeoutMs ?? 90_000;
      exitCode = await new Promise<number | null>((resolve) => {
        let hard: NodeJS.Timeout | undefined;
        const soft = setTimeout(() => {
          timedOut = true;
          killGroup(child.pid, 'SIGTERM');
          hard = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000);
        }, timeoutMs);
        child.once('error', (err) => { problems.push(`could not start ${o.bin}: ${err.message}`); clearTimeout(soft); resolve(null); });
        child.once('close', (code) => { clearTimeout(soft); if (hard) clearTimeout(hard); resolve(code); });
      });
      // Whatever the binary left running in its group goes with it, and so does anything
      // still working in the workspace that left the group (a background shell of its own).
      killGroup(child.pid, 'SIGKILL');
      entry.pid = undefined;
      stopProcessesIn(tempDir);
      if (timedOut) problems.push(`${scenarioName}: Claude Code did not finish within ${Math.round(timeoutMs / 1000)} s (killed)`);
      else if (exitCode !== 0 && exitCode !== null && !MAY_REFUSE_TO_START.has(o.name)) problems.push(`${scenarioName}: Claude Code exited with status ${exitCode}: ${lastLine(stderr || stdout)}`);
    } finally {
      killGroup(entry.pid, 'SIGKILL');
      await mock?.close();
    }
    const events = mock?.events ?? [];
    problems.push(...(mock?.failures ?? []), ...unscriptedRejections(events));
    // A client that never asked for the conversation's first answer ran none of the case:
    // every fact read from it would be read from nothing. Said unless something above
    // already explains it (it could not start, timed out, or exited with an error).
    if (problems.length === 0 && !MAY_REFUSE_TO_START.has(o.name) && !events.some((e) => e.type === 'request' && e.track === 'main')) {
      problems.push(`${scenarioName}: ${o.bin} never asked the mock for the main conversation (${events.filter((e) => e.type === 'request').length} requests in all): it ran none of the case`);
    }
    const expectations = await checkExpectations(scenario, { events, terminal: stdout, workspace: work });
    for (const e of expectations) if (!e.ok) problems.push(`${scenarioName}: ${e.name}: ${e.detail}`);
    // What the client left in the repository (a worktree it kept, a branch it removed): the disk's word, not the wire's.
    const repo = await readRepo(work);
    return {
      trace: {
        source: 'claude-code', version: o.version, case: o.name, events, cwd: work, home,
        env: { ...scenario.env }, files: { ...scenario.files }, homeFiles: { ...scenario.home_files },
        ...(scenario.argv && { argv: [...scenario.argv] }), ...(scenario.cwd && { start: scenario.cwd }), ...(repo && { repo }),
      },
      scenario: scenarioName, problems, expectations, exitCode, timedOut, stdout, stderr, ms: performance.now() - started, tempDir,
    };
  } finally {
    if (!o.keep) {
      removeWorktreesOf(work, tempDir);
      removeFolder(tempDir);
    }
    releaseRepo();
    release(tempDir);
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter((l) => l.trim() !== '');
  const l = lines.at(-1) ?? '(no output)';
  return l.length > 160 ? `${l.slice(0, 159)}…` : l;
}
