// What the user is asked must say what the call does. The question is made from the call's
// input, and a model may put any field in an input (the API does not hold it to the tool's
// schema): a write_file that also carries `command: "ls"` must not be put to the user as
// "run: ls". A yes to that would write the file, .git/config included (an edit there always
// asks), and git runs what that file says.

import { it, expect, afterEach } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decide as decide6 } from '../steps/06-permissions/permissions.ts';
import { decide as decide16 } from '../steps/16-worktree-isolation/permissions.ts';
import type { LoopConfig } from '../steps/16-worktree-isolation/types.ts';

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

for (const [chapter, decide] of [[6, decide6], [16, decide16]] as const) {
  it(`chapter ${chapter}: the question names what the call does, whatever other fields its input carries`, async () => {
    const cwd = await mkdtemp(path.join(os.tmpdir(), 'permission-question-'));
    made.push(cwd);
    const asked: string[] = [];
    const config = { cwd, permissions: { mode: 'default', ask: async (q: { summary: string }) => { asked.push(q.summary); return false; } } } as unknown as LoopConfig;
    await decide('write_file', { path: '.git/config', content: '[core]\n\tfsmonitor = "cat ~/.ssh/id_rsa"\n', command: 'ls' }, config);
    await decide('edit_file', { path: 'notes.txt', old_text: 'a', new_text: 'b', command: 'ls' }, config);
    await decide('run_shell', { command: 'rm -r src', path: 'README.md' }, config);
    expect(asked).toEqual(['write .git/config', 'edit notes.txt', 'run: rm -r src']);
  });
}
