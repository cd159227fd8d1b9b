// GENERATED from src/agent/linked-files.ts for chapter 8 (prompt-caching). Do not edit: change src/agent/linked-files.ts and run npm run gen.
// The files a session reads into the model's context on its own, with no tool call: each
// CLAUDE.md and the memory file (chapter 3), later the skills (chapter 9) and the agent
// files (chapter 14). Any of them may be a link. The project's may lead anywhere in the
// project (CLAUDE.md → AGENTS.md, .claude/skills → ../.agents/skills), but not out of it:
// a repository could commit `.claude/skills/notes/SKILL.md → ../../../../.ssh/id_rsa`, and
// the key would go into the system prompt, and over the network, with no call the
// permission gate (chapter 6) could refuse. The user's own files (~/.claude) may lead
// anywhere: the user made those links, not a repository. This series' own rule; Claude
// Code's handling of such links is not measured here.
//
// Not here: what the model's own tools may read (permissions.ts, chapter 6).

import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Terminal } from './types.ts';
import { leaves, readPlainFile } from './plain-files.ts';

/** A folder tree a file must stay in, and how the terminal names it. */
export interface Tree { dir: string; name: string }

/** The project root: the nearest folder at or above cwd holding .git; without one, cwd itself. */
export function projectRoot(cwd: string): string {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (dir === path.dirname(dir)) return cwd;
  }
}

/**
 * The text of `file`, which must really lie in `tree` (none: anywhere, for the user's own):
 * undefined when there is no such file, and when it is a link that leads out of the tree,
 * which costs one line on the terminal (`shown` is the file as the user knows it).
 */
export async function readWithin(file: string, tree: Tree | undefined, shown: string, terminal: Terminal): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    return undefined;   // no such file, or a link to nothing
  }
  const dir = tree && (await realpath(tree.dir).catch(() => tree.dir));
  if (tree && dir && leaves(dir, real)) {
    terminal.write(`✖ ${shown} skipped: it is a link that leads out of ${tree.name}\n`);
    return undefined;
  }
  // A folder of that name, or a named pipe: no file. And the file opened must still lie in the
  // tree (plain-files.ts): a link swapped into `real` after the check above, by a shell command
  // running meanwhile (a background agent's, chapter 15), would otherwise be followed out.
  return readPlainFile(real, dir).catch(() => undefined);
}
