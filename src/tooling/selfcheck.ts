// The self-check: does the suite notice what it claims to? Two catalogues.
// - Mutations (mutations.ts): apply each to an in-memory copy of src/agent/, render the
//   chapter it targets into a scratch folder, run that chapter's scenarios, and require at
//   least one of them to fail. A mutation that survives means a behaviour the suite claims
//   to test is not really tested.
// - Half-done shortcuts (shortcuts.ts): the chapter's reference with one plausible shortcut
//   taken inside one TODO, run on the case the shortcut names; the expectation it names must
//   be the first to fail (the one `--check` shows). One that passes is a half-done solution
//   `--check` would grade as done.
//
// The scratch folder sits inside the project (.tmp/) so that the folder's imports of
// '@anthropic-ai/sdk' resolve to the project's node_modules. It is always removed.
//
// With `cached` (`--selfcheck --cached`, as CI runs it), a mutation already killed
// by exactly the same inputs is not run again: see verdictKey for what those are. Only
// kills are kept (in node_modules/.cache); a survivor, or one that cannot be applied, is
// always tried afresh.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findChapter } from '../chapters.ts';
import { parseMarked } from './markers.ts';
import { loadAgentSources, renderChapterFiles, type AgentSource } from './generate.ts';
import { MUTATIONS, type Mutation } from './mutations.ts';
import { SHORTCUTS, shortcutFiles, shortcutId, type Shortcut } from './shortcuts.ts';
import { casesOf, scenarioFile, loadScenarioFile } from '../runner/scenarios.ts';
import { runChapter } from '../runner/run-chapter.ts';
import { absorbingStrays } from '../runner/run-guard.ts';
import { gradeExercise } from '../runner/exercise-cli.ts';
import { checkScratchRoot, onExit, track } from '../runner/cleanup.ts';

export interface MutationOutcome {
  id: string;
  /** Which catalogue: mutations.ts, or shortcuts.ts. */
  kind: 'mutation' | 'shortcut';
  breaks: string;
  killed: boolean;
  /** The first scenario that went red and why, or what went wrong applying it. */
  detail: string;
  /** The verdict of an earlier run on exactly the same inputs (--cached). */
  cached?: boolean;
}

export function applyMutation(sources: readonly AgentSource[], m: Mutation): AgentSource[] {
  const target = sources.find((s) => s.name === m.file);
  if (!target) throw new Error(`mutation ${m.id}: src/agent/${m.file} does not exist`);
  const text = target.marked.lines.map((l) => l.text).join('');
  const count = text.split(m.find).length - 1;
  if (count !== 1) throw new Error(`mutation ${m.id}: its find text occurs ${count} times in src/agent/${m.file} (must be exactly once)`);
  const mutated = text.replace(m.find, () => m.replace);
  return sources.map((s) => (s === target ? { name: s.name, marked: parseMarked(mutated, `src/agent/${s.name}`) } : s));
}

/** Chapter `m.chapter`'s files, by name, with mutation `m` applied. */
export function mutantFiles(sources: readonly AgentSource[], m: Mutation): Map<string, string> {
  return renderChapterFiles(applyMutation(sources, m), m.chapter);
}

/** How many scratch folders this process has made: the N of the next one's name. */
let scratchCount = 0;

/**
 * Write `files` into a scratch folder of the project (.tmp/NAME-PID-N: the folder name carries
 * the process id, so two processes, a test run and `npm run gen` say, never share one, and a
 * count, so two jobs of one self-check never do either, even for two entries with one name), hand
 * the folder to `use`, and remove it afterwards, also when the process is interrupted. The
 * folders that held it (.tmp/KIND, .tmp) go too once nothing else is in them.
 */
async function withScratch<T>(root: string, name: string, files: ReadonlyMap<string, string>, use: (codeDir: string) => Promise<T>): Promise<T> {
  const dir = path.join(root, '.tmp', `${name}-${process.pid}-${++scratchCount}`);
  await rm(dir, { recursive: true, force: true });
  const forget = track(dir);   // removed even if the self-check is interrupted (registered before it exists)
  // Interrupted, the folders that held it go too once empty: a Ctrl-C left an empty
  // .tmp/mutants in the project. An exit hook runs before the tracked folders are removed, so
  // it removes this one itself first.
  const forgetHolders = onExit(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const up of holders(root, dir)) try { rmdirSync(up); } catch { /* not empty, or gone */ }
  });
  await mkdir(dir, { recursive: true });
  try {
    for (const [file, body] of files) await writeFile(path.join(dir, file), body);
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
    forget();
    forgetHolders();
    // rmdir removes only an empty folder: one another scratch folder is in stays.
    for (const up of holders(root, dir)) await rmdir(up).catch(() => undefined);
  }
}

/** The folders between `root` and `dir` that hold it, innermost first (.tmp/mutants, .tmp). */
function holders(root: string, dir: string): string[] {
  const out: string[] = [];
  for (let up = path.dirname(dir); up !== root && up !== path.dirname(up); up = path.dirname(up)) out.push(up);
  return out;
}

/** Render chapter `m.chapter` with mutation `m` applied into a scratch folder, hand the folder to `use`, remove it. */
export async function withMutant<T>(root: string, m: Mutation, use: (codeDir: string) => Promise<T>, sources?: AgentSource[]): Promise<T> {
  if (!findChapter(m.chapter)) throw new Error(`mutation ${m.id}: unknown chapter ${m.chapter}`);
  return withScratch(root, path.join('mutants', m.id), mutantFiles(sources ?? (await loadAgentSources(root)), m), use);
}

export function findMutation(id: string): Mutation {
  const m = MUTATIONS.find((x) => x.id === id);
  if (!m) throw new Error(`no mutation named ${id} in src/tooling/mutations.ts`);
  return m;
}

export async function runMutation(root: string, m: Mutation, sources?: AgentSource[]): Promise<MutationOutcome> {
  const chapter = findChapter(m.chapter)!;
  return withMutant(root, m, async (dir) => {
    // The case named as catching it goes first: usually the only one that needs to run.
    const cases = casesOf(chapter, root);
    const ordered = cases.includes(m.caughtBy) ? [m.caughtBy, ...cases.filter((c) => c !== m.caughtBy)] : cases;
    for (const name of ordered) {
      const scenario = await loadScenarioFile(scenarioFile(chapter, name, root));
      const result = await runChapter({ codeDir: dir, scenario, latencyScale: 0 });
      if (!result.ok) {
        const why = result.crash ?? result.failures[0] ?? result.expectations.find((e) => !e.ok)?.name ?? 'failed';
        // The catalogue (and the docs that quote it) says which case catches the mutation:
        // another case failing instead proves the mutation caught, and the catalogue wrong.
        if (name !== m.caughtBy) {
          return { id: m.id, kind: 'mutation', breaks: m.breaks, killed: false, detail: `${m.caughtBy} still passes; ${name} fails instead (${why}): name that case as caughtBy, or fix ${m.caughtBy}` };
        }
        return { id: m.id, kind: 'mutation', breaks: m.breaks, killed: true, detail: `${name}: ${why}` };
      }
    }
    return { id: m.id, kind: 'mutation', breaks: m.breaks, killed: false, detail: `every scenario of chapter ${chapter.n} still passes` };
  }, sources);
}

/**
 * The shortcut's folder, graded as `--check` grades a learner's (gradeExercise): the
 * chapter's cases in turn, each on a fresh load of the code, until one fails. Caught when that first failing
 * case is the one the shortcut names (or its `or`), on the expectation it names there (the
 * first of the case to fail) or with the scenario problem it names: what the learner is
 * shown, with its hint.
 */
export async function runShortcut(root: string, s: Shortcut, sources: readonly AgentSource[]): Promise<MutationOutcome> {
  const chapter = findChapter(s.chapter);
  if (!chapter) throw new Error(`shortcut ${shortcutId(s)}: unknown chapter ${s.chapter}`);
  const outcome = (killed: boolean, detail: string): MutationOutcome => ({ id: shortcutId(s), kind: 'shortcut', breaks: `TODO(${s.todo}): ${s.shortcut}`, killed, detail });
  return withScratch(root, path.join('shortcuts', shortcutId(s)), shortcutFiles(sources, s), async (dir) => {
    // --check's own grading loop: it stops at the first case that fails.
    const first = (await gradeExercise(chapter, dir, casesOf(chapter, root).map((name) => scenarioFile(chapter, name, root)), false)).find((v) => !v.ok);
    if (!first) return outcome(false, `every case of chapter ${chapter.n} passes`);
    const failed = first.expectations.filter((e) => !e.ok).map((e) => e.name);
    const why = [...failed, ...first.failures].join('; ') || first.crash;
    const named = [{ case: s.case, fails: s.fails }, ...(s.or ? [s.or] : [])].find((n) => n.case === first.case);
    if (!named) return outcome(false, `--check shows ${first.case} failing first (on: ${why}), before ${s.case}`);
    const caught = failed[0] === named.fails || first.failures.some((f) => f.includes(named.fails));
    return outcome(caught, caught ? `${first.case}: ${named.fails}` : `the ${first.case} case fails on: ${why}, not on "${named.fails}"`);
  });
}

/**
 * Everything a mutation's verdict depends on besides its own chapter's files and scenarios:
 * the code that renders, runs and judges them (src/ outside src/agent/, whose part is in the
 * mutant's files; the catalogue itself, whose part is the mutation), the installed packages
 * (the lockfile) and the Node version.
 */
export function harnessDigest(root: string): string {
  const hash = createHash('sha256').update(`${process.version} ${process.platform} ${process.arch}\0`);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join('/');
      if (rel === 'src/agent' || rel === 'src/tooling/mutations.ts') continue;
      if (entry.isDirectory()) walk(full);
      else hash.update(`${rel}\0`).update(readFileSync(full)).update('\0');
    }
  };
  walk(path.join(root, 'src'));
  hash.update(readFileSync(path.join(root, 'package-lock.json')));
  return hash.digest('hex');
}

/**
 * The key a kill is kept under: the harness (harnessDigest), the mutation, the mutant's
 * files and every scenario of its chapter, names and bytes. Any change to one of them is
 * another key, so a kept verdict is one this very run would reach again.
 */
export async function verdictKey(root: string, harness: string, m: Mutation | Shortcut, files: ReadonlyMap<string, string>): Promise<string> {
  const chapter = findChapter(m.chapter)!;
  const hash = createHash('sha256').update(`${harness}\0${JSON.stringify(m)}\0`);
  for (const [name, body] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${name}\0${body}\0`);
  for (const name of casesOf(chapter, root)) hash.update(`${name}\0`).update(await readFile(scenarioFile(chapter, name, root))).update('\0');
  return hash.digest('hex');
}

export interface SelfcheckOptions {
  json?: boolean;
  /** Reuse the verdicts kept from earlier runs on the same inputs, and keep this run's. */
  cached?: boolean;
  /** Default: the whole mutation catalogue. */
  mutations?: readonly Mutation[];
  /** Default: every half-done shortcut. */
  shortcuts?: readonly Shortcut[];
  /** Default: node_modules/.cache/subagents-selfcheck in the project. */
  cacheDir?: string;
}

/** One entry of either catalogue, as the self-check runs it. */
interface Job {
  id: string;
  kind: MutationOutcome['kind'];
  breaks: string;
  chapter: number;
  key(harness: string): Promise<string>;
  run(): Promise<MutationOutcome>;
}

export async function runSelfcheck(root: string, print: (line: string) => void = console.log, o: SelfcheckOptions = {}): Promise<number> {
  // A TMPDIR the runner refuses fails every run alike: said once, as the runner says it (a
  // SetupError: one line, exit 2), not as hundreds of "could not apply" verdicts ending in
  // "0/N mutations caught", as if the suite caught nothing.
  await checkScratchRoot('subagents-selfcheck-');
  const sources = await loadAgentSources(root);
  const jobs: Job[] = [
    ...(o.mutations ?? MUTATIONS).map((m): Job => ({
      id: m.id, kind: 'mutation', breaks: m.breaks, chapter: m.chapter,
      key: (harness) => verdictKey(root, harness, m, mutantFiles(sources, m)),
      run: () => runMutation(root, m, sources),
    })),
    ...(o.shortcuts ?? SHORTCUTS).map((s): Job => ({
      id: shortcutId(s), kind: 'shortcut', breaks: `TODO(${s.todo}): ${s.shortcut}`, chapter: s.chapter,
      key: (harness) => verdictKey(root, harness, s, shortcutFiles(sources, s)),
      run: () => runShortcut(root, s, sources),
    })),
  ];
  const cacheDir = o.cacheDir ?? path.join(root, 'node_modules', '.cache', 'subagents-selfcheck');
  const harness = o.cached ? harnessDigest(root) : '';
  if (o.cached) await mkdir(cacheDir, { recursive: true });
  const keys = new Set<string>();
  const verdict = async (job: Job): Promise<MutationOutcome> => {
    if (!o.cached) return job.run();
    const key = await job.key(harness);
    keys.add(key);
    const kept = path.join(cacheDir, `${key}.json`);
    try {
      return { ...(JSON.parse(await readFile(kept, 'utf8')) as MutationOutcome), cached: true };
    } catch { /* not kept: run it */ }
    const fresh = await job.run();
    if (fresh.killed) {
      const partial = `${kept}.${process.pid}`;
      await writeFile(partial, JSON.stringify(fresh));
      await rename(partial, kept);
    }
    return fresh;
  };
  // Two at a time (each in its own folder, on its own mock): a run spends about a third of
  // its time waiting on its mock, git and the loader. Verdicts print in catalogue order.
  const outcomes: MutationOutcome[] = [];
  let next = 0;
  let printed = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      const job = jobs[i]!;
      outcomes[i] = await verdict(job).catch((err: unknown): MutationOutcome =>
        ({ id: job.id, kind: job.kind, breaks: job.breaks, killed: false, detail: `could not apply: ${err instanceof Error ? err.message : String(err)}` }));
      for (; printed < jobs.length && outcomes[printed] !== undefined; printed++) {
        const [done, outcome] = [jobs[printed]!, outcomes[printed]!];
        const verdictWord = outcome.killed ? (done.kind === 'mutation' ? 'killed  ' : 'caught  ') : (done.kind === 'mutation' ? 'SURVIVED' : 'PASSED  ');
        if (!o.json) print(`${verdictWord} ${done.id.padEnd(34)} ch${done.chapter}  ${outcome.detail}${outcome.cached ? '  (kept: same inputs)' : ''}`);
      }
    }
  };
  // What a mutant leaves running after its run has ended is absorbed (run-guard.ts), not a crash of the whole check.
  await absorbingStrays(() => Promise.all([worker(), worker()]));
  // Verdicts of inputs that are gone (an edited chapter, a changed scenario) are never asked
  // for again: only this run's are kept, once it has gone through both whole catalogues.
  if (o.cached && o.mutations === undefined && o.shortcuts === undefined) {
    for (const f of await readdir(cacheDir)) if (!keys.has(f.replace(/\.json$/, ''))) await rm(path.join(cacheDir, f), { force: true });
  }
  const count = (kind: Job['kind']) => {
    const of = outcomes.filter((x) => x.kind === kind);
    return `${of.filter((x) => x.killed).length}/${of.length}`;
  };
  const failed = outcomes.filter((x) => !x.killed).length;
  print(o.json ? JSON.stringify(outcomes, null, 2) : `\n${count('mutation')} mutations caught; ${count('shortcut')} half-done shortcuts fail their check`);
  return failed === 0 ? 0 : 1;
}
