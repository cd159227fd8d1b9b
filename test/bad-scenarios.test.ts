// Bad scenarios are refused before anything runs: `node steps/run.mjs N --scenario FILE`
// on each of ten malformed files prints one line naming the file and the place, exits 2,
// and makes nothing (the TMPDIR it was given stays empty). And a scenario that calls a
// tool the chapter does not offer, which only the run can tell, is one problem line.
// The first file is refused by a real process, as typed; the others by main() in this
// process with the same TMPDIR (cli-helpers.ts), where a folder made and not removed stays
// to be seen (a process would have removed it on its way out).

import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInProcess, runMjs, type Ran } from './cli-helpers.ts';
import { scratchFolder } from './scratch-folder.ts';

const dir = scratchFolder(() => mkdtempSync(path.join(tmpdir(), 'bad-scenarios-')));

/** `node steps/run.mjs ARGS` with TMPDIR=tmp: spawned, or main() in this process. */
const run = (how: 'spawned' | 'in process', args: string[], tmp: string): Promise<Ran> =>
  (how === 'spawned' ? runMjs : runInProcess)(args, { env: { TMPDIR: tmp } });

const good = { title: 'x', prompts: ['go'], files: { 'a.txt': 'hello' }, tracks: { main: { turns: [{ text: 'done' }] } } };
const json = (patch: Record<string, unknown>) => JSON.stringify({ ...good, ...patch }, null, 2);
const withTurn = (turn: Record<string, unknown>) => json({ tracks: { main: { turns: [{ text: 'done', ...turn }] } } });

// [file name, bytes, the one line expected (after "<file>: ")]
const MALFORMED: [string, string | Buffer, string][] = [
  ['duplicate-key.json', '{\n  "title": "x",\n  "prompts": ["go"],\n  "tracks": {\n    "main": {\n      "turns": [{"text": "a"}],\n      "turns": [{"text": "b"}]\n    }\n  }\n}\n',
    '$.tracks.main: duplicate key "turns" (line 7, column 7): JSON would keep only the last one and lose the first without a word; give each key once'],
  ['not-utf8.json', Buffer.concat([Buffer.from('{"title": "caf'), Buffer.from([0xe9]), Buffer.from('", "prompts": ["go"], "tracks": {"main": {"turns": [{"text": "a"}]}}}')]),
    'byte 14 (line 1): not valid UTF-8 (bytes 0xE9 0x22 0x2C 0x20…): save the file as UTF-8'],
  ['missing-value.json', '{\n  "title": "x",\n  "prompts": \n}\n',
    'line 4, column 1: not valid JSON (expected a value (an object, array, string, number, true, false or null), found "}")'],
  ['file-and-folder.json', json({ files: { notes: 'a', 'notes/today.md': 'b' } }),
    '$.files["notes/today.md"]: needs a folder "notes", but $.files["notes"] is a file: a path cannot be both'],
  ['trailing-slash.json', json({ files: { 'src/': '' } }),
    '$.files["src/"]: ends with a slash: a file needs a name (folders are made as needed)'],
  ['nul-byte.json', json({ files: { 'a\u0000.txt': '' } }),
    '$.files["a\\u0000.txt"]: contains a NUL byte: no file name can'],
  ['long-name.json', json({ home_files: { [`${'n'.repeat(256)}.md`]: '' } }),
    `$.home_files["${'n'.repeat(256)}.md"]: has a name of 259 bytes ("${'n'.repeat(24)}…"); a file or folder name may have at most 255`],
  ['case-twins.json', json({ files: { 'Notes.md': 'a', 'notes.md': 'b' } }),
    '$.files["notes.md"]: is the same file as "Notes.md" on a disk that ignores case (macOS, Windows): give them names that differ in more than case'],
  ['latency.json', withTurn({ latency_ms: 3_600_000 }),
    '$.tracks.main.turns[0].latency_ms: expected a number of milliseconds from 0 to 600000 (ten minutes), got 3600000'],
  ['idle.json', withTurn({ idle_ms: 1e12 }),
    '$.tracks.main.turns[0].idle_ms: expected a number of milliseconds from 0 to 600000 (ten minutes: time that passes on the mock\'s clock before the response), got 1000000000000'],
];

describe('ten malformed scenarios: ten one-line errors, exit 2, nothing made', () => {
  it('each is refused up front with the place named', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'bad-scenarios-tmp-'));
    try {
      for (const [name, bytes] of MALFORMED) writeFileSync(path.join(dir(), name), bytes);
      const results = await Promise.all(MALFORMED.map(([name], i) => run(i === 0 ? 'spawned' : 'in process', ['2', '--scenario', path.join(dir(), name)], tmp)));
      const lines = results.map((r) => r.err);
      MALFORMED.forEach(([name, , expected], i) => {
        const r = results[i]!;
        expect(r.code, `${name}: ${r.err}`).toBe(2);
        expect(r.out, name).toBe('');
        expect(r.err, name).toBe(`${path.join(dir(), name)}: ${expected}\n`);
      });
      expect(lines).toHaveLength(10);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a turn calling a tool the chapter does not offer', () => {
  it('is one scenario problem, not also "the agent crashed"', async () => {
    const file = path.join(dir(), 'unknown-tool.json');
    writeFileSync(file, json({ tracks: { main: { turns: [{ tool_calls: [{ name: 'read_fiel', input: { path: 'a.txt' } }] }, { text: 'done' }] } } }));
    const tmp = mkdtempSync(path.join(tmpdir(), 'bad-scenarios-tmp-'));
    try {
      const r = await run('in process', ['2', '--scenario', file], tmp);
      expect(r.code).toBe(1);
      // Under the transcript (whose own line for the refused request points down here).
      const problems = r.out.split('\n').filter((l) => /^✖ (scenario problem|the agent crashed)/.test(l));
      expect(problems).toEqual([
        `✖ scenario problem: ${file}: $.tracks.main.turns[0]: calls "read_fiel" but the request offers only [read_file, write_file, edit_file, list_files, grep_search, run_shell] (set "allow_unoffered": true if that is the point)`,
      ]);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});

// A path that is no regular file would be read without end (a device) or block the read, and
// Ctrl-C with it, until something writes (a named pipe): refused before it is opened.
describe('a scenario path that is no regular file', () => {
  it.each([['a device', '/dev/zero'], ['a named pipe', 'fifo']])('%s is refused in one line, exit 2, without reading it', async (_what, name) => {
    const file = name.startsWith('/') ? name : path.join(dir(), name);
    if (!existsSync(file)) execFileSync('mkfifo', [file]);
    const tmp = mkdtempSync(path.join(tmpdir(), 'bad-scenarios-tmp-'));
    try {
      const r = await run('in process', ['1', '--scenario', file], tmp);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`${file}: not a regular file (a device, a pipe or a socket)\n`);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
