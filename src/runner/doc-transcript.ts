// Transcripts for the docs: run a chapter's case against the mock and render it the
// way `node steps/run.mjs` prints it, without colour or timings, so the text is the
// same on every machine and `npm test` can tell when a doc's transcript is stale.

import { Chalk } from 'chalk';
import { findChapter } from '../chapters.ts';
import path from 'node:path';
import { ROOT, scenarioFile, snapshotDir, loadScenarioFile } from './scenarios.ts';
import { runChapter } from './run-chapter.ts';
import { agentReports, renderTranscript, usageTable } from './transcript.ts';

export async function docTranscript(n: number, caseName: string): Promise<string> {
  const chapter = findChapter(n);
  if (!chapter) throw new Error(`chapter ${n} is not in the chapter table`);
  // "demo" is one of the chapter's own cases; "11-subagents/demo" is another chapter's
  // scenario, for showing how an earlier chapter falls short of a later one's task.
  const foreign = caseName.includes('/');
  const file = foreign ? path.join(ROOT, 'scenarios', `${caseName}.json`) : scenarioFile(chapter, caseName);
  const scenario = await loadScenarioFile(file);
  const result = await runChapter({ codeDir: snapshotDir(chapter), scenario, latencyScale: 0 });
  const plain = new Chalk({ level: 0 });
  const option = foreign ? ` --scenario scenarios/${caseName}.json` : caseName === 'demo' ? '' : ` --case ${caseName}`;
  const command = `$ node steps/run.mjs ${n}${option}`;
  const table = usageTable(result.events, plain);
  const lines = [command, '', ...renderTranscript(result.events, { color: plain, width: 100 }), '', ...(table.length > 0 ? [...table, ''] : []), ...agentReports(result.terminal)];
  for (const f of result.failures) lines.push(`✖ scenario problem: ${f}`);
  if (result.crash) lines.push(`✖ the agent crashed: ${result.crash}`);
  for (const e of result.expectations) lines.push(`${e.ok ? '✔' : '✖'} ${e.name}`);
  const passed = result.expectations.filter((e) => e.ok).length;
  lines.push('', `${result.ok ? 'PASS' : 'FAIL'} ${passed}/${result.expectations.length} expectations`);
  return lines.join('\n');
}
