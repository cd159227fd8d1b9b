// saveSession (cli.ts, chapter 4 on; the last chapter's copy), on its own: the temp file it
// writes before the rename sits in the workspace, where the model's shell can leave anything
// at its name. A scenario cannot lay that out before the save, so it is laid out here. And
// loadSession given what is no file: a named pipe, which a plain read would wait on for ever,
// and a device, which never ends (a scenario may only resume files of its own: its pipes are
// answered, below, and it can lay out no device); and one that is there but cannot be read.

import { afterEach, expect, it } from 'vitest';
import { closeSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSession as loadSession4 } from '../steps/04-cli-sessions/cli.ts';
import { loadSession as loadSession16, saveSession, type SavedSession } from '../steps/16-worktree-isolation/cli.ts';
import { makePipe } from '../src/runner/pipes.ts';
import { readFile } from 'node:fs/promises';

const made: string[] = [];
afterEach(() => { for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true }); });

function folders(): { file: string; outside: string; work: string } {
  const base = mkdtempSync(path.join(tmpdir(), 'session-file-'));
  made.push(base);
  mkdirSync(path.join(base, 'work', '.agent', 'sessions'), { recursive: true });
  mkdirSync(path.join(base, 'outside'));
  return { file: path.join(base, 'work', '.agent', 'sessions', 'demo.json'), outside: path.join(base, 'outside'), work: path.join(base, 'work') };
}

const session: SavedSession = { version: 1, id: 'demo', model: 'm', permissionMode: 'default', created: 'c', updated: 'u', messages: [{ role: 'user', content: 'hi' }] };

it('a link at the temp file\'s name is replaced, not written through', async () => {
  const { file, outside, work } = folders();
  symlinkSync(path.join(outside, 'planted.json'), `${file}.tmp`);
  await saveSession(file, session, work);
  expect(existsSync(path.join(outside, 'planted.json'))).toBe(false);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(session);
  expect(existsSync(`${file}.tmp`)).toBe(false);
});

it.runIf(process.platform !== 'win32')('a named pipe at the temp file\'s name does not hold the save', async () => {
  const { file, work } = folders();
  execFileSync('mkfifo', [`${file}.tmp`]);
  const saved = saveSession(file, session, work).then(() => 'saved');
  const outcome = await Promise.race([saved, new Promise((resolve) => { setTimeout(resolve, 5000, 'still waiting after 5 s'); })]);
  // A writer stuck in open() (the broken case) is let go, so that it cannot hold the test worker.
  try { closeSync(openSync(`${file}.tmp`, constants.O_RDONLY | constants.O_NONBLOCK)); } catch { /* nobody was waiting */ }
  expect(outcome).toBe('saved');
  expect(lstatSync(file).isFile()).toBe(true);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(session);
});

it('an earlier save is replaced whole', async () => {
  const { file, work } = folders();
  writeFileSync(file, '{"old": true, "padding": "' + 'x'.repeat(1000) + '"}\n');
  await saveSession(file, session, work);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(session);
});

for (const linked of ['.agent', '.agent/sessions']) {
  it(`a save is refused when ${linked} is a link (made after the session started), and nothing lands where it leads`, async () => {
    const { file, outside, work } = folders();
    rmSync(path.join(work, '.agent'), { recursive: true });
    if (linked === '.agent/sessions') mkdirSync(path.join(work, '.agent'));
    symlinkSync(outside, path.join(work, ...linked.split('/')));
    await expect(saveSession(file, session, work)).rejects.toThrow(`${linked} is a link: sessions are kept only in the workspace's own .agent/sessions`);
    expect(execFileSync('find', [outside], { encoding: 'utf8' }).trim()).toBe(outside);
  });
}

for (const [chapter, loadSession] of [[4, loadSession4], [16, loadSession16]] as const) {
  it.runIf(process.platform !== 'win32')(`chapter ${chapter}: --resume given a named pipe or a device says it is no session file, at once`, async () => {
    const { work } = folders();
    const pipe = path.join(work, 'pipe.json');
    execFileSync('mkfifo', [pipe]);
    const within5s = <T>(p: Promise<T>) => Promise.race([p.then(() => 'loaded', (err: Error) => err.message), new Promise<string>((resolve) => { setTimeout(resolve, 5000, 'still reading after 5 s'); })]);
    const fromPipe = await within5s(loadSession(pipe, work));
    // A reader stuck in open() (the broken case) is let go, so that it cannot hold the test worker.
    try { closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK)); } catch { /* nobody was waiting */ }
    expect(fromPipe).toBe('cannot resume: no session file pipe.json (a named pipe)');
    expect(await within5s(loadSession('/dev/zero', work))).toBe(`cannot resume: no session file ${path.relative(work, '/dev/zero')} (a device)`);
  });
}

for (const [chapter, loadSession] of [[4, loadSession4], [16, loadSession16]] as const) {
  it(`chapter ${chapter}: a session file that is there but cannot be read is said to be unreadable, not missing`, async () => {
    const { work } = folders();
    const message = (file: string) => loadSession(path.join(work, file), work).then(() => 'loaded', (err: Error) => err.message);
    expect(await message('gone.json')).toBe('cannot resume: no session file gone.json');
    symlinkSync('loop.json', path.join(work, 'loop.json'));   // a link to itself: open() fails with ELOOP, even for root
    expect(await message('loop.json')).toBe('cannot resume: cannot read loop.json (ELOOP: too many symbolic links encountered)');
    if (process.getuid?.() !== 0) {   // root reads a file whatever its mode says
      writeFileSync(path.join(work, 'locked.json'), JSON.stringify(session), { mode: 0o200 });
      expect(await message('locked.json')).toBe('cannot resume: cannot read locked.json (EACCES: permission denied)');
    }
  });
}

// A scenario's pipe ("pipes", chapter 4's resume-pipe): the run answers a read that waits on
// it with an empty file, so that a half-done loadSession (a plain readFile) fails its check in
// a moment rather than at the run's time limit. One that does not wait never sees it.
it.runIf(process.platform !== 'win32')("a scenario's named pipe: a plain read that waits on it gets an empty file at once", async () => {
  const { work } = folders();
  const pipe = path.join(work, 'session.json');
  makePipe(pipe);
  expect(lstatSync(pipe).isFIFO()).toBe(true);
  const read = await Promise.race([readFile(pipe, 'utf8'), new Promise<string>((resolve) => { setTimeout(resolve, 5000, 'still reading after 5 s'); })]);
  // Let go of a reader the answer never reached, so that it cannot hold the test worker.
  try { closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK)); } catch { /* nobody was waiting */ }
  expect(read).toBe('');
  // readPlainFile, which does not wait, still finds a pipe.
  expect(await loadSession4(pipe, work).catch((err: Error) => err.message)).toBe('cannot resume: no session file session.json (a named pipe)');
});
