// Classroom mode: `--exercise` hands out a chapter with its new code stubbed as TODOs,
// `--check` runs the chapter's scenarios against the learner's copy and names the
// first behaviour still missing (with its hint), `--solution` shows how the learner's
// code differs from the reference.

import { mkdir, readdir, readFile, writeFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Chalk, type ChalkInstance } from 'chalk';
import { chapterDir, WRITTEN_CHAPTERS, type Chapter } from '../chapters.ts';
import { exerciseFiles, hintsFor } from '../tooling/exercise.ts';
import { unifiedDiff } from '../tooling/diff.ts';
import { ROOT, casesOf, scenarioFile, snapshotDir, loadScenarioFile } from './scenarios.ts';
import { runChapter } from './run-chapter.ts';

export function defaultExerciseDir(ch: Chapter): string {
  return path.join(ROOT, 'exercises', chapterDir(ch));
}

function display(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel === '' ? '.' : rel.startsWith('..') ? dir : rel;
}

/** The exercise's imports (the SDK) must resolve: the folder has to sit inside the project. */
function assertInsideProject(dir: string): void {
  const rel = path.relative(ROOT, dir);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new Error(`${dir}: an exercise folder must be inside the project folder (${ROOT}) so its imports find node_modules`);
  }
}

export async function makeExercise(ch: Chapter, dir: string, print: (s: string) => void): Promise<number> {
  assertInsideProject(dir);
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    throw new Error(`${display(dir)} already exists and is not empty: your work there is left alone (choose another folder or remove it)`);
  }
  await mkdir(dir, { recursive: true });
  const files = await exerciseFiles(ROOT, ch.n, display(dir));
  for (const f of files) await writeFile(path.join(dir, f.path), f.content);
  const todos = await hintsFor(ROOT, ch.n);
  print(`Chapter ${ch.n} exercise written to ${display(dir)} (${files.length} files).`);
  print(`Fill in ${todos.length} TODO${todos.length === 1 ? '' : 's'}:`);
  for (const t of todos) print(`  ${t.file}  TODO(${t.name})`);
  print(`Then check your work:  node steps/run.mjs ${ch.n} --check ${display(dir)}`);
  return 0;
}

export async function checkExercise(ch: Chapter, dir: string, print: (s: string) => void, c: ChalkInstance): Promise<number> {
  assertInsideProject(dir);
  if (!existsSync(path.join(dir, 'main.ts'))) {
    throw new Error(`${display(dir)}: no main.ts here; create the exercise first with: node steps/run.mjs ${ch.n} --exercise ${display(dir)}`);
  }
  const hints = await hintsFor(ROOT, ch.n);
  const cases = casesOf(ch);
  let passed = 0;
  for (const name of cases) {
    const scenario = await loadScenarioFile(scenarioFile(ch, name));
    const result = await runChapter({ codeDir: dir, scenario, latencyScale: 0 });
    if (result.ok) { passed++; print(`${c.green('✔')} ${name}`); continue; }
    print(`${c.red('✖')} ${name}: ${scenario.title}`);
    // A stub either crashes the run or comes back to the model as an error result: look in both.
    const todo = /TODO\(([\w-]+)\): not implemented yet/.exec(`${result.crash ?? ''} ${JSON.stringify(result.events)}`)?.[1];
    const failing = result.expectations.find((e) => !e.ok);
    if (todo) {
      print(`  ${c.bold('still a stub:')} TODO(${todo})`);
      const h = hints.find((x) => x.name === todo);
      if (h) print(`  ${c.yellow('hint:')} ${h.hints.join(' ')}`);
    } else if (result.crash) {
      print(`  ${c.bold('the agent crashed:')} ${result.crash}`);
    } else if (result.failures.length > 0) {
      print(`  ${c.bold('the mock could not answer:')} ${result.failures[0]}`);
    } else if (failing) {
      print(`  ${c.bold('missing behaviour:')} ${failing.name}`);
      print(`  ${c.dim(failing.detail)}`);
      const hint = failing.hint ?? hints.map((h) => h.hints.join(' ')).join(' / ');
      if (hint) print(`  ${c.yellow('hint:')} ${hint}`);
    }
    print(`\n${passed}/${cases.length} scenarios pass so far. Fix this one and run the check again.`);
    return 1;
  }
  print(`\n${c.green.bold('All done:')} chapter ${ch.n} passes all ${cases.length} scenarios.`);
  return 0;
}

export async function showSolution(ch: Chapter, dir: string, print: (s: string) => void): Promise<number> {
  assertInsideProject(dir);
  const reference = snapshotDir(ch);
  const names = new Set<string>();
  for (const d of [reference, dir]) if (existsSync(d)) for (const f of await readdir(d)) if (f.endsWith('.ts')) names.add(f);
  const body = async (file: string) => {
    try { return (await readFile(file, 'utf8')).split('\n').slice(1).join('\n'); } catch { return ''; }
  };
  let out = '';
  for (const name of [...names].sort()) {
    out += unifiedDiff(await body(path.join(dir, name)), await body(path.join(reference, name)), `yours/${name}`, `reference/${name}`);
  }
  print(out === '' ? 'Your code matches the reference exactly.' : out.trimEnd());
  return 0;
}

/** --list with exercises: which chapters a learner has finished. */
export async function exerciseProgress(): Promise<Map<number, 'done' | 'started'>> {
  const progress = new Map<number, 'done' | 'started'>();
  for (const ch of WRITTEN_CHAPTERS) {
    const dir = defaultExerciseDir(ch);
    if (!existsSync(path.join(dir, 'main.ts')) || !(await stat(dir)).isDirectory()) continue;
    const quiet = () => {};
    const code = await checkExercise(ch, dir, quiet, new Chalk({ level: 0 })).catch(() => 1);
    progress.set(ch.n, code === 0 ? 'done' : 'started');
  }
  return progress;
}
