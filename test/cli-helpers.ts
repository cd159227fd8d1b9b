// Helpers for the tests that run the runner as a user types it (commands.test.ts,
// classroom.test.ts, cli.test.ts, bad-scenarios.test.ts, cleanup.test.ts): a command spawned
// and run to its end without blocking this process, so that the test's own servers can
// answer it; or the same command line given to main() in this process, where what is tested
// is what it prints, not the process. Not a test file itself.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { vi } from 'vitest';
import { main } from '../src/runner/cli.ts';
import { ROOT } from '../src/runner/scenarios.ts';
import { tracked } from './children.ts';

export interface Ran { code: number | null; out: string; err: string }

/**
 * The environment this worker began with, for the processes tests start: not process.env as
 * it is at that moment. A run in this process (runInProcess) sets variables while it runs
 * (TMPDIR, NO_COLOR, a test's SUBAGENTS_SLOW_NOTICE_MS), and a test running beside it
 * (describe.concurrent) would hand them to its child.
 */
export const WORKER_ENV: Readonly<NodeJS.ProcessEnv> = Object.freeze({ ...process.env });

/** Runs a command to its end without blocking this process (a test's own servers must answer it). */
export function sh(cmd: string, args: string[], o: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...WORKER_ENV, NO_COLOR: "1", ...o.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const child = tracked(spawn(cmd, args, { cwd: o.cwd ?? ROOT, env }), [cmd, ...args].join(' '));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += String(d); });
    child.stderr.on('data', (d) => { err += String(d); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    // A command that ends before reading its input closes the pipe: the write's EPIPE is
    // that, not a failure of the test (its exit code and output say what happened), and
    // unheard it would be an uncaught error that fails the whole run.
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.input ?? '');
  });
}

/** `node steps/run.mjs ARGS`, as typed in the project folder. */
export const runMjs = (args: string[], o: Parameters<typeof sh>[2] = {}) => sh(process.execPath, [path.join(ROOT, 'steps/run.mjs'), ...args], o);


let turn: Promise<unknown> = Promise.resolve();

/** What a spawned command would get besides its arguments: environment variables (undefined: unset), stdin. */
export interface InProcessOptions { env?: Record<string, string | undefined>; input?: string }

/**
 * `node steps/run.mjs ARGS` without the process: main() with the console, stdout and stderr
 * captured, the environment given (NO_COLOR=1 and `env`, as sh() gives a child), and stdin
 * the text `input` then its end (as sh() gives a child a pipe). One at a time (the capture,
 * the environment and stdin are process-wide, and are put back once main() returns), so it
 * is safe in a concurrent block; a test running beside it there sees that environment too,
 * and a child it spawns inherits it (sh() passes its own env on top, so pass the variable).
 *
 * What stays out of reach here is what only a process shows: its exit status as the shell
 * sees it, signals, what steps/run.mjs and the fast-start loader do before main(), and
 * whatever is still running when it should have ended. Those tests spawn (runMjs).
 */
export function runInProcess(args: string[], o: InProcessOptions = {}): Promise<Ran> {
  const mine = turn.then(async () => {
    let out = '';
    let err = '';
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => { out += `${a.join(' ')}\n`; });
    const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => { err += `${a.join(' ')}\n`; });
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { out += String(chunk); return true; });
    const writeErr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { err += String(chunk); return true; });
    const env: Record<string, string | undefined> = { NO_COLOR: '1', ...o.env };
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    const setEnv = (values: Record<string, string | undefined>) => {
      for (const [k, v] of Object.entries(values)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    };
    // process.stdin is a getter that makes the stream on first use: swapped for the run, then put back.
    const stdinProperty = Object.getOwnPropertyDescriptor(process, 'stdin')!;
    const stdin = new PassThrough();
    stdin.end(o.input ?? '');
    try {
      setEnv(env);
      Object.defineProperty(process, 'stdin', { value: stdin, configurable: true, enumerable: true, writable: true });
      return { code: await main(args), out, err };
    } finally {
      Object.defineProperty(process, 'stdin', stdinProperty);
      setEnv(saved);
      log.mockRestore(); error.mockRestore(); write.mockRestore(); writeErr.mockRestore();
    }
  });
  turn = mine.catch(() => undefined);
  return mine;
}

/**
 * A loopback port nothing listens at, for a test that expects a connection to be refused.
 * Not one listen(0) handed out and then closed: that port goes back to the pool every mock of
 * the suite takes its port from (four workers, and the processes they start), and one may
 * be listening there while the test still counts on a refusal. This one lies just below that
 * pool (Linux: /proc/sys/net/ipv4/ip_local_port_range), where listen(0) never reaches, and a
 * connect is refused there before it is handed out. Elsewhere, the closed listen(0) port.
 */
export async function refusedPort(): Promise<number> {
  let low: number | undefined;
  try { low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || undefined; } catch { /* not Linux */ }
  for (let tries = 0; low !== undefined && low > 3024 && tries < 20; tries++) {
    const port = low - 1 - Math.floor(Math.random() * 2000);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(false); });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
    if (refused) return port;
  }
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Why a run in a terminal cannot happen here, or undefined: it needs util-linux's script(1) (BSD's takes other arguments). */
export function noTerminal(): string | undefined {
  const version = spawnSync('script', ['--version'], { encoding: 'utf8' });
  if (version.error) return 'no script(1) on PATH to give the run a terminal';
  if (!/util-linux/.test(version.stdout)) return 'script(1) here is not util-linux\'s';
  return undefined;
}

/** The keyboard of a run in a terminal: type keys, or type the last ones and close the input. */
export interface Keyboard { type(text: string): void; end(text?: string): void }

/**
 * `line` run by sh in a terminal made by util-linux script(1) (noTerminal says whether there
 * is one), in `cwd`, with `env` over this worker's environment. `react` is called after each
 * output, and every 20 ms for what happens off screen (a request reaching a mock), with all
 * the terminal showed so far and its keyboard: the test types there what a person would, once
 * the screen says it is time. What the terminal showed, as it was sent (\r\n line ends, colour
 * codes), and the exit status; a run still going after 30 s is stopped.
 */
export async function inTerminal(line: string, o: { cwd: string; env: NodeJS.ProcessEnv; label: string; react: (out: string, keys: Keyboard) => void }): Promise<{ out: string; code: number | null }> {
  // -e: script's exit status is the command's. /dev/null: no typescript file is kept.
  const child = tracked(spawn('script', ['-qec', line, '/dev/null'], { cwd: o.cwd, env: { ...WORKER_ENV, SHELL: '/bin/sh', ...o.env } }), `${o.label} under script(1)`);
  let out = '';
  const keys: Keyboard = {
    type: (text) => { if (!child.stdin.writableEnded) child.stdin.write(text); },
    end: (text = '') => { if (!child.stdin.writableEnded) child.stdin.end(text); },
  };
  // Keys typed as the run ends find the pipe closed: that is its end, not the test's failure.
  child.stdin.on('error', () => undefined);
  const look = () => o.react(out, keys);
  child.stdout.setEncoding('utf8');   // a character split between two reads stays whole
  child.stdout.on('data', (d: string) => { out += d; look(); });
  child.stderr.on('data', (d) => { out += String(d); look(); });
  const tick = setInterval(look, 20);
  // script(1) stopped by a signal exits 0: a run that had to be stopped must not read as one that ended.
  let stopped = false;
  const late = setTimeout(() => { stopped = true; child.kill('SIGTERM'); }, 30_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).finally(() => { clearTimeout(late); clearInterval(tick); });
  if (stopped) throw new Error(`${o.label}: still running after 30 s, so it was stopped; the terminal showed: ${JSON.stringify(out.slice(-2000))}`);
  return { out, code };
}

/**
 * What a terminal would show after `out` (a terminal run's output, as sent), line by line:
 * text written where the cursor is, carriage returns and line feeds, and the cursor moves and
 * erasures readline sends (up, down, left, right, to a column; to the end of the line or of
 * the screen). Colours and other codes are dropped. No width: script(1) gives the run none,
 * so nothing wraps. Text a run overwrote or erased is gone, as on a screen, which the bytes
 * alone do not show.
 */
export function screenOf(out: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let col = 0;
  const put = (ch: string) => {
    const line = lines[row]!.padEnd(col);
    lines[row] = line.slice(0, col) + ch + line.slice(col + 1);
    col++;
  };
  for (let i = 0; i < out.length; i++) {
    const ch = out[i]!;
    if (ch === '\x1b') {
      const m = /^\x1b\[([?\d;]*)([A-Za-z])/.exec(out.slice(i));
      if (!m) continue;
      i += m[0].length - 1;
      const n = Number(m[1]!.split(';')[0]) || 0;
      switch (m[2]) {
        case 'A': row = Math.max(0, row - (n || 1)); break;
        case 'B': row += n || 1; while (lines.length <= row) lines.push(''); break;
        case 'C': col += n || 1; break;
        case 'D': col = Math.max(0, col - (n || 1)); break;
        case 'G': col = Math.max(0, (n || 1) - 1); break;
        case 'K': if (n === 0) lines[row] = lines[row]!.slice(0, col); else if (n === 2) lines[row] = ''; break;
        case 'J': if (n === 0) { lines[row] = lines[row]!.slice(0, col); lines.length = row + 1; } else if (n >= 2) { lines.length = 0; lines.push(''); row = 0; col = 0; } break;
        case 'H': row = 0; col = 0; break;
        default: break;   // colours, cursor visibility: nothing on screen
      }
      continue;
    }
    if (ch === '\r') { col = 0; continue; }
    if (ch === '\n') { row++; col = 0; while (lines.length <= row) lines.push(''); continue; }
    if (ch < ' ' && ch !== '\t') continue;
    put(ch);
  }
  return lines.map((l) => l.trimEnd());
}
