// Type-checking lives in the tests, not on the demo path: the runner loads TypeScript
// without checking it (fast), and this test holds every snapshot, the mock, the
// runner, the tooling and the tests to `strict`.

import { it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { COMPILER_OPTIONS, compilerCommand, compilerEnv, typeErrors } from '../src/runner/typecheck.ts';
import { codeFiles } from '../src/runner/code-files.ts';
import { makeProjectScratch } from './temp-guard.ts';

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

it('--check remembers a folder found clean, never one with errors: an error made after a clean check is reported', async () => {
  const dir = makeProjectScratch(ROOT, 'typecheck-');
  try {
    cpSync(path.join(ROOT, 'steps/01-agent-loop'), dir, { recursive: true });
    expect(await typeErrors(ROOT, dir)).toEqual([]);
    const main = path.join(dir, 'main.ts');
    const clean = readFileSync(main, 'utf8');
    writeFileSync(main, `${clean}\nexport const notANumber: number = 'one';\n`);
    const errors = await typeErrors(ROOT, dir);
    expect(errors.map((e) => `${path.basename(e.file)}: ${e.message}`)).toEqual(["main.ts: Type 'string' is not assignable to type 'number'."]);
    writeFileSync(main, clean);
    expect(await typeErrors(ROOT, dir)).toEqual([]);
  } finally { rmSync(dir, { recursive: true, force: true }); }
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
