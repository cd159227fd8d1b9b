// Fast start: how `node steps/run.mjs` gets going quickly, on every Node version.
//
// Running the TypeScript as it is costs a module load for each of the SDK's few hundred
// files (through the tsx loader on Node 20, natively from Node 22.18; measured here:
// about 0.9 s and 137 MB a demo with tsx, 0.4-0.5 s natively). Instead, this file
// bundles the runner and every chapter snapshot into plain JavaScript once, packages
// included as they ship, keeps the result in node_modules/.cache, and loads it with a V8
// code cache so that later runs skip compiling it too (about 0.2-0.35 s and 100 MB in
// all). The SDK is a bundle of its own (it loads as one file in about 70 ms), which every
// chapter's bundle requires: one copy instead of seventeen makes the build about three
// times quicker (0.3 s instead of 0.9 s here, and 3 MB instead of 24). The cache key is
// the node version, this file's own text and every source file's path, size and
// modification time: an edit simply builds a fresh copy, so the build runs after every one.
//
// The chapters' bundles have their source maps beside them, for the one moment they are
// needed: the agent crashed, and the runner says where, in the TypeScript.
//
// It is an optimisation, never a requirement: if building fails, run.mjs falls back to
// running the TypeScript directly. Code that is not a snapshot (exercises, mutants) is
// compiled on the spot by src/runner/load-folder.ts.
//
// The bundles are CommonJS because V8 keeps a code cache for a script (vm.Script's
// cachedData) but Node 20 offers none for ES modules.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** Every .ts file the runner and the snapshots are made of (not src/agent: it is all chapters at once). */
function sources(root) {
  const files = [];
  const agent = path.join(root, 'src', 'agent');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = `${dir}${path.sep}${entry.name}`;
      if (entry.isDirectory()) { if (full !== agent) walk(full); }
      else if (entry.name.endsWith('.ts')) files.push(full);
    }
  };
  walk(path.join(root, 'src'));
  walk(path.join(root, 'steps'));
  return files.sort();
}

/**
 * Run a CommonJS bundle the way require would, but compiled through vm.Script with the
 * code cache kept beside it. The cache is written when the process exits, so it holds
 * the functions this run really compiled, not only the top level.
 */
const loaded = new Map();
const cachesToWrite = [];   // [file, script]: written together by one exit listener

/** The package the bundles leave out and require from a bundle of its own (sdk.cjs). */
const SDK = '@anthropic-ai/sdk';

function loadBundle(file) {
  if (loaded.has(file)) return loaded.get(file);
  const cacheFile = `${file}.v8cache`;
  const source = readFileSync(file, 'utf8');
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    if (cachesToWrite.length === 0) {
      process.once('exit', () => {
        for (const [to, s] of cachesToWrite) {
          try { writeFileSync(to, s.createCachedData()); } catch { /* a read-only cache is only slower */ }
        }
      });
    }
    cachesToWrite.push([cacheFile, script]);
  }
  const module = { exports: {} };
  const fromNode = createRequire(file);
  const sdkBundle = path.join(path.dirname(file), 'sdk.cjs');
  const require = Object.assign((spec) => (spec === SDK && file !== sdkBundle ? loadBundle(sdkBundle) : fromNode(spec)), fromNode);
  script.runInThisContext()(module.exports, require, module, file, path.dirname(file));
  loaded.set(file, module.exports);
  return module.exports;
}

/**
 * Resolves once this process has no esbuild child left (Linux: read from /proc; elsewhere
 * at once), or after `ms`. A child that exits while this process waits is reaped by Node,
 * so it cannot linger as a zombie after this process is gone.
 */
async function esbuildGone(ms) {
  if (process.platform !== 'linux' || !existsSync('/proc/self/stat')) return;
  const mine = (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'esbuild' &&
        Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
    } catch { return false; }
  };
  const end = Date.now() + ms;
  while (readdirSync('/proc').some((p) => /^\d+$/.test(p) && mine(p)) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Keep `dir` from being taken for an old build while this process may still load from it:
 * its bundles are loaded on demand (a chapter when it runs, cleanup.cjs by the watchdog at a
 * stall), and a `--check --watch` or a REPL can run for hours while another run, after an
 * edit or a pull, builds a fresh copy and removes the ones untouched for ten minutes. Its
 * modification time is set now and every minute after, by a timer that keeps no process alive.
 */
const usedFolders = new Set();
function inUse(dir) {
  const touch = (d) => { try { const now = new Date(); utimesSync(d, now, now); } catch { usedFolders.delete(d); /* gone, or read-only: nothing to keep */ } };
  touch(dir);
  if (usedFolders.size === 0) setInterval(() => { for (const d of usedFolders) touch(d); }, 60_000).unref();
  usedFolders.add(dir);
}

/**
 * Build once per source state. Returns loaders: `cli()` for the runner's exports,
 * `chapter(folder)`: for a snapshot folder whose files are unchanged, a function that
 * loads that chapter's compiled main.ts (undefined for any other folder), and `packages`:
 * the SDK's bundle, by package name, with the file it was made from; and `folder`, where
 * the bundles and their code caches are.
 */
export async function compiled(root) {
  const files = sources(root);
  // This file's own text is part of the key: a change to how bundles are built rebuilds them.
  const hash = createHash('sha256').update(`${process.version}\n`).update(readFileSync(fileURLToPath(import.meta.url)));
  const stamps = new Map();   // file -> "size mtime", as the bundles were built from
  const under = path.join(root, 'src').length - 'src'.length;   // where a path below root starts
  for (const f of files) {
    const s = statSync(f);
    stamps.set(f, `${s.size} ${s.mtimeMs}`);
    hash.update(`${f.slice(under)} ${stamps.get(f)}\n`);
  }
  const key = hash.digest('hex').slice(0, 16);
  const cacheRoot = path.join(root, 'node_modules', '.cache', 'subagents-run');
  const dir = path.join(cacheRoot, key);

  const snapshots = readdirSync(path.join(root, 'steps'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(root, 'steps', e.name, 'main.ts')))
    .map((e) => e.name);

  if (!existsSync(path.join(dir, 'cli.cjs'))) {
    // Build beside the final folder, then rename: two runs building at once never see half a cache.
    const scratch = `${dir}.${process.pid}.tmp`;
    const esbuild = await import('esbuild');   // only on a miss: loading it costs time too
    // cleanup.cjs: cleanup.ts alone, for the watchdog's thread, which cannot reach the
    // runner's modules any other way when the main thread is stuck (src/runner/watchdog.ts).
    const runner = {
      cli: path.join(root, 'src', 'runner', 'cli.ts'),
      cleanup: path.join(root, 'src', 'runner', 'cleanup.ts'),
    };
    const sdk = { sdk: createRequire(path.join(root, 'package.json')).resolve(SDK) };
    const chapters = Object.fromEntries(snapshots.map((name) => [`chapter-${name}`, path.join(root, 'steps', name, 'main.ts')]));
    // Interrupted (Ctrl-C) while building: no half-built folder and no esbuild process is
    // left behind. esbuild's build runs in a service process that would outlive this one by
    // a moment (a zombie where nothing reaps orphans): it is stopped, and waited for, after
    // the build too.
    const signals = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
    let signalled = false;
    const interrupted = (signal) => {
      signalled = true;
      rmSync(scratch, { recursive: true, force: true });
      void esbuild.stop().then(() => esbuildGone(1000)).finally(() => process.exit(signals[signal]));
    };
    for (const s of Object.keys(signals)) process.on(s, interrupted);
    try {
      const options = {
        outdir: scratch, bundle: true, format: 'cjs', platform: 'node', target: 'node20',
        outExtension: { '.js': '.cjs' }, logLevel: 'silent',
        // A CommonJS bundle has no import.meta; the code only ever asks for its own URL.
        define: { 'import.meta.url': '__bundleUrl' },
        banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
        // Anywhere but in its own entry, the SDK is left to require: loadBundle hands out sdk.cjs.
        plugins: [{ name: 'sdk-apart', setup(b) { b.onResolve({ filter: /^@anthropic-ai\/sdk$/ }, (a) => (a.kind === 'entry-point' ? undefined : { path: SDK, external: true })); } }],
      };
      // The chapters' bundles get a source map beside them (FILE.cjs.map, read only when the
      // agent crashes, to say where: src/runner/load-folder.ts, placeInLoadedCode). Built
      // side by side with the runner's and the SDK's, which need none (a map for the SDK
      // would make the build a third slower): together they take no longer than one build.
      // All are waited for, failed or not, before anything removes the folder they write in.
      // The SDK's bundle is built without whitespace, its syntax shortened (names kept): every
      // run loads it, and half the bytes to read and compile (1.7 MB down to 1.0) took about
      // 40 ms less CPU a process, measured here (Node 20, code cache warm: a median of 86 ms
      // against 44). The SDK's code only: nobody reads that bundle.
      const builds = await Promise.allSettled([
        esbuild.build({ ...options, entryPoints: runner }),
        esbuild.build({ ...options, entryPoints: sdk, minifyWhitespace: true, minifySyntax: true }),
        esbuild.build({ ...options, entryPoints: chapters, sourcemap: 'external', sourcesContent: false }),
      ]);
      const failed = builds.find((b) => b.status === 'rejected');
      if (failed) throw failed.reason;
      renameSync(scratch, dir);
    } catch (err) {
      if (signalled) await new Promise(() => {});   // the handler ends the process
      rmSync(scratch, { recursive: true, force: true });   // a failed build, or another run got there first (use its copy)
      if (!existsSync(path.join(dir, 'cli.cjs'))) throw err;
    } finally {
      for (const s of Object.keys(signals)) process.off(s, interrupted);
      await esbuild.stop();
      await esbuildGone(1000);
    }
    // Older builds are dead weight once nothing is using them: a process keeps its build's
    // folder touched while it runs (inUse below), so one untouched for ten minutes is
    // nobody's; leftovers of interrupted builds likewise.
    for (const old of readdirSync(cacheRoot)) {
      const at = path.join(cacheRoot, old);
      if (old !== key && Date.now() - statSync(at).mtimeMs > 10 * 60_000) rmSync(at, { recursive: true, force: true });
    }
  }
  inUse(dir);

  // A snapshot can change while this process runs (`--gen` rewrites them, then renders
  // the docs' transcripts from them): its bundle is offered only while its files are
  // still the ones it was built from. Otherwise the runner bundles the folder afresh.
  const unchanged = (folder) => readdirSync(folder).filter((f) => f.endsWith('.ts')).every((f) => {
    const file = path.join(folder, f);
    const s = statSync(file);
    return stamps.get(file) === `${s.size} ${s.mtimeMs}`;
  });
  const chapters = new Map(snapshots.map((name) => [path.join(root, 'steps', name), () => loadBundle(path.join(dir, `chapter-${name}.cjs`))]));
  const chapter = (folder) => (chapters.has(folder) && unchanged(folder) ? chapters.get(folder) : undefined);
  // The SDK's bundle, for a folder that is not a snapshot.
  return { cli: () => loadBundle(path.join(dir, 'cli.cjs')), chapter, packages: sdkCopy(root, () => loadBundle(path.join(dir, 'sdk.cjs'))), folder: dir };
}

/**
 * The process's copy of the SDK, for src/runner/load-folder.ts to hand to a folder compiled
 * on the spot where that folder's require would load the same install (the file the
 * project's own require resolves): `load` gives the copy's exports.
 */
export function sdkCopy(root, load) {
  let entry;
  const resolved = () => (entry ??= createRequire(path.join(root, 'package.json')).resolve(SDK));
  return new Map([[SDK, { resolved, load }]]);
}
