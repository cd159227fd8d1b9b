// plain-files.ts (chapter 2 on; the last chapter's copy), on its own: what a scenario cannot
// lay out deterministically. The named-pipe case covers a pipe nobody holds open; here the
// pipe has a reader when write_file comes, and a folder stands where a file is named. And,
// from chapter 6, the file really opened must lie in the workspace: a link swapped between the
// gate's check and the open is a race no scenario can time, so here the link already leads
// out when the open comes, as it would had the swap just happened. The same holds for the
// folders write_file makes and the folder list_files reads: their tools are run here as the
// gate would let them run, and what lies outside after the refusal is looked at on disk.

import { afterEach, expect, it } from 'vitest';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readPlainFile, writePlainFile } from '../steps/16-worktree-isolation/plain-files.ts';
import { editFileTool, grepSearchTool, listFilesTool, runTool, writeFileTool } from '../steps/16-worktree-isolation/tools.ts';
import { decide, type Decision } from '../steps/16-worktree-isolation/permissions.ts';
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
  await expect(write('up/sub/deeper/x.txt')).rejects.toThrow(`${path.join(workspace, 'up')} led outside the workspace`);
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

// The folder above is checked before a folder is made in it, and on Linux the folder is made
// through the one checked (plain-files.ts, makeFolders): never outside, not even for the moment
// before a check would remove it, which a link swapped back at that moment used to leave
// there. Looked at as it happens: a watch on the folder outside hears of anything made in it.
it.runIf(process.platform === 'linux')('write_file makes no folder outside the workspace, not even for a moment', async () => {
  const { workspace, outside, config } = swapped();
  const heard: string[] = [];
  const watcher = watch(outside, (_event, name) => { heard.push(String(name)); });
  try {
    await expect(writeFileTool.run({ path: 'up/sub/deeper/x.txt', content: 'planted\n' }, config)).rejects.toThrow(`${path.join(workspace, 'up')} led outside the workspace`);
    // Events come in order: once this file's is heard, anything made before it was heard too.
    writeFileSync(path.join(outside, 'last.txt'), '');
    await expect.poll(() => heard.includes('last.txt')).toBe(true);
    expect(heard.filter((name) => name !== 'last.txt')).toEqual([]);
  } finally {
    watcher.close();
  }
  expect(readdirSync(outside)).toEqual(['last.txt']);
  // Inside, through a link that stays inside, folders are made as before.
  symlinkSync('real', path.join(workspace, 'alias'));
  mkdirSync(path.join(workspace, 'real'));
  await writeFileTool.run({ path: 'alias/a/b.txt', content: 'kept\n' }, config);
  expect(readFileSync(path.join(workspace, 'real/a/b.txt'), 'utf8')).toBe('kept\n');
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

// The gate judges where a path leads (decide), the tool opens it a moment later. A link
// swapped in between that stays inside the workspace passes the "inside" look, yet can lead
// an edit the gate let through unasked (acceptEdits, an ordinary folder) into git's own
// folder, where a hook is code git runs. So the file opened must be the file judged.
it.runIf(process.platform === 'linux')("an edit judged for one file lands in no other: a link swapped into .git after the gate's look is refused, and what it made is removed", async () => {
  const root = folder();
  const workspace = path.join(root, 'work');
  mkdirSync(path.join(workspace, '.git', 'hooks'), { recursive: true });
  mkdirSync(path.join(workspace, 'notes', 'hooks'), { recursive: true });
  writeFileSync(path.join(workspace, '.git', 'hooks', 'post-commit.sample'), '# sample\n');
  writeFileSync(path.join(workspace, 'notes', 'hooks', 'post-commit.sample'), '# notes\n');
  symlinkSync('notes', path.join(workspace, 'x'));
  const config = { cwd: workspace, permissions: { mode: 'acceptEdits' } } as LoopConfig;
  const write = { path: 'x/hooks/post-commit', content: '#!/bin/sh\necho planted\n' };
  const edit = { path: 'x/hooks/post-commit.sample', old_text: '#', new_text: 'echo planted #' };
  // Judged while x leads to notes/: an ordinary folder, allowed without a question.
  const [wrote, edited] = [await decide('write_file', write, config), await decide('edit_file', edit, config)];
  expect(wrote.allow && edited.allow).toBe(true);
  // Then x is swapped to .git, before the tools open their files.
  rmSync(path.join(workspace, 'x'));
  symlinkSync('.git', path.join(workspace, 'x'));
  const judged = (d: Decision) => (d.allow ? d.path : undefined);
  await expect(writeFileTool.run(write, config, judged(wrote))).rejects.toThrow('led to another file when it was opened than when the permission check looked');
  await expect(editFileTool.run(edit, config, judged(edited))).rejects.toThrow('led to another file when it was opened than when the permission check looked');
  expect(readdirSync(path.join(workspace, '.git', 'hooks'))).toEqual(['post-commit.sample']);
  expect(readFileSync(path.join(workspace, '.git', 'hooks', 'post-commit.sample'), 'utf8')).toBe('# sample\n');
  // Judged as it now leads, the gate itself asks (git's own folder), and nobody is there to say yes.
  expect(await decide('write_file', write, config)).toEqual({ allow: false, reason: expect.stringContaining("is in git's own folder") as unknown as string });
});

// The same race through runTool, as it happens: the gate judges the path, asks the person
// (default mode), and while the question is on screen a command running in the background
// swaps the link. The yes is for the file the question was about; runTool hands the tool
// that file, and the tool opens it or nothing.
it.runIf(process.platform === 'linux')('runTool hands the tool the file the gate judged: a link swapped while the person answers leads the write nowhere', async () => {
  const root = folder();
  const workspace = path.join(root, 'work');
  mkdirSync(path.join(workspace, '.git', 'hooks'), { recursive: true });
  mkdirSync(path.join(workspace, 'notes', 'hooks'), { recursive: true });
  symlinkSync('notes', path.join(workspace, 'x'));
  let said = '';
  const config = {
    cwd: workspace, tools: [writeFileTool], refuse: () => undefined, terminal: { write: (t: string) => { said += t; } },
    permissions: { mode: 'default', ask: async () => { rmSync(path.join(workspace, 'x')); symlinkSync('.git', path.join(workspace, 'x')); return true; } },
  } as unknown as LoopConfig;
  const result = await runTool({ type: 'tool_use', id: 'toolu_1', name: 'write_file', input: { path: 'x/hooks/post-commit', content: '#!/bin/sh\necho planted\n' } } as never, config);
  expect(result.is_error, JSON.stringify(result)).toBe(true);
  expect(String(result.content)).toContain('led to another file when it was opened than when the permission check looked');
  expect(readdirSync(path.join(workspace, '.git', 'hooks'))).toEqual([]);
  expect(said).toBe('');
});
