// The mutation self-check: apply each mutation of the catalogue to an in-memory copy
// of src/agent/, render the chapter it targets into a scratch folder, run that
// chapter's scenarios, and require at least one of them to fail. A mutation that
// survives means a behaviour the suite claims to test is not really tested.
//
// The scratch folder sits inside the project (.tmp/) so that the mutant's imports of
// '@anthropic-ai/sdk' resolve to the project's node_modules. It is always removed.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findChapter } from '../chapters.ts';
import { parseMarked } from './markers.ts';
import { loadAgentSources, renderChapterFiles, type AgentSource } from './generate.ts';
import { MUTATIONS, type Mutation } from './mutations.ts';
import { casesOf, scenarioFile, loadScenarioFile } from '../runner/scenarios.ts';
import { runChapter } from '../runner/run-chapter.ts';
import { track } from '../runner/cleanup.ts';

export interface MutationOutcome {
  id: string;
  breaks: string;
  killed: boolean;
  /** The first scenario that went red and why, or what went wrong applying it. */
  detail: string;
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

/**
 * Render chapter `m.chapter` with mutation `m` applied into a scratch folder, hand the
 * folder to `use`, and remove it afterwards. The folder name carries the process id, so
 * two processes (a test run and `npm run gen`, say) never share one.
 */
export async function withMutant<T>(root: string, m: Mutation, use: (codeDir: string) => Promise<T>, sources?: AgentSource[]): Promise<T> {
  const chapter = findChapter(m.chapter);
  if (!chapter) throw new Error(`mutation ${m.id}: unknown chapter ${m.chapter}`);
  const mutated = applyMutation(sources ?? (await loadAgentSources(root)), m);
  const dir = path.join(root, '.tmp', 'mutants', `${m.id}-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  const forget = track(dir);   // removed even if the self-check is interrupted (registered before it exists)
  await mkdir(dir, { recursive: true });
  try {
    for (const [name, body] of renderChapterFiles(mutated, chapter.n)) await writeFile(path.join(dir, name), body);
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
    forget();
  }
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
    const ordered = m.caughtBy && cases.includes(m.caughtBy) ? [m.caughtBy, ...cases.filter((c) => c !== m.caughtBy)] : cases;
    for (const name of ordered) {
      const scenario = await loadScenarioFile(scenarioFile(chapter, name, root));
      const result = await runChapter({ codeDir: dir, scenario, latencyScale: 0 });
      if (!result.ok) {
        const why = result.crash ?? result.failures[0] ?? result.expectations.find((e) => !e.ok)?.name ?? 'failed';
        return { id: m.id, breaks: m.breaks, killed: true, detail: `${name}: ${why}` };
      }
    }
    return { id: m.id, breaks: m.breaks, killed: false, detail: `every scenario of chapter ${chapter.n} still passes` };
  }, sources);
}

export async function runSelfcheck(root: string, print: (line: string) => void = console.log, json = false): Promise<number> {
  const sources = await loadAgentSources(root);
  const outcomes: MutationOutcome[] = [];
  for (const m of MUTATIONS) {
    const outcome = await runMutation(root, m, sources).catch((err: unknown): MutationOutcome =>
      ({ id: m.id, breaks: m.breaks, killed: false, detail: `could not apply: ${err instanceof Error ? err.message : String(err)}` }));
    outcomes.push(outcome);
    if (!json) print(`${outcome.killed ? 'killed  ' : 'SURVIVED'} ${m.id.padEnd(34)} ch${m.chapter}  ${outcome.detail}`);
  }
  const survived = outcomes.filter((o) => !o.killed).length;
  print(json ? JSON.stringify(outcomes, null, 2) : `\n${MUTATIONS.length - survived}/${MUTATIONS.length} mutations caught`);
  return survived === 0 ? 0 : 1;
}
