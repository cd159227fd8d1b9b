// Doc snippet filling: in `docs/*.md`, the inside of each generated region is
// replaced with fresh content, so prose never shows code the chapter does not have.
//
//   <!-- code: agent.ts#block-name @11 -->  …  <!-- /code -->   one block as chapter 11 sees it
//   <!-- diff: 11 -->                       …  <!-- /diff -->   what chapter 11 changes
//   <!-- diff: 11 agent.ts -->              …  <!-- /diff -->   … in that one file
//   <!-- run: 11 demo -->                   …  <!-- /run -->    a transcript, from a callback
//   <!-- run: 8 demo trace with ID -->      …  <!-- /run -->    … with --trace, mutation ID applied
//   <!-- run: 12 demo excerpt -->           …  <!-- /run -->    … without the conversation and the expectations that held
//   <!-- files: 11 -->                      …  <!-- /files -->  the files chapter 11 adds or changes (a table)
//   <!-- hunk: agent.ts#block-name @11 -->  …  <!-- /hunk -->   the diff hunks where that block changed chapter 11
//   <!-- cases: 11 -->                      …  <!-- /cases -->  every case but demo: title, command, PASS line
//   <!-- cases: 11 except recursion,plan --> …                  … leaving out the ones shown as transcripts
//   <!-- cases: 12 usage -->                …  <!-- /cases -->  … with each run's token totals (the mock's usage fields)
//   <!-- forks: 15 fork,fork-seeds -->      …  <!-- /forks -->  fork children's cache use, case by case: the shared
//                                                                prefix, who wrote it, what child 1 and the later ones paid
//   <!-- exercise: 11 -->                   …  <!-- /exercise --> the --exercise paragraph, naming its stubs
//   <!-- xray: fork.trigger -->             …  <!-- /xray -->   a fact measured on the pinned Claude Code
//   <!-- chapters: written -->              …  <!-- /chapters --> the written chapters from src/chapters.ts (a table)
//
// A region marker is an HTML comment alone on its line, `<!-- kind: … -->` with a
// lowercase kind. Other comments (`<!-- note -->`, `<!-- TODO: … -->`) and anything
// inside fenced code blocks outside regions are left alone. This file does not
// write prose, run chapters or render transcripts: the resolvers do.

import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { WRITTEN_CHAPTERS, chapterDir, findChapter, previousWritten } from '../chapters.ts';
import { hunksTouching } from './diff.ts';
import { diffChapter, loadAgentSources } from './generate.ts';
import type { AgentSource } from './generate.ts';
import { blockSpan, blockText, exerciseBlocks, renderChapter } from './markers.ts';
import { changesTable } from './outline.ts';
import { docFactLines } from '../xray/facts-file.ts';

type MaybeAsync<T> = T | Promise<T>;

export interface DocResolvers {
  code(file: string, block: string, n: number): MaybeAsync<string>;
  diff(n: number, file?: string): MaybeAsync<string>;
  /** undefined keeps the region as it is (no transcript available). */
  run(n: number, caseName: string, options?: RunOptions): MaybeAsync<string | undefined>;
  /** A markdown table of the files chapter n adds, changes or drops. */
  files(n: number): MaybeAsync<string>;
  /** The diff hunks of `file` where `block` changed in chapter n. */
  hunk(file: string, block: string, n: number): MaybeAsync<string>;
  /** A markdown table of chapter n's cases but `except` (with token totals when `usage`); undefined keeps the region (no runs available). */
  cases(n: number, except: readonly string[], usage?: boolean): MaybeAsync<string | undefined>;
  /** The paragraph on chapter n's `--exercise`, naming the blocks it stubs out. */
  exercise(n: number): MaybeAsync<string>;
  /** A markdown table of the fork children (tracks child-1 … child-N) of these cases of chapter n; undefined keeps the region. */
  forks?(n: number, cases: readonly string[]): MaybeAsync<string | undefined>;
  /** The lines quoting one x-ray fact of the pinned release (xray/facts-VERSION.json); absent keeps the region. */
  xray?(id: string): MaybeAsync<string[]>;
}

type Region =
  | { kind: 'code'; file: string; block: string; n: number }
  | { kind: 'diff'; n: number; file?: string }
  | { kind: 'run'; n: number; caseName: string; options: RunOptions }
  | { kind: 'files'; n: number }
  | { kind: 'hunk'; file: string; block: string; n: number }
  | { kind: 'cases'; n: number; except: string[]; usage: boolean }
  | { kind: 'exercise'; n: number }
  | { kind: 'xray'; id: string }
  | { kind: 'forks'; n: number; cases: string[] }
  | { kind: 'chapters' };

/**
 * A transcript can show the request shapes (trace), a deliberately broken chapter (a
 * mutation's id), or only its end (excerpt): the tables, the agent's ledger, what failed and the verdict.
 */
export interface RunOptions {
  trace?: boolean;
  mutation?: string;
  excerpt?: boolean;
}

/** One case of a chapter, as a cases table shows it: what the scenario shows, and the verdict of a real run. */
export interface CaseVerdict {
  title: string;
  /** `PASS 5/5 expectations`, the last line of the run's transcript. */
  verdict: string;
  /** The run's token totals over every model call, from the mock's usage fields. */
  usage?: { calls: number; input: number; write: number; read: number; output: number };
  /** The same per track, and each track's input at the documented prices (base-input equivalents). */
  tracks?: Record<string, { input: number; write: number; read: number; output: number; cost: number }>;
}

const REGION_KINDS = ['code', 'diff', 'run', 'files', 'hunk', 'cases', 'exercise', 'xray', 'forks', 'chapters'];

const DIRECTIVE = /^<!--\s*([a-z][a-z-]*):\s*(.*?)\s*-->$/;
const CLOSER = /^<!--\s*\/([a-z][a-z-]*)\s*-->$/;
const FENCE = /^(`{3,}|~{3,})/;

function parseRegion(kind: string, args: string, fail: (what: string) => never): Region {
  const chapter = (text: string): number => {
    const n = Number(text);
    if (!findChapter(n)) fail(`chapter ${text} is not in the chapter table`);
    return n;
  };
  if (kind === 'code' || kind === 'hunk') {
    const m = /^(\S+)#(\S+)\s+@(\d+)$/.exec(args);
    if (!m) return fail(`malformed ${kind} region '${args}': expected <!-- ${kind}: FILE#BLOCK @N -->`);
    return { kind, file: m[1] as string, block: m[2] as string, n: chapter(m[3] as string) };
  }
  if (kind === 'files' || kind === 'exercise') {
    if (!/^\d+$/.test(args)) return fail(`malformed ${kind} region '${args}': expected <!-- ${kind}: N -->`);
    return { kind, n: chapter(args) };
  }
  if (kind === 'cases') {
    const m = /^(\d+)(\s+usage)?(?:\s+except\s+([\w-]+(?:,[\w-]+)*))?$/.exec(args);
    if (!m) return fail(`malformed cases region '${args}': expected <!-- cases: N [usage] [except CASE,CASE] -->`);
    return { kind, n: chapter(m[1] as string), except: m[3] === undefined ? [] : m[3].split(','), usage: m[2] !== undefined };
  }
  if (kind === 'diff') {
    const m = /^(\d+)(?:\s+(\S+))?$/.exec(args);
    if (!m) return fail(`malformed diff region '${args}': expected <!-- diff: N --> or <!-- diff: N FILE -->`);
    const n = chapter(m[1] as string);
    return m[2] === undefined ? { kind, n } : { kind, n, file: m[2] };
  }
  if (kind === 'run') {
    const m = /^(\d+)\s+(\S+)(\s+trace)?(\s+excerpt)?(?:\s+with\s+(\S+))?$/.exec(args);
    if (!m) return fail(`malformed run region '${args}': expected <!-- run: N CASE [trace] [excerpt] [with MUTATION] -->`);
    const options: RunOptions = {};
    if (m[3] !== undefined) options.trace = true;
    if (m[4] !== undefined) options.excerpt = true;
    if (m[5] !== undefined) options.mutation = m[5];
    return { kind, n: chapter(m[1] as string), caseName: m[2] as string, options };
  }
  if (kind === 'forks') {
    const m = /^(\d+)\s+([\w-]+(?:,[\w-]+)*)$/.exec(args);
    if (!m) return fail(`malformed forks region '${args}': expected <!-- forks: N CASE,CASE -->`);
    return { kind, n: chapter(m[1] as string), cases: (m[2] as string).split(',') };
  }
  if (kind === 'xray') {
    if (!/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*$/.test(args)) return fail(`malformed xray region '${args}': expected <!-- xray: FACT-ID -->`);
    return { kind, id: args };
  }
  if (kind === 'chapters') {
    if (args !== 'written') return fail(`malformed chapters region '${args}': expected <!-- chapters: written -->`);
    return { kind };
  }
  return fail(`unknown region kind '${kind}' (known: ${REGION_KINDS.join(', ')})`);
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

/**
 * The table of the written chapters, as src/chapters.ts has them, each title linking to its
 * doc from where `docPath` is: the README and the docs index list what exists, never a copy.
 */
export function chaptersTable(docPath: string): string[] {
  const toDocs = posix.relative(posix.dirname(docPath), 'docs');
  const link = (name: string) => (toDocs === '' ? name : `${toDocs}/${name}`);
  return [
    '| #  | chapter | the agent can now … |',
    '|----|---------|---------------------|',
    ...WRITTEN_CHAPTERS.map((ch) => `| ${String(ch.n).padEnd(2)} | [${ch.title}](${link(`${chapterDir(ch)}.md`)}) | ${ch.canNow.replace(/\|/g, '\\|')} |`),
  ];
}

async function regionContent(region: Region, resolvers: DocResolvers, docPath: string): Promise<string[] | undefined> {
  switch (region.kind) {
    case 'code':
      return fenced(languageOf(region.file), await resolvers.code(region.file, region.block, region.n));
    case 'diff':
      return fenced('diff', await resolvers.diff(region.n, region.file));
    case 'run': {
      const transcript = await resolvers.run(region.n, region.caseName, region.options);
      return transcript === undefined ? undefined : fenced('text', transcript);
    }
    case 'files':
      return (await resolvers.files(region.n)).split('\n');
    case 'hunk':
      return fenced('diff', await resolvers.hunk(region.file, region.block, region.n));
    case 'cases': {
      const table = await resolvers.cases(region.n, region.except, region.usage);
      return table === undefined ? undefined : table.split('\n');
    }
    case 'exercise':
      return (await resolvers.exercise(region.n)).split('\n');
    case 'forks': {
      const table = resolvers.forks ? await resolvers.forks(region.n, region.cases) : undefined;
      return table === undefined ? undefined : table.split('\n');
    }
    case 'xray':
      return resolvers.xray ? [...(await resolvers.xray(region.id))] : undefined;
    case 'chapters':
      return chaptersTable(docPath);
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
      content = await regionContent(region, resolvers, docPath);
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
 * Resolvers backed by src/agent: code, diffs, the files table and the exercise paragraph
 * come from the generator; run and cases use the callbacks when there are any (they need
 * the runner) and otherwise keep what is there; xray quotes the pinned facts file
 * (xray/facts-VERSION.json).
 */
export function defaultResolvers(
  root: string,
  runTranscript?: (n: number, caseName: string, options?: RunOptions) => MaybeAsync<string>,
  caseVerdicts?: (n: number) => MaybeAsync<Array<{ caseName: string } & CaseVerdict>>,
): DocResolvers {
  let sources: Promise<AgentSource[]> | undefined;
  const load = (): Promise<AgentSource[]> => (sources ??= loadAgentSources(root));
  const sourceOf = async (file: string): Promise<AgentSource> => {
    const source = (await load()).find((s) => s.name === file);
    if (!source) throw new Error(`no file src/agent/${file}`);
    return source;
  };
  return {
    async code(file, block, n) {
      return blockText((await sourceOf(file)).marked, block, n);
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
    async files(n) {
      return changesTable(await load(), n);
    },
    async hunk(file, block, n) {
      const { marked } = await sourceOf(file);
      const { start, end } = blockSpan(marked, block, n);
      const prev = previousWritten(n);
      // Numbered as in the snapshots, below their one-line header.
      const text = hunksTouching(prev ? renderChapter(marked, prev.n) : '', renderChapter(marked, n), start, end, { old: prev ? 1 : 0, new: 1 });
      if (text === '') throw new Error(`block '${block}' of ${file} is the same in chapter ${n} as before: use a code region`);
      return text;
    },
    async cases(n, except, usage = false) {
      if (!caseVerdicts) return undefined;
      const all = await caseVerdicts(n);
      const rows = all.filter((c) => c.caseName !== 'demo' && !except.includes(c.caseName));
      const unknown = except.filter((name) => !all.some((c) => c.caseName === name));
      if (unknown.length > 0) throw new Error(`no case ${unknown.join(', ')} in chapter ${n}`);
      if (rows.length === 0) throw new Error(`chapter ${n} has no case left for the table`);
      const cell = (text: string) => text.replace(/\|/g, '\\|');
      const num = (x: number) => x.toLocaleString('en-US');
      const totals = (c: CaseVerdict) => {
        const u = c.usage;
        if (!u) throw new Error(`no usage totals for case ${c.title}`);
        return ` ${u.calls} | ${num(u.input)} | ${num(u.write)} | ${num(u.read)} | ${num(u.output)} |`;
      };
      return [
        `| case | what it shows | run it | result |${usage ? ' calls | input | cache write | cache read | output |' : ''}`,
        `|---|---|---|---|${usage ? '--:|--:|--:|--:|--:|' : ''}`,
        ...rows.map((c) => `| \`${c.caseName}\` | ${cell(c.title)} | \`node steps/run.mjs ${n} --case ${c.caseName}\` | ${c.verdict} |${usage ? totals(c) : ''}`),
      ].join('\n');
    },
    async exercise(n) {
      const sourceList = await load();
      const names = (list: readonly string[]) => (list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`) as string;
      const perFile = sourceList
        .map((s) => ({ file: s.name, stubs: exerciseBlocks(s.marked, n).map((b) => `\`${b.name}\``) }))
        .filter((f) => f.stubs.length > 0);
      if (perFile.length === 0) throw new Error(`chapter ${n} has no exercise blocks (no //! hint: lines)`);
      const ch = findChapter(n) as NonNullable<ReturnType<typeof findChapter>>;
      const list = names(perFile.map((f) => `${names(f.stubs)} in \`${f.file}\``));
      return [
        `**Build it yourself.** \`node steps/run.mjs ${n} --exercise\` writes this chapter to`,
        `\`exercises/${chapterDir(ch)}/\` with ${list} stubbed out.`,
        `\`node steps/run.mjs ${n} --check\` names the first missing behaviour and its hint;`,
        '`--solution` diffs your code against the reference.',
      ].join('\n');
    },
    xray(id) {
      return docFactLines(root, id);
    },
    async forks(n, cases) {
      if (!caseVerdicts) return undefined;
      const all = await caseVerdicts(n);
      const num = (x: number) => x.toLocaleString('en-US');
      const rows = cases.map((name) => {
        const c = all.find((v) => v.caseName === name);
        if (!c) throw new Error(`no case ${name} in chapter ${n}`);
        const kids = Object.entries(c.tracks ?? {}).filter(([t]) => /^child-\d+$/.test(t))
          .sort(([a], [b]) => Number(a.slice(6)) - Number(b.slice(6))).map(([, u]) => u);
        if (kids.length < 2) throw new Error(`case ${name} has fewer than two tracks child-1, child-2, …`);
        const [first, ...later] = kids as [NonNullable<CaseVerdict['tracks']>[string], ...NonNullable<CaseVerdict['tracks']>[string][]];
        const shared = Math.min(...later.map((u) => u.read));
        const by = first.read >= shared ? 'the parent, by its own last request; every child reads it'
          : first.read > 0 ? 'the parent up to what it sent, child 1 the rest; the later children read it' : 'child 1; the later children read it';
        const pair = (u: { write: number; read: number }) => `${num(u.write)} / ${num(u.read)}`;
        const laterPairs = [...new Set(later.map(pair))].join(' · ');
        const cost = kids.reduce((s, u) => s + u.cost, 0);
        return `| \`${name}\` | ${num(shared)} | ${by} | ${pair(first)} | ${laterPairs} | ${num(Math.round(cost))} |`;
      });
      return [
        '| case | shared prefix (tokens) | written by | child 1: cache write / read | each later child: write / read | the children, at the documented prices |',
        '|---|--:|---|--:|--:|--:|',
        ...rows,
      ].join('\n');
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

/** Fill every `docs/*.md` and the top-level README.md (or those `docs` picks, by path); returns the files that changed (or would, when write is false). */
export async function fillAllDocs(root: string, resolvers: DocResolvers, options: { write: boolean; docs?: (path: string) => boolean }): Promise<StaleDoc[]> {
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
  for (const name of names.filter(options.docs ?? (() => true))) {
    const path = join(root, ...name.split('/'));
    const before = await readFile(path, 'utf8');
    const after = await fillDoc(before, name, resolvers);
    if (after === before) continue;
    changed.push({ path: name, firstDifference: firstDifference(before, after) });
    if (options.write) await writeFile(path, after);
  }
  return changed;
}
