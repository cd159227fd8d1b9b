// `--check --watch`: the exercise loop without retyping the command. The check runs once,
// then again each time a file of the exercise folder changes, on a cleared screen, until
// every scenario passes (then it stops, exit 0) or the learner presses Ctrl-C (exit 130:
// src/runner/cleanup.ts's handlers remove the temp folder of a check in flight).
//
// What it is not: a file watcher for the project. Only the exercise folder is watched;
// each check is the same one `--check` runs, with its own temp folders removed as usual.
//
// A watch lives as long as what started it. A closed terminal sends SIGHUP, and cleanup.ts's
// handlers end the run; a parent killed outright (SIGKILL: an editor's task runner, a
// grading script stopped) sends nothing, and the watch went on for good, handed to another
// parent, watching a folder for nobody (endWithParent).

import { existsSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { exitHandlersInstalled } from './cleanup.ts';

/**
 * In a command-line process: look at the parent once a second, and once it has changed (the
 * one that started the watch is gone), end as a hangup would: SIGHUP to this process, whose
 * handler stops a check in flight, removes its temp folder and exits 129. Returns the function
 * that stops looking. Not on Windows, which has no SIGHUP to send.
 */
export function endWithParent(): () => void {
  if (!exitHandlersInstalled() || process.platform === 'win32') return () => undefined;
  const parent = process.ppid;
  const look = setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, 'SIGHUP'); }, 1000);
  look.unref();
  return () => clearInterval(look);
}

/**
 * `check` prints one check and returns its exit code (0 when every scenario passes). What
 * ends the watch or a round as an error (a folder gone, a check that threw) goes to `err`.
 */
export async function watchExercise(dir: string, label: string, check: () => Promise<number>, out: NodeJS.WriteStream = process.stdout, err: { write(text: string): unknown } = process.stderr): Promise<number> {
  const clear = () => { if (out.isTTY) out.write('\x1b[2J\x1b[3J\x1b[H'); };
  let running: Promise<number> | undefined;
  let again = false;
  let watcher: FSWatcher | undefined;
  let stopped = false;
  let finish!: (code: number) => void;
  const done = new Promise<number>((resolve) => { finish = resolve; });

  const stop = (code: number) => {
    if (stopped) return;
    stopped = true;
    watcher?.close();
    finish(code);
  };

  const round = async (): Promise<void> => {
    if (stopped) return;
    if (running) { again = true; return; }
    // A folder removed or moved away sends no more changes: nothing left to wait for.
    if (!existsSync(path.join(dir, 'main.ts'))) {
      err.write(`${label}: its main.ts is gone (the folder was removed or moved); stopped watching\n`);
      return stop(2);
    }
    clear();
    running = check().catch((thrown: unknown) => {
      err.write(`${thrown instanceof Error ? thrown.message : String(thrown)}\n`);
      return 1;
    });
    const code = await running;
    running = undefined;
    if (stopped) return;
    if (code === 0) return stop(0);
    out.write(`\nwatching ${label} for changes · Ctrl-C to stop\n`);
    if (again) { again = false; await round(); }
  };

  // Editors save in bursts (a temp file, a rename, a write): one check per burst.
  let timer: NodeJS.Timeout | undefined;
  // Subfolders too: a helper in lib/ is part of the exercise (Linux, macOS and Windows watch them natively).
  watcher = watch(dir, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => { void round(); }, 80);
  });
  await round();
  const code = await done;
  clearTimeout(timer);
  return code;
}
