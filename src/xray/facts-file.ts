// The pinned facts: xray/facts-VERSION.json holds what the x-ray measured on the pinned
// Claude Code release (xray/PINNED), derived values only. `--check` compares a live run
// with it, and the chapter docs quote it through `<!-- xray: FACT-ID -->` regions, so a
// doc cannot say something about that release the file does not.
//
// This file reads, compares and writes the file; it runs no chapter and no Claude Code
// (facts.ts and drive.ts do), so the doc generator can use it without pulling in the runner.

import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FACT_TITLES, NOT_MEASURED, type Fact } from './analyse.ts';

export interface PinnedFact {
  value: string;
  detail?: string;
  /** The x-ray case that showed it. */
  case?: string;
}

export interface FactsFile {
  version: string;
  facts: Record<string, PinnedFact>;
}

/** The Claude Code release the project measures against: xray/PINNED, one line. */
export function pinnedVersion(root: string): string {
  const file = path.join(root, 'xray', 'PINNED');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`${path.relative(root, file)} is missing: it names the pinned Claude Code release`);
  }
  const version = text.trim();
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`${path.relative(root, file)}: "${version}" is not a version like 2.1.328`);
  return version;
}

export function factsFilePath(root: string, version = pinnedVersion(root)): string {
  return path.join(root, 'xray', `facts-${version}.json`);
}

/** Read and check a facts file; a problem is one line naming the file. */
export function readFactsFile(file: string): FactsFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = (err as { code?: unknown }).code === 'ENOENT' ? 'not found' : 'not valid JSON';
    throw new Error(`${file}: ${why}`);
  }
  const obj = parsed as Partial<FactsFile> | null;
  if (typeof obj?.version !== 'string' || typeof obj.facts !== 'object' || obj.facts === null) {
    throw new Error(`${file}: expected { "version": "…", "facts": { "FACT-ID": { "value": "…" } } }`);
  }
  for (const [id, f] of Object.entries(obj.facts)) {
    if (typeof (f as PinnedFact | null)?.value !== 'string') throw new Error(`${file}: fact ${id} has no string "value"`);
  }
  return obj as FactsFile;
}

/** The facts file's text for a source's measured facts, in the table's order. */
export function factsFileText(version: string, facts: Fact[]): string {
  const out: FactsFile = { version, facts: {} };
  for (const { id } of FACT_TITLES) {
    const f = facts.find((x) => x.id === id);
    if (!f || f.value === NOT_MEASURED) continue;
    const pinned: PinnedFact = { value: f.value };
    if (f.detail !== undefined) pinned.detail = f.detail;
    if (f.case !== undefined) pinned.case = f.case;
    out.facts[id] = pinned;
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** What a new facts file changes against the one it replaces, by fact id. */
export interface FactsChange {
  /** No file for this version was there before. */
  created: boolean;
  changed: string[];
  added: string[];
  removed: string[];
  /** How many facts the new file holds. */
  count: number;
}

const samePinned = (a: PinnedFact, b: PinnedFact): boolean => a.value === b.value && a.detail === b.detail && a.case === b.case;

/**
 * `xray --write-facts`: write xray/facts-VERSION.json under root for a run's measured
 * facts, atomically (a temp file beside it, then a rename, so a reader never sees half a
 * file), and say what changed against the file it replaces. A fact "changed" when its
 * value, detail or case did.
 */
export function writeFactsFile(root: string, version: string, facts: Fact[]): { file: string; change: FactsChange } {
  const file = factsFilePath(root, version);
  const text = factsFileText(version, facts);
  const next = JSON.parse(text) as FactsFile;
  const created = !existsSync(file);
  const old: Record<string, PinnedFact> = created ? {} : readFactsFile(file).facts;
  const ids = Object.keys(next.facts);
  const change: FactsChange = {
    created,
    changed: ids.filter((id) => id in old && !samePinned(old[id]!, next.facts[id]!)),
    added: created ? [] : ids.filter((id) => !(id in old)),
    removed: Object.keys(old).filter((id) => !(id in next.facts)),
    count: ids.length,
  };
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, text);
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
  return { file, change };
}

/**
 * One line per fact where a live run and the pinned file disagree; [] when they agree.
 * Only `value` is compared (details such as tool counts are not facts the docs teach).
 */
export function compareFacts(measured: Fact[], measuredVersion: string | undefined, file: string): string[] {
  const pinned = readFactsFile(file);
  const problems: string[] = [];
  const name = path.basename(file);
  if (measuredVersion !== undefined && measuredVersion !== pinned.version) {
    problems.push(`version: the run drove Claude Code ${measuredVersion}, ${name} is for ${pinned.version}`);
  }
  for (const { id } of FACT_TITLES) {
    const want = pinned.facts[id];
    const got = measured.find((f) => f.id === id && f.value !== NOT_MEASURED);
    if (!want && !got) continue;
    if (!want) problems.push(`${id}: measured "${got!.value}", ${name} has no such fact`);
    else if (!got) problems.push(`${id}: ${name} says "${want.value}", the run did not measure it`);
    else if (got.value !== want.value) problems.push(`${id}: measured "${got.value}", ${name} says "${want.value}"`);
  }
  for (const id of Object.keys(pinned.facts)) {
    if (!FACT_TITLES.some((t) => t.id === id)) problems.push(`${id}: in ${name}, but the analysis has no such fact`);
  }
  return problems;
}

/**
 * What an `<!-- xray: FACT-ID -->` region of a doc says: the pinned value, with the release.
 * Throws (one line) for a fact the file does not hold.
 */
export function docFactLines(root: string, id: string): string[] {
  const file = factsFilePath(root);
  const facts = readFactsFile(file);
  const f = facts.facts[id];
  if (!f) throw new Error(`xray fact "${id}" is not in ${path.relative(root, file)} (known: ${Object.keys(facts.facts).join(', ')})`);
  const title = FACT_TITLES.find((t) => t.id === id)?.title ?? id;
  return [`*Measured on Claude Code ${facts.version} ([x-ray](xray.md)), ${title}:* \`${f.value}\``];
}
