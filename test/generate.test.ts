// Tests for the generator side of src/tooling: snapshots (generate.ts), the line
// diff (diff.ts), doc regions (docs.ts), exercises (exercise.ts) and the gen
// command (gen-cli.ts), on a temp copy of test/fixtures/markers/tree — plus one
// check that this repository's own snapshots are fresh. Marker parsing itself is
// covered by markers.test.ts.

import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultResolvers, fillAllDocs, fillDoc } from '../src/tooling/docs.ts';
import type { DocResolvers } from '../src/tooling/docs.ts';
import { diffLines, unifiedDiff } from '../src/tooling/diff.ts';
import { exerciseFiles, hintsFor } from '../src/tooling/exercise.ts';
import { runGen } from '../src/tooling/gen-cli.ts';
import { WRITTEN_CHAPTERS, chapterDir, findChapter } from '../src/chapters.ts';
import {
  chapterDiff, checkSnapshots, generateSnapshots, isEmptyBody, writeSnapshots,
} from '../src/tooling/generate.ts';

const FIXTURE_AGENT = fileURLToPath(new URL('./fixtures/markers/tree/src/agent/', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

async function emptyRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'gen-test-'));
  roots.push(root);
  return root;
}

/** A temp repository root whose src/agent/ holds the fixture sources (renamed from .ts.txt). */
async function fixtureRoot(): Promise<string> {
  const root = await emptyRoot();
  const agent = join(root, 'src', 'agent');
  await cp(FIXTURE_AGENT, agent, { recursive: true });
  for (const name of await readdir(agent)) {
    await rename(join(agent, name), join(agent, name.replace(/\.txt$/, '')));
  }
  return root;
}

// The fixture changes in chapters 1, 2 and 3. Only written chapters get snapshots,
// and a chapter diffs against the written one before it, so the expectations follow
// the table: LATE is the first written chapter that has late.ts (3, or a later one
// while 3 is still planned); its diff is against chapter 2 either way.
const LATE = WRITTEN_CHAPTERS.find((c) => c.n >= 3) ?? { n: 3, slug: 'missing', title: '', canNow: '', written: false };
const LATE_DIR = chapterDir(LATE);
const AFTER_LATE = LATE.n + 1;
const fixtureFilesOf = (n: number): string[] => (n <= 2 ? ['gone.ts', 'main.ts', 'tools.ts'] : ['late.ts', 'main.ts', 'tools.ts']);
const SNAPSHOT_COUNT = WRITTEN_CHAPTERS.length * 3;

const HEADER_1_MAIN =
  '// GENERATED from src/agent/main.ts for chapter 1 (agent-loop). Do not edit: change src/agent/main.ts and run npm run gen.';

describe('generateSnapshots', () => {
  it('has the chapters these fixtures assume', () => {
    expect(WRITTEN_CHAPTERS.slice(0, 2).map((c) => c.n)).toEqual([1, 2]);
    expect(findChapter(LATE.n)?.written).toBe(true);
    expect(AFTER_LATE).toBeLessThanOrEqual(14);
  });

  it('renders every file for every chapter, with the header, skipping empty files', async () => {
    const files = await generateSnapshots(await fixtureRoot());
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(WRITTEN_CHAPTERS.flatMap((ch) => fixtureFilesOf(ch.n).map((f) => `steps/${chapterDir(ch)}/${f}`)));
    expect(paths.slice(0, 6)).toEqual([
      'steps/01-agent-loop/gone.ts', 'steps/01-agent-loop/main.ts', 'steps/01-agent-loop/tools.ts',
      'steps/02-tools/gone.ts', 'steps/02-tools/main.ts', 'steps/02-tools/tools.ts',
    ]);
    expect(paths).not.toContain('steps/02-tools/late.ts'); // only its header comment before chapter 3
    const main1 = files.find((f) => f.path === 'steps/01-agent-loop/main.ts');
    expect(main1?.content).toBe(
      `${HEADER_1_MAIN}\n// Fixture entry point: the smallest marked program.\n\nimport { greet } from './tools.ts';\n\n` +
        "export function run(): string {\n  return greet('one');\n}\n",
    );
    for (const f of files) {
      const [, n, slug, file] = /^steps\/(\d\d)-([^/]+)\/(.+)$/.exec(f.path) ?? [];
      expect(f.content.split('\n')[0]).toBe(
        `// GENERATED from src/agent/${file} for chapter ${Number(n)} (${slug}). Do not edit: change src/agent/${file} and run npm run gen.`,
      );
    }
  });

  it('returns nothing, without crashing, when src/agent/ is missing or empty', async () => {
    const root = await emptyRoot();
    expect(await generateSnapshots(root)).toEqual([]);
    expect(await checkSnapshots(root)).toEqual([]);
    expect(await chapterDiff(root, LATE.n)).toBe('');
    expect(await writeSnapshots(root)).toEqual([]);
    expect(await exerciseFiles(root, 2)).toEqual([]);
    expect(await hintsFor(root, 2)).toEqual([]);
    await mkdir(join(root, 'src', 'agent'), { recursive: true });
    expect(await generateSnapshots(root)).toEqual([]);
  });

  it('treats a body of comments and whitespace as empty', () => {
    expect(isEmptyBody('  \n// a\n/* b\n c */\n\n')).toBe(true);
    expect(isEmptyBody('// a\nexport {};\n')).toBe(false);
    expect(isEmptyBody('/* never closed\n')).toBe(false);
  });

  it('reports a marker error as file:line', async () => {
    const root = await fixtureRoot();
    await writeFile(join(root, 'src', 'agent', 'bad.ts'), 'const a = 1;\n//<\n');
    await expect(generateSnapshots(root)).rejects.toThrow("src/agent/bad.ts:2: stray '//<': no block is open");
  });
});

describe('chapterDiff', () => {
  it('diffs a chapter against the one before, with a/ and b/ snapshot paths', async () => {
    expect(await chapterDiff(await fixtureRoot(), 2)).toBe(
      [
        '--- a/steps/01-agent-loop/main.ts',
        '+++ b/steps/02-tools/main.ts',
        '@@ -4,5 +4,5 @@',
        " import { greet } from './tools.ts';",
        ' ',
        ' export function run(): string {',
        "-  return greet('one');",
        "+  return greet('two') + greet('two');",
        ' }',
        '',
      ].join('\n'),
    );
  });

  it('shows a removed file against /dev/null, an added one from /dev/null, in name order', async () => {
    const root = await fixtureRoot();
    expect(await chapterDiff(root, LATE.n)).toBe(
      [
        '--- a/steps/02-tools/gone.ts',
        '+++ /dev/null',
        '@@ -2 +0,0 @@',
        '-export const gone = true;',
        '--- /dev/null',
        `+++ b/steps/${LATE_DIR}/late.ts`,
        '@@ -0,0 +2,4 @@',
        '+// Fixture file that only exists from chapter 3 on: its header comment sits',
        '+// outside the block, so chapters 1-2 see only a comment and get no file.',
        '+',
        '+export const late = 3;',
        '--- a/steps/02-tools/main.ts',
        `+++ b/steps/${LATE_DIR}/main.ts`,
        '@@ -2,6 +2,7 @@',
        ' // Fixture entry point: the smallest marked program.',
        ' ',
        " import { greet } from './tools.ts';",
        "+import { late } from './late.ts';",
        ' ',
        ' export function run(): string {',
        "   return greet('two') + greet('two');",
        '',
      ].join('\n'),
    );
    expect(await chapterDiff(root, LATE.n, 'late.ts')).toMatch(new RegExp(`^--- /dev/null\n\\+\\+\\+ b/steps/${LATE_DIR}/late.ts\n`));
    expect(await chapterDiff(root, AFTER_LATE)).toBe('');
  });

  it('diffs chapter 1 against nothing, excluding the header line (its line numbers still count it)', async () => {
    const diff = await chapterDiff(await fixtureRoot(), 1, 'tools.ts');
    expect(diff).toBe(
      [
        '--- /dev/null',
        '+++ b/steps/01-agent-loop/tools.ts',
        '@@ -0,0 +2,5 @@',
        '+// Fixture tools: the same in every chapter.',
        '+',
        '+export function greet(name: string): string {',
        '+  return `hi ${name}`;',
        '+}',
        '',
      ].join('\n'),
    );
  });

  it('refuses a chapter outside the table', async () => {
    await expect(chapterDiff(await fixtureRoot(), 99)).rejects.toThrow('chapter 99 is not in the chapter table');
  });

  // The diff leaves the snapshots' header out, but a reader who opens the file a hunk names
  // at the line it names must find the lines the hunk shows there.
  it("the project's own diffs number their hunks as the snapshot files on disk are", async () => {
    const root = REPO_ROOT;
    let checked = 0;
    for (const n of [2, 15, 16]) {
      let files: { old?: string[]; new?: string[] } = {};
      let at = { old: 0, new: 0 };
      for (const line of (await chapterDiff(root, n)).split('\n')) {
        const label = /^(---|\+\+\+) (?:[ab]\/(.+)|\/dev\/null)$/.exec(line);
        if (label) {
          const lines = label[2] === undefined ? undefined : readFileSync(join(root, label[2]), 'utf8').split('\n');
          files = label[1] === '---' ? { old: lines } : { ...files, new: lines };
          continue;
        }
        const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@$/.exec(line);
        if (hunk) { at = { old: Number(hunk[1]), new: Number(hunk[2]) }; continue; }
        const [kind, text] = [line[0], line.slice(1)];
        if (kind === ' ' || kind === '-') { expect(`${files.old?.[at.old - 1]}`, `old line ${at.old}`).toBe(text); at.old++; checked++; }
        if (kind === ' ' || kind === '+') { expect(`${files.new?.[at.new - 1]}`, `new line ${at.new}`).toBe(text); at.new++; checked++; }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});

// A context or removed line of the diff must be the old text's line at that place. Thrown,
// not expect()ed: the round trip below checks thousands of lines, and each expect() call
// costs vitest some bookkeeping.
function expectOldLine(old: string[], at: number, line: string): void {
  const actual = old[at]?.replace(/\n$/, '');
  if (actual !== line.slice(1)) throw new Error(`diff line ${JSON.stringify(line)} does not match old line ${at + 1}: ${JSON.stringify(actual)}`);
}

// Applies a unified diff produced by unifiedDiff to the old text: the round trip
// proves the hunks say exactly what changed.
function applyUnified(oldText: string, diff: string): string {
  const old = oldText.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const out: string[] = [];
  let at = 0;
  let previous = '';
  const lines = diff.split('\n').slice(2, -1);
  for (const line of lines) {
    const kind = previous[0];
    previous = line;
    const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(line);
    if (header) {
      const start = Number(header[1]);
      const count = header[2] === undefined ? 1 : Number(header[2]);
      const target = count === 0 ? start : start - 1;
      while (at < target) out.push(old[at++] as string);
    } else if (line === '\\ No newline at end of file') {
      // The marker belongs to the line above it; a removed line leaves no output.
      if (kind !== '-') out[out.length - 1] = (out[out.length - 1] as string).replace(/\n$/, '');
    } else if (line[0] === ' ') {
      expectOldLine(old, at, line);
      out.push(old[at++] as string);
    } else if (line[0] === '-') {
      expectOldLine(old, at, line);
      at++;
    } else if (line[0] === '+') {
      out.push(`${line.slice(1)}\n`);
    } else {
      throw new Error(`unexpected diff line ${JSON.stringify(line)}`);
    }
  }
  while (at < old.length) out.push(old[at++] as string);
  return out.join('');
}

function lcsLength(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1] as number);
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', 'x', 'y')).toBe('');
  });

  it('splits distant changes into hunks with 3 lines of context and merges close ones', () => {
    const old = Array.from({ length: 20 }, (_, i) => `l${i + 1}\n`).join('');
    const far = old.replace('l2\n', 'L2\n').replace('l18\n', 'L18\n');
    expect(unifiedDiff(old, far, 'a', 'b')).toBe(
      '--- a\n+++ b\n@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n@@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+L18\n l19\n l20\n',
    );
    const near = old.replace('l5\n', 'L5\n').replace('l11\n', 'L11\n');
    expect(unifiedDiff(old, near, 'a', 'b').match(/^@@/gm)).toHaveLength(1);
  });

  it('marks a missing final newline', () => {
    expect(unifiedDiff('a\nb', 'a\nb\n', 'a', 'b')).toBe('--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n');
  });

  it('round-trips random edits with a shortest edit script, deterministically', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const randomText = (): string => {
      const lines = Array.from({ length: Math.floor(random() * 15) }, () => 'abcde'[Math.floor(random() * 5)] as string);
      const text = lines.map((l) => `${l}\n`).join('');
      return random() < 0.2 ? text.replace(/\n$/, '') : text;
    };
    for (let i = 0; i < 400; i++) {
      const a = randomText();
      const b = randomText();
      const diff = unifiedDiff(a, b, 'a', 'b');
      expect(diff).toBe(unifiedDiff(a, b, 'a', 'b'));
      expect(applyUnified(a, diff)).toBe(b);
      const al = a.match(/[^\n]*\n|[^\n]+$/g) ?? [];
      const bl = b.match(/[^\n]*\n|[^\n]+$/g) ?? [];
      const changes = diffLines(al, bl).filter((e) => e.kind !== ' ').length;
      expect(changes).toBe(al.length + bl.length - 2 * lcsLength(al, bl));
    }
  });
});

describe('writeSnapshots and checkSnapshots', () => {
  it('writes once, then reports nothing to do and nothing stale', async () => {
    const root = await fixtureRoot();
    const first = await writeSnapshots(root);
    expect(first).toHaveLength(SNAPSHOT_COUNT);
    expect(first.every((c) => c.change === 'created')).toBe(true);
    expect(await readFile(join(root, 'steps/01-agent-loop/main.ts'), 'utf8')).toMatch(new RegExp(`^${HEADER_1_MAIN.replace(/[.()]/g, '\\$&')}\n`));
    expect(await writeSnapshots(root)).toEqual([]);
    expect(await checkSnapshots(root)).toEqual([]);
  });

  it('detects a hand-edited snapshot, a missing one and an extra generated one', async () => {
    const root = await fixtureRoot();
    await writeSnapshots(root);
    await writeFile(join(root, 'steps/02-tools/main.ts'), `${await readFile(join(root, 'steps/02-tools/main.ts'), 'utf8')}// hand edit\n`);
    await unlink(join(root, `steps/${LATE_DIR}/late.ts`));
    await writeFile(join(root, 'steps/02-tools/late.ts'), '// GENERATED from src/agent/late.ts for chapter 2 (tools). Do not edit.\n');
    await writeFile(join(root, 'steps/02-tools/notes.ts'), '// my own notes, not generated\n');
    expect(await checkSnapshots(root)).toEqual([
      { path: 'steps/02-tools/late.ts', problem: 'extra' },
      { path: 'steps/02-tools/main.ts', problem: 'stale' },
      { path: `steps/${LATE_DIR}/late.ts`, problem: 'missing' },
    ]);
  });

  it('notices when a source changes after generation', async () => {
    const root = await fixtureRoot();
    await writeSnapshots(root);
    const tools = join(root, 'src/agent/tools.ts');
    await writeFile(tools, `${await readFile(tools, 'utf8')}export const added = 1;\n`);
    const problems = await checkSnapshots(root);
    expect(problems).toHaveLength(WRITTEN_CHAPTERS.length);
    expect(problems.every((p) => p.problem === 'stale' && p.path.endsWith('/tools.ts'))).toBe(true);
  });

  it('deletes stale generated files only, never hand-made ones', async () => {
    const root = await fixtureRoot();
    await writeSnapshots(root);
    await writeFile(join(root, 'steps/run.mjs'), '// the runner\n');
    await writeFile(join(root, 'steps/02-tools/notes.ts'), '// hand-made\n');
    await writeFile(join(root, 'steps/02-tools/readme.md'), '// GENERATED from src/agent/ but not a .ts file\n');
    await mkdir(join(root, 'steps/99-renamed'));
    await writeFile(join(root, 'steps/99-renamed/old.ts'), '// GENERATED from src/agent/old.ts for chapter 99 (renamed).\n');
    await mkdir(join(root, 'steps/98-mixed'));
    await writeFile(join(root, 'steps/98-mixed/old.ts'), '// GENERATED from src/agent/old.ts for chapter 98 (mixed).\n');
    await writeFile(join(root, 'steps/98-mixed/mine.ts'), 'export {};\n');
    await unlink(join(root, 'src/agent/gone.ts'));

    const changes = await writeSnapshots(root);
    expect(changes).toEqual([
      { path: 'steps/01-agent-loop/gone.ts', change: 'deleted' },
      { path: 'steps/02-tools/gone.ts', change: 'deleted' },
      { path: 'steps/98-mixed/old.ts', change: 'deleted' },
      { path: 'steps/99-renamed/old.ts', change: 'deleted' },
    ]);
    expect(existsSync(join(root, 'steps/run.mjs'))).toBe(true);
    expect(existsSync(join(root, 'steps/02-tools/notes.ts'))).toBe(true);
    expect(existsSync(join(root, 'steps/02-tools/readme.md'))).toBe(true);
    expect(existsSync(join(root, 'steps/98-mixed/mine.ts'))).toBe(true);
    expect(existsSync(join(root, 'steps/99-renamed'))).toBe(false);
    expect(await checkSnapshots(root)).toEqual([]);
  });
});

const stubResolvers: DocResolvers = {
  code: (file, block, n) => `// ${file}#${block} @${n}`,
  diff: (n, file) => `--- a\n+++ b\n@@ -1 +1 @@\n-${n}\n+${file ?? 'all'}\n`,
  run: (n, caseName) => `chapter ${n} ${caseName}`,
  files: (n) => `| files of ${n} |`,
  hunk: (file, block, n) => `@@ -1 +1 @@\n-${file}\n+${block} @${n}\n`,
  cases: (n, except) => `| cases of ${n} but ${except.join(',') || 'demo'} |`,
  exercise: (n) => `exercise ${n}`,
};

describe('fillDoc', () => {
  it('fills code, diff and run regions with fenced blocks and leaves the prose alone', async () => {
    const doc = [
      '# Title',
      '<!-- code: agent.ts#loop @11 -->',
      'old stuff',
      '<!-- /code -->',
      'prose <!-- not a region -->',
      '<!-- note -->',
      '<!-- diff: 11 -->',
      '<!-- /diff -->',
      '<!-- diff: 11 agent.ts -->',
      '```diff',
      'stale',
      '```',
      '<!-- /diff -->',
      '<!-- run: 11 demo -->',
      '<!-- /run -->',
      '',
    ].join('\n');
    expect(await fillDoc(doc, 'docs/x.md', stubResolvers)).toBe(
      [
        '# Title',
        '<!-- code: agent.ts#loop @11 -->',
        '```ts',
        '// agent.ts#loop @11',
        '```',
        '<!-- /code -->',
        'prose <!-- not a region -->',
        '<!-- note -->',
        '<!-- diff: 11 -->',
        '```diff', '--- a', '+++ b', '@@ -1 +1 @@', '-11', '+all', '```',
        '<!-- /diff -->',
        '<!-- diff: 11 agent.ts -->',
        '```diff', '--- a', '+++ b', '@@ -1 +1 @@', '-11', '+agent.ts', '```',
        '<!-- /diff -->',
        '<!-- run: 11 demo -->',
        '```text',
        'chapter 11 demo',
        '```',
        '<!-- /run -->',
        '',
      ].join('\n'),
    );
  });

  it('fills a forks region from the runs: the shared prefix, who wrote it, what child 1 and the later children paid', async () => {
    const kid = (write: number, read: number) => ({ input: 0, write, read, output: 5, cost: write * 1.25 + read * 0.1 });
    const verdict = (caseName: string, tracks: Record<string, ReturnType<typeof kid>>) => ({ caseName, title: caseName, verdict: 'PASS 1/1 expectations', tracks });
    const resolvers = defaultResolvers(await fixtureRoot(), undefined, () => [
      verdict('own', { main: kid(1000, 0), 'child-1': kid(300, 48000), 'child-2': kid(300, 48000) }),
      verdict('seeds', { 'child-1': kid(600, 48000), 'child-2': kid(200, 48400), 'child-3': kid(200, 48400) }),
    ]);
    const doc = await fillDoc('<!-- forks: 15 own,seeds -->\n<!-- /forks -->\n', 'docs/x.md', resolvers);
    expect(doc).toContain('| `own` | 48,000 | the parent, by its own last request; every child reads it | 300 / 48,000 | 300 / 48,000 | 10,350 |');
    expect(doc).toContain('| `seeds` | 48,400 | the parent up to what it sent, child 1 the rest; the later children read it | 600 / 48,000 | 200 / 48,400 | 15,730 |');
    await expect(fillDoc('<!-- forks: 15 nope -->\n<!-- /forks -->\n', 'docs/x.md', resolvers)).rejects.toThrow('no case nope in chapter 15');
  });

  it('keeps a run region as it is when there is no transcript, and is stable on a second pass', async () => {
    const resolvers = { ...stubResolvers, run: () => undefined };
    const doc = '<!-- run: 2 demo -->\n```text\nkept\n```\n<!-- /run -->\n<!-- code: a.ts#b @2 -->\n<!-- /code -->\n';
    const once = await fillDoc(doc, 'docs/x.md', resolvers);
    expect(once).toContain('<!-- run: 2 demo -->\n```text\nkept\n```\n<!-- /run -->');
    expect(await fillDoc(once, 'docs/x.md', resolvers)).toBe(once);
  });

  it('uses a longer fence when the content holds backticks, and skips regions shown inside code fences', async () => {
    const resolvers = { ...stubResolvers, code: () => 'const s = `\n```\n`;' };
    const doc = '````md\n<!-- code: a.ts#x @1 -->\n<!-- bogus: 1 -->\n````\n<!-- code: a.ts#x @1 -->\n<!-- /code -->';
    expect(await fillDoc(doc, 'docs/x.md', resolvers)).toBe(
      '````md\n<!-- code: a.ts#x @1 -->\n<!-- bogus: 1 -->\n````\n<!-- code: a.ts#x @1 -->\n````ts\nconst s = `\n```\n`;\n````\n<!-- /code -->',
    );
  });

  const errors: Array<[string, string, string]> = [
    ['unknown kind', 'a\n<!-- snippet: x -->\n<!-- /snippet -->', "docs/x.md:2: unknown region kind 'snippet' (known: code, diff, run, files, hunk, cases, exercise, xray, forks, chapters)"],
    ['unclosed', 'a\n\n<!-- code: a.ts#b @3 -->\ntext\n', 'docs/x.md:3: code region is never closed (expected <!-- /code -->)'],
    ['opened inside another', '<!-- diff: 3 -->\n<!-- run: 3 demo -->\n<!-- /run -->', 'docs/x.md:1: diff region is never closed (expected <!-- /diff --> before line 2)'],
    ['wrong closer', '<!-- diff: 3 -->\n<!-- /code -->', "docs/x.md:2: '<!-- /code -->' does not close the diff region opened at line 1"],
    ['stray closer', 'a\n<!-- /run -->', "docs/x.md:2: '<!-- /run -->' closes no open region"],
    ['malformed code', '<!-- code: agent.ts @3 -->\n<!-- /code -->', "docs/x.md:1: malformed code region 'agent.ts @3': expected <!-- code: FILE#BLOCK @N -->"],
    ['chapter outside the table', '<!-- run: 40 demo -->\n<!-- /run -->', 'docs/x.md:1: chapter 40 is not in the chapter table'],
    ['unclosed fence', '```ts\n<!-- code: a.ts#b @3 -->', "docs/x.md:2: code fence '```' is never closed"],
    ['malformed chapters', '<!-- chapters: all -->\n<!-- /chapters -->', "docs/x.md:1: malformed chapters region 'all': expected <!-- chapters: written -->"],
  ];
  for (const [what, doc, message] of errors) {
    it(`rejects: ${what}`, async () => {
      await expect(fillDoc(doc, 'docs/x.md', stubResolvers)).rejects.toThrow(message);
    });
  }

  it('fills a chapters region with the written chapters, linked from where the doc is', async () => {
    const region = '<!-- chapters: written -->\nstale\n<!-- /chapters -->\n';
    const top = (await fillDoc(region, 'README.md', stubResolvers)).split('\n');
    const index = (await fillDoc(region, 'docs/README.md', stubResolvers)).split('\n');
    expect(top).not.toContain('stale');
    expect(top).toContain('| 1  | [The agent loop](docs/01-agent-loop.md) | call the model in a loop and run one tool (read_file) |');
    expect(index).toContain('| 1  | [The agent loop](01-agent-loop.md) | call the model in a loop and run one tool (read_file) |');
    expect(top.filter((l) => /^\| \d/.test(l))).toHaveLength(WRITTEN_CHAPTERS.length);
  });

  it('reports a resolver failure at the region line, on one line', async () => {
    const resolvers = { ...stubResolvers, run: () => { throw new Error('no such case\nmore detail'); } };
    await expect(fillDoc('x\n<!-- run: 2 nope -->\n<!-- /run -->', 'docs/x.md', resolvers)).rejects.toThrow(/^docs\/x\.md:2: no such case$/);
  });
});

describe('defaultResolvers and fillAllDocs', () => {
  it('pulls code and diffs from src/agent and reports unknown blocks and files', async () => {
    const root = await fixtureRoot();
    const resolvers = defaultResolvers(root);
    const filled = await fillDoc('<!-- code: main.ts#run-better @2 -->\n<!-- /code -->\n<!-- diff: 2 main.ts -->\n<!-- /diff -->\n', 'docs/d.md', resolvers);
    expect(filled).toBe(
      "<!-- code: main.ts#run-better @2 -->\n```ts\nreturn greet('two') + greet('two');\n```\n<!-- /code -->\n" +
        `<!-- diff: 2 main.ts -->\n\`\`\`diff\n${(await chapterDiff(root, 2, 'main.ts')).trimEnd()}\n\`\`\`\n<!-- /diff -->\n`,
    );
    await expect(fillDoc('\n<!-- code: main.ts#nope @2 -->\n<!-- /code -->', 'docs/d.md', resolvers)).rejects.toThrow(
      "docs/d.md:2: src/agent/main.ts: no block named 'nope'",
    );
    await expect(fillDoc('<!-- code: main.ts#run-better @1 -->\n<!-- /code -->', 'docs/d.md', resolvers)).rejects.toThrow(
      "docs/d.md:1: src/agent/main.ts:12: block 'run-better' is not part of chapter 1",
    );
    await expect(fillDoc('<!-- code: nope.ts#x @1 -->\n<!-- /code -->', 'docs/d.md', resolvers)).rejects.toThrow('docs/d.md:1: no file src/agent/nope.ts');
    await expect(fillDoc(`<!-- diff: ${AFTER_LATE} main.ts -->\n<!-- /diff -->`, 'docs/d.md', resolvers)).rejects.toThrow(
      `docs/d.md:1: chapter ${AFTER_LATE} changes nothing in main.ts`,
    );
  });

  it('uses the transcript callback for run regions when given', async () => {
    const root = await fixtureRoot();
    const doc = '<!-- run: 3 demo -->\n<!-- /run -->';
    expect(await fillDoc(doc, 'docs/d.md', defaultResolvers(root))).toBe(doc);
    expect(await fillDoc(doc, 'docs/d.md', defaultResolvers(root, async (n, c) => `> ${n} ${c}`))).toBe(
      '<!-- run: 3 demo -->\n```text\n> 3 demo\n```\n<!-- /run -->',
    );
  });

  it('lists stale docs without writing, then writes them', async () => {
    const root = await fixtureRoot();
    await mkdir(join(root, 'docs'));
    const stale = '# Two\n<!-- code: main.ts#run-better @2 -->\n<!-- /code -->\n';
    await writeFile(join(root, 'docs/02-tools.md'), stale);
    await writeFile(join(root, 'docs/plain.md'), '# no regions\n');
    const resolvers = defaultResolvers(root);
    expect(await fillAllDocs(root, resolvers, { write: false })).toEqual([
      { path: 'docs/02-tools.md', firstDifference: "line 3: has `<!-- /code -->`, would be `\`\`\`ts`" },
    ]);
    expect(await readFile(join(root, 'docs/02-tools.md'), 'utf8')).toBe(stale);
    expect((await fillAllDocs(root, resolvers, { write: true })).map((d) => d.path)).toEqual(['docs/02-tools.md']);
    expect(await readFile(join(root, 'docs/02-tools.md'), 'utf8')).toContain("```ts\nreturn greet('two') + greet('two');\n```");
    expect(await fillAllDocs(root, resolvers, { write: false })).toEqual([]);
  });
});

describe('exercises', () => {
  it("stubs the chapter's hinted blocks, with the exercise header", async () => {
    const root = await fixtureRoot();
    const files = await exerciseFiles(root, 2, 'my-ex');
    expect(files.map((f) => f.path)).toEqual(['gone.ts', 'main.ts', 'tools.ts']);
    const main = files.find((f) => f.path === 'main.ts')?.content ?? '';
    expect(main.split('\n')[0]).toBe(
      '// EXERCISE for chapter 2 (tools), generated from src/agent/main.ts. Fill in the TODOs; check with: node steps/run.mjs 2 --check my-ex',
    );
    expect(main).toContain("export function run(): string {\n  // TODO(run-better): Greet twice.\n  throw new Error('TODO(run-better): not implemented yet');\n}\n");
    expect((await exerciseFiles(root, 3))[0]?.content.split('\n')[0]).toMatch(/--check exercises\/03-system-prompt$/);
    // A folder a shell would split or read otherwise is quoted, so the command can be pasted as it is.
    expect((await exerciseFiles(root, 2, "my ex/it's"))[0]?.content.split('\n')[0]).toMatch(/--check 'my ex\/it'\\''s'$/);
    expect(await hintsFor(root, 2)).toEqual([{ file: 'main.ts', name: 'run-better', hints: ['Greet twice.'], line: 12 }]);
    expect(await hintsFor(root, 3)).toEqual([]);
  });
});

describe('runGen', () => {
  it('writes, then passes --check, then fails --check with a hint after a source change', async () => {
    const root = await fixtureRoot();
    await mkdir(join(root, 'docs'));
    await writeFile(join(root, `docs/${LATE_DIR}.md`), `<!-- diff: ${LATE.n} late.ts -->\n<!-- /diff -->\n`);
    const lines: string[] = [];
    expect(await runGen(['--root', root], (l) => lines.push(l))).toBe(0);
    expect(lines).toContain('created steps/01-agent-loop/main.ts');
    expect(lines).toContain(`filled docs/${LATE_DIR}.md`);
    expect(lines).toContain('created steps/01-agent-loop/README.md');
    // Every snapshot file, one README per written chapter, the doc.
    expect(lines).toHaveLength(SNAPSHOT_COUNT + WRITTEN_CHAPTERS.length + 1);

    lines.length = 0;
    expect(await runGen(['--root', root, '--check'], (l) => lines.push(l))).toBe(0);
    expect(lines).toEqual(['snapshots and docs are up to date']);

    await writeFile(join(root, 'src/agent/late.ts'), '//> 3 late-body\nexport const late = 4;\n//<\n');
    lines.length = 0;
    expect(await runGen(['--root', root, '--check'], (l) => lines.push(l))).toBe(1);
    expect(lines).toContain(`stale: steps/${LATE_DIR}/late.ts`);
    expect(lines).toContain(`stale: steps/${LATE_DIR}/README.md`);   // late.ts's line count changed
    expect(lines.some((l) => l.startsWith(`stale: docs/${LATE_DIR}.md (line `))).toBe(true);
    expect(lines[lines.length - 1]).toBe('generated files are out of date: run npm run gen');
  });

  it('refuses an option it does not know, writing nothing (a typo of --check wrote every file)', async () => {
    const root = await fixtureRoot();
    const lines: string[] = [];
    expect(await runGen(['--root', root, '--chek'], (l) => lines.push(l))).toBe(2);
    expect(lines).toEqual(['unknown option --chek (gen takes --check and --root DIR)']);
    expect(existsSync(join(root, 'steps'))).toBe(false);
  });

  it('exits 1 with the one-line marker error', async () => {
    const root = await fixtureRoot();
    await writeFile(join(root, 'src/agent/bad.ts'), '//> 2 open\n');
    const lines: string[] = [];
    expect(await runGen(['--root', root], (l) => lines.push(l))).toBe(1);
    expect(lines).toEqual(["src/agent/bad.ts:1: block 'open' is never closed (add '//<' before the end of the file)"]);
  });
});

describe('this repository', () => {
  const hasAgentSources = existsSync(join(REPO_ROOT, 'src', 'agent'));
  it.skipIf(!hasAgentSources)('has fresh snapshots in steps/ (run npm run gen after editing src/agent)', async () => {
    expect(await checkSnapshots(REPO_ROOT)).toEqual([]);
  });
});
