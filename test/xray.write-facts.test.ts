// `xray --write-facts`: the facts file is written from measured facts in the committed
// file's exact shape (a round trip through the writer is byte-identical), atomically,
// with what changed named; it refuses, writing nothing, for a conflicting flag, a version
// that is not a release, or a case that failed. The run of the real release that must
// reproduce the committed file byte for byte is in xray.pinned.test.ts.

import { describe, expect, it } from 'vitest';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/runner/scenarios.ts';
import { factsFilePath, factsFileText, readFactsFile, writeFactsFile, type FactsFile } from '../src/xray/facts-file.ts';
import { runXray } from '../src/xray/cli.ts';
import type { Fact } from '../src/xray/analyse.ts';
import { scratchFolder } from './scratch-folder.ts';

const scratch = scratchFolder(() => mkdtempSync(path.join(tmpdir(), 'xray-write-')));

const committedFile = factsFilePath(ROOT);
const committed = readFileSync(committedFile, 'utf8');

/** The committed file's facts as the analysis returns them. */
function factsOf(file: FactsFile): Fact[] {
  return Object.entries(file.facts).map(([id, f]) => ({ id, version: file.version, ...f }));
}

/** A project folder with xray/PINNED only (and the given facts file, if any). */
function project(withFacts?: string): string {
  const root = mkdtempSync(path.join(scratch(), 'project-'));
  mkdirSync(path.join(root, 'xray'));
  copyFileSync(path.join(ROOT, 'xray', 'PINNED'), path.join(root, 'xray', 'PINNED'));
  if (withFacts !== undefined) writeFileSync(factsFilePath(root), withFacts);
  return root;
}

function io(root: string) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), env: process.env, root } };
}

function fakeClaude(name: string, version: string): string {
  const file = path.join(scratch(), name);
  writeFileSync(file, `#!/bin/sh\nif [ "$1" = --version ]; then echo '${version}'; exit 0; fi\necho 'no model today' >&2\nexit 3\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('the facts file, written', () => {
  it('round trip: the committed facts through the writer are the committed file, byte for byte', () => {
    const file = readFactsFile(committedFile);
    expect(factsFileText(file.version, factsOf(file))).toBe(committed);
  });

  it('replaces the file atomically and names what changed; nothing else is left in xray/', () => {
    const root = project(committed);
    const file = readFactsFile(committedFile);
    const same = writeFactsFile(root, file.version, factsOf(file));
    expect(same.change).toMatchObject({ created: false, changed: [], added: [], removed: [] });
    expect(readFileSync(same.file, 'utf8')).toBe(committed);
    const [first, second, ...rest] = factsOf(file);
    const moved = writeFactsFile(root, file.version, [{ ...first!, value: 'something else' }, ...rest]);
    expect(moved.change).toMatchObject({ created: false, changed: [first!.id], added: [], removed: [second!.id] });
    expect(readFactsFile(moved.file).facts[first!.id]!.value).toBe('something else');
    expect(readdirSync(path.join(root, 'xray')).sort()).toEqual(['PINNED', path.basename(committedFile)]);
    const fresh = writeFactsFile(root, '9.9.9', factsOf(file));
    expect(fresh.change.created).toBe(true);
    expect(readFileSync(path.join(root, 'xray', 'facts-9.9.9.json'), 'utf8')).toBe(committed.replace(`"version": "${file.version}"`, '"version": "9.9.9"'));
  });
});

describe('xray --write-facts refuses, writing nothing', () => {
  it('with --check, with a CASE, with --json: one line, exit 2', async () => {
    for (const extra of [['--check'], ['fork'], ['--json']]) {
      const t = io(project());
      expect(await runXray(['--write-facts', ...extra], t.io)).toBe(2);
      expect(t.err).toHaveLength(1);
      expect(t.err[0]).toMatch(/^--write-facts and (--check|a CASE|--json) do not go together: /);
      expect(t.out).toEqual([]);
    }
  });

  it('a binary whose version is not a release', async () => {
    const root = project();
    const t = io(root);
    expect(await runXray(['--write-facts', '--claude', fakeClaude('claude-dev', '9.9.9-dev (Claude Code)')], t.io)).toBe(2);
    expect(t.err).toHaveLength(1);
    expect(t.err[0]).toContain('"9.9.9-dev", not a release like');
    expect(readdirSync(path.join(root, 'xray'))).toEqual(['PINNED']);
  });

  it('a case that failed', async () => {
    const root = project();
    const t = io(root);
    expect(await runXray(['--write-facts', '--claude', fakeClaude('claude-broken', '9.9.9 (Claude Code)')], t.io)).toBe(2);
    expect(t.err).toHaveLength(1);
    expect(t.err[0]).toMatch(/^--write-facts: nothing written: case delegate failed: delegate: Claude Code exited with status 3/);
    expect(readdirSync(path.join(root, 'xray'))).toEqual(['PINNED']);
  });
});
