// src/runner/load-folder.ts on small folders of its own: what is compiled again and what is
// not, which module a load hands out, where a load that fails says it failed, and that it
// compiles TypeScript as tsconfig.json says. (Whole chapters load through it in
// the scenario suite, the exercise tests and the self-check.)
//
// In order, not side by side: the tests count the files this process compiles.

import { describe, it, expect } from 'vitest';
import { createRequire } from 'node:module';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { makeProjectScratch } from './temp-guard.ts';
import { sh } from './cli-helpers.ts';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { compiledCodeMisses, loadFolder, TSCONFIG_FOR_ESBUILD, type PackageCopy } from '../src/runner/load-folder.ts';
import { scratchFolder } from './scratch-folder.ts';

// Inside the project, so that a folder's packages resolve to its node_modules.
const scratch = scratchFolder(() => makeProjectScratch(ROOT, 'load-folder-'));

function folder(name: string, files: Record<string, string>): string {
  const dir = path.join(scratch(), name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

/** The one-line message a load fails with. */
async function failure(dir: string): Promise<string> {
  try {
    await loadFolder(dir);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${dir} loaded`);
}

const rel = (file: string) => path.relative(process.cwd(), file);

interface Greeter { hello(): string; ticks(): number; where(): string; parse: unknown }

describe('load-folder', () => {
  it('compiles only what changed: an unchanged folder is the same module, a changed one a new module, a copy a module of its own', async () => {
    const dir = folder('greeter', {
      'main.ts': [
        '// The front door of a small folder (test/load-folder.test.ts).',
        "import minimist from 'minimist';",
        "import { count } from './counter.ts';",
        "import { shout } from './words.js';",
        "import { greet } from './greeting';",
        "export const hello = (): string => greet(shout('world'));",
        'export const ticks = (): number => count();',
        "export const where = (): string => new Error('here').stack ?? '';",
        'export const parse = minimist;',
        '',
      ].join('\n'),
      'counter.ts': 'let n = 0;\nexport const count = (): number => ++n;\n',
      'words.ts': 'export const shout = (s: string): string => s.toUpperCase();\n',
      'greeting.ts': 'export const greet = (who: string): string => `hello ${who}`;\n',
      'stray.ts': 'export const unfinished = ;\n',   // nothing imports it: it must not fail the load
    });
    const start = compiledCodeMisses();
    const first = (await loadFolder(dir)) as Greeter;
    expect(compiledCodeMisses() - start).toBe(4);   // main, counter, words, greeting
    expect(first.hello()).toBe('hello WORLD');
    expect(first.ticks()).toBe(1);

    const again = (await loadFolder(dir)) as Greeter;
    expect(again).toBe(first);
    expect(again.ticks()).toBe(2);                  // the same module, its state too
    expect(compiledCodeMisses() - start).toBe(4);

    writeFileSync(path.join(dir, 'words.ts'), "export const shout = (s: string): string => `${s}!`;\n");
    const changed = (await loadFolder(dir)) as Greeter;
    expect(changed).not.toBe(first);
    expect(changed.hello()).toBe('hello world!');
    expect(changed.ticks()).toBe(1);                // every file of it ran anew
    expect(compiledCodeMisses() - start).toBe(5);   // words.ts alone was compiled

    const copy = path.join(scratch(), 'greeter-copy');
    cpSync(dir, copy, { recursive: true });
    writeFileSync(path.join(copy, 'main.ts'), readFileSync(path.join(dir, 'main.ts'), 'utf8').replace('// The front door', '// A copy of the front door'));
    const copied = (await loadFolder(copy)) as Greeter;
    expect(copied).not.toBe(changed);
    expect(copied.ticks()).toBe(1);
    expect(compiledCodeMisses() - start).toBe(5);   // the same code (its opening comment aside): nothing compiled
    expect(copied.where()).toContain(`${path.join(copy, 'main.ts')}:`);   // stack traces name the file itself
    expect(copied.parse).toBe(first.parse);         // a package loads once per process

    // Fresh: the same unchanged code runs again, a module of its own with its own state.
    const fresh = (await loadFolder(copy, { fresh: true })) as Greeter;
    expect(fresh).not.toBe(copied);
    expect(copied.ticks()).toBe(2);
    expect(fresh.ticks()).toBe(1);
    expect(compiledCodeMisses() - start).toBe(5);   // run again, not compiled again
  });

  it("import() in the folder's code loads what it asks for, as in any module of the process", async () => {
    const dir = folder('dynamic', {
      'main.ts': "export async function kindOfReadFile(): Promise<string> {\n  const { readFile } = await import('node:fs/promises');\n  return typeof readFile;\n}\n",
    });
    const mod = (await loadFolder(dir)) as { kindOfReadFile(): Promise<string> };
    expect(await mod.kindOfReadFile()).toBe('function');
  });

  // Node calls the loader import() goes to from such code experimental, once per process, on
  // stderr: a learner whose code imports on the fly saw that warning in the middle of --check.
  it("import() in a learner's code, under --check: no warning about the loader the runner chose", async () => {
    const dir = path.join(scratch(), 'check-dynamic');
    cpSync(path.join(ROOT, 'steps', '01-agent-loop'), dir, { recursive: true });
    const main = path.join(dir, 'main.ts');
    writeFileSync(main, readFileSync(main, 'utf8').replace('const session = new Session(client, host);', "const session = new Session(client, host);\n  await import('node:path');"));
    const r = await sh(process.execPath, [path.join(ROOT, 'steps', 'run.mjs'), '1', '--check', path.relative(ROOT, dir), '--case', 'demo']);
    expect(r.err).not.toContain('Warning');
    expect(r.out).toContain('passes');
    expect(r.code).toBe(0);
  });

  it('an import that does not resolve fails the load in one line, at the import', async () => {
    const dir = folder('unresolved', {
      'main.ts': "// main\nimport { a } from './a.ts';\nimport { x } from './nope.ts';\nexport const y = a + x;\n",
      'a.ts': 'export const a = 1;\n',
    });
    expect(await failure(dir)).toBe(`${rel(path.join(dir, 'main.ts'))}:3:19: Could not resolve "./nope.ts"`);
  });

  it('a syntax error in an imported file fails the load in one line, at its place', async () => {
    const dir = folder('syntax', {
      'main.ts': "import { a } from './a.ts';\nexport const y = a;\n",
      'a.ts': '// a\nexport const a = 1 +;\n',
    });
    expect(await failure(dir)).toBe(`${rel(path.join(dir, 'a.ts'))}:2:21: Unexpected ";"`);
  });

  it("a package the process holds a copy of is that copy, where the folder's require would load the file it was made from", async () => {
    const key = Symbol.for('subagents.packageCopies');
    const saved = (globalThis as Record<symbol, unknown>)[key];
    const copy = { made: 'here' };
    let loads = 0;
    const from = (resolved: string): PackageCopy => ({ resolved: () => resolved, load: () => { loads++; return copy; } });
    try {
      const real = createRequire(path.join(ROOT, 'package.json')).resolve('minimist');
      (globalThis as Record<symbol, unknown>)[key] = new Map([['minimist', from(real)]]);
      const dir = folder('package-copy', { 'main.ts': "import minimist from 'minimist';\nexport const parse = minimist;\n" });
      expect(await loadFolder(dir)).toMatchObject({ parse: copy });
      expect(loads).toBe(1);
      // A copy made from another file (another install of the package) is not handed out.
      (globalThis as Record<symbol, unknown>)[key] = new Map([['minimist', from(path.join(scratch(), 'elsewhere', 'index.js'))]]);
      const other = folder('package-copy-elsewhere', { 'main.ts': "import minimist from 'minimist';\nexport const parse = minimist;\n" });
      const nodes = createRequire(path.join(ROOT, 'package.json'))('minimist');
      expect(((await loadFolder(other)) as { parse: unknown }).parse).toBe(nodes);
      expect(loads).toBe(1);
      // A folder that also requires a part of the package gets Node's copy for all of it.
      (globalThis as Record<symbol, unknown>)[key] = new Map([['minimist', from(real)]]);
      const parts = folder('package-copy-parts', { 'main.ts': "import minimist from 'minimist';\nimport pkg from 'minimist/package.json';\nexport const parse = minimist;\nexport const name = pkg.name;\n" });
      expect(await loadFolder(parts)).toMatchObject({ parse: nodes, name: 'minimist' });
      expect(loads).toBe(1);
    } finally {
      (globalThis as Record<symbol, unknown>)[key] = saved;
    }
  });

  it('compiles TypeScript as tsconfig.json says', async () => {
    const { compilerOptions } = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    const own = TSCONFIG_FOR_ESBUILD.compilerOptions as Record<string, unknown>;
    expect(Object.fromEntries(Object.keys(own).map((k) => [k, compilerOptions[k]]))).toEqual(own);
    const dir = folder('semantics', {
      'log.ts': 'export const log: string[] = [];\n',
      'types.ts': "import { log } from './log.ts';\nlog.push('types.ts ran');\nexport interface Shape { sides: number }\n",
      'main.ts': [
        "import { Shape } from './types.ts';",   // not `import type`: verbatimModuleSyntax keeps it, so types.ts runs
        "import { log } from './log.ts';",
        'class Box { content: Shape | undefined; }',
        'export const ran = log.slice();',
        "export const fieldDefined = Object.hasOwn(new Box(), 'content');",   // ES2022 class fields
        'export const strict = (function (this: unknown) { return this === undefined; })();',
        '',
      ].join('\n'),
    });
    expect(await loadFolder(dir)).toMatchObject({ ran: ['types.ts ran'], fieldDefined: true, strict: true });
  });
});
