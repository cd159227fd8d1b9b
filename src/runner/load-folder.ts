// Loads a folder of chapter code that was not compiled ahead: a learner's exercise, a
// mutant of the self-check, or a snapshot when the test runner asks for one.
//
// The folder's main.ts is bundled in memory with esbuild (the same TypeScript-to-
// JavaScript transform tsx applies file by file) and run as one CommonJS script.
// Packages stay outside the bundle and load through Node's own require, once per
// process. One build per folder is much cheaper than a loader round trip per module:
// the self-check loads over a hundred mutants, the exercise test dozens of folders.
//
// What it is not: a type checker (a type error runs, as it would under tsx; `npm run
// typecheck` and the test suite catch those) or a general bundler for the project.
//
// A bundle is remembered on disk (node_modules/.cache/subagents-bundle), keyed by the
// folder's file names and contents, esbuild's version, Node's version and the build
// options: the same code again (the next test run, a --watch loop back to an earlier
// state) loads without a build. The bundle names the folder's files relative to the
// folder itself, so a copy elsewhere shares it. Only a folder built from its own files
// alone is remembered; one importing from outside it always builds anew.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { onExit } from './cleanup.ts';

/** What esbuild reports for a file it cannot parse (only the fields used here). */
interface BuildFailure { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }

const loaded = new Map<string, unknown>();
let stopping: (() => void) | undefined;

/** A key for the folder's current code: its .ts files' names and contents (not its path). */
function codeKey(dir: string): { key: string; names: string[] } {
  const hash = createHash('sha256');
  const names = readdirSync(dir).filter((f) => f.endsWith('.ts')).sort();
  for (const name of names) hash.update(`\0${name}\0`).update(readFileSync(path.join(dir, name)));
  return { key: hash.digest('hex'), names };
}

/**
 * The exports of `dir/main.ts`. The same code loads once per process: a second run of
 * an unchanged folder reuses the module, as import() would; a changed folder loads anew.
 */
export async function loadFolder(dir: string): Promise<unknown> {
  const { key: contents, names } = codeKey(dir);
  // The module itself is per folder: two copies of the same code are two modules.
  const key = `${dir}\0${contents}`;
  if (loaded.has(key)) return loaded.get(key);
  const entry = path.join(dir, 'main.ts');
  const require = createRequire(entry);
  // esbuild's JavaScript API is CommonJS; require keeps this file loadable from the
  // compiled runner too, which is a script and cannot import() on its own.
  const esbuild = require('esbuild') as typeof import('esbuild');
  const options: import('esbuild').BuildOptions = {
    entryPoints: ['main.ts'], absWorkingDir: dir, bundle: true, write: false, format: 'cjs', platform: 'node', target: 'node20',
    packages: 'external', logLevel: 'silent', metafile: true,
    // Stack traces (Node's --enable-source-maps) then point into the folder's own files:
    // the map names them relative to the folder, as the script is named dir/main.ts.
    sourcemap: 'inline', sourcesContent: false,
  };
  // The cache lies next to the packages this folder loads (the project's node_modules).
  const cacheDir = path.join(path.dirname(require.resolve('esbuild/package.json')), '..', '.cache', 'subagents-bundle');
  const cached = path.join(cacheDir, `${createHash('sha256').update(`${esbuild.version}\0${process.version}\0${JSON.stringify(options)}\0${contents}`).digest('hex')}.js`);
  let code = readIfThere(cached);
  if (code === undefined) {
    // esbuild builds in a service process it keeps for the next build: stopped when this
    // process ends, so that it does not outlive it (src/runner/cleanup.ts).
    if (!stopping) stopping = onExit(() => esbuild.stop());
    try {
      const out = await esbuild.build(options);
      code = out.outputFiles![0]!.text;
      // Built from the folder's own .ts files alone (what the key holds): remembered.
      if (Object.keys(out.metafile!.inputs).every((f) => names.includes(f))) remember(cached, code);
    } catch (err) {
      throw new Error(firstBuildError(err as BuildFailure, dir));
    }
  }
  const module = { exports: {} as unknown };
  const run = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, { filename: entry }).runInThisContext() as
    (e: unknown, r: NodeJS.Require, m: { exports: unknown }, f: string, d: string) => void;
  run(module.exports, require, module, entry, dir);
  loaded.set(key, module.exports);
  return module.exports;
}

function readIfThere(file: string): string | undefined {
  try { return readFileSync(file, 'utf8'); } catch { return undefined; }
}

/** Written whole under a temporary name, then renamed: a reader never sees half a bundle. */
function remember(file: string, code: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, code);
    renameSync(part, file);
  } catch {
    // A cache that cannot be written (a read-only install) only costs the next build.
  }
}

/** One line, naming the file and place: "exercises/11/agent.ts:42:7: Expected ";" but found "x"". */
function firstBuildError(err: BuildFailure, dir: string): string {
  const first = err.errors?.[0];
  if (!first) return `could not build ${dir}: ${String((err as Error).message ?? err).split('\n')[0]}`;
  const where = first.location ? `${path.relative(process.cwd(), path.resolve(dir, first.location.file))}:${first.location.line}:${first.location.column + 1}: ` : `${dir}: `;
  return `${where}${first.text}`;
}
