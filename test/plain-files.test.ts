// plain-files.ts (chapter 2 on; the last chapter's copy), on its own: what a scenario cannot
// lay out deterministically. The named-pipe case covers a pipe nobody holds open; here the
// pipe has a reader when write_file comes, and a folder stands where a file is named. And,
// from chapter 6, the file really opened must lie in the workspace: a link swapped between the
// gate's check and the open is a race no scenario can time, so here the link already leads
// out when the open comes, as it would had the swap just happened. The same holds for the
// folders write_file makes and the folder list_files reads: their tools are run here as the
// gate would let them run, and what lies outside after the refusal is looked at on disk.

import { afterEach, expect, it } from 'vitest';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readPlainFile, writePlainFile } from '../steps/16-worktree-isolation/plain-files.ts';
import { grepSearchTool, listFilesTool, writeFileTool } from '../steps/16-worktree-isolation/tools.ts';
import type { LoopConfig } from '../steps/16-worktree-isolation/types.ts';

const made: string[] = [];
afterEach(() => { for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true }); });

function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'plain-files-'));
  made.push(dir);
  return dir;
}

it.runIf(process.platform !== 'win32')('a pipe that has a reader is still no file: nothing is written into it', async () => {
  const pipe = path.join(folder(), 'pipe.txt');
  execFileSync('mkfifo', [pipe]);
  // A reader holds the pipe open (as a `cat pipe.txt &` of the model's would), so the
  // write-only open succeeds at once: only looking at what was opened refuses it.
  const reader = openSync(pipe, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    await expect(writePlainFile(pipe, 'planted\n')).rejects.toThrow(`${pipe} is a named pipe, not a regular file`);
    const got = Buffer.alloc(64);
    let n = 0;
    try { n = readSync(reader, got); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err; }
    expect(got.subarray(0, n).toString()).toBe('');
  } finally {
    closeSync(reader);
  }
});

it('a folder where a file is named is said to be one, on reading and on writing', async () => {
  const dir = path.join(folder(), 'notes');
  mkdirSync(dir);
  await expect(readPlainFile(dir)).rejects.toThrow(`${dir} is a folder, not a regular file`);
  await expect(writePlainFile(dir, 'x')).rejects.toThrow(/EISDIR|is a folder/);
});

it.runIf(process.platform !== 'win32')('a file opened outside the workspace, through a link or a linked folder, is neither read nor written', async () => {
  const root = folder();
  const workspace = path.join(root, 'work');
  mkdirSync(workspace);
  writeFileSync(path.join(root, 'secret.txt'), 'outside\n');
  symlinkSync('../secret.txt', path.join(workspace, 'notes.txt'));
  symlinkSync('..', path.join(workspace, 'up'));
  for (const name of ['notes.txt', 'up/secret.txt']) {
    const file = path.join(workspace, name);
    await expect(readPlainFile(file, workspace)).rejects.toThrow(`${file} led outside the workspace when it was opened (a link changed after the check), so it is not used`);
    await expect(writePlainFile(file, 'planted\n', workspace)).rejects.toThrow('led outside the workspace');
  }
  expect(readFileSync(path.join(root, 'secret.txt'), 'utf8')).toBe('outside\n');
  // Inside, a link to a file of the workspace is a file of the workspace; without a workspace
  // given (chapters 2 to 5, and a caller that reads the user's own files) nothing is checked.
  writeFileSync(path.join(workspace, 'real.txt'), 'inside\n');
  symlinkSync('real.txt', path.join(workspace, 'alias.txt'));
  expect(await readPlainFile(path.join(workspace, 'alias.txt'), workspace)).toBe('inside\n');
  await writePlainFile(path.join(workspace, 'alias.txt'), 'changed\n', workspace);
  expect(readFileSync(path.join(workspace, 'real.txt'), 'utf8')).toBe('changed\n');
  expect(await readPlainFile(path.join(workspace, 'notes.txt'))).toBe('outside\n');
});

/** root/work is the workspace, root/outside a folder beside it; work/up -> ../outside, as a swap would have left it. */
function swapped(): { workspace: string; outside: string; config: LoopConfig } {
  const root = folder();
  const workspace = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  symlinkSync('../outside', path.join(workspace, 'up'));
  return { workspace, outside, config: { cwd: workspace } as LoopConfig };
}

it.runIf(process.platform !== 'win32')('write_file refused outside leaves nothing it made there: no file, no folder, and what was there before stays', async () => {
  const { workspace, outside, config } = swapped();
  writeFileSync(path.join(outside, 'empty.txt'), '');
  mkdirSync(path.join(outside, 'old'));
  symlinkSync('../outside/made.txt', path.join(workspace, 'dangling.txt'));
  symlinkSync('../outside/empty.txt', path.join(workspace, 'empty.txt'));
  const write = (p: string) => writeFileTool.run({ path: p, content: 'planted\n' }, config);
  // A file the open would create outside, through a linked folder or a link to nothing yet.
  await expect(write('up/new.txt')).rejects.toThrow(`${path.join(workspace, 'up/new.txt')} led outside the workspace`);
  await expect(write('dangling.txt')).rejects.toThrow(`${path.join(workspace, 'dangling.txt')} led outside the workspace`);
  // Folders mkdir -p would make outside: the first one is refused, and removed again.
  await expect(write('up/sub/deeper/x.txt')).rejects.toThrow(`${path.join(workspace, 'up/sub')} led outside the workspace`);
  // What was outside already is no file or folder of this call's: refused, and left as it was.
  await expect(write('empty.txt')).rejects.toThrow('led outside the workspace');
  await expect(write('up/old/x.txt')).rejects.toThrow('led outside the workspace');
  expect(readdirSync(outside, { recursive: true }).sort()).toEqual(['empty.txt', 'old']);
  expect(readFileSync(path.join(outside, 'empty.txt'), 'utf8')).toBe('');
  // Inside, folders are made as before, and a link to nothing yet still makes its target.
  symlinkSync('target.txt', path.join(workspace, 'alias.txt'));
  await write('alias.txt');
  await write('a/b/c.txt');
  expect(readFileSync(path.join(workspace, 'target.txt'), 'utf8')).toBe('planted\n');
  expect(readFileSync(path.join(workspace, 'a/b/c.txt'), 'utf8')).toBe('planted\n');
});

it.runIf(process.platform !== 'win32')('list_files and grep_search name no file of a folder that led outside when it was opened', async () => {
  const { workspace, outside, config } = swapped();
  writeFileSync(path.join(outside, 'secret.txt'), 'key\n');
  const refusal = `${path.join(workspace, 'up')} led outside the workspace when it was opened (a link changed after the check), so it is not used`;
  await expect(listFilesTool.run({ path: 'up' }, config)).rejects.toThrow(refusal);
  await expect(grepSearchTool.run({ pattern: 'key', path: 'up' }, config)).rejects.toThrow(refusal);
  // The workspace itself is listed as before (the link in it is no file, and not followed).
  mkdirSync(path.join(workspace, 'src'));
  writeFileSync(path.join(workspace, 'src', 'a.txt'), 'key\n');
  expect(await listFilesTool.run({}, config)).toBe('src/a.txt');
  expect(await grepSearchTool.run({ pattern: 'key' }, config)).toBe('src/a.txt:1: key');
});
