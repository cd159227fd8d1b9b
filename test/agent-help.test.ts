// The chapter agent's own --help (cli.ts's HELP, chapter 4 on) names exactly the flags that
// chapter's parseFlags takes: a flag a chapter adds (--plan in 10, --coordinator in 13) is
// in its help, and none is named before the chapter that reads it.

import { it, expect } from 'vitest';
import path from 'node:path';
import { WRITTEN_CHAPTERS } from '../src/chapters.ts';
import { snapshotDir } from '../src/runner/scenarios.ts';

/** Every flag some chapter takes, with a value it accepts where it needs one. */
const CANDIDATES: [flag: string, value?: string][] = [
  ['--print'], ['--resume', 'abc'], ['--session-id', 'abc'], ['--model', 'm'], ['--output-style', 'concise'],
  ['--permission-mode', 'default'], ['--plan'], ['--coordinator'], ['--help'],
];

for (const ch of WRITTEN_CHAPTERS.filter((c) => c.n >= 4)) {
  it(`chapter ${ch.n}: --help names exactly the flags parseFlags takes`, async () => {
    const cli = (await import(path.join(snapshotDir(ch), 'cli.ts'))) as { HELP: string; parseFlags(argv: string[]): unknown };
    const taken = CANDIDATES.filter(([flag, value]) => {
      try {
        cli.parseFlags(value === undefined ? [flag] : [flag, value]);
        return true;
      } catch (err) {
        expect(String(err)).toContain(`unknown flag ${flag}`);   // refused as unknown, not for its value
        return false;
      }
    }).map(([flag]) => flag);
    const named = [...cli.HELP.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]);
    expect(named.sort()).toEqual(taken.sort());
  });
}
