// The fact table of the x-ray: Claude Code's column from the driver's traces, the series'
// column from running the chapters' own agents on their own scenarios against the same
// mock, and both read by the same analysis (analyse.ts). There is no hand-written list of
// what the series does: break a chapter and its cells change.
//
// This file runs chapters (through the runner, as the tests do) and renders; it never
// runs Claude Code (drive.ts does) and never writes files.

import type { ChalkInstance } from 'chalk';
import { findChapter } from '../chapters.ts';
import { runChapter, type RunOptions, type RunResult } from '../runner/run-chapter.ts';
import { ROOT, casesOf, loadScenarioFile, scenarioFile, snapshotDir } from '../runner/scenarios.ts';
import { FACT_TITLES, NOT_MEASURED, extractFacts, type Fact } from './analyse.ts';
import { compareFacts } from './facts-file.ts';
import type { XrayCase, XrayTrace } from './trace.ts';
import { readRepo, type RepoAfter } from './repo.ts';
import path from 'node:path';

export type { Fact } from './analyse.ts';
export { extractFacts } from './analyse.ts';
export { pinnedVersion, factsFilePath, factsFileText, readFactsFile } from './facts-file.ts';

/**
 * Which chapter scenarios show the series' side of each x-ray case. The order matters
 * where a fact takes the first or the latest evidence: how a report reaches the main agent
 * is chapter 11's (it waits), what the call returns at once and where the report arrives
 * later are chapter 15's (background agents), how an inline report is framed is chapter 13's.
 * Which folders' skills and agent files a session started in a subfolder reads are chapter
 * 9's and chapter 14's; which of two same-name agent files wins, chapter 14's demo; which
 * model id an agent file's alias becomes, chapter 14's aliases case.
 * The worktree facts are chapter 16's: one sub-agent that changes nothing, two that do.
 * Which session ids start a session is chapter 4's: a file name, a plain name, a UUID.
 * A scenario the chapter does not have is skipped: its facts read "not measured".
 */
export const SERIES_RUNS: readonly { chapter: number; scenario: string; cases: readonly XrayCase[] }[] = [
  { chapter: 4, scenario: 'session-id-file', cases: ['session'] },
  { chapter: 4, scenario: 'demo', cases: ['session'] },
  { chapter: 4, scenario: 'session-id-uuid', cases: ['session'] },
  { chapter: 9, scenario: 'precedence', cases: ['skills'] },
  { chapter: 9, scenario: 'subfolder', cases: ['skills'] },
  { chapter: 9, scenario: 'own-skills', cases: ['skills'] },
  // Out of order: their sub-agents report inline, and the framing fact takes the latest such run (chapter 13's).
  { chapter: 14, scenario: 'subfolder', cases: ['skills'] },
  { chapter: 14, scenario: 'demo', cases: ['skills'] },
  { chapter: 14, scenario: 'aliases', cases: ['skills'] },
  { chapter: 11, scenario: 'context', cases: ['delegate'] },
  { chapter: 11, scenario: 'failing', cases: ['failed'] },
  { chapter: 12, scenario: 'demo', cases: ['fork', 'fork-seed'] },
  { chapter: 12, scenario: 'guard', cases: ['guard'] },
  { chapter: 12, scenario: 'fork-named', cases: ['guard'] },
  { chapter: 13, scenario: 'cap-one', cases: ['limits'] },
  { chapter: 13, scenario: 'depth-one', cases: ['limits'] },
  { chapter: 13, scenario: 'default-cap', cases: ['limits'] },
  { chapter: 13, scenario: 'bad-env-cap', cases: ['limits'] },
  { chapter: 13, scenario: 'depth', cases: ['limits'] },
  { chapter: 15, scenario: 'demo', cases: ['delegate'] },
  { chapter: 15, scenario: 'stop', cases: ['stop'] },
  { chapter: 15, scenario: 'continue', cases: ['continue'] },
  { chapter: 15, scenario: 'too-early', cases: ['continue'] },
  { chapter: 16, scenario: 'unchanged', cases: ['worktree'] },
  { chapter: 16, scenario: 'demo', cases: ['worktree'] },
];

export type CaseRunner = (opts: RunOptions) => Promise<RunResult>;

export interface SeriesOptions {
  root?: string;
  /** Only these chapters (the tests run one). */
  chapters?: number[];
  /** Only the runs that make these cases (a test that reads one case's facts needs no other run). */
  cases?: readonly XrayCase[];
  /** The code to run for a chapter; default its snapshot (a test passes a mutant's folder). */
  codeDir?: (chapter: number) => string | undefined;
  /** How a case is run: runChapter, or a cache of runs already made. */
  run?: CaseRunner;
}

/** The series' traces: each chapter scenario of SERIES_RUNS run against the mock, its event log wrapped. */
export async function seriesTraces(o: SeriesOptions = {}): Promise<XrayTrace[]> {
  const root = o.root ?? ROOT;
  const run = o.run ?? runChapter;
  const traces: XrayTrace[] = [];
  for (const entry of SERIES_RUNS) {
    if (o.chapters && !o.chapters.includes(entry.chapter)) continue;
    if (o.cases && !entry.cases.some((c) => o.cases!.includes(c))) continue;
    const chapter = findChapter(entry.chapter);
    if (!chapter || !casesOf(chapter, root).includes(entry.scenario)) continue;
    const scenario = await loadScenarioFile(scenarioFile(chapter, entry.scenario, root));
    const codeDir = o.codeDir?.(entry.chapter) ?? snapshotDir(chapter, root);
    // A git scenario's repository is read as the run left it, before its cleanup removes it.
    const after: { repo?: RepoAfter } = {};
    const inspect = scenario.git ? async (dir: string) => { after.repo = await readRepo(dir); } : undefined;
    const result = await run({ codeDir, scenario, latencyScale: 0, ...(inspect && { inspect }) });
    for (const c of entry.cases) {
      const trace: XrayTrace = {
        source: 'series', version: `chapter ${entry.chapter}`, case: c, events: result.events,
        cwd: result.workspace, home: path.join(result.tempDir, 'home'),
      };
      if (scenario.env) trace.env = scenario.env;
      if (scenario.files) trace.files = scenario.files;
      if (scenario.home_files) trace.homeFiles = scenario.home_files;
      if (scenario.argv) trace.argv = scenario.argv;
      if (scenario.cwd) trace.start = scenario.cwd;
      if (after.repo) trace.repo = after.repo;
      traces.push(trace);
    }
  }
  return traces;
}

export interface FactRow {
  id: string;
  title: string;
  /** The chapter that teaches it. */
  chapter: number;
  series: Fact;
  cc: Fact;
  /** null when one side did not measure it. */
  same: boolean | null;
}

/** Pair two sources' facts into the table's rows. */
export function pairFacts(series: Fact[], cc: Fact[]): FactRow[] {
  return FACT_TITLES.map(({ id, title, chapter }) => {
    const s = series.find((f) => f.id === id) ?? { id, value: NOT_MEASURED };
    const c = cc.find((f) => f.id === id) ?? { id, value: NOT_MEASURED };
    const same = s.value === NOT_MEASURED || c.value === NOT_MEASURED ? null : s.value === c.value;
    return { id, title, chapter, series: s, cc: c, same };
  });
}

/** The table's rows: Claude Code's traces as given, the series' measured now. */
export async function factRows(ccTraces: XrayTrace[], o: SeriesOptions = {}): Promise<FactRow[]> {
  return pairFacts(extractFacts(await seriesTraces(o)), extractFacts(ccTraces));
}

/** The Claude Code version the rows measured (from the facts that name one). */
export function rowsVersion(rows: FactRow[]): string | undefined {
  return rows.find((r) => r.cc.version !== undefined)?.cc.version;
}

/** `--check`: one line per fact where the live run disagrees with the pinned file. */
export function checkFacts(rows: FactRow[], factsFile: string): string[] {
  return compareFacts(rows.map((r) => r.cc), rowsVersion(rows), factsFile);
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      out.push(line);
      line = word;
    }
    while (line.length > width) {
      out.push(line.slice(0, width));
      line = line.slice(width);
    }
  }
  out.push(line);
  return out;
}

const identity = (s: string): string => s;

/**
 * The table: fact · this series (chapter N) · Claude Code VERSION · same?. Cells wrap;
 * a cell the run did not measure says so. Plain text unless a colour is given. The version
 * is the binary's own when the caller knows it (no fact may have been measured at all).
 */
export function renderFactTable(rows: FactRow[], color?: ChalkInstance, width = 118, version = rowsVersion(rows) ?? '?'): string[] {
  const same = { w: 5 };
  const fact = { w: 26 };
  const cell = Math.max(20, Math.floor((width - fact.w - same.w - 9) / 2));
  const dim = color ? color.dim : identity;
  const bold = color ? color.bold : identity;
  const pad = (s: string, w: number) => s + ' '.repeat(Math.max(0, w - s.length));
  const header = [pad('fact', fact.w), pad('this series (chapter N)', cell), pad(`Claude Code ${version}`, cell), 'same?'];
  const rule = '─'.repeat(fact.w + cell * 2 + same.w + 9);
  const out = [bold(header.join(' │ ')), dim(rule)];
  for (const r of rows) {
    const chapter = r.series.version ?? `chapter ${r.chapter}`;
    const left = wrap(r.title, fact.w);
    const mid = wrap(`${chapter.replace('chapter ', 'ch ')}: ${r.series.value}`, cell);
    const right = wrap(r.cc.value, cell);
    const verdict = r.same === null ? '—' : r.same ? 'yes' : 'no';
    const paint = !color ? identity : r.same === null ? color.dim : r.same ? color.green : color.yellow;
    const n = Math.max(left.length, mid.length, right.length);
    for (let i = 0; i < n; i++) {
      out.push([pad(left[i] ?? '', fact.w), pad(mid[i] ?? '', cell), pad(right[i] ?? '', cell), i === 0 ? paint(verdict) : ''].join(' │ ').trimEnd());
    }
    out.push(dim(rule));
  }
  const counted = rows.filter((r) => r.same !== null);
  out.push(`${counted.filter((r) => r.same).length} of ${counted.length} measured facts the same; ${rows.length - counted.length} not measured on one side`);
  return out;
}
