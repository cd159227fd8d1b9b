// The permission gate's workspace check where scenarios cannot reach it: a workspace that
// is itself reached through a symbolic link (as /tmp is on macOS, where /tmp -> /private/tmp).
// The runner makes one real folder per run, so no scenario starts below a link; this test
// builds that layout by hand and asks chapter 6's and chapter 14's gate directly. It does
// not re-test what the symlinks scenarios of chapters 6 and 11 already check end to end.

import { it, expect, afterEach } from 'vitest';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decide as decide6 } from '../steps/06-permissions/permissions.ts';
import { decide as decide14 } from '../steps/14-custom-agents/permissions.ts';
import type { LoopConfig } from '../steps/14-custom-agents/types.ts';

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** base/real/work is the workspace; base/via -> base/real, so base/via/work is the same folder through a link. */
async function layout(): Promise<{ base: string; linked: string }> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'workspace-check-'));
  made.push(base);
  await mkdir(path.join(base, 'real', 'work', 'src'), { recursive: true });
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'real', 'work', 'a.txt'), 'inside\n');
  await writeFile(path.join(base, 'outside', 'secret.txt'), 'secret\n');
  await symlink(path.join(base, 'real'), path.join(base, 'via'));
  const linked = path.join(base, 'via', 'work');
  await symlink(path.join(base, 'outside'), path.join(base, 'real', 'work', 'out'));
  await symlink('loop-b', path.join(base, 'real', 'work', 'loop-a'));
  await symlink('loop-a', path.join(base, 'real', 'work', 'loop-b'));
  return { base, linked };
}

const configFor = (cwd: string) => ({ cwd, permissions: { mode: 'bypassPermissions' } }) as unknown as LoopConfig;

for (const [chapter, decide] of [[6, decide6], [14, decide14]] as const) {
  it(`chapter ${chapter}: a workspace reached through a link still holds its own files, and only those`, async () => {
    const { base, linked } = await layout();
    const config = configFor(linked);
    // Inside, though every real path differs from the workspace path as given: the root is real-pathed too.
    // Allowed, each carries the file it was judged for, as the file system resolves it (a new one: where it would be made).
    const real = path.join(realpathSync(base), 'real', 'work');
    expect(await decide('read_file', { path: 'a.txt' }, config)).toEqual({ allow: true, path: path.join(real, 'a.txt') });
    expect(await decide('write_file', { path: 'src/new/deep.txt' }, config)).toEqual({ allow: true, path: path.join(real, 'src', 'new', 'deep.txt') });
    expect(await decide('list_files', { path: '.' }, config)).toEqual({ allow: true, path: real });
    // Outside, through a link inside the workspace, whichever way the workspace was reached.
    const out = await decide('read_file', { path: 'out/secret.txt' }, config);
    expect(out.allow).toBe(false);
    expect(!out.allow && out.reason).toContain('out/secret.txt (through a symbolic link) is outside the workspace');
    // A loop of links resolves nowhere: refused, never followed forever.
    const loop = await decide('write_file', { path: 'loop-a' }, config);
    expect(!loop.allow && loop.reason).toContain('does not resolve');
  });
}

// A repository whose git folder is not called .git: a .git *file* names it (`gitdir: .repo`,
// as `git init --separate-git-dir` writes it). That folder holds the config and hooks git
// obeys, so in acceptEdits an edit there asks, as one in .git does; next to it, a folder of
// the same shape that no .git file names is an ordinary folder.
for (const [chapter, decide] of [[6, decide6], [14, decide14]] as const) {
  it(`chapter ${chapter}: a git folder named by a .git file is git's own, at the top and in a nested checkout`, async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'workspace-check-'));
    made.push(base);
    const work = path.join(base, 'work');
    for (const dir of ['.repo', 'pkg/.modules/pkg', 'plain']) await mkdir(path.join(work, dir), { recursive: true });
    await writeFile(path.join(work, '.git'), 'gitdir: .repo\n');
    await writeFile(path.join(work, 'pkg', '.git'), 'gitdir: .modules/pkg\n');
    const asked: string[] = [];
    const config = { cwd: work, permissions: { mode: 'acceptEdits', ask: async (q: { input: { path: string } }) => { asked.push(q.input.path); return false; } } } as unknown as LoopConfig;
    for (const p of ['.repo/config', '.repo/hooks/post-checkout', 'pkg/.modules/pkg/config']) {
      expect((await decide('write_file', { path: p, content: 'x' }, config)).allow, p).toBe(false);
    }
    expect(asked).toEqual(['.repo/config', '.repo/hooks/post-checkout', 'pkg/.modules/pkg/config']);
    expect(await decide('write_file', { path: 'plain/config', content: 'x' }, config)).toEqual({ allow: true, path: path.join(realpathSync(work), 'plain', 'config') });
  });
}

// A guarded folder reached under another name: a link named .git (or .claude/skills) that
// leads to a folder of another name, and a repository that is one by its shape (a bare clone
// beside its checkout). The path as written and the folder's shape count, not only the name
// the path resolves to.
for (const [chapter, decide] of [[6, decide6], [14, decide14]] as const) {
  it(`chapter ${chapter}: a git folder behind a link named .git, or by its shape alone, is git's own`, async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'workspace-check-'));
    made.push(base);
    const work = path.join(base, 'work');
    for (const dir of ['.repo/objects', '.repo/refs', 'project.git/objects', 'project.git/refs', 'project.git/worktrees/main', 'looks/objects']) await mkdir(path.join(work, dir), { recursive: true });
    await writeFile(path.join(work, '.repo', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(path.join(work, 'project.git', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(path.join(work, 'looks', 'HEAD'), 'not a repository without refs/\n');
    await symlink('.repo', path.join(work, '.git'));
    const config = { cwd: work, permissions: { mode: 'acceptEdits' } } as unknown as LoopConfig;
    for (const p of ['.git/config', 'project.git/config', 'project.git/worktrees/main/note']) {
      expect(await decide('write_file', { path: p, content: 'x' }, config), p).toEqual({ allow: false, reason: `${p} is in git's own folder: an edit there is never approved in advance, and nobody can be asked here` });
    }
    expect(await decide('write_file', { path: 'looks/config', content: 'x' }, config)).toEqual({ allow: true, path: path.join(realpathSync(work), 'looks', 'config') });
    // The write that would complete the shape, whatever came first: looks/ has HEAD and
    // objects/ (and, written unasked above, a config), and refs/ would make it a repository.
    for (const p of ['looks/refs/heads/main', 'looks/refs/x']) {
      expect((await decide('write_file', { path: p, content: 'x' }, config)).allow, p).toBe(false);
    }
    await mkdir(path.join(work, 'parts', 'objects'), { recursive: true });
    await mkdir(path.join(work, 'parts', 'refs'), { recursive: true });
    expect((await decide('write_file', { path: 'parts/HEAD', content: 'ref: refs/heads/main\n' }, config)).allow).toBe(false);
    expect(await decide('write_file', { path: 'parts/notes.txt', content: 'x' }, config)).toEqual({ allow: true, path: path.join(realpathSync(work), 'parts', 'notes.txt') });
  });
}

it("chapter 14: a .claude/skills that is a link to another folder is guarded all the same", async () => {
  const base = await mkdtemp(path.join(os.tmpdir(), 'workspace-check-'));
  made.push(base);
  const work = path.join(base, 'work');
  await mkdir(path.join(work, '.agents', 'skills'), { recursive: true });
  await mkdir(path.join(work, '.claude'), { recursive: true });
  await symlink('../.agents/skills', path.join(work, '.claude', 'skills'));
  const config = { cwd: work, permissions: { mode: 'acceptEdits' } } as unknown as LoopConfig;
  const decision = await decide14('write_file', { path: '.claude/skills/deploy/SKILL.md', content: 'x' }, config);
  expect(decision.allow).toBe(false);
});
