// The files of a learner's folder (an exercise, a mutant) that count as its code: what the
// type check's remembered verdict is keyed by (typecheck.ts) and what --solution compares
// (exercise-cli.ts).
//
// Walked one folder at a time, not with readdir's own recursive walk: that one follows links
// to folders, so a link that leads back up (`ln -s ../.. project` in an exercise) had it list
// the whole project, node_modules and all, forty levels deep, before every check.

import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every file below `dir` whose name `wanted` accepts, as paths relative to `dir`, sorted:
 * subfolders too (a helper in lib/ is code), but not a node_modules or a hidden folder or
 * file, and never through a link to a folder. A link to a file counts: it is read as the file.
 */
export function codeFiles(dir: string, wanted: (name: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const name = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(name);
      else if (wanted(entry.name) && (entry.isFile() || (entry.isSymbolicLink() && isFile(path.join(dir, name))))) found.push(name);
    }
  };
  walk('');
  return found.sort();
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;   // a link to nothing
  }
}
