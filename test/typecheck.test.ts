// Type-checking lives in the tests, not on the demo path: the runner loads TypeScript
// without checking it (fast), and this test holds every snapshot, the mock, the
// runner, the tooling and the tests to `strict`.

import { it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { COMPILER_OPTIONS, compilerCommand, compilerEnv, typeErrors } from '../src/runner/typecheck.ts';
import { codeFiles } from '../src/runner/code-files.ts';
import { makeProjectScratch } from './temp-guard.ts';

/** A name no earlier test run wrote: code holding it is new to every cache. */
const uniqueName = () => `made${process.pid}at${Date.now()}n${Math.random().toString(36).slice(2, 8)}`;

it('the whole project type-checks (tsc --noEmit, strict)', () => {
  const [program, ...before] = compilerCommand(ROOT)!;
  // One compiler thread: the other test files keep both cores busy, so the compiler's extra
  // threads save no wall time here and cost a third more CPU (1.29 s with one, 1.76 s
  // without). `npm run typecheck` keeps them: run on its own, they finish it sooner
  // (0.95 s wall instead of 1.13 s).
  // Incremental, with what it learnt kept in node_modules/.cache: the next run checks again
  // only the files that changed and what depends on them (about 0.4 s of CPU instead of 1.0 s
  // when nothing did, measured with the collector off), and still reports every error, old ones included. A fresh clone has
  // nothing kept and checks everything. Its garbage collector is off (compilerEnv), as for --check.
  const buildInfo = path.join(ROOT, 'node_modules', '.cache', 'subagents-typecheck', 'project.tsbuildinfo');
  const result = spawnSync(program!, [...before, '-p', 'tsconfig.json', '--noEmit', '--singleThreaded', '--incremental', '--tsBuildInfoFile', buildInfo], { cwd: ROOT, env: compilerEnv(), encoding: 'utf8' });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
}, 120_000);

it("--check's compiler options are tsconfig.json's: a snapshot clean here is clean in a learner's exercise folder", () => {
  const { noEmit, ...project } = (JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> }).compilerOptions;
  expect(noEmit).toBe(true);   // --check passes --noEmit itself
  const fromFlags: Record<string, unknown> = {};
  for (let i = 0; i < COMPILER_OPTIONS.length; i++) {
    const name = COMPILER_OPTIONS[i]!.replace(/^--/, '');
    const value = COMPILER_OPTIONS[i + 1];
    if (value === undefined || value.startsWith('--')) { fromFlags[name] = true; continue; }
    fromFlags[name] = name === 'types' || name === 'lib' ? value.split(',') : value;
    i++;
  }
  expect(fromFlags).toEqual(project);
});

// The errors here are ones no earlier test run made (a name of this run's own): the compiler
// runs for them, so the way its output is read is tested every time, not a verdict remembered.
// One of them quotes the folder's path: that verdict is not kept, as it is this copy's alone.
it("--check remembers a folder's verdict by its files: an error made after a clean check is reported, and the fix is clean again", async () => {
  const dir = makeProjectScratch(ROOT, 'typecheck-');
  const cache = path.join(ROOT, 'node_modules', '.cache', 'subagents-check');
  try {
    cpSync(path.join(ROOT, 'steps/01-agent-loop'), dir, { recursive: true });
    expect(await typeErrors(ROOT, dir)).toEqual([]);
    const main = path.join(dir, 'main.ts');
    const clean = readFileSync(main, 'utf8');
    writeFileSync(main, `${clean}\nexport const ${uniqueName()}: number = 'one';\nimport type { Missing } from '${path.join(dir, 'agent.ts')}';\n`);
    const before = new Set(readdirSync(cache));
    const errors = await typeErrors(ROOT, dir);
    expect(errors.map((e) => `${path.basename(e.file)}: ${e.message}`)).toEqual([
      "main.ts: Type 'string' is not assignable to type 'number'.",
      `main.ts: Module '"${path.join(dir, 'agent.ts')}"' has no exported member 'Missing'.`,
    ]);
    expect(readdirSync(cache).filter((f) => !before.has(f)).filter((f) => readFileSync(path.join(cache, f), 'utf8').includes('Missing'))).toEqual([]);
    writeFileSync(main, clean);
    expect(await typeErrors(ROOT, dir)).toEqual([]);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

// What a verdict holds is read back, not the compiler asked again: the kept verdict is changed
// on disk between the two checks, and the second check reports the change.
it('a verdict with errors is remembered for the same files in another folder, each error named in that folder', async () => {
  const [first, second] = [makeProjectScratch(ROOT, 'typecheck-'), makeProjectScratch(ROOT, 'typecheck-')];
  const name = uniqueName();
  let kept: string | undefined;
  try {
    for (const dir of [first, second]) {
      cpSync(path.join(ROOT, 'steps/01-agent-loop'), dir, { recursive: true });
      writeFileSync(path.join(dir, 'agent.ts'), `${readFileSync(path.join(dir, 'agent.ts'), 'utf8')}\nexport const ${name}: number = 'one';\n`);
    }
    const cache = path.join(ROOT, 'node_modules', '.cache', 'subagents-check');
    const before = new Set(readdirSync(cache));
    const errors = await typeErrors(ROOT, first);
    expect(errors).toEqual([{ file: path.relative(process.cwd(), path.join(first, 'agent.ts')), line: expect.any(Number), column: 14, message: "Type 'string' is not assignable to type 'number'." }]);
    // The verdict kept: the file is named from the folder, so it holds nothing of this copy's path.
    const asKept = JSON.stringify([{ file: 'agent.ts', line: errors[0]!.line, column: 14, message: "Type 'string' is not assignable to type 'number'." }]);
    kept = readdirSync(cache).filter((f) => !before.has(f)).map((f) => path.join(cache, f)).find((f) => readFileSync(f, 'utf8') === asKept);
    expect(kept, 'no verdict was kept for the folder').toBeDefined();
    writeFileSync(kept!, JSON.stringify([{ file: 'agent.ts', line: errors[0]!.line, column: 14, message: 'as kept' }]));
    expect(await typeErrors(ROOT, second)).toEqual([{ file: path.relative(process.cwd(), path.join(second, 'agent.ts')), line: errors[0]!.line, column: 14, message: 'as kept' }]);
  } finally {
    for (const dir of [first, second]) rmSync(dir, { recursive: true, force: true });
    if (kept) rmSync(kept, { force: true });
  }
});

it('--check remembers a folder by every file below it: an error made in a subfolder after a clean check is reported', async () => {
  const dir = makeProjectScratch(ROOT, 'typecheck-');
  try {
    cpSync(path.join(ROOT, 'steps/01-agent-loop'), dir, { recursive: true });
    mkdirSync(path.join(dir, 'lib'));
    writeFileSync(path.join(dir, 'lib', 'limit.ts'), 'export const LIMIT: number = 20;\n');
    const main = path.join(dir, 'main.ts');
    writeFileSync(main, `${readFileSync(main, 'utf8')}\nexport { LIMIT } from './lib/limit.ts';\n`);
    expect(await typeErrors(ROOT, dir)).toEqual([]);
    writeFileSync(path.join(dir, 'lib', 'limit.ts'), "export const LIMIT: number = 'twenty';\n");
    const errors = await typeErrors(ROOT, dir);
    expect(errors.map((e) => `${path.relative(dir, path.resolve(e.file))}: ${e.message}`)).toEqual(["lib/limit.ts: Type 'string' is not assignable to type 'number'."]);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

// A link in an exercise that leads back up (here to the folder holding it) must not have the
// walk go round it: readdir's own recursive walk follows links to folders, forty levels deep.
it("a learner's code files: subfolders and links to files, never a link to a folder, a node_modules or a hidden one", () => {
  const outer = makeProjectScratch(ROOT, 'code-files-');
  try {
    const dir = path.join(outer, 'ex');
    for (const sub of ['lib', '.hidden', 'node_modules/pkg']) mkdirSync(path.join(dir, sub), { recursive: true });
    for (const file of ['main.ts', 'notes.md', 'lib/limit.ts', '.hidden/x.ts', 'node_modules/pkg/index.ts', '.eslintrc.json']) writeFileSync(path.join(dir, file), 'export {};\n');
    writeFileSync(path.join(outer, 'outside.ts'), 'export {};\n');
    symlinkSync('..', path.join(dir, 'up'));                      // a folder link, leading back up
    symlinkSync('lib/limit.ts', path.join(dir, 'limit-link.ts'));  // a file link
    symlinkSync('missing.ts', path.join(dir, 'dangling.ts'));     // a link to nothing
    expect(codeFiles(dir, (name) => name.endsWith('.ts'))).toEqual([path.join('lib', 'limit.ts'), 'limit-link.ts', 'main.ts']);
  } finally { rmSync(outer, { recursive: true, force: true }); }
});

it("the compiler runs without its garbage collector, unless the user's environment says otherwise", () => {
  expect(compilerEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', GOGC: 'off', GOMEMLIMIT: '1GiB' });
  expect(compilerEnv({ GOGC: '200', GOMEMLIMIT: '4GiB' })).toEqual({ GOGC: '200', GOMEMLIMIT: '4GiB' });
});

it("--check starts TypeScript's native compiler itself, or the package's script where that is all there is", () => {
  const [program] = compilerCommand(ROOT)!;
  expect(path.basename(program!)).toMatch(/^tsc(\.exe)?$/);
  expect(program).not.toBe(process.execPath);   // installed by npm ci: no node start in between
  const root = makeProjectScratch(ROOT, 'compiler-');
  try {
    expect(compilerCommand(root)).toBeUndefined();
    const script = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    mkdirSync(path.dirname(script), { recursive: true });
    writeFileSync(script, '');
    expect(compilerCommand(root)).toEqual([process.execPath, script]);
  } finally { rmSync(root, { recursive: true, force: true }); }
});
