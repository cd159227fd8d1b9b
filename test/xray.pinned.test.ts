// The x-ray against the real pinned release, not a stand-in: each run starts Claude Code
// itself (about ten seconds of CPU apiece), so these run only when XRAY_CLAUDE names the
// binary. CI installs the release into a temp prefix after `npm test` and runs this file
// with it (`npm run test:xray`, from .ci/run); by hand:
//
//   npm install --prefix /tmp/cc-2.1.328 @anthropic-ai/claude-code@2.1.328
//   XRAY_CLAUDE=/tmp/cc-2.1.328/node_modules/.bin/claude npm run test:xray
//
// What they prove: a real run is accepted request by request and leaves nothing behind,
// under strace where there is one (loopback connections only); the worktree cases read the
// repository from the disk; --write-facts reproduces the committed facts file byte for byte.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { driveCase, findClaude, pinnedVersion } from '../src/xray/drive.ts';
import { factsFilePath } from '../src/xray/facts-file.ts';
import { runXray } from '../src/xray/cli.ts';

const given = process.env.XRAY_CLAUDE;
const real = given ? findClaude(given) : undefined;
const hasStrace = spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;


// `npm run test:xray` sets XRAY_PINNED: there, no binary is a failure, not a skip.
if (process.env.XRAY_PINNED && !real) {
  it('XRAY_CLAUDE names the Claude Code binary to run', () => {
    expect.fail(given ? `XRAY_CLAUDE=${given}: no such binary` : 'set XRAY_CLAUDE to the pinned release\'s claude (see the top of this file)');
  });
}

describe.skipIf(!real)(`the pinned Claude Code (${pinnedVersion()})`, () => {
  // Made only when these tests run: a skipped file must leave nothing behind.
  let scratch = '';
  beforeAll(() => { scratch = mkdtempSync(path.join(tmpdir(), 'xray-pinned-')); });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  // One run of the release, under strace where there is one: it proves both that the drive
  // works (every request accepted, the three tracks seen, nothing left behind) and that the
  // client connects to loopback only. Without strace it is a plain run of the same case.
  it(`delegate runs clean: every request accepted, nothing left behind${hasStrace ? '; it connects to loopback only (strace -f -e trace=connect)' : ''}`, async () => {
    const log = path.join(scratch, 'connect.log');
    const wrapper = path.join(scratch, 'claude-straced');
    writeFileSync(wrapper, `#!/bin/sh\nexec strace -f -qq -e trace=connect -e signal=none -o '${log}' '${real}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    const r = await driveCase({ bin: hasStrace ? wrapper : real!, version: pinnedVersion(), name: 'delegate', timeoutMs: 90_000 });
    expect(r.problems).toEqual([]);
    const tracks = new Set(r.trace.events.filter((e) => e.type === 'request').map((e) => e.track));
    expect([...tracks].sort()).toEqual(['explorer', 'general', 'main']);
    expect(existsSync(r.tempDir)).toBe(false);
    if (!hasStrace) return;
    const connects = readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('connect('));
    expect(connects.length).toBeGreaterThan(0);
    const elsewhere = connects.filter((l) => {
      if (l.includes('AF_UNIX')) return false;
      if (/sa_family=AF_INET,.*inet_addr\("127\./.test(l)) return false;
      if (/sa_family=AF_INET6,.*inet_pton\(AF_INET6, "(::1|::ffff:127\.[\d.]+)"/.test(l)) return false;
      return true;
    });
    expect(elsewhere).toEqual([]);
  }, 120_000);

  it('worktree runs clean: the kept worktree is read from the disk, then goes with the temp folder', async () => {
    const quiet = await driveCase({ bin: real!, version: pinnedVersion(), name: 'worktree', scenario: 'worktree', timeoutMs: 90_000 });
    const wrote = await driveCase({ bin: real!, version: pinnedVersion(), name: 'worktree', scenario: 'worktree-kept', timeoutMs: 90_000 });
    expect([quiet.problems, wrote.problems]).toEqual([[], []]);
    expect(quiet.trace.repo).toEqual({ worktrees: [], branches: ['main'] });
    expect(wrote.trace.repo?.worktrees).toHaveLength(1);
    expect(wrote.trace.repo?.branches).toContain(wrote.trace.repo?.worktrees[0]?.branch);
    for (const r of [quiet, wrote]) expect(existsSync(r.tempDir)).toBe(false);
  }, 120_000);

  it('--write-facts reproduces the committed facts file byte for byte', async () => {
    const root = mkdtempSync(path.join(scratch, 'project-'));
    mkdirSync(path.join(root, 'xray'));
    copyFileSync(path.join(ROOT, 'xray', 'PINNED'), path.join(root, 'xray', 'PINNED'));
    const out: string[] = [];
    const err: string[] = [];
    const code = await runXray(['--write-facts', '--claude', real!], { out: (l) => out.push(l), err: (l) => err.push(l), env: process.env, root });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out.at(-1)).toMatch(new RegExp(`wrote xray/facts-${pinnedVersion(ROOT).replace(/\./g, '\\.')}\\.json: \\d+ facts, a new file$`));
    expect(readFileSync(factsFilePath(root), 'utf8')).toBe(readFileSync(factsFilePath(ROOT), 'utf8'));
  }, 180_000);
});
