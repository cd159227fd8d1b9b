// readWithin (linked-files.ts, chapter 3 on; the last chapter's copy), on its own: which tree a file must stay in. The
// chapters' `linked` cases show it through a session; these are the cases a scenario cannot
// lay out: a link in the user's home folder (scenarios make links in the workspace only) and
// a session that starts in a subfolder of the project.

import { afterEach, expect, it } from 'vitest';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { projectRoot, projectTree, readWithin } from '../steps/16-worktree-isolation/linked-files.ts';
import * as linkedFiles from '../steps/16-worktree-isolation/linked-files.ts';
import * as linkedFilesBefore from '../steps/05-streaming/linked-files.ts';

const made: string[] = [];
afterEach(() => { for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true }); });

function layout(): string {
  const base = mkdtempSync(path.join(tmpdir(), 'linked-files-'));
  made.push(base);
  for (const dir of ['home/.claude', 'dotfiles', 'repo/.git', 'repo/pkg/.claude/skills/release', 'repo/shared']) mkdirSync(path.join(base, dir), { recursive: true });
  writeFileSync(path.join(base, 'dotfiles', 'CLAUDE.md'), 'from the dotfiles\n');
  writeFileSync(path.join(base, 'repo', 'shared', 'release.md'), 'shared release skill\n');
  symlinkSync(path.join(base, 'dotfiles', 'CLAUDE.md'), path.join(base, 'home', '.claude', 'CLAUDE.md'));
  symlinkSync('../../../../shared/release.md', path.join(base, 'repo', 'pkg', '.claude', 'skills', 'release', 'SKILL.md'));
  return base;
}

it("the user's own file may lead anywhere: the user made that link, not a repository", async () => {
  const base = layout();
  let said = '';
  const text = await readWithin(path.join(base, 'home', '.claude', 'CLAUDE.md'), undefined, '~/.claude/CLAUDE.md', { write: (t) => { said += t; } });
  expect(text).toBe('from the dotfiles\n');
  expect(said).toBe('');
});

it("started in a subfolder, the project's tree is the whole repository: a link to its top is read", async () => {
  const base = layout();
  const cwd = path.join(base, 'repo', 'pkg');
  expect(projectRoot(cwd)).toBe(path.join(base, 'repo'));
  let said = '';
  const text = await readWithin(path.join(cwd, '.claude', 'skills', 'release', 'SKILL.md'), projectTree(cwd), 'skill', { write: (t) => { said += t; } });
  expect(text).toBe('shared release skill\n');
  expect(said).toBe('');
  // The same link seen from a tree of pkg/ alone leads out of it, and says so.
  const narrow = await readWithin(path.join(cwd, '.claude', 'skills', 'release', 'SKILL.md'), { dir: cwd, name: 'the project' }, 'skill', { write: (t) => { said += t; } });
  expect(narrow).toBeUndefined();
  expect(said).toBe('✖ skill skipped: it is a link that leads out of the project\n');
});

// A named pipe where CLAUDE.md (or a skill, or an agent file) should be: opened as a file, it
// would wait for a writer that never comes, and the session would never start.
it.runIf(process.platform !== 'win32')('a named pipe in place of a file is no file: nothing read, nothing waited for', async () => {
  const base = layout();
  const pipe = path.join(base, 'repo', 'CLAUDE.md');
  execFileSync('mkfifo', [pipe]);
  const read = readWithin(pipe, projectTree(path.join(base, 'repo')), 'CLAUDE.md', { write: () => undefined });
  const outcome = await Promise.race([read.then((text) => ({ text })), new Promise((resolve) => { setTimeout(resolve, 5000, 'still waiting after 5 s'); })]);
  // A reader stuck in open() (the broken case) is let go, so that it cannot hold the test worker.
  try { closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK)); } catch { /* nobody was waiting */ }
  expect(outcome).toEqual({ text: undefined });
});

// A link swapped in between readWithin's look at where the file leads and its open (a shell
// command running meanwhile, a background agent's, can keep flipping one) is a race no test
// can time. So the look is made to miss it: realpath answers as it would have a moment
// before the swap, the path unchanged, while on disk the link already leads out. From
// chapter 6 the file opened is looked at too, and the secret stays unread.
it.runIf(process.platform === 'linux')('from chapter 6, a link swapped in after the look is caught at the open: the file outside is not read', async () => {
  const base = layout();
  writeFileSync(path.join(base, 'secret.txt'), 'the secret\n');
  const claudeMd = path.join(base, 'repo', 'CLAUDE.md');
  symlinkSync(path.join(base, 'secret.txt'), claudeMd);
  const promises = fs.promises as { realpath: (p: string) => Promise<string> };
  const realpath = promises.realpath;
  promises.realpath = async (p) => (p === claudeMd ? p : realpath(p));
  syncBuiltinESMExports();
  try {
    const read = (chapter: Pick<typeof linkedFiles, 'readWithin'>) => chapter.readWithin(claudeMd, { dir: path.join(base, 'repo'), name: 'the project' }, 'CLAUDE.md', { write: () => undefined });
    expect(await read(linkedFiles)).toBeUndefined();
    // Chapter 5 has no such look yet: the same race reads the file outside, which is why chapter 6 adds it.
    expect(await read(linkedFilesBefore)).toBe('the secret\n');
  } finally {
    promises.realpath = realpath;
    syncBuiltinESMExports();
  }
});
