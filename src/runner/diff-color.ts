// Colour for a unified diff on a terminal (`--diff`, `--solution`): additions green,
// removals red, hunk headers cyan. Only paint: the diff itself comes from src/tooling/diff.ts.

import type { ChalkInstance } from 'chalk';

/** The diff with colour where `c` has any (none off a terminal or with NO_COLOR). */
export function colorDiff(text: string, c: ChalkInstance): string {
  return text.split('\n').map((l) =>
    l.startsWith('+++') || l.startsWith('---') || l.startsWith('diff ') ? c.bold(l)
      : l.startsWith('+') ? c.green(l) : l.startsWith('-') ? c.red(l) : l.startsWith('@@') ? c.cyan(l) : l).join('\n');
}
