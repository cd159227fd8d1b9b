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

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { onExit } from './cleanup.ts';

/** What esbuild reports for a file it cannot parse (only the fields used here). */
interface BuildFailure { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }

const loaded = new Map<string, unknown>();
let stopping: (() => void) | undefined;

/** A key for the folder's current code: its .ts files' names and contents. */
function codeKey(dir: string): string {
  const hash = createHash('sha256').update(dir);
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) {
    hash.update(`\0${name}\0`).update(readFileSync(path.join(dir, name)));
  }
  return hash.digest('hex');
}

/**
 * The exports of `dir/main.ts`. The same code loads once per process: a second run of
 * an unchanged folder reuses the module, as import() would; a changed folder loads anew.
 */
export async function loadFolder(dir: string): Promise<unknown> {
  const key = codeKey(dir);
  if (loaded.has(key)) return loaded.get(key);
  const entry = path.join(dir, 'main.ts');
  const require = createRequire(entry);
  // esbuild's JavaScript API is CommonJS; require keeps this file loadable from the
  // compiled runner too, which is a script and cannot import() on its own.
  const esbuild = require('esbuild') as typeof import('esbuild');
  // esbuild builds in a service process it keeps for the next build: stopped when this
  // process ends, so that it does not outlive it (src/runner/cleanup.ts).
  if (!stopping) stopping = onExit(() => esbuild.stop());
  let code: string;
  try {
    const out = await esbuild.build({
      entryPoints: [entry], bundle: true, write: false, format: 'cjs', platform: 'node', target: 'node20',
      packages: 'external', logLevel: 'silent',
      // Stack traces (Node's --enable-source-maps) then point into the folder's own files.
      sourcemap: 'inline', sourcesContent: false,
    });
    code = out.outputFiles[0].text;
  } catch (err) {
    throw new Error(firstBuildError(err as BuildFailure, dir));
  }
  const module = { exports: {} as unknown };
  const run = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, { filename: entry }).runInThisContext() as
    (e: unknown, r: NodeJS.Require, m: { exports: unknown }, f: string, d: string) => void;
  run(module.exports, require, module, entry, dir);
  loaded.set(key, module.exports);
  return module.exports;
}

/** One line, naming the file and place: "exercises/11/agent.ts:42:7: Expected ";" but found "x"". */
function firstBuildError(err: BuildFailure, dir: string): string {
  const first = err.errors?.[0];
  if (!first) return `could not build ${dir}: ${String((err as Error).message ?? err).split('\n')[0]}`;
  const where = first.location ? `${path.relative(process.cwd(), path.resolve(first.location.file))}:${first.location.line}:${first.location.column + 1}: ` : `${dir}: `;
  return `${where}${first.text}`;
}
