// Helpers for the tests that run the runner as a user types it (commands.test.ts,
// classroom.test.ts): a command spawned and run to its end without blocking this process, so
// that the test's own servers can answer it; or the same command line given to main() in
// this process, where what is tested is what it prints, not the process. Not a test file itself.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { vi } from 'vitest';
import { main } from '../src/runner/cli.ts';
import { ROOT } from '../src/runner/scenarios.ts';

export interface Ran { code: number | null; out: string; err: string }

/** Runs a command to its end without blocking this process (a test's own servers must answer it). */
export function sh(cmd: string, args: string[], o: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", ...o.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const child = spawn(cmd, args, { cwd: o.cwd ?? ROOT, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += String(d); });
    child.stderr.on('data', (d) => { err += String(d); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(o.input ?? '');
  });
}

/** `node steps/run.mjs ARGS`, as typed in the project folder. */
export const runMjs = (args: string[], o: Parameters<typeof sh>[2] = {}) => sh(process.execPath, [path.join(ROOT, 'steps/run.mjs'), ...args], o);


let turn: Promise<unknown> = Promise.resolve();

/**
 * `node steps/run.mjs ARGS` without the process: main() with the console and stdout captured.
 * One at a time (the capture is process-wide), so it is safe in a concurrent block.
 */
export function runInProcess(args: string[]): Promise<Ran> {
  const mine = turn.then(async () => {
    let out = '';
    let err = '';
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => { out += `${a.join(' ')}\n`; });
    const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => { err += `${a.join(' ')}\n`; });
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { out += String(chunk); return true; });
    try {
      return { code: await main(args), out, err };
    } finally {
      log.mockRestore(); error.mockRestore(); write.mockRestore();
    }
  });
  turn = mine.catch(() => undefined);
  return mine;
}
