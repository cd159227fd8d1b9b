// Tests for src/tooling/outline.ts (file roles, imports, reading order, cycles, the
// changes table, the snapshot READMEs), for the region kinds built on it (files, hunk,
// cases, exercise), and two checks of this repository: its snapshot READMEs are fresh,
// and the import graph of src/agent/ and of every snapshot, with its cycles.

import { readFileSync, readdirSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WRITTEN_CHAPTERS, chapterDir } from '../src/chapters.ts';
import { defaultResolvers, fillDoc } from '../src/tooling/docs.ts';
import { hunksTouching } from '../src/tooling/diff.ts';
import { loadAgentSources, writeSnapshots } from '../src/tooling/generate.ts';
import {
  changesTable, checkReadmes, chapterFiles, fileRole, importCycles, importGraph, localImports, readingOrder, snapshotReadme, writeReadmes,
} from '../src/tooling/outline.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const FIXTURE_AGENT = fileURLToPath(new URL('./fixtures/markers/tree/src/agent/', import.meta.url));

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

async function fixtureRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'outline-test-'));
  roots.push(root);
  const agent = join(root, 'src', 'agent');
  await cp(FIXTURE_AGENT, agent, { recursive: true });
  for (const name of await readdir(agent)) await rename(join(agent, name), join(agent, name.replace(/\.txt$/, '')));
  return root;
}

describe('fileRole', () => {
  it('is the first sentence of the header comment', () => {
    expect(fileRole('// The loop: ask, run, repeat. Then more.\n// Second line.\n\ncode();\n')).toBe('The loop: ask, run, repeat.');
    expect(fileRole('// A sentence that runs\n// over two lines, e.g. this one. Next.\n')).toBe('A sentence that runs over two lines, e.g. this one.');
    expect(fileRole('// Run it like this:\n//\n//   npx tsx bin.ts\n')).toBe('Run it like this.');
    expect(fileRole('import x from "y";\n')).toBe('');
  });
});

describe('localImports and importGraph', () => {
  it('finds same-folder imports, type-only ones marked, over several lines', () => {
    const text = [
      "import type { A } from './a.ts';",
      "import { b, type B } from './b.ts';",
      "import { type C, type D } from './c.ts';",
      'import {',
      '  e,',
      "} from './e.ts';",
      "export { f } from './f.ts';",
      "import os from 'node:os';",
      "import { g } from '../g.ts';",
    ].join('\n');
    expect(localImports(text)).toEqual([
      { to: 'a.ts', typeOnly: true },
      { to: 'b.ts', typeOnly: false },
      { to: 'c.ts', typeOnly: true },
      { to: 'e.ts', typeOnly: false },
      { to: 'f.ts', typeOnly: false },
    ]);
    const graph = importGraph(new Map([['a.ts', "import { b } from './b.ts';\nimport { z } from './z.ts';\n"], ['b.ts', '']]));
    expect(graph.get('a.ts')).toEqual([{ to: 'b.ts', typeOnly: false }]);   // z.ts is not in the set
  });
});

describe('importCycles and readingOrder', () => {
  const files = new Map([
    ['main.ts', "import { loop } from './loop.ts';\n"],
    ['loop.ts', "import type { Host } from './main.ts';\nimport { tools } from './tools.ts';\n"],
    ['tools.ts', "import { sub } from './sub.ts';\n"],
    ['sub.ts', "import { loop } from './loop.ts';\n"],
    ['leaf.ts', ''],
  ]);
  it('reports each group of files that import each other, with one loop through it', () => {
    expect(importCycles(importGraph(files))).toEqual([
      { files: ['loop.ts', 'main.ts', 'sub.ts', 'tools.ts'], loop: 'loop.ts → main.ts → loop.ts' },
    ]);
    expect(importCycles(importGraph(new Map([['a.ts', "import './b.ts';"], ['b.ts', '']])))).toEqual([]);
  });
  it('puts each file after what it imports, types included, earlier chapters first inside a cycle', () => {
    const since = new Map([['main.ts', 1], ['loop.ts', 1], ['tools.ts', 1], ['sub.ts', 11], ['leaf.ts', 5]]);
    // loop.ts takes a type from main.ts, so main, loop, tools and sub form one group: level 0
    // with leaf.ts, ordered by chapter, then by fewer imports inside the group, then by name.
    expect(readingOrder(files, since)).toEqual(['main.ts', 'tools.ts', 'loop.ts', 'leaf.ts', 'sub.ts']);
    // A file whose types another uses is read first, like one whose code it runs.
    const acyclic = new Map([['c.ts', "import { b } from './b.ts';"], ['b.ts', "import type { A } from './a.ts';"], ['a.ts', '']]);
    expect(readingOrder(acyclic)).toEqual(['a.ts', 'b.ts', 'c.ts']);
  });
});

describe('chapterFiles, changesTable and the snapshot README', () => {
  it('counts lines added and removed against the chapter before, and links the snapshot', async () => {
    const sources = await loadAgentSources(await fixtureRoot());
    const two = chapterFiles(sources, 2);
    expect(two.map((f) => [f.name, f.status])).toEqual([['gone.ts', 'unchanged'], ['tools.ts', 'unchanged'], ['main.ts', 'changed']]);
    const table = changesTable(sources, 2);
    expect(table).toContain('| [`main.ts`](../steps/02-tools/main.ts) | changed | +');
    expect(table).not.toContain('gone.ts');   // unchanged files are not listed
    expect(table.split('\n').at(-1)).toBe('The whole diff: `node steps/run.mjs 2 --diff`.');
    expect(() => changesTable(sources, WRITTEN_CHAPTERS.at(-1)!.n)).toThrow(/changes no file/);
    const readme = snapshotReadme(sources, 1);
    expect(readme.split('\n')[0]).toMatch(/^<!-- GENERATED by npm run gen/);
    expect(readme).toContain('Every file is new here.');
    expect(readme).toContain('| [`main.ts`](main.ts) | ');
  });

  it('writes READMEs, checks them, and refuses to overwrite one written by hand', async () => {
    const root = await fixtureRoot();
    await writeSnapshots(root);
    expect((await writeReadmes(root)).length).toBe(WRITTEN_CHAPTERS.length);
    expect(await checkReadmes(root)).toEqual([]);
    const first = `steps/${chapterDir(WRITTEN_CHAPTERS[0]!)}/README.md`;
    await writeFile(join(root, first), `${await readFile(join(root, first), 'utf8')}edited\n`);
    expect(await checkReadmes(root)).toEqual([{ path: first, problem: 'stale' }]);
    await writeFile(join(root, first), 'my own notes\n');
    await expect(writeReadmes(root)).rejects.toThrow(`${first} was written by hand`);
  });
});

describe('hunk, files, cases and exercise regions', () => {
  it('shows only the hunks that touch the given lines', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n';
    const after = 'a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n';
    expect(hunksTouching(before, after, 11, 11)).toBe('@@ -9,5 +9,5 @@\n i\n j\n k\n-l\n+L\n m\n');
    expect(hunksTouching(before, after, 4, 6)).toBe('');
  });

  it('fills them from the sources and the verdict callback', async () => {
    const root = await fixtureRoot();
    const verdicts = async () => [
      { caseName: 'demo', title: 'The demo', verdict: 'PASS 3/3 expectations' },
      { caseName: 'odd', title: 'An odd | case', verdict: 'PASS 1/1 expectations' },
      { caseName: 'shown', title: 'Shown elsewhere', verdict: 'PASS 2/2 expectations' },
    ];
    const resolvers = defaultResolvers(root, undefined, verdicts);
    const doc = '<!-- hunk: main.ts#run-better @2 -->\n<!-- /hunk -->\n<!-- cases: 2 except shown -->\n<!-- /cases -->\n<!-- exercise: 2 -->\n<!-- /exercise -->\n<!-- files: 2 -->\n<!-- /files -->';
    const filled = await fillDoc(doc, 'docs/d.md', resolvers);
    expect(filled).toContain("+  return greet('two') + greet('two');");
    expect(filled).toContain('| `odd` | An odd \\| case | `node steps/run.mjs 2 --case odd` | PASS 1/1 expectations |');
    expect(filled).not.toContain('`shown`');
    expect(filled).not.toContain('| `demo`');
    expect(filled).toContain('with `run-better` in `main.ts` stubbed out.');
    expect(filled).toContain('| [`main.ts`](../steps/02-tools/main.ts) | changed |');
    await expect(fillDoc('<!-- cases: 2 except nope -->\n<!-- /cases -->', 'docs/d.md', resolvers)).rejects.toThrow('docs/d.md:1: no case nope in chapter 2');
    await expect(fillDoc('<!-- hunk: main.ts#run-better @3 -->\n<!-- /hunk -->', 'docs/d.md', resolvers)).rejects.toThrow(/is the same in chapter 3 as before/);
    const withUsage = defaultResolvers(root, undefined, async () => [
      { caseName: 'cold', title: 'Cold', verdict: 'PASS 1/1 expectations', usage: { calls: 8, input: 867, write: 146173, read: 194000, output: 764 } },
    ]);
    expect(await fillDoc('<!-- cases: 2 usage -->\n<!-- /cases -->', 'docs/d.md', withUsage)).toContain(
      '| `cold` | Cold | `node steps/run.mjs 2 --case cold` | PASS 1/1 expectations | 8 | 867 | 146,173 | 194,000 | 764 |',
    );
    // Without runs, a cases region stays as it is.
    const kept = '<!-- cases: 2 -->\nkept\n<!-- /cases -->';
    expect(await fillDoc(kept, 'docs/d.md', defaultResolvers(root))).toBe(kept);
  });
});

describe('this repository', () => {
  it('has a fresh README.md in every snapshot folder (run npm run gen after editing src/agent)', async () => {
    expect(await checkReadmes(REPO_ROOT)).toEqual([]);
  });

  // Where the imports go round in a circle, no reading order is bottom-up. Every folder
  // of chapter code is checked: src/agent/ (all chapters at once) and each snapshot.
  const folders = ['src/agent', ...WRITTEN_CHAPTERS.map((ch) => `steps/${chapterDir(ch)}`)];
  const cyclesOf = (folder: string) => {
    const dir = join(REPO_ROOT, folder);
    const files = new Map(readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    return importCycles(importGraph(files));
  };

  // The layering of docs/architecture.md: types at the bottom, the loop above the tools,
  // each feature above the loop, the session above the features, main.ts on top.
  it('has no import cycle in src/agent/ or any snapshot', () => {
    expect(folders.flatMap((folder) => cyclesOf(folder).map((c) => `${folder}: ${c.loop} (${c.files.join(', ')})`))).toEqual([]);
  });
});
