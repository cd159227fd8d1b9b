// steps/fast-start.mjs compiles the runner and the snapshots once and hands out the
// compiled copies. A compiled copy must never stand in for a snapshot that changed
// after the build: `--gen` rewrites snapshots and then renders the docs' transcripts
// from them in the same process. And a crash in a compiled snapshot still says where, in
// the TypeScript file.

import { it, expect } from 'vitest';
import { existsSync, mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { makeProjectScratch } from './temp-guard.ts';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { placeInLoadedCode } from '../src/runner/load-folder.ts';
// @ts-expect-error: plain JavaScript, no type declarations
import { compiled } from '../steps/fast-start.mjs';

type Compiled = { cli(): unknown; chapter(folder: string): (() => { who: string; boom?: () => never }) | undefined; folder: string };

/** A project of the smallest shape fast-start builds (a runner, its cleanup, one snapshot), in a scratch folder; `write` adds or changes a file. */
function tinyProject(): { root: string; write: (rel: string, text: string) => void } {
  const root = makeProjectScratch(ROOT, 'fast-start-');
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  write('src/runner/cli.ts', 'export const main = (): number => 0;\n');
  write('src/runner/cleanup.ts', 'export const removeWorktreesOf = (): void => {};\n');
  // A package of the SDK's name, found before the project's own: every build bundles the SDK,
  // and the real one is about a megabyte for esbuild to read and minify at each of these
  // builds (about 0.9 s of CPU for this file). What is tested here is which build and which
  // snapshot are handed out, whatever the SDK holds.
  write('node_modules/@anthropic-ai/sdk/package.json', JSON.stringify({ name: '@anthropic-ai/sdk', main: 'index.js' }));
  write('node_modules/@anthropic-ai/sdk/index.js', 'module.exports = {};\n');
  return { root, write };
}

it('hands out a compiled snapshot only while its files are the ones it was built from', async () => {
  const { root, write } = tinyProject();
  try {
    write('steps/01-first/main.ts', "export const who: string = 'built';\nexport { boom } from './boom.ts';\n");
    write('steps/01-first/boom.ts', "// A second file of the bundle.\nexport function boom(): never {\n  throw new Error('boom');\n}\n");
    const folder = path.join(root, 'steps', '01-first');
    const fast = (await compiled(root)) as Compiled;
    expect(fast.chapter(folder)?.().who).toBe('built');
    // The bundle's frame, read through the map built beside it: the file and line it came from.
    let thrown: unknown;
    try { fast.chapter(folder)!().boom!(); } catch (err) { thrown = err; }
    expect(placeInLoadedCode(thrown)).toBe(`${path.relative(process.cwd(), path.join(folder, 'boom.ts'))}:3:9`);
    expect(fast.chapter(path.join(root, 'steps', '02-none'))).toBeUndefined();
    write('steps/01-first/main.ts', "export const who: string = 'rewritten since';\n");
    expect(fast.chapter(folder)).toBeUndefined();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

it("a build in use is not taken for an old one: each start touches its folder, so another build's clean-up leaves it", async () => {
  const { root, write } = tinyProject();
  try {
    write('steps/01-first/main.ts', "export const who: string = 'first';\n");
    const first = ((await compiled(root)) as Compiled).folder;
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(first, hourAgo, hourAgo);
    // A run that starts now on the same build (a watch left open for an hour): the folder is its again.
    expect(((await compiled(root)) as Compiled).folder).toBe(first);
    expect(Date.now() - statSync(first).mtimeMs).toBeLessThan(60_000);
    // An edit, and a run that builds afresh: it removes old builds, not the one in use.
    write('steps/01-first/main.ts', "export const who: string = 'edited';\n");
    const second = ((await compiled(root)) as Compiled).folder;
    expect(second).not.toBe(first);
    expect(existsSync(path.join(first, 'cli.cjs'))).toBe(true);
    // One that nobody touched for ten minutes goes with the next build. (Not `first` or
    // `second`: this process used both, and its timer touches them every minute, which may
    // fall during the build below.)
    const nobodys = path.join(path.dirname(first), 'ffffffffffffffff');
    mkdirSync(nobodys);
    writeFileSync(path.join(nobodys, 'cli.cjs'), '');
    utimesSync(nobodys, hourAgo, hourAgo);
    write('steps/01-first/main.ts', "export const who: string = 'edited again';\n");
    await compiled(root);
    expect(existsSync(nobodys)).toBe(false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
