// Loads a folder of chapter code that was not compiled ahead: a learner's exercise, a
// mutant of the self-check, a half-done exercise under test, or a snapshot when the test
// runner asks for one.
//
// Each .ts file main.ts reaches is compiled on its own with esbuild's transform (types
// stripped, ES modules turned into CommonJS, with the options of the project's
// tsconfig.json that change the JavaScript) and run as a CommonJS module, one vm.Script
// per file, named by the file's path. A small resolver links them: a relative import is
// the .ts file it names beside the importer ('./types.ts'; as a bundler would, also
// './types.js' and './types'); a package goes to Node's own require, loaded once per
// process, unless the process already holds a compiled copy of it (packageFor below: the
// SDK, when the runner starts from its bundles). Only what main.ts reaches is compiled: a
// stray broken file in the folder does not stop it loading.
//
// Why file by file: most folders a run loads differ from one it has seen in one file only
// (a mutant, a half-done exercise, the reference copied over a stub), and the other files'
// compiled code is then at hand. A compiled file is remembered by esbuild's and Node's
// versions, the options, its name and its contents: in memory (with its vm.Script, while
// the file stays where it is) and on disk (node_modules/.cache/subagents-compile), so that
// the next run compiles only what changed. The comment lines a file opens with are blanked
// before it is compiled (they compile to nothing, and the lines keep their numbers): the
// header an exercise stamps with its folder's path costs no compile per folder.
//
// What it is not: a type checker (a type error runs, as it would under tsx; `npm run
// typecheck` and the test suite catch those), nor a bundler or a general module loader
// (no JSX; a relative import of a file that is not TypeScript is left to Node).

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { SourceMap, createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { onExit } from './cleanup.ts';

type Esbuild = typeof import('esbuild');

/** What esbuild reports for a file it cannot parse (only the fields used here). */
interface TransformFailure { errors?: { text: string; location?: { line: number; column: number } | null }[] }

/**
 * The options of tsconfig.json that esbuild takes into account and that change what it
 * emits: `verbatimModuleSyntax` keeps an import not marked `import type` (it loads the
 * module, as Node would), `target` ES2022 makes class fields defined properties, `strict`
 * emits strict code. The rest of tsconfig.json is for tsc. test/load-folder.test.ts holds
 * these to tsconfig.json's.
 */
export const TSCONFIG_FOR_ESBUILD = { compilerOptions: { target: 'ES2022', strict: true, verbatimModuleSyntax: true } };

const OPTIONS = {
  loader: 'ts', format: 'cjs', platform: 'node', target: 'node20', logLevel: 'silent', tsconfigRaw: TSCONFIG_FOR_ESBUILD,
  // The map names the file by its own name, as its vm.Script is named by its path: a reader
  // of source maps (a debugger, Node's --enable-source-maps where it maps vm scripts)
  // lands in the file itself.
  sourcemap: 'inline', sourcesContent: false,
} as const;

/** A file this load reached: its compiled code, and what each relative import in it is. */
interface Unit { file: string; key: string; code: string; imports: Map<string, Target> }
/** A .ts file of the folder's code (compiled here), another file (Node's to load), or why there is none. */
type Target = { ts: string } | { node: string } | { error: string };

/** A folder as it was last loaded: its exports, and every file looked at for them (its key, or null: no such file). */
interface Loaded { exports: unknown; seen: Map<string, string | null>; salt: string }

const loaded = new Map<string, Loaded>();
const loading = new Map<string, Promise<unknown>>();
const codeByKey = new Map<string, Promise<string>>();
const scriptByFile = new Map<string, { key: string; script: vm.Script; code: string; map?: SourceMap }>();
let misses = 0;
let stopping: (() => void) | undefined;

/**
 * How many times this process found a file's compiled code not in memory (so compiled it,
 * or read it from node_modules/.cache). The tests count on it that an unchanged file is
 * not compiled again.
 */
export function compiledCodeMisses(): number {
  return misses;
}

/**
 * The exports of `dir/main.ts`. The same code loads once per process: a second run of
 * an unchanged folder reuses the module, as import() would; a changed folder loads anew
 * (every file of it runs again; only the changed ones are compiled). `fresh`: run every
 * file again all the same, so that nothing one run left in a module's own variables
 * reaches the next (--check grades each scenario on a fresh load, as a run of its own).
 */
export function loadFolder(dir: string, o: { fresh?: boolean } = {}): Promise<unknown> {
  dir = path.resolve(dir);
  // One load of a folder at a time: a second asked for meanwhile (two runs side by side)
  // then finds the module the first made.
  const load = (loading.get(dir) ?? Promise.resolve()).catch(() => undefined).then(() => loadNow(dir, o.fresh === true));
  loading.set(dir, load);
  return load;
}

async function loadNow(dir: string, fresh: boolean): Promise<unknown> {
  // The module itself is per folder: two copies of the same code are two modules.
  const before = loaded.get(dir);
  if (before && !fresh && [...before.seen].every(([file, key]) => (keyOf(file, before.salt)?.key ?? null) === key)) return before.exports;
  const entry = path.join(dir, 'main.ts');
  const require = createRequire(entry);
  // esbuild's JavaScript API is CommonJS; require keeps this file loadable from the
  // compiled runner too, which is a script and cannot import() on its own.
  const esbuild = require('esbuild') as Esbuild;
  // The cache lies next to the packages this folder loads (the project's node_modules).
  const cacheDir = path.join(path.dirname(require.resolve('esbuild/package.json')), '..', '.cache', 'subagents-compile');
  const salt = `${esbuild.version}\0${process.version}\0${JSON.stringify(OPTIONS)}\0`;
  const looked = new Map<string, { text: string; key: string } | undefined>();
  const units = new Map<string, Promise<Unit | Error>>();

  /** The file's text and key, read once per load; undefined when there is no such file. */
  const look = (file: string): { text: string; key: string } | undefined => {
    if (!looked.has(file)) looked.set(file, keyOf(file, salt));
    return looked.get(file);
  };
  /** Compiles the file, and what it imports (all at once: esbuild works on them side by side). */
  const reach = (file: string, text: string, key: string): Promise<Unit | Error> => {
    let unit = units.get(file);
    if (!unit) {
      unit = compile(esbuild, cacheDir, file, text, key).then((code) => {
        const imports = new Map<string, Target>();
        for (const spec of requiredIn(code)) {
          if (!isRelative(spec) || imports.has(spec)) continue;
          const found = resolve(file, spec, look);
          if (!found) imports.set(spec, { error: `${placeOf(file, text, spec)}: Could not resolve "${spec}"` });
          else if (!found.file.endsWith('.ts')) imports.set(spec, { node: found.file });
          else {
            imports.set(spec, { ts: found.file });
            void reach(found.file, found.text, found.key);
          }
        }
        return { file, key, code, imports };
      }, (err: unknown) => err as Error);
      units.set(file, unit);
    }
    return unit;
  };

  const main = look(entry);
  if (!main) throw new Error(`${path.relative(process.cwd(), dir) || '.'}: Could not resolve "main.ts"`);
  // Every file reached is compiled before any of them runs: running is synchronous, as require is.
  void reach(entry, main.text, main.key);
  const done = new Map<string, Unit | Error>();
  while (done.size < units.size) {
    for (const [file, unit] of units) if (!done.has(file)) done.set(file, await unit);
  }
  const exports = run(entry, done);
  loaded.set(dir, { exports, seen: new Map([...looked].map(([file, found]) => [file, found?.key ?? null])), salt });
  return exports;
}

/**
 * Runs the folder's modules from main.ts, each once, as Node runs CommonJS: an import is
 * the imported module's exports (partly filled, in a cycle). A compile error or an import
 * that does not resolve is thrown where the file is imported, so only a file that is
 * really imported fails the load (a require found in a string of the code is never run).
 */
function run(entry: string, units: Map<string, Unit | Error>): unknown {
  const copies = packageCopiesFor(units);
  const modules = new Map<string, { exports: unknown }>();
  const nodeRequires = new Map<string, NodeJS.Require>();
  const load = (file: string): unknown => {
    const started = modules.get(file);
    if (started) return started.exports;
    const unit = units.get(file)!;
    if (unit instanceof Error) throw unit;
    const module = { exports: {} as unknown };
    modules.set(file, module);
    // Node resolves a package from the importer's folder, and remembers it per folder.
    const folder = path.dirname(file);
    let fromNode = nodeRequires.get(folder);
    if (!fromNode) nodeRequires.set(folder, fromNode = createRequire(file));
    const require = (spec: string): unknown => {
      const target = unit.imports.get(spec);
      if (!target) {
        if (isRelative(spec)) throw new Error(`${path.relative(process.cwd(), file)}: Could not resolve "${spec}"`);
        return packageFor(spec, fromNode!, copies);
      }
      if ('error' in target) throw new Error(target.error);
      return 'node' in target ? fromNode!(target.node) : load(target.ts);
    };
    const wrapper = scriptFor(unit).runInThisContext() as (e: unknown, r: (spec: string) => unknown, m: { exports: unknown }, f: string, d: string) => void;
    wrapper(module.exports, require, module, file, folder);
    return module.exports;
  };
  return load(entry);
}

/**
 * A package this process holds a compiled copy of, by name: the file Node's require would
 * load for it (the copy was made from that file), and how to load the copy. steps/run.mjs
 * sets it when it starts from the compiled bundles (steps/fast-start.mjs): the SDK's bundle,
 * which loads as one file with a code cache instead of its few hundred, and which the
 * chapter bundles share, so that a process holds one SDK.
 */
export interface PackageCopy { resolved: () => string; load: () => unknown }
const PACKAGE_COPIES = Symbol.for('subagents.packageCopies');

/**
 * The package copies this load may use: the process's, less any package the folder's code
 * also requires a part of (`@anthropic-ai/sdk/…`). That part would come from Node's own
 * copy, and two copies of one package in one program disagree (an error class of one is
 * not the other's).
 */
function packageCopiesFor(units: Map<string, Unit | Error>): Map<string, PackageCopy> {
  const all = (globalThis as Record<symbol, unknown>)[PACKAGE_COPIES] as Map<string, PackageCopy> | null | undefined;
  if (!all) return new Map();
  const specs = [...units.values()].flatMap((u) => (u instanceof Error ? [] : requiredIn(u.code)));
  return new Map([...all].filter(([name]) => !specs.some((spec) => spec.startsWith(`${name}/`))));
}

/** The package `spec` for a file whose Node require is `fromNode`: this load's copy of it if there is one, made from the file Node would load, else Node's own. */
function packageFor(spec: string, fromNode: NodeJS.Require, copies: Map<string, PackageCopy>): unknown {
  const copy = copies.get(spec);
  if (copy) {
    let resolved: string | undefined;
    try { resolved = fromNode.resolve(spec); } catch { /* Node's require below says why */ }
    if (resolved !== undefined && resolved === copy.resolved()) return copy.load();
  }
  return fromNode(spec);
}

/** What a compiled file's code is wrapped in, on its first line, to run as a CommonJS module. */
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {';

/**
 * The script for a compiled file, named by the file's real path: stack traces show it.
 * Kept while the file's code stays the same (the folder loads again after another of its
 * files changed). The same code in another folder is compiled anew: V8's code cache would
 * carry the first file's name along.
 */
function scriptFor(unit: Unit): vm.Script {
  const kept = scriptByFile.get(unit.file);
  if (kept?.key === unit.key) return kept.script;
  quietLoaderWarning();
  // import() in the folder's code (`await import('node:fs/promises')`) goes to Node's own
  // loader, as it would in a module of the process; without this it throws, whatever it asks for.
  const script = new vm.Script(`${WRAPPER}${unit.code}\n})`, { filename: unit.file, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  scriptByFile.set(unit.file, { key: unit.key, script, code: unit.code });
  return script;
}

/**
 * The loader import() goes to from code compiled here is Node's own, and Node says so the
 * first time: "ExperimentalWarning: vm.USE_MAIN_CONTEXT_DEFAULT_LOADER is an experimental
 * feature", on stderr, in the middle of a learner's --check, about a choice the runner made,
 * not the learner. That one warning is dropped, in a process that compiles folders; every
 * other warning goes out as before.
 */
let loaderWarningQuiet = false;
function quietLoaderWarning(): void {
  if (loaderWarningQuiet) return;
  loaderWarningQuiet = true;
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('vm.USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}

/**
 * Where `err` was thrown in chapter code: the first frame of its stack that lies in one of
 * the files compiled here, or in a bundle with its source map beside it (a snapshot's, built
 * by steps/fast-start.mjs) and maps to a file that is not a package's, as the TypeScript
 * file's line and column ("exercises/ch1/agent.ts:19:7", from the current folder, as type
 * errors are shown). undefined when no frame lies in one. The stack has the compiled code's
 * lines and columns: Node 20 does not read a vm script's source map, so it is read here.
 */
export function placeInLoadedCode(err: unknown): string | undefined {
  const stack = (err as { stack?: unknown } | null)?.stack;
  if (typeof stack !== 'string') return undefined;
  for (const frame of stack.matchAll(/([^\s()]+\.(ts|cjs)):(\d+):(\d+)\)?$/gm)) {
    const file = frame[1]!;
    const kept = frame[2] === 'ts' ? scriptByFile.get(file) : undefined;
    const map = kept ? (kept.map ??= inlineMapOf(kept.code)) : frame[2] === 'cjs' ? mapBeside(file) : undefined;
    if (!map) continue;
    // Both wrap the code in a function on its first line (WRAPPER here, loadBundle's the same).
    const line = Number(frame[3]) - 1;
    const column = Number(frame[4]) - 1 - (line === 0 ? WRAPPER.length : 0);
    const entry = map.findEntry(line, column) as { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
    const source = kept ? file : entry?.originalSource && path.resolve(path.dirname(file), entry.originalSource);
    if (!source || (!kept && source.split(path.sep).includes('node_modules'))) continue;
    const shown = path.relative(process.cwd(), source);
    if (entry?.originalLine === undefined || entry.originalColumn === undefined) return shown;
    return `${shown}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  }
  return undefined;
}

/** A bundle's source map, FILE.map beside it, read once; undefined when there is none. */
const bundleMaps = new Map<string, SourceMap | undefined>();
function mapBeside(file: string): SourceMap | undefined {
  if (!bundleMaps.has(file)) {
    let map: SourceMap | undefined;
    try { map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMap['payload']); } catch { /* no map: no place */ }
    bundleMaps.set(file, map);
  }
  return bundleMaps.get(file);
}

/** The source map esbuild appends to the code it emits (sourcemap: 'inline'); undefined without one. */
function inlineMapOf(code: string): SourceMap | undefined {
  const data = /\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/.exec(code)?.[1];
  if (data === undefined) return undefined;
  return new SourceMap(JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as SourceMap['payload']);
}

/**
 * The file's compiled code: from memory, from the disk cache, or compiled now. Asked for
 * again while it is on its way (folders loaded side by side), it is the same promise.
 */
function compile(esbuild: Esbuild, cacheDir: string, file: string, text: string, key: string): Promise<string> {
  let code = codeByKey.get(key);
  if (!code) {
    misses++;
    code = compiled(esbuild, path.join(cacheDir, `${key}.js`), path.basename(file), text);
    codeByKey.set(key, code);
    code.catch(() => codeByKey.delete(key));   // a file that does not compile is tried again next time
  }
  // The same text under another folder fails there: the error names the file asked for.
  return code.catch((err: unknown) => { throw new Error(firstError(err as TransformFailure, file)); });
}

async function compiled(esbuild: Esbuild, cached: string, name: string, text: string): Promise<string> {
  const kept = readIfThere(cached);
  if (kept !== undefined) return kept;
  // esbuild compiles in a service process it keeps for the next file: stopped when this
  // process ends, so that it does not outlive it (src/runner/cleanup.ts).
  if (!stopping) stopping = onExit(() => esbuild.stop());
  const { code } = await esbuild.transform(withoutOpeningComments(text), { ...OPTIONS, sourcefile: name });
  remember(cached, code);
  return code;
}

/** The file's text and the key its compiled code is remembered by; undefined when there is no such file. */
function keyOf(file: string, salt: string): { text: string; key: string } | undefined {
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch { return undefined; }
  const key = createHash('sha256').update(`${salt}${path.basename(file)}\0`).update(withoutOpeningComments(text)).digest('hex');
  return { text, key };
}

/**
 * The text with the line comments it opens with emptied, line breaks kept: the same code
 * on the same lines. Not a comment esbuild would keep or read: `//!`, `//#`, `//@`, or one
 * holding an `@` (`@license`, `@preserve`).
 */
function withoutOpeningComments(text: string): string {
  let end = 0;
  while (text.startsWith('//', end) && !'!#@'.includes(text[end + 2] ?? '!')) {
    const lineEnd = lineEndAfter(text, end);
    if (lineEnd === -1 || text.slice(end, lineEnd).includes('@')) break;
    end = lineEnd;
  }
  return end === 0 ? text : text.slice(0, end).replace(/[^\n\r\u2028\u2029]+/g, '') + text.slice(end);
}

/** Where the line that holds `from` ends, after its line break; -1 for the last line. */
function lineEndAfter(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 0x2028 || c === 0x2029) return i + 1;
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
  }
  return -1;
}

/** The modules the compiled code requires: esbuild writes each import as require("…"). */
function requiredIn(code: string): string[] {
  const specs: string[] = [];
  for (const m of code.matchAll(/\brequire\(("(?:[^"\\\n]|\\.)*")\)/g)) {
    try { specs.push(JSON.parse(m[1]!) as string); } catch { /* not JSON: no require esbuild wrote */ }
  }
  return specs;
}

function isRelative(spec: string): boolean {
  return spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..' || path.isAbsolute(spec);
}

/**
 * The file a relative import names, as a bundler finds it: the file itself; for a name
 * ending in .js, the .ts file of that name (the TypeScript way of naming it); for a name
 * with no extension, that name with .ts, or its folder's index.ts.
 */
function resolve(importer: string, spec: string, look: (file: string) => { text: string; key: string } | undefined):
    { file: string; text: string; key: string } | undefined {
  const named = path.resolve(path.dirname(importer), spec);
  const candidates = [named];
  if (named.endsWith('.js')) candidates.push(`${named.slice(0, -3)}.ts`);
  else if (path.extname(named) === '') candidates.push(`${named}.ts`, path.join(named, 'index.ts'));
  for (const file of candidates) {
    const found = look(file);
    if (found) return { file, ...found };
  }
  return undefined;
}

/** "exercises/11/main.ts:3:19", where the import of `spec` is written in the file; the file alone when it cannot be found. */
function placeOf(file: string, text: string, spec: string): string {
  const name = path.relative(process.cwd(), file);
  const escaped = spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?:\\bfrom|\\bimport)\\s*\\(?\\s*(['"])${escaped}\\1`).exec(text);
  if (!m) return name;
  const at = m.index + m[0].length - spec.length - 2;
  const before = text.slice(0, at).split('\n');
  return `${name}:${before.length}:${before.at(-1)!.length + 1}`;
}

function readIfThere(file: string): string | undefined {
  try { return readFileSync(file, 'utf8'); } catch { return undefined; }
}

/** Written whole under a temporary name, then renamed: a reader never sees half a file. */
function remember(file: string, code: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, code);
    renameSync(part, file);
  } catch {
    // A cache that cannot be written (a read-only install) only costs the next compile.
  }
}

/** One line, naming the file and place: "exercises/11/agent.ts:42:7: Expected ";" but found "x"". */
function firstError(err: TransformFailure, file: string): string {
  const name = path.relative(process.cwd(), file);
  const first = err.errors?.[0];
  if (!first) return `${name}: could not compile: ${String((err as Error).message ?? err).split('\n')[0]}`;
  return `${first.location ? `${name}:${first.location.line}:${first.location.column + 1}` : name}: ${first.text}`;
}
