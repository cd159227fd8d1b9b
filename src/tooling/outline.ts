// What a chapter's files are, as a reader meets them: each file's role (the first
// sentence of its header comment), the local imports between the files, the order to
// read them in (a file after the files it imports), the import cycles, and what
// changed against the previous written chapter. From these come the "What this
// chapter adds" table in the docs and each snapshot folder's generated README.md.
// It reads the marked sources through generate.ts; it does not parse markers, write
// snapshots or fill doc regions (docs.ts puts its tables into the docs).

import { readFile, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir, findChapter, previousWritten } from '../chapters.ts';
import type { Chapter } from '../chapters.ts';
import { diffLines } from './diff.ts';
import { loadAgentSources, renderChapterFiles, snapshotPath } from './generate.ts';
import type { AgentSource } from './generate.ts';
import { splitLinesKeepEnds } from './markers.ts';

export interface LocalImport {
  to: string;         // file name in the same folder, e.g. 'agent.ts'
  typeOnly: boolean;  // `import type …`, or every name imported with `type`
}

// `import … from './x.ts'` and `export … from './x.ts'`, over several lines if need be.
const IMPORT = /^(?:import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*['"]\.\/([^'"/]+)['"]/gm;

/** The same-folder imports of one file's text, in source order. */
export function localImports(text: string): LocalImport[] {
  const out: LocalImport[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const names = /\{([^}]*)\}/.exec(m[2] ?? '')?.[1];
    const everyNameIsType = names !== undefined && !/^[^{]*\w[^{]*\{/.test(m[2] ?? '') &&
      names.split(',').map((s) => s.trim()).filter((s) => s !== '').every((s) => s.startsWith('type '));
    out.push({ to: m[3] as string, typeOnly: m[1] !== undefined || everyNameIsType });
  }
  return out;
}

/** file → the files of the same set it imports (imports of files outside the set are dropped). */
export function importGraph(files: ReadonlyMap<string, string>): Map<string, LocalImport[]> {
  const graph = new Map<string, LocalImport[]>();
  for (const [name, text] of files) graph.set(name, localImports(text).filter((i) => files.has(i.to) && i.to !== name));
  return graph;
}

export interface ImportCycle {
  files: string[];    // every file of one group that reach each other through imports, by name
  loop: string;       // the shortest loop through the first of them: `a.ts → b.ts → a.ts`
}

/**
 * The import cycles: each group of files that reach each other through imports (type
 * imports count: a type is a dependency too), with one loop through it as an example.
 * Sorted by first file; none is [].
 */
export function importCycles(graph: ReadonlyMap<string, readonly LocalImport[]>): ImportCycle[] {
  const cycles: ImportCycle[] = [];
  for (const group of stronglyConnected(graph)) {
    if (group.length < 2) continue;
    const start = group[0] as string;
    cycles.push({ files: group, loop: [...shortestLoop(graph, start, new Set(group)), start].join(' → ') });
  }
  return cycles.sort((a, b) => ((a.files[0] as string) < (b.files[0] as string) ? -1 : 1));
}

// Tarjan's algorithm, visiting files and their imports in name order so the answer is
// the same on every machine.
function stronglyConnected(graph: ReadonlyMap<string, readonly LocalImport[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of [...new Set((graph.get(v) ?? []).map((i) => i.to))].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      groups.push(group.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups;
}

// Breadth-first from `start` back to itself inside one group: the shortest loop through it.
function shortestLoop(graph: ReadonlyMap<string, readonly LocalImport[]>, start: string, members: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift() as string;
    for (const w of [...new Set((graph.get(v) ?? []).map((i) => i.to))].sort()) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0] as string) as string);
        return path;
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/**
 * Bottom-up reading order: each file after the files it imports, for code or for a type
 * alike (a file's types say what its code handles, so they are read first). Files are
 * sorted by their level (0 for a file that imports none of the others, else one more than
 * the highest level it imports); files that import each other share one level, and among them, as among any
 * files of one level, the chapter that brought the file (`since`) goes first, then
 * fewer imports inside the group, then the name.
 */
export function readingOrder(files: ReadonlyMap<string, string>, since: ReadonlyMap<string, number> = new Map()): string[] {
  const graph = importGraph(files);
  const groups = stronglyConnected(graph);   // bottom-up: a group comes after every group it imports
  const groupOf = new Map<string, number>();
  groups.forEach((group, g) => { for (const name of group) groupOf.set(name, g); });
  const level: number[] = [];
  groups.forEach((group, g) => {
    let highest = -1;
    for (const name of group) {
      for (const i of graph.get(name) ?? []) {
        const other = groupOf.get(i.to) as number;
        if (other !== g) highest = Math.max(highest, level[other] as number);
      }
    }
    level[g] = highest + 1;
  });
  const key = (name: string): Array<number | string> => {
    const g = groupOf.get(name) as number;
    const inside = (graph.get(name) ?? []).filter((i) => groupOf.get(i.to) === g).length;
    return [level[g] as number, since.get(name) ?? 0, inside, name];
  };
  const compare = (a: string, b: string): number => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return (ka[i] as number | string) < (kb[i] as number | string) ? -1 : 1;
    return 0;
  };
  return [...files.keys()].sort(compare);
}

/**
 * One line on what a file is: the first sentence of its header comment (the comment
 * lines before the first blank comment line or code). A sentence ends at `.`, `!` or `?`
 * followed by a space; a paragraph that ends in `:` (it introduces an example) loses the colon.
 */
export function fileRole(body: string): string {
  const words: string[] = [];
  for (const line of body.split('\n')) {
    const m = /^\s*\/\/(?!\/)\s?(.*)$/.exec(line);
    if (!m || (m[1] as string).trim() === '') {
      if (words.length > 0 || !m) break;
      continue;
    }
    words.push((m[1] as string).trim());
  }
  const paragraph = words.join(' ');
  if (paragraph === '') return '';
  const end = /(?<!\b(?:e\.g|i\.e|etc|vs))[.!?](?=\s|$)/.exec(paragraph);
  const sentence = end ? paragraph.slice(0, end.index + 1) : paragraph;
  return sentence.replace(/:$/, '.');
}

export interface FileChange {
  name: string;
  status: 'new' | 'changed' | 'removed' | 'unchanged';
  added: number;
  removed: number;
  lines: number;      // in this chapter's snapshot, the GENERATED line included (0 when removed)
  role: string;
}

/** file → the first written chapter whose snapshot has it. */
export function firstChapters(sources: readonly AgentSource[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const ch of WRITTEN_CHAPTERS) for (const name of renderChapterFiles(sources, ch.n).keys()) if (!first.has(name)) first.set(name, ch.n);
  return first;
}

function lineCount(text: string): number {
  return splitLinesKeepEnds(text).length;
}

/**
 * Every file of chapter n in reading order, then the files it dropped, each with what
 * changed against the written chapter before it (chapter 1: every file is new).
 */
export function chapterFiles(sources: readonly AgentSource[], n: number): FileChange[] {
  const prev = previousWritten(n);
  const before = prev ? renderChapterFiles(sources, prev.n) : new Map<string, string>();
  const after = renderChapterFiles(sources, n);
  const count = (oldText: string, newText: string) => {
    const edits = diffLines(splitLinesKeepEnds(oldText), splitLinesKeepEnds(newText));
    return { added: edits.filter((e) => e.kind === '+').length, removed: edits.filter((e) => e.kind === '-').length };
  };
  const out: FileChange[] = [];
  for (const name of readingOrder(after, firstChapters(sources))) {
    const body = after.get(name) as string;
    const old = before.get(name);
    const { added, removed } = count(old ?? '', body);
    const status = old === undefined ? 'new' : added + removed === 0 ? 'unchanged' : 'changed';
    out.push({ name, status, added, removed, lines: lineCount(body) + 1, role: fileRole(body) });
  }
  for (const [name, old] of [...before].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (after.has(name)) continue;
    out.push({ name, status: 'removed', added: 0, removed: lineCount(old), lines: 0, role: fileRole(old) });
  }
  return out;
}

function chapterOrThrow(n: number): Chapter {
  const ch = findChapter(n);
  if (!ch) throw new Error(`chapter ${n} is not in the chapter table`);
  return ch;
}

const plusMinus = (f: FileChange): string => (f.status === 'new' ? `+${f.added}` : `+${f.added} −${f.removed}`);

// A table cell must not hold a bare `|`.
const cell = (text: string): string => text.replace(/\|/g, '\\|');

/**
 * The "What this chapter adds" table: the files chapter n adds, changes or drops, with
 * links relative to `from` (the folder the doc lives in), and the command for the whole diff.
 */
export function changesTable(sources: readonly AgentSource[], n: number, from = 'docs'): string {
  const ch = chapterOrThrow(n);
  const up = from === '' ? '' : `${from.split('/').map(() => '..').join('/')}/`;
  const changed = chapterFiles(sources, n).filter((f) => f.status !== 'unchanged');
  if (changed.length === 0) throw new Error(`chapter ${n} changes no file`);
  const rows = changed.map((f) => {
    const file = f.status === 'removed' ? `\`${f.name}\`` : `[\`${f.name}\`](${up}${snapshotPath(ch, f.name)})`;
    return `| ${file} | ${f.status} | ${plusMinus(f)} | ${cell(f.role)} |`;
  });
  return [
    '| file | | lines | what it is |',
    '|---|---|---|---|',
    ...rows,
    '',
    `The whole diff: \`node steps/run.mjs ${n} --diff\`.`,
  ].join('\n');
}

export const README_PREFIX = '<!-- GENERATED by npm run gen';

/** steps/NN-slug/README.md: what the chapter adds, its files in reading order, and where to start. */
export function snapshotReadme(sources: readonly AgentSource[], n: number): string {
  const ch = chapterOrThrow(n);
  const dir = chapterDir(ch);
  const prev = previousWritten(n);
  const files = chapterFiles(sources, n);
  const present = files.filter((f) => f.status !== 'removed');
  const code = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');
  const fresh = present.filter((f) => f.status === 'new').map((f) => f.name);
  const changed = present.filter((f) => f.status === 'changed').map((f) => f.name);
  const total = present.reduce((sum, f) => sum + f.lines, 0);

  const start: string[] = [];
  if (!prev) {
    start.push('Every file is new here. Read them in the order below: each one uses only the files above it,');
    start.push(`so the last, \`${present.at(-1)?.name ?? 'main.ts'}\`, is where the pieces meet.`);
  } else {
    if (fresh.length > 0) start.push(`Start with what is new: ${code(fresh)}.`);
    if (changed.length > 0) {
      start.push(`${fresh.length > 0 ? 'Then read' : 'Start with'} the lines this chapter changes in ${code(changed)}: \`node steps/run.mjs ${n} --diff\` prints them.`);
    }
    start.push(`Everything else is as chapter ${prev.n} left it.`);
  }

  const cycles = importCycles(importGraph(renderChapterFiles(sources, n)));
  const orderNote = cycles.length === 0
    ? 'Each file imports only files above it.'
    : 'Each file comes after the files it imports, except where files import each other: ' +
      cycles.map((c) => `${code(c.files)} (for one, \`${c.loop}\`)`).join('; ') +
      '. Among those, files of earlier chapters come first.';

  const rows = present.map((f) => {
    const status = f.status === 'unchanged' ? '' : f.status === 'new' ? 'new' : `changed (${plusMinus(f)})`;
    return `| [\`${f.name}\`](${f.name}) | ${f.lines} | ${status} | ${cell(f.role)} |`;
  });
  const dropped = files.filter((f) => f.status === 'removed').map((f) => f.name);

  return [
    `${README_PREFIX} from src/agent/ for chapter ${n} (${ch.slug}). Do not edit: change src/agent/ and run npm run gen. -->`,
    `# Chapter ${n} · ${ch.title}`,
    '',
    `This folder is the whole agent as of chapter ${n}: ${present.length} files, ${total} lines. ` +
      `What the chapter adds: the agent can now ${ch.canNow}.`,
    '',
    `Run it: \`node steps/run.mjs ${n}\`. Read about it: [docs/${dir}.md](../../docs/${dir}.md).`,
    '',
    '## Where to start',
    '',
    ...start,
    '',
    '## The files, in reading order',
    '',
    orderNote,
    '',
    `| file | lines | in chapter ${n} | what it is |`,
    '|---|---|---|---|',
    ...rows,
    ...(dropped.length > 0 ? ['', `Chapter ${n} drops ${code(dropped)}.`] : []),
    '',
  ].join('\n');
}

export interface ReadmeFile {
  path: string;       // steps/NN-slug/README.md
  content: string;
}

export function readmesFrom(sources: readonly AgentSource[]): ReadmeFile[] {
  return WRITTEN_CHAPTERS.map((ch) => ({ path: `steps/${chapterDir(ch)}/README.md`, content: snapshotReadme(sources, ch.n) }));
}

// README.md files in steps/*/ that this generator wrote (recognised by their first line).
async function existingReadmes(root: string): Promise<string[]> {
  let dirs: string[];
  try {
    dirs = (await readdir(join(root, 'steps'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const dir of dirs.sort()) {
    try {
      if ((await readFile(join(root, 'steps', dir, 'README.md'), 'utf8')).startsWith(README_PREFIX)) found.push(`steps/${dir}/README.md`);
    } catch { /* no README in that folder */ }
  }
  return found;
}

/** Snapshot READMEs that are stale, missing or left over (a folder no chapter has any more). */
export async function checkReadmes(root: string): Promise<Array<{ path: string; problem: 'stale' | 'missing' | 'extra' }>> {
  const sources = await loadAgentSources(root);
  if (sources.length === 0) return [];
  const wanted = readmesFrom(sources);
  const problems: Array<{ path: string; problem: 'stale' | 'missing' | 'extra' }> = [];
  for (const file of wanted) {
    let current: string | undefined;
    try {
      current = await readFile(join(root, ...file.path.split('/')), 'utf8');
    } catch { /* missing */ }
    if (current === undefined) problems.push({ path: file.path, problem: 'missing' });
    else if (current !== file.content) problems.push({ path: file.path, problem: 'stale' });
  }
  const wantedPaths = new Set(wanted.map((f) => f.path));
  for (const path of await existingReadmes(root)) if (!wantedPaths.has(path)) problems.push({ path, problem: 'extra' });
  return problems;
}

/** Write the snapshot READMEs that changed; delete generated ones no chapter has. Only into folders that exist. */
export async function writeReadmes(root: string): Promise<Array<{ path: string; change: 'created' | 'updated' | 'deleted' }>> {
  const sources = await loadAgentSources(root);
  if (sources.length === 0) return [];
  const changes: Array<{ path: string; change: 'created' | 'updated' | 'deleted' }> = [];
  const wanted = readmesFrom(sources);
  for (const file of wanted) {
    const target = join(root, ...file.path.split('/'));
    let current: string | undefined;
    try {
      current = await readFile(target, 'utf8');
    } catch { /* missing */ }
    if (current === file.content) continue;
    if (current !== undefined && !current.startsWith(README_PREFIX)) {
      throw new Error(`${file.path} was written by hand: move it away, the generator writes this file`);
    }
    await writeFile(target, file.content);
    changes.push({ path: file.path, change: current === undefined ? 'created' : 'updated' });
  }
  const wantedPaths = new Set(wanted.map((f) => f.path));
  for (const path of await existingReadmes(root)) {
    if (wantedPaths.has(path)) continue;
    await unlink(join(root, ...path.split('/')));
    changes.push({ path, change: 'deleted' });
  }
  return changes;
}
