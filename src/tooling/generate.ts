// The snapshot generator: renders every `src/agent/*.ts` for every written chapter
// into `steps/NN-slug/FILE`, checks that the written snapshots are fresh, and diffs one
// chapter against the one before.
// It does not parse markers itself (markers.ts), fill docs (docs.ts) or make
// exercises (exercise.ts). It only ever deletes files it generated itself.

import { mkdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir, findChapter, previousWritten } from '../chapters.ts';
import type { Chapter } from '../chapters.ts';
import { unifiedDiff } from './diff.ts';
import { parseMarked, renderChapter } from './markers.ts';
import type { MarkedFile } from './markers.ts';

export interface GeneratedFile {
  path: string;       // relative to the repository root, with '/' separators
  content: string;
}

export interface AgentSource {
  name: string;       // file name inside src/agent/, e.g. 'agent.ts'
  marked: MarkedFile;
}

export interface SnapshotChange {
  path: string;
  change: 'created' | 'updated' | 'deleted';
}

export interface SnapshotProblem {
  path: string;
  problem: 'stale' | 'missing' | 'extra';
}

export const GENERATED_PREFIX = '// GENERATED from src/agent/';

export function snapshotHeader(ch: Chapter, file: string): string {
  return `${GENERATED_PREFIX}${file} for chapter ${ch.n} (${ch.slug}). Do not edit: change src/agent/${file} and run npm run gen.`;
}

export function snapshotPath(ch: Chapter, file: string): string {
  return `steps/${chapterDir(ch)}/${file}`;
}

function onDisk(root: string, relative: string): string {
  return join(root, ...relative.split('/'));
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

// Reads here are synchronous: the tests and the classroom's checks load the sources over and
// over, and a promise-based read of a small file costs about ten times the CPU.
function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

function listIfExists(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

/**
 * The last parse of each file, by its path: the same text parses the same, and the
 * classroom's checks and the tests ask for the sources over and over. Only the latest
 * text of a path is kept; a changed file parses anew (a parse that fails is not kept).
 */
const parsed = new Map<string, { text: string; marked: MarkedFile }>();

function parseOnce(path: string, text: string, shownAs: string): MarkedFile {
  const last = parsed.get(path);
  if (last?.text === text) return last.marked;
  const marked = parseMarked(text, shownAs);
  parsed.set(path, { text, marked });
  return marked;
}

/** Every `src/agent/*.ts`, sorted by name and parsed. No folder yet means no sources. */
export async function loadAgentSources(root: string): Promise<AgentSource[]> {
  const dir = join(root, 'src', 'agent');
  const names = listIfExists(dir)
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => entry.name)
    .sort();
  const sources: AgentSource[] = [];
  for (const name of names) {
    const text = readFileSync(join(dir, name), 'utf8');
    sources.push({ name, marked: parseOnce(join(dir, name), text, `src/agent/${name}`) });
  }
  return sources;
}

/**
 * True when a rendered file holds nothing but whitespace and its header comment:
 * such a file has nothing to offer that chapter, so it is not written.
 */
export function isEmptyBody(body: string): boolean {
  let rest = body.trimStart();
  for (;;) {
    if (rest.startsWith('//')) {
      const eol = rest.indexOf('\n');
      rest = eol === -1 ? '' : rest.slice(eol + 1).trimStart();
    } else if (rest.startsWith('/*')) {
      const end = rest.indexOf('*/');
      if (end === -1) return false;
      rest = rest.slice(end + 2).trimStart();
    } else {
      return rest === '';
    }
  }
}

/** Chapter n's files (name → body without the GENERATED header), empty ones left out. */
export function renderChapterFiles(sources: readonly AgentSource[], n: number): Map<string, string> {
  const files = new Map<string, string>();
  for (const source of sources) {
    const body = renderChapter(source.marked, n);
    if (!isEmptyBody(body)) files.set(source.name, body);
  }
  return files;
}

export function snapshotsFrom(sources: readonly AgentSource[]): GeneratedFile[] {
  const out: GeneratedFile[] = [];
  // Only written chapters get a snapshot; a planned one would be a copy of its predecessor.
  for (const ch of WRITTEN_CHAPTERS) {
    for (const [name, body] of renderChapterFiles(sources, ch.n)) {
      out.push({ path: snapshotPath(ch, name), content: `${snapshotHeader(ch, name)}\n${body}` });
    }
  }
  return out;
}

/** What `steps/` should hold, computed without touching it. */
export async function generateSnapshots(root: string): Promise<GeneratedFile[]> {
  return snapshotsFrom(await loadAgentSources(root));
}

/** Generated `.ts` files now in `steps/*\/`, recognised by their first line only. */
async function existingGenerated(root: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const dir of listIfExists(join(root, 'steps'))) {
    if (!dir.isDirectory()) continue;
    for (const entry of listIfExists(join(root, 'steps', dir.name))) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const path = `steps/${dir.name}/${entry.name}`;
      const content = readFileSync(onDisk(root, path), 'utf8');
      if (content.startsWith(GENERATED_PREFIX)) found.set(path, content);
    }
  }
  return found;
}

/** Write every snapshot that changed and delete generated files no chapter produces any more. */
export async function writeSnapshots(root: string): Promise<SnapshotChange[]> {
  const wanted = await generateSnapshots(root);
  const changes: SnapshotChange[] = [];
  for (const file of wanted) {
    const target = onDisk(root, file.path);
    const current = readIfExists(target);
    if (current === file.content) continue;
    await mkdir(join(target, '..'), { recursive: true });
    await writeFile(target, file.content);
    changes.push({ path: file.path, change: current === undefined ? 'created' : 'updated' });
  }
  const wantedPaths = new Set(wanted.map((f) => f.path));
  const emptiedDirs = new Set<string>();
  for (const path of (await existingGenerated(root)).keys()) {
    if (wantedPaths.has(path)) continue;
    await unlink(onDisk(root, path));
    changes.push({ path, change: 'deleted' });
    emptiedDirs.add(path.slice(0, path.lastIndexOf('/')));
  }
  for (const dir of emptiedDirs) {
    // Only a folder left truly empty goes; anything hand-made in it keeps it alive.
    if (listIfExists(onDisk(root, dir)).length === 0) await rmdir(onDisk(root, dir));
  }
  return changes;
}

/** Snapshots that differ from what the sources say (stale), are absent (missing) or are left over (extra). */
export async function checkSnapshots(root: string): Promise<SnapshotProblem[]> {
  const wanted = await generateSnapshots(root);
  const problems: SnapshotProblem[] = [];
  for (const file of wanted) {
    const current = readIfExists(onDisk(root, file.path));
    if (current === undefined) problems.push({ path: file.path, problem: 'missing' });
    else if (current !== file.content) problems.push({ path: file.path, problem: 'stale' });
  }
  const wantedPaths = new Set(wanted.map((f) => f.path));
  for (const path of (await existingGenerated(root)).keys()) {
    if (!wantedPaths.has(path)) problems.push({ path, problem: 'extra' });
  }
  // Plain code-unit order, not the locale's: the same list on every machine.
  return problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * What chapter n changes, as a unified diff against the written chapter before it, file by file in
 * name order; `file` narrows it to one file. A side where the file does not exist
 * (chapter 1, or a file added or dropped) is `/dev/null`, as git prints it.
 */
export function diffChapter(sources: readonly AgentSource[], n: number, file?: string): string {
  const ch = findChapter(n);
  if (!ch) throw new Error(`chapter ${n} is not in the chapter table`);
  // Compared with the written chapter before it (chapters still being written are skipped).
  const prev = previousWritten(n);
  const before = prev ? renderChapterFiles(sources, prev.n) : new Map<string, string>();
  const after = renderChapterFiles(sources, n);
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  let out = '';
  for (const name of names) {
    if (file !== undefined && name !== file) continue;
    const oldBody = before.get(name);
    const newBody = after.get(name);
    const oldLabel = prev && oldBody !== undefined ? `a/${snapshotPath(prev, name)}` : '/dev/null';
    const newLabel = newBody !== undefined ? `b/${snapshotPath(ch, name)}` : '/dev/null';
    // The snapshots' one-line header is left out of the diff, not out of the line numbers.
    const above = { old: oldBody === undefined ? 0 : 1, new: newBody === undefined ? 0 : 1 };
    out += unifiedDiff(oldBody ?? '', newBody ?? '', oldLabel, newLabel, above);
  }
  return out;
}

export async function chapterDiff(root: string, n: number, file?: string): Promise<string> {
  return diffChapter(await loadAgentSources(root), n, file);
}
