// Doc snippet filling: in `docs/*.md`, the inside of each generated region is
// replaced with fresh content, so prose never shows code the chapter does not have.
//
//   <!-- code: agent.ts#block-name @11 -->  …  <!-- /code -->   one block as chapter 11 sees it
//   <!-- diff: 11 -->                       …  <!-- /diff -->   what chapter 11 changes
//   <!-- diff: 11 agent.ts -->              …  <!-- /diff -->   … in that one file
//   <!-- run: 11 demo -->                   …  <!-- /run -->    a transcript, from a callback
//   <!-- run: 8 demo trace with ID -->      …  <!-- /run -->    … with --trace, mutation ID applied
//   <!-- xray: fork.trigger -->             …  <!-- /xray -->   a fact measured on the pinned Claude Code
//
// A region marker is an HTML comment alone on its line, `<!-- kind: … -->` with a
// lowercase kind. Other comments (`<!-- note -->`, `<!-- TODO: … -->`) and anything
// inside fenced code blocks outside regions are left alone. This file does not
// write prose, run chapters or render transcripts: the resolvers do.

import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findChapter } from '../chapters.ts';
import { diffChapter, loadAgentSources } from './generate.ts';
import type { AgentSource } from './generate.ts';
import { blockText } from './markers.ts';
import { docFactLines } from '../xray/facts-file.ts';

type MaybeAsync<T> = T | Promise<T>;

export interface DocResolvers {
  code(file: string, block: string, n: number): MaybeAsync<string>;
  diff(n: number, file?: string): MaybeAsync<string>;
  /** undefined keeps the region as it is (no transcript available). */
  run(n: number, caseName: string, options?: RunOptions): MaybeAsync<string | undefined>;
  /** The lines quoting one x-ray fact of the pinned release (xray/facts-VERSION.json). */
  xray?(id: string): MaybeAsync<string[]>;
}

type Region =
  | { kind: 'code'; file: string; block: string; n: number }
  | { kind: 'diff'; n: number; file?: string }
  | { kind: 'run'; n: number; caseName: string; options: RunOptions }
  | { kind: 'xray'; id: string };

/** A transcript can show the request shapes (trace), or a deliberately broken chapter (a mutation's id). */
export interface RunOptions {
  trace?: boolean;
  mutation?: string;
}

const DIRECTIVE = /^<!--\s*([a-z][a-z-]*):\s*(.*?)\s*-->$/;
const CLOSER = /^<!--\s*\/([a-z][a-z-]*)\s*-->$/;
const FENCE = /^(`{3,}|~{3,})/;

function parseRegion(kind: string, args: string, fail: (what: string) => never): Region {
  const chapter = (text: string): number => {
    const n = Number(text);
    if (!findChapter(n)) fail(`chapter ${text} is not in the chapter table`);
    return n;
  };
  if (kind === 'code') {
    const m = /^(\S+)#(\S+)\s+@(\d+)$/.exec(args);
    if (!m) return fail(`malformed code region '${args}': expected <!-- code: FILE#BLOCK @N -->`);
    return { kind, file: m[1] as string, block: m[2] as string, n: chapter(m[3] as string) };
  }
  if (kind === 'diff') {
    const m = /^(\d+)(?:\s+(\S+))?$/.exec(args);
    if (!m) return fail(`malformed diff region '${args}': expected <!-- diff: N --> or <!-- diff: N FILE -->`);
    const n = chapter(m[1] as string);
    return m[2] === undefined ? { kind, n } : { kind, n, file: m[2] };
  }
  if (kind === 'run') {
    const m = /^(\d+)\s+(\S+)(\s+trace)?(?:\s+with\s+(\S+))?$/.exec(args);
    if (!m) return fail(`malformed run region '${args}': expected <!-- run: N CASE [trace] [with MUTATION] -->`);
    const options: RunOptions = {};
    if (m[3] !== undefined) options.trace = true;
    if (m[4] !== undefined) options.mutation = m[4];
    return { kind, n: chapter(m[1] as string), caseName: m[2] as string, options };
  }
  if (kind === 'xray') {
    if (!/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*$/.test(args)) return fail(`malformed xray region '${args}': expected <!-- xray: FACT-ID -->`);
    return { kind, id: args };
  }
  return fail(`unknown region kind '${kind}' (known: code, diff, run, xray)`);
}

/** A fence long enough that no backtick run inside the content can close it early. */
export function fenced(language: string, content: string): string[] {
  const longestRun = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const body = content.replace(/\n+$/, '');
  return [fence + language, ...(body === '' ? [] : body.split('\n')), fence];
}

function languageOf(file: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(file)?.[1] ?? '';
  return ext === '' ? 'text' : ext;
}

async function regionContent(region: Region, resolvers: DocResolvers): Promise<string[] | undefined> {
  switch (region.kind) {
    case 'code':
      return fenced(languageOf(region.file), await resolvers.code(region.file, region.block, region.n));
    case 'diff':
      return fenced('diff', await resolvers.diff(region.n, region.file));
    case 'run': {
      const transcript = await resolvers.run(region.n, region.caseName, region.options);
      return transcript === undefined ? undefined : fenced('text', transcript);
    }
    case 'xray':
      return resolvers.xray ? [...(await resolvers.xray(region.id))] : undefined;
  }
}

// Errors stay one line, whatever a resolver threw.
function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? '';
}

/** The markdown with every region's inside regenerated. Errors are one line: `docPath:line: …`. */
export async function fillDoc(markdown: string, docPath: string, resolvers: DocResolvers): Promise<string> {
  const lines = markdown.split('\n');
  const out: string[] = [];
  let fence: string | null = null;   // the open fence of a hand-written code block
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const trimmed = line.trim();
    const fail = (what: string, at = i + 1): never => {
      throw new Error(`${docPath}:${at}: ${what}`);
    };
    out.push(line);

    const fenceMark = FENCE.exec(trimmed)?.[1];
    if (fence !== null) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length && trimmed === fenceMark) fence = null;
      continue;
    }
    if (fenceMark) {
      fence = fenceMark;
      continue;
    }

    const stray = CLOSER.exec(trimmed);
    if (stray) fail(`'${trimmed}' closes no open region`);
    const directive = DIRECTIVE.exec(trimmed);
    if (!directive) continue;
    const kind = directive[1] as string;
    const region = parseRegion(kind, directive[2] as string, fail);

    const closeAt = findClose(lines, i + 1, kind, fail);
    let content: string[] | undefined;
    try {
      content = await regionContent(region, resolvers);
    } catch (err) {
      fail(messageOf(err));
    }
    // A fact quoted inside a list item keeps the item's indentation.
    const indent = region.kind === 'xray' && content ? (/^\s*/.exec(line)?.[0] ?? '') : '';
    out.push(...(content ? content.map((l) => indent + l) : lines.slice(i + 1, closeAt)));
    out.push(lines[closeAt] as string);
    i = closeAt;
  }
  if (fence !== null) {
    // An unclosed hand-written fence could hide regions; say so instead of skipping them.
    throw new Error(`${docPath}:${lines.length}: code fence '${fence}' is never closed`);
  }
  return out.join('\n');
}

// The region's closer; the content before it is generated, so it is not inspected
// beyond refusing a second opener (a forgotten closer would otherwise swallow it).
function findClose(lines: readonly string[], from: number, kind: string, fail: (what: string, at?: number) => never): number {
  for (let j = from; j < lines.length; j++) {
    const trimmed = (lines[j] as string).trim();
    const closer = CLOSER.exec(trimmed);
    if (closer) {
      if (closer[1] === kind) return j;
      fail(`'${trimmed}' does not close the ${kind} region opened at line ${from}`, j + 1);
    }
    if (DIRECTIVE.test(trimmed)) fail(`${kind} region is never closed (expected <!-- /${kind} --> before line ${j + 1})`, from);
  }
  return fail(`${kind} region is never closed (expected <!-- /${kind} -->)`, from);
}

/**
 * Resolvers backed by src/agent: code and diff come from the generator; run uses
 * the transcript callback when there is one and otherwise keeps what is there; xray
 * quotes the pinned facts file (xray/facts-VERSION.json).
 */
export function defaultResolvers(
  root: string,
  runTranscript?: (n: number, caseName: string, options?: RunOptions) => MaybeAsync<string>,
): DocResolvers {
  let sources: Promise<AgentSource[]> | undefined;
  const load = (): Promise<AgentSource[]> => (sources ??= loadAgentSources(root));
  return {
    async code(file, block, n) {
      const source = (await load()).find((s) => s.name === file);
      if (!source) throw new Error(`no file src/agent/${file}`);
      return blockText(source.marked, block, n);
    },
    async diff(n, file) {
      const sourceList = await load();
      if (file !== undefined && !sourceList.some((s) => s.name === file)) throw new Error(`no file src/agent/${file}`);
      const text = diffChapter(sourceList, n, file);
      if (text === '') throw new Error(`chapter ${n} changes nothing${file === undefined ? '' : ` in ${file}`}`);
      return text;
    },
    async run(n, caseName, options) {
      return runTranscript ? runTranscript(n, caseName, options) : undefined;
    },
    xray(id) {
      return docFactLines(root, id);
    },
  };
}

/** A doc whose generated regions are out of date, and where the first difference is. */
export interface StaleDoc {
  path: string;
  /** "line 612: has `…`, would be `…`": enough to tell a real change from a flaky run. */
  firstDifference: string;
}

function firstDifference(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (line: string | undefined) => (line === undefined ? '(end of file)' : `\`${line.length > 100 ? `${line.slice(0, 100)}…` : line}\``);
  return `line ${i + 1}: has ${show(a[i])}, would be ${show(b[i])}`;
}

/** Fill every `docs/*.md` and the top-level README.md; returns the files that changed (or would, when write is false). */
export async function fillAllDocs(root: string, resolvers: DocResolvers, options: { write: boolean }): Promise<StaleDoc[]> {
  let names: string[];
  try {
    names = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return [];
    throw err;
  }
  try {
    await readFile(join(root, 'README.md'), 'utf8');
    names.push('README.md');
  } catch { /* a tree without a README (the tests' fixtures) */ }
  const changed: StaleDoc[] = [];
  for (const name of names) {
    const path = join(root, ...name.split('/'));
    const before = await readFile(path, 'utf8');
    const after = await fillDoc(before, name, resolvers);
    if (after === before) continue;
    changed.push({ path: name, firstDifference: firstDifference(before, after) });
    if (options.write) await writeFile(path, after);
  }
  return changed;
}
