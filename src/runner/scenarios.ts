// Where a chapter's scenarios live and how a case name maps to a file. The folder
// layout is the whole rule: scenarios/NN-slug/CASE.json, with demo.json the default.

import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHAPTERS, chapterDir, type Chapter } from '../chapters.ts';
import { loadScenario, type Scenario } from '../mock/index.ts';

/**
 * The project folder: the nearest folder above this file that holds steps/run.mjs. (Not a
 * fixed '../..': steps/run.mjs may run a bundled copy of this code from node_modules/.cache.)
 */
function findRoot(from: string): string {
  let dir = path.dirname(fileURLToPath(from));
  while (!existsSync(path.join(dir, 'steps', 'run.mjs'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the project folder (no steps/run.mjs above this file)');
    dir = up;
  }
  return dir;
}

export const ROOT = findRoot(import.meta.url);

export function scenarioDir(ch: Chapter, root = ROOT): string {
  return path.join(root, 'scenarios', chapterDir(ch));
}

/** Case names of a chapter, demo first. */
export function casesOf(ch: Chapter, root = ROOT): string[] {
  const dir = scenarioDir(ch, root);
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  // Plain code-unit order: localeCompare would start up the ICU collator, ~8 ms of every run.
  return names.sort((a, b) => (a === 'demo' ? -1 : b === 'demo' ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

export function scenarioFile(ch: Chapter, caseName: string, root = ROOT): string {
  return path.join(scenarioDir(ch, root), `${caseName}.json`);
}

export function snapshotDir(ch: Chapter, root = ROOT): string {
  return path.join(root, 'steps', chapterDir(ch));
}

/** A chapter is runnable once its snapshot and its demo scenario exist. */
export function isReady(ch: Chapter, root = ROOT): boolean {
  return existsSync(path.join(snapshotDir(ch, root), 'main.ts')) && casesOf(ch, root).includes('demo');
}

export function readyChapters(root = ROOT): Chapter[] {
  return CHAPTERS.filter((ch) => isReady(ch, root));
}

/**
 * Load and validate a scenario, naming it by its path relative to the project when it
 * lives inside it: messages, tool ids and doc transcripts then read the same on every
 * machine, whatever folder the project was cloned into.
 */
export async function loadScenarioFile(file: string): Promise<Scenario> {
  const absolute = path.resolve(file);
  const rel = path.relative(ROOT, absolute);
  const inside = !rel.startsWith('..') && !path.isAbsolute(rel);
  const scenario = await loadScenario(absolute);
  return inside ? { ...scenario, file: rel.split(path.sep).join('/') } : scenario;
}
