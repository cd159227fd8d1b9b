// Transcripts for the docs: run a chapter's case against the mock and render it the
// way `node steps/run.mjs` prints it, without colour or timings, so the text is the
// same on every machine and `npm test` can tell when a doc's transcript is stale.

import { Chalk } from 'chalk';
import { findChapter } from '../chapters.ts';
import path from 'node:path';
import { ROOT, casesOf, scenarioFile, snapshotDir, loadScenarioFile } from './scenarios.ts';
import { runChapter, type RunOptions as ChapterRunOptions, type RunResult } from './run-chapter.ts';
import { agentReports, renderTranscript, usageTable } from './transcript.ts';
import type { CaseVerdict, RunOptions } from '../tooling/docs.ts';
import { findMutation, withMutant } from '../tooling/selfcheck.ts';
import { weighUsage } from '../mock/index.ts';
import type { RequestEvent } from '../mock/types.ts';

/** How a transcript's run is made: runChapter, or (in the tests) a cache of runs already checked. */
export type CaseRunner = (opts: ChapterRunOptions) => Promise<RunResult>;

export async function docTranscript(n: number, caseName: string, options: RunOptions = {}, runCase: CaseRunner = runChapter): Promise<string> {
  const chapter = findChapter(n);
  if (!chapter) throw new Error(`chapter ${n} is not in the chapter table`);
  // "demo" is one of the chapter's own cases; "11-subagents/demo" is another chapter's
  // scenario, for showing how an earlier chapter falls short of a later one's task.
  const foreign = caseName.includes('/');
  const file = foreign ? path.join(ROOT, 'scenarios', `${caseName}.json`) : scenarioFile(chapter, caseName);
  const scenario = await loadScenarioFile(file);
  // A mutation's transcript shows a deliberately broken chapter: what the tests catch, seen.
  const run = (codeDir: string) => runCase({ codeDir, scenario, latencyScale: 0 });
  const mutation = options.mutation === undefined ? undefined : findMutation(options.mutation);
  if (mutation && mutation.chapter !== n) throw new Error(`mutation ${mutation.id} belongs to chapter ${mutation.chapter}, not ${n}`);
  const result = mutation ? await withMutant(ROOT, mutation, run) : await run(snapshotDir(chapter));
  const plain = new Chalk({ level: 0 });
  const option = foreign ? ` --scenario scenarios/${caseName}.json` : caseName === 'demo' ? '' : ` --case ${caseName}`;
  const command = mutation
    ? `$ node steps/run.mjs ${n}${option}${options.trace ? ' --trace' : ''}   # with mutation ${mutation.id}: ${mutation.breaks} (broken on purpose)`
    : `$ node steps/run.mjs ${n}${option}${options.trace ? ' --trace' : ''}`;
  const table = usageTable(result.events, plain);
  // An excerpt leaves out the conversation, the one-line summary per sub-agent (the usage
  // table has the same numbers) and the expectations that held (the verdict line counts
  // them); never a table, a failure or the verdict. The command reruns it whole.
  const conversation = options.excerpt
    ? ["(an excerpt: the conversation, each sub-agent's line and the expectations that held are left out; the command shows them)"]
    : renderTranscript(result.events, { color: plain, width: 100, trace: options.trace, scenario, asked: result.asked });
  const reports = agentReports(result.terminal, !options.excerpt);
  const lines = [command, '', ...conversation, '', ...(table.length > 0 ? [...table, ''] : []), ...reports];
  for (const f of result.failures) lines.push(`✖ scenario problem: ${f}`);
  if (result.crash) lines.push(`✖ the agent crashed: ${result.crash}`);
  // A failure's detail and hint are left out here, excerpt or not (docs/README.md says so):
  // the detail names times and ids, and the chapter's prose says what went wrong.
  for (const e of result.expectations) if (!(options.excerpt && e.ok)) lines.push(`${e.ok ? '✔' : '✖'} ${e.name}`);
  const passed = result.expectations.filter((e) => e.ok).length;
  lines.push('', `${result.ok ? 'PASS' : 'FAIL'} ${passed}/${result.expectations.length} expectations`);
  return lines.join('\n');
}

/** Every case of chapter n with its scenario's title and the verdict line of a real run (for a doc's cases table). */
export async function docVerdicts(n: number, runCase: CaseRunner = runChapter): Promise<Array<{ caseName: string } & CaseVerdict>> {
  const chapter = findChapter(n);
  if (!chapter) throw new Error(`chapter ${n} is not in the chapter table`);
  const out: Array<{ caseName: string } & CaseVerdict> = [];
  for (const caseName of casesOf(chapter)) {
    const scenario = await loadScenarioFile(scenarioFile(chapter, caseName));
    const result = await runCase({ codeDir: snapshotDir(chapter), scenario, latencyScale: 0 });
    const passed = result.expectations.filter((e) => e.ok).length;
    const usage = { calls: 0, input: 0, write: 0, read: 0, output: 0 };
    const tracks: NonNullable<CaseVerdict['tracks']> = {};
    const models = new Map(result.events.filter((e): e is RequestEvent => e.type === 'request').map((e) => [e.seq, e.model]));
    for (const e of result.events) {
      // Model calls only, as the usage table counts them: a token count has no track.
      if (e.type !== 'response' || e.track === null) continue;
      usage.calls += 1;
      usage.input += e.usage.input_tokens;
      usage.write += e.usage.cache_creation_input_tokens;
      usage.read += e.usage.cache_read_input_tokens;
      usage.output += e.usage.output_tokens;
      const t = (tracks[e.track] ??= { input: 0, write: 0, read: 0, output: 0, cost: 0 });
      t.input += e.usage.input_tokens;
      t.write += e.usage.cache_creation_input_tokens;
      t.read += e.usage.cache_read_input_tokens;
      t.output += e.usage.output_tokens;
      t.cost += weighUsage(e.usage, models.get(e.seq) ?? '') / 1000;
    }
    out.push({ caseName, title: scenario.title, verdict: `${result.ok ? 'PASS' : 'FAIL'} ${passed}/${result.expectations.length} expectations`, usage, tracks });
  }
  return out;
}
