#!/usr/bin/env node
// Runs a chapter: `node steps/run.mjs 11`. Plain Node on purpose, so it works before
// anything is built. Its only job is to make TypeScript runnable, then hand over to
// src/runner/cli.ts. `node steps/run.mjs --help` lists everything it can do.
//
// How the TypeScript gets run, on every Node version:
// - steps/fast-start.mjs bundles the runner and the chapter snapshots into JavaScript
//   once (cached in node_modules/.cache) and loads them with a V8 code cache. That is
//   the quick way even where Node can strip types itself (>= 22.18): measured there,
//   the bundles start a demo in about 0.2 s, native imports of the SDK's few hundred
//   modules in about 0.4-0.5 s.
// - Should that build fail: Node >= 22.18 imports the TypeScript natively; older Node
//   registers the tsx loader, after importing the SDK natively so that its modules do
//   not pass through the loader.
// A folder that is not a snapshot (an exercise, a mutant) is compiled on the spot by
// src/runner/load-folder.ts.

import path from 'node:path';
import { existsSync, mkdtempSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
const nativeTypeScript = major > 22 || (major === 22 && minor >= 18);

if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`This project needs Node 20.19 or newer (found ${process.versions.node}).`);
  process.exit(2);
}

// Started from a folder that has since been deleted: every path is taken from it, so say so.
try { process.cwd(); } catch {
  console.error('the current folder no longer exists (it was deleted or moved): cd into another one and run again');
  process.exit(2);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Node >= 22.1 can cache compiled code between runs; it roughly halves start-up. Kept where
// the project keeps its other caches: by default it would go to the system's temp folder
// (TMPDIR), making that folder if it is missing, and stay there after every run.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.(path.join(root, 'node_modules', '.cache', 'node-compile-cache'));
let runner = () => import('../src/runner/cli.ts');

// How the runner loads a snapshot folder quickly (src/runner/run-chapter.ts asks; for any
// other folder this answers undefined and the runner compiles it on the spot).
const setSnapshotLoader = (loader) => { globalThis[Symbol.for('subagents.loadSnapshot')] = loader; };
/** A folder this user can make a folder in, outside every git repository: where the runner makes its temp workspaces. */
const usableTempFolder = (dir) => {
  // Tried for real (and undone): asking for permission says yes to root even in /sys or /proc.
  try { rmdirSync(mkdtempSync(path.join(dir, 'subagents-try-'))); } catch { return false; }
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, '.git'))) return false;
    if (d === path.dirname(d)) return true;
  }
};
const isSnapshot = (dir) => path.dirname(path.resolve(dir)) === path.join(root, 'steps') && existsSync(path.join(dir, 'main.ts'));

// Without the bundles, the runner has the SDK as an ES module, and a folder compiled on the
// spot (an exercise, a mutant; CommonJS) is handed that same copy instead of loading the
// package a second time, as CommonJS (about 0.2 s). It is handed out as a compiled module's
// exports are (`__esModule`), where that folder's require would load this same install.
const shareWithFoldersCompiledOnTheSpot = async (sdk) => {
  const { sdkCopy } = await import('./fast-start.mjs');
  const exports = Object.freeze(Object.defineProperty({ ...sdk }, '__esModule', { value: true }));
  globalThis[Symbol.for('subagents.packageCopies')] = sdkCopy(root, () => exports);
};

try {
  // SUBAGENTS_NO_BUNDLE=1 skips the bundles: the way to check that the fallback still works.
  const fast = process.env.SUBAGENTS_NO_BUNDLE
    ? undefined
    : await import('./fast-start.mjs').then((m) => m.compiled(root)).catch(() => undefined);
  if (fast) {
    runner = fast.cli;
    setSnapshotLoader((dir) => {
      const load = fast.chapter(path.resolve(dir));
      return load && { how: 'compiled ahead', load };
    });
    // An exercise or a mutant compiled on the spot gets the SDK from its bundle too.
    globalThis[Symbol.for('subagents.packageCopies')] = fast.packages;
  } else if (nativeTypeScript) {
    // Fails early, with the hint below, if npm install was skipped.
    await shareWithFoldersCompiledOnTheSpot(await import('@anthropic-ai/sdk'));
    // ES modules are cached by path: once a snapshot has changed on disk (`--gen` rewrites
    // them), importing it again would run the old code, so the runner compiles it afresh.
    const firstSeen = new Map();
    const stamp = (dir) => readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => `${f} ${statSync(path.join(dir, f)).mtimeMs}`).join('|');
    setSnapshotLoader((dir) => {
      if (!isSnapshot(dir)) return undefined;
      if (!firstSeen.has(dir)) firstSeen.set(dir, stamp(dir));
      if (firstSeen.get(dir) !== stamp(dir)) return undefined;
      return { how: 'native import', load: () => import(pathToFileURL(path.join(dir, 'main.ts')).href) };
    });
  } else {
    // Natively first, so that its modules skip the loader; but not where the runner is about
    // to refuse the temp folder (below), which it does before anything needs the SDK.
    const tempUsable = usableTempFolder(tmpdir());
    if (tempUsable) await shareWithFoldersCompiledOnTheSpot(await import('@anthropic-ai/sdk'));
    // tsx keeps its disk cache in the temp folder (TMPDIR/tsx-UID), made as it compiles the
    // runner: before the runner can refuse a TMPDIR (src/runner/cleanup.ts, scratchRoot).
    // Where the runner will refuse it (no such folder, one it cannot write, or one inside a
    // git repository), the loader is given the system's temp folder instead, where a run
    // without TMPDIR keeps it (tsx takes the folder as it starts, and its loader runs in a
    // thread of its own with the environment it started with); the runner then sees the
    // TMPDIR it was given, and refuses it with nothing made there. Should the system's
    // temp folder not do either, the cache stays in memory.
    const given = process.env.TMPDIR;
    if (!tempUsable) {
      delete process.env.TMPDIR;
      if (!usableTempFolder(tmpdir())) process.env.TSX_DISABLE_CACHE = '1';
    }
    const { register } = await import('tsx/esm/api');
    register();
    if (given !== undefined) process.env.TMPDIR = given;
  }
} catch (err) {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('Dependencies are missing: run `npm install` in the project folder first.');
    process.exit(2);
  }
  throw err;
}

// `node steps/run.mjs 11 | head` closes the pipe early: that is the reader's choice, not an
// error. The run goes on quietly (so it still cleans up its temp folder) and exits as usual.
// The same for stderr (`2>&1 | head`, or a parent gone): unheard, a failed write there was an
// uncaught exception, whose one line on stderr failed again, and so on without end.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
    stream.write = () => true;
  });
}

// Ctrl-C, SIGTERM, a crash: the temp folders, worktrees and child processes a run made are
// removed on the way out (src/runner/cleanup.ts).
const { main, installExitHandlers, finish, leaveChapterCodeBehind } = await runner();
installExitHandlers();
process.exitCode = await main(process.argv.slice(2));
// Chapter code this command ran (a demo, a learner's --check) may still have something pending:
// a timer of a run that was stopped, an interval it never cleared, a promise it never awaited.
// The command is done and its verdict said: none of that may keep it waiting, nor turn its exit
// status (an error it throws from here on is ignored). Once what was printed has been written
// out, the process ends.
const ranChapterCode = leaveChapterCodeBehind?.();
await finish();
if (ranChapterCode) {
  await new Promise((resolve) => { process.stdout.write('', () => process.stderr.write('', resolve)); });
  process.exit();
}
