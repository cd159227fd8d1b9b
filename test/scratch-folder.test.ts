// scratchFolder (scratch-folder.ts): a file's scratch folder is made only once its tests
// begin, so a run that selects none of them makes none, and is removed after the last.

import { describe, it, expect } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scratchFolder } from './scratch-folder.ts';

const made: string[] = [];
const make = () => { const dir = mkdtempSync(path.join(tmpdir(), 'scratch-folder-test-')); made.push(dir); return dir; };

// As in a file a `-t` run selects nothing of: vitest runs none of the block's hooks.
describe('a block none of whose tests run', () => {
  scratchFolder(make);
  it.skip('not selected', () => {});
});

describe('a block whose tests run', () => {
  const scratch = scratchFolder(make);
  it('has its folder, made once, when its tests begin', () => {
    expect(existsSync(scratch())).toBe(true);
    expect(made).toEqual([scratch()]);
  });
});

it('the folder goes once its block ends; the block that ran nothing made none', () => {
  expect(made).toHaveLength(1);
  expect(existsSync(made[0]!)).toBe(false);
});
