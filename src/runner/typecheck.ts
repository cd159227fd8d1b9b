// The type check `--check` runs on an exercise folder before its scenarios: the runner
// loads TypeScript by stripping the types (esbuild), so a type error would otherwise run
// and go unnoticed. It runs the project's own `typescript` on that folder's main.ts (and
// what it imports: the folder's files, the SDK's types), with the compiler options of
// tsconfig.json. A folder found clean is remembered (node_modules/.cache): the same files
// again, under the same compiler, options and packages, are clean without a compiler run
// (a --watch loop back to a clean state, a check run twice). Only "clean" is remembered:
// errors are always the compiler's own, fresh. (The compiler's --incremental build info made
// no re-check faster here, with TypeScript 7: about 0.5 s of CPU either way.) Under --watch
// the compiler stays on in its own watch mode instead (watchTypeErrors): it keeps what it
// parsed, so a save is checked again in about a third of the time.
//
// "The same files" are the ones the compiler could read (.ts, .js, .json and their kin): a
// note saved beside the code changes no verdict.
//
// What it is not: the project's type check (`npm run typecheck`, in the tests), or a
// linter. Only errors are reported, one line each.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { trackChild } from './cleanup.ts';

export interface TypeError { file: string; line: number; column: number; message: string }

/**
 * The compiler options of tsconfig.json, as flags: a file list on the command line cannot
 * take a -p. The same options, so that a snapshot the project's type check passes is clean
 * in an exercise folder too (test/typecheck.test.ts holds the two lists together).
 */
export const COMPILER_OPTIONS = ['--target', 'ES2022', '--lib', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--strict',
  '--allowImportingTsExtensions', '--erasableSyntaxOnly', '--verbatimModuleSyntax', '--resolveJsonModule',
  '--skipLibCheck', '--noFallthroughCasesInSwitch', '--types', 'node'];

/**
 * The compiler's environment: the native compiler is a Go program, and a check is over in
 * well under a second, so its garbage collector only costs time. Without it (GOGC=off),
 * measured here: a folder's check takes about 0.22 s of CPU instead of 0.29 s, the project's
 * 1.0 s instead of 1.3 s, for at most a tenth more memory (91 MB and 232 MB at their peak).
 * GOMEMLIMIT brings the collector back should a check ever grow past 1 GiB. A GOGC or
 * GOMEMLIMIT of the user's own is kept.
 */
export function compilerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, GOGC: env.GOGC ?? 'off', GOMEMLIMIT: env.GOMEMLIMIT ?? '1GiB' };
}

/**
 * How to start the project's compiler: [program, ...arguments before the compiler's own].
 * TypeScript 7's `bin/tsc` is a small node script that finds the native compiler in a
 * package for this platform and, on Node 20, waits beside it. Started directly, a check
 * costs one node start less (about 0.1 s of CPU). Without that package where npm puts it,
 * the script, which knows every layout; undefined when there is no compiler at all.
 */
export function compilerCommand(root: string): string[] | undefined {
  const native = path.join(root, 'node_modules', '@typescript', `typescript-${process.platform}-${process.arch}`, 'lib', process.platform === 'win32' ? 'tsc.exe' : 'tsc');
  if (existsSync(native)) return [native];
  const script = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return existsSync(script) ? [process.execPath, script] : undefined;
}

/** What typeErrors knows of a folder before compiling it: its key, or why no compiler run is needed. */
interface FolderState { stub: boolean; key: string; remember: string | undefined }

/**
 * The folder's state: a TODO stub still there (a stub replaces code the compiler narrows
 * types with, an `if (!tool) throw …`, so a fresh exercise has errors the learner never
 * made), the key of its contents under this compiler, options and packages, and the file
 * that remembers it clean (none when a file imports from outside the folder: inputs the key
 * does not see).
 */
function folderState(root: string, dir: string): FolderState {
  // Every file below the folder the compiler could read, subfolders too (a helper in lib/ is
  // checked with the rest, so an edit there must change the key), but not a node_modules or a
  // hidden folder. Not a note or a README: the same code with another note is as clean.
  const names = (readdirSync(dir, { recursive: true }) as string[])
    .filter((rel) => /\.(?:[cm]?[jt]sx?|json)$/.test(rel) && !rel.split(path.sep).some((part) => part === 'node_modules' || part.startsWith('.')) && statSync(path.join(dir, rel)).isFile())
    .sort();
  const bytes = names.map((name) => readFileSync(path.join(dir, name)));
  const texts = bytes.map((b, i) => (names[i]!.endsWith('.ts') ? b.toString('utf8') : ''));
  const stub = texts.some((t) => /TODO\([\w-]+\): not implemented yet'\)/.test(t));
  const outside = texts.some((t) => /(?:from|import)\s*\(?\s*['"]\.\.\//.test(t));
  const hash = createHash('sha256').update(`${COMPILER_OPTIONS.join(' ')}\0`);
  for (const file of ['package-lock.json', 'node_modules/typescript/package.json']) hash.update(existsSync(path.join(root, file)) ? readFileSync(path.join(root, file)) : '').update('\0');
  names.forEach((name, i) => hash.update(`${name}\0`).update(bytes[i]!).update('\0'));
  const key = hash.digest('hex');
  return { stub, key, remember: outside ? undefined : path.join(root, 'node_modules', '.cache', 'subagents-check', `clean-${key}`) };
}

/** The compiler's arguments for one folder (after the program and what comes before its own). */
function compilerArgs(dir: string, watch: boolean): string[] {
  // One compiler thread: the check runs beside the folder's scenarios (exercise-cli.ts starts
  // both at once), so the compiler's extra threads only compete with them for a core. A
  // chapter's folder checks in about the same wall time with a sixth less CPU (0.46 -> 0.39 s
  // on two cores). Not in COMPILER_OPTIONS: it changes how the folder is checked, not what.
  return ['--ignoreConfig', '--noEmit', '--pretty', 'false', '--singleThreaded', ...(watch ? ['--watch', '--preserveWatchOutput'] : []), ...COMPILER_OPTIONS, path.join(dir, 'main.ts')];
}

/** The compiler's error lines in `output`, as type errors with paths relative to the current folder. */
function parseErrors(root: string, output: string): TypeError[] {
  const errors: TypeError[] = [];
  for (const line of output.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): error TS\d+: (.*)$/.exec(line.trim());
    if (!m) continue;
    const file = path.relative(process.cwd(), path.resolve(root, m[1]!));
    errors.push({ file, line: Number(m[2]), column: Number(m[3]), message: m[4]! });
  }
  return errors;
}

/** Remember a folder found clean, by its key. */
function rememberClean(state: FolderState): void {
  if (!state.remember) return;
  mkdirSync(path.dirname(state.remember), { recursive: true });
  writeFileSync(state.remember, '');
}

/**
 * Type errors in `dir` (paths relative to the current folder); [] when there are none or no
 * compiler, and while a TODO stub is left (folderState).
 */
export async function typeErrors(root: string, dir: string): Promise<TypeError[]> {
  const compiler = compilerCommand(root);
  if (!compiler) return [];
  const state = folderState(root, dir);
  if (state.stub || (state.remember && existsSync(state.remember))) return [];
  const [program, ...before] = compiler;
  const { output, code } = await new Promise<{ output: string; code: number | null }>((resolve, reject) => {
    // Its own process group (the compiler may be the script and the native program it
    // starts), stopped with the run if the run is interrupted (cleanup.ts).
    const child = spawn(program!, [...before, ...compilerArgs(dir, false)], { cwd: root, env: compilerEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    trackChild(child);
    let text = '';
    child.stdout.on('data', (d) => { text += String(d); });
    child.stderr.on('data', (d) => { text += String(d); });
    child.on('error', reject);
    child.on('close', (status) => resolve({ output: text, code: status }));
  });
  if (code === 0) rememberClean(state);
  return parseErrors(root, output);
}

/**
 * For `--check --watch`: the compiler kept running in its own watch mode on the folder, so a
 * save is re-checked incrementally (about 0.17 s here for a one-file change, where a fresh
 * run takes 0.45 s: it parses the SDK's and Node's declarations again each time). Each round
 * the compiler finishes is filed under the folder's key as it stood when the round began, if
 * the folder did not change while it ran;
 * `errors()` answers for the folder as it is now, from the round with that key, waiting for it
 * if the compiler is still at it. Should the compiler not answer for these contents (it
 * cannot start, it stopped, its output changed shape, a round never comes), that check runs
 * the compiler once instead (`runOnce`), as without --watch. `noticeMs`: how long the
 * compiler is given to notice a change before that (a test on a busy machine gives more).
 */
export function watchTypeErrors(root: string, dir: string, runOnce = typeErrors, noticeMs = 150): { errors: () => Promise<TypeError[]>; close: () => void } {
  const compiler = compilerCommand(root);
  if (!compiler) return { errors: async () => [], close: () => {} };
  // A compiler in watch mode never ends by itself: should this process be killed outright
  // (SIGKILL, which no handler sees), the kernel stops it too where it can be asked to
  // (Linux: util-linux's setpriv sets the signal a process gets when its parent dies).
  const setpriv = process.platform === 'linux' ? ['/usr/bin/setpriv', '/bin/setpriv'].find((f) => existsSync(f)) : undefined;
  const command = [...(setpriv ? [setpriv, '--pdeathsig', 'TERM', '--'] : []), ...compiler, ...compilerArgs(dir, true)];
  // With its garbage collector on (compilerEnv turns it off for a run that is over in a
  // moment): a compiler that stays on for hours would otherwise grow to GOMEMLIMIT.
  const child = spawn(command[0]!, command.slice(1), { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  trackChild(child);
  const rounds = new Map<string, TypeError[]>();   // key -> errors
  const waiting = new Set<() => void>();
  let alive = true;
  let missed = 0;   // checks in a row for which the compiler began no round
  let started: FolderState | undefined;
  // A round is filed only if nothing in the folder changed while it ran: an editor's save is a
  // truncation and then a write, and a round begun on the first may have read half a file.
  let disturbed = false;
  const changes = watch(dir, { recursive: true }, () => { disturbed = true; });
  changes.on('error', () => {});
  let lines = '';
  let buffer = '';
  const settle = () => { for (const wake of waiting) wake(); };
  child.on('error', () => { alive = false; settle(); });
  child.on('close', () => { alive = false; settle(); });
  child.stderr.resume();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      if (/Starting compilation in watch mode|File change detected/.test(line)) {
        try { started = folderState(root, dir); } catch { started = undefined; }
        disturbed = false;
        lines = '';
        settle();
      } else if (/Found \d+ errors?\b/.test(line)) {
        let now: FolderState | undefined;
        try { now = folderState(root, dir); } catch { now = undefined; }
        // Filed in memory only, never remembered on disk: what is remembered comes from a
        // compiler run of its own, on files that stood still.
        if (started && !disturbed && now?.key === started.key) {
          rounds.delete(started.key);
          rounds.set(started.key, parseErrors(root, lines));
          if (rounds.size > 100) rounds.delete(rounds.keys().next().value!);   // the oldest: a long session saves often
        }
        started = undefined;
        settle();
      } else {
        lines += `${line}\n`;
      }
    }
  });
  const close = () => {
    alive = false;
    changes.close();
    settle();
    if (child.exitCode === null && child.signalCode === null) {
      try { process.kill(-child.pid!, 'SIGTERM'); } catch { child.kill('SIGTERM'); }
    }
  };
  const errors = async (): Promise<TypeError[]> => {
    const state = folderState(root, dir);
    if (state.stub || (state.remember && existsSync(state.remember))) return [];
    // The round for these contents: there already, or one under way (3 s at most). With no
    // round under way, the compiler gets a moment to notice the change. Where its watch
    // notices nothing (seen with a folder right under the project root), a run of its own
    // answers, and after two such misses the moment is no longer given.
    const until = Date.now() + 3000;
    const grace = Date.now() + (missed >= 2 ? 0 : noticeMs);
    while (alive && !rounds.has(state.key) && Date.now() < until && (started !== undefined || Date.now() < grace)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { waiting.delete(wake); resolve(); }, (started === undefined ? grace : until) - Date.now());
        const wake = () => { clearTimeout(timer); waiting.delete(wake); resolve(); };
        waiting.add(wake);
      });
    }
    const known = rounds.get(state.key);
    if (known) { missed = 0; return known; }
    if (alive && started === undefined) missed++;
    return runOnce(root, dir);
  };
  return { errors, close };
}
