// The type check `--check` runs on an exercise folder before its scenarios: the runner
// loads TypeScript by stripping the types (esbuild), so a type error would otherwise run
// and go unnoticed. It runs the project's own `typescript` on that folder's main.ts (and
// what it imports: the folder's files, the SDK's types), with the compiler options of
// tsconfig.json. A folder's verdict is remembered (node_modules/.cache): the same files
// again, under the same compiler, options and packages, get the same answer without a
// compiler run (a --watch loop back to a state it has seen, a check run twice, the same
// edit in another copy of the folder): clean, or the errors the compiler found, by file
// within the folder, line and column. (The compiler's --incremental build info made no
// re-check faster here, with TypeScript 7: about 0.5 s of CPU either way.)
//
// What it is not: the project's type check (`npm run typecheck`, in the tests), or a
// linter. Only errors are reported, one line each.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { trackChild } from './cleanup.ts';
import { codeFiles } from './code-files.ts';

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

/**
 * Type errors in `dir` (paths relative to the current folder); [] when there are none or no
 * compiler, and while a TODO stub is left: a stub replaces code the compiler narrows types
 * with (an `if (!tool) throw …`), so a fresh exercise has errors the learner never made.
 */
export async function typeErrors(root: string, dir: string): Promise<TypeError[]> {
  const compiler = compilerCommand(root);
  if (!compiler) return [];
  // Every file below the folder the compiler could read, subfolders too (a helper in lib/ is
  // checked with the rest, so an edit there must change the key). Not a note or a README: the
  // same code with another note is as clean.
  const names = codeFiles(dir, (name) => /\.(?:[cm]?[jt]sx?|json)$/.test(name));
  const bytes = names.map((name) => readFileSync(path.join(dir, name)));
  const texts = bytes.map((b, i) => (names[i]!.endsWith('.ts') ? b.toString('utf8') : ''));
  if (texts.some((t) => /TODO\([\w-]+\): not implemented yet'\)/.test(t))) return [];
  const cache = path.join(root, 'node_modules', '.cache', 'subagents-check');
  mkdirSync(cache, { recursive: true });
  // A file importing from outside the folder has inputs this key does not see: never remembered.
  const outside = texts.some((t) => /(?:from|import)\s*\(?\s*['"]\.\.\//.test(t));
  const hash = createHash('sha256').update(`${COMPILER_OPTIONS.join(' ')}\0`);
  for (const file of ['package-lock.json', 'node_modules/typescript/package.json']) hash.update(existsSync(path.join(root, file)) ? readFileSync(path.join(root, file)) : '').update('\0');
  names.forEach((name, i) => hash.update(`${name}\0`).update(bytes[i]!).update('\0'));
  const verdict = outside ? undefined : path.join(cache, `verdict-${hash.digest('hex')}.json`);
  const remembered = verdict === undefined ? undefined : rememberedVerdict(verdict, dir);
  if (remembered) return remembered;
  // One compiler thread: the check runs beside the folder's scenarios (exercise-cli.ts starts
  // both at once), so the compiler's extra threads only compete with them for a core. A
  // chapter's folder checks in about the same wall time with a sixth less CPU (0.46 -> 0.39 s
  // on two cores). Not in COMPILER_OPTIONS: it changes how the folder is checked, not what.
  const [program, ...before] = compiler;
  const args = [...before, '--ignoreConfig', '--noEmit', '--pretty', 'false', '--singleThreaded', ...COMPILER_OPTIONS, path.join(dir, 'main.ts')];
  const { output, code } = await new Promise<{ output: string; code: number | null }>((resolve, reject) => {
    // Its own process group (the compiler may be the script and the native program it
    // starts), stopped with the run if the run is interrupted (cleanup.ts).
    const child = spawn(program!, args, { cwd: root, env: compilerEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    trackChild(child);
    let text = '';
    child.stdout.on('data', (d) => { text += String(d); });
    child.stderr.on('data', (d) => { text += String(d); });
    child.on('error', reject);
    child.on('close', (status) => resolve({ output: text, code: status }));
  });
  const errors: TypeError[] = [];
  for (const line of output.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): error TS\d+: (.*)$/.exec(line.trim());
    if (!m) continue;
    const file = path.relative(process.cwd(), path.resolve(root, m[1]!));
    errors.push({ file, line: Number(m[2]), column: Number(m[3]), message: m[4]! });
  }
  // Remembered only when the compiler finished and every error it printed was read here.
  const finished = code === 0 ? errors.length === 0 : code !== null && errors.length > 0 && errors.length === output.match(/error TS\d+/g)?.length;
  if (verdict && finished) rememberVerdict(verdict, dir, errors);
  return errors;
}

/** How a verdict is kept: each error's file named from the folder, so that a copy of it elsewhere reads the same. */
interface KeptError { file: string; line: number; column: number; message: string }

/**
 * The verdict kept at `file` for these files, as `typeErrors` returns it for the folder `dir`;
 * undefined when none is kept (or it cannot be read: a verdict half-written by another
 * process is no verdict).
 */
function rememberedVerdict(file: string, dir: string): TypeError[] | undefined {
  let kept: KeptError[];
  try { kept = JSON.parse(readFileSync(file, 'utf8')) as KeptError[]; } catch { return undefined; }
  if (!Array.isArray(kept)) return undefined;
  return kept.map((e) => ({ ...e, file: path.relative(process.cwd(), path.join(dir, e.file)) }));
}

/**
 * Keep the verdict on the folder `dir`. Not when an error lies outside the folder or its
 * message names the folder (a path the compiler quoted): that verdict belongs to this copy.
 * Written under a name of its own, then renamed: a check running beside reads all of it or none.
 */
function rememberVerdict(file: string, dir: string, errors: TypeError[]): void {
  const names = [path.resolve(dir), path.relative(process.cwd(), dir)].filter((name) => name !== '');
  const kept: KeptError[] = [];
  for (const e of errors) {
    const within = path.relative(dir, path.resolve(e.file));
    if (within.startsWith('..') || path.isAbsolute(within) || names.some((name) => e.message.includes(name))) return;
    kept.push({ ...e, file: within });
  }
  const partial = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    writeFileSync(partial, JSON.stringify(kept));
    renameSync(partial, file);
  } catch { /* not kept: the next check runs the compiler */ }
}
