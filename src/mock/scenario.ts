// Loading and validating scenario files. Every mistake becomes ONE line,
// `<file>: <json path>: <what was expected>`, because the runner prints it and
// exits 2: a teacher should see where the mistake is without a stack trace.
// Hand-written checks on purpose (no schema library): the messages can say what a
// field is for. This is NOT the editor schema; scenario.schema.json describes the
// same format for editors and must be kept in step with it and with types.ts.

import { Buffer } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { JsonError, childPath, parseStrictJson } from './strict-json.ts';
import type { Scenario } from './types.ts';
import { badPatterns, badTextPlaceholder } from './fill.ts';

/** Control characters (a newline in a key, say) written as escapes: the message stays one line. */
const oneLine = (text: string): string => text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => JSON.stringify(c).slice(1, -1));

export class ScenarioError extends Error {
  readonly file: string;
  readonly path: string;
  /** `path`: where in the JSON ("$" is the whole document); "" when the file itself is the problem. */
  constructor(file: string, path: string, what: string) {
    super(oneLine(path === '' ? `${file}: ${what}` : `${file}: ${path}: ${what}`));
    this.name = 'ScenarioError';
    this.file = file;
    this.path = path;
  }
}

type Json = Record<string, unknown>;

const STOP_REASONS = ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence'];
/** Allowed fields, exported so a test can hold the editor schema to the same lists. */
export const ROOT_FIELDS = [
  '$schema', 'title', 'description', 'model', 'files', 'home_files', 'links', 'pipes', 'env', 'argv', 'git', 'cwd', 'prompts', 'answers', 'unattended', 'tracks', 'expect',
];
export const TURN_FIELDS = ['text', 'tool_calls', 'stop_reason', 'usage', 'latency_ms', 'idle_ms', 'cache_ttl', 'error', 'allow_unoffered'];
const ERROR_STATUSES = [400, 401, 404, 429, 500, 529];
/** The longest latency_ms or idle_ms a turn may ask for: ten minutes. (Node's timers
 *  cannot wait more than about 24.8 days; long before that, no demo means it.) */
export const MAX_WAIT_MS = 10 * 60_000;
/** The longest a scripted person may take to answer a permission question: well inside a run's time limit. */
export const MAX_ANSWER_MS = 10_000;
/** The longest retry-after a 429 or 5xx may give, in seconds: the SDK waits it out for real
 *  before each of its two retries, and the runner stops a run after a minute (run-guard.ts). */
const MAX_RETRY_AFTER_S = 20;
/** The longest name one path component may have, in UTF-8 bytes (ext4, APFS, NTFS). */
const MAX_NAME_BYTES = 255;
/** The longest relative path accepted, in UTF-8 bytes: a run's temp folder comes in front. */
const MAX_PATH_BYTES = 3072;

/** Expectation kinds and the fields each accepts (true = required). */
export const EXPECTATION_KINDS: Record<string, Record<string, 'string' | 'boolean' | 'count' | 'positive' | 'strings' | 'names' | 'texts' | 'track' | 'tracks' | 'path' | 'places' | 'openings'>> = {
  tool_result: {
    track: 'track', tool: 'string', call: 'positive', includes: 'string', includes_file: 'path',
    includes_track_text: 'track', excludes: 'string', is_error: 'boolean',
  },
  file: { path: 'path', equals: 'string', includes: 'string', exists: 'boolean' },
  requests: { track: 'track', count: 'count', min: 'count', max: 'count', counted: 'count' },
  tools: { track: 'track', include: 'strings', exclude: 'strings', exactly: 'strings' },
  system: { track: 'track', includes: 'string', excludes: 'string', in_order: 'texts' },
  system_stable: { track: 'track', also: 'track' },
  never: { track: 'track' },
  streamed: { track: 'track', min_deltas: 'count' },
  usage: {
    track: 'track', request: 'positive', cache_read_min: 'count', cache_read_max: 'count',
    cache_write_min: 'count', cache_write_max: 'count', cache_write_1h_min: 'count', cache_write_1h_max: 'count',
  },
  breakpoints: { track: 'track', request: 'positive', at: 'places' },
  terminal: { includes: 'string', excludes: 'string', usage_of: 'track' },
  model: { track: 'track', equals: 'string' },
  fresh_context: { track: 'track', messages: 'positive' },
  isolated: { track: 'track', from: 'track' },
  history: {
    track: 'track', request: 'positive', messages: 'positive', max: 'positive', includes_track_text: 'track', includes_file: 'path', excludes_file: 'path',
    includes: 'string', excludes: 'string', in_order: 'texts', last_user_blocks: 'openings',
  },
  ledger: { tracks: 'tracks', cost: 'boolean' },
  fork_prefix: { tracks: 'tracks', from: 'track', cached: 'boolean', own: 'boolean' },
  fork_costs: { tracks: 'tracks', input_each: 'count', input_total: 'count' },
  concurrent: { tracks: 'tracks' },
  while_running: { track: 'track', request: 'positive', other: 'track' },
  notification: { track: 'track', tool: 'string', call: 'positive', status: 'string', from: 'track', includes: 'string', includes_file: 'path', usage: 'boolean', usage_with: 'tracks' },
  branch: { name: 'string', exists: 'boolean', path: 'path', includes: 'string', excludes: 'string' },
  worktrees: { count: 'count', branches: 'names', outside: 'boolean' },
};
/**
 * The fields that make a check of these kinds check something. The rest only say where to
 * look (a track, a request): `{"requests": {"track": "main"}}` would always hold.
 */
const CHECKS_IN_KIND: Partial<Record<string, string[]>> = {
  requests: ['count', 'min', 'max', 'counted'],
  tools: ['include', 'exclude', 'exactly'],
  system: ['includes', 'excludes', 'in_order'],
  usage: ['cache_read_min', 'cache_read_max', 'cache_write_min', 'cache_write_max', 'cache_write_1h_min', 'cache_write_1h_max'],
  history: ['messages', 'max', 'includes_track_text', 'includes_file', 'excludes_file', 'includes', 'excludes', 'in_order', 'last_user_blocks'],
};

/**
 * Why a check's fields can never all hold, or take no part (undefined: none): bounds that
 * cross, a text both required and forbidden, something asked of a file or a branch that
 * must not exist. Read once the fields' types are known to be right.
 */
function contradiction(kind: string, c: Record<string, unknown>): [field: string, why: string] | undefined {
  const n = (k: string) => c[k] as number | undefined;
  for (const [low, high] of [['min', 'max'], ['cache_read_min', 'cache_read_max'], ['cache_write_min', 'cache_write_max'], ['cache_write_1h_min', 'cache_write_1h_max'], ['cache_write_1h_min', 'cache_write_max']] as const) {
    if (n(low) !== undefined && n(high) !== undefined && n(low)! > n(high)!) return [low, `${low} ${n(low)} is more than ${high} ${n(high)}`];
  }
  if (kind === 'requests' && n('count') !== undefined) {
    if (n('min') !== undefined && n('count')! < n('min')!) return ['count', `count ${n('count')} is less than min ${n('min')}`];
    if (n('max') !== undefined && n('count')! > n('max')!) return ['count', `count ${n('count')} is more than max ${n('max')}`];
  }
  if (kind === 'history' && n('messages') !== undefined && n('max') !== undefined && n('messages')! > n('max')!) {
    return ['messages', `messages ${n('messages')} is more than max ${n('max')}`];
  }
  const includes = c.includes as string | undefined;
  const excludes = c.excludes as string | undefined;
  if (includes !== undefined && excludes !== undefined && includes.includes(excludes)) {
    return ['excludes', `"${excludes}" is part of what includes asks for ("${includes}"): whatever shows one shows the other`];
  }
  if (kind === 'tools') {
    const [include, exclude, exactly] = (['include', 'exclude', 'exactly'] as const).map((k) => c[k] as string[] | undefined);
    const both = include?.find((t) => exclude?.includes(t));
    if (both !== undefined) return ['exclude', `${both} is both included and excluded`];
    const missing = exactly && include?.find((t) => !exactly.includes(t));
    if (missing !== undefined) return ['exactly', `it leaves out ${missing}, which include asks for`];
    const barred = exactly?.find((t) => exclude?.includes(t));
    if (barred !== undefined) return ['exactly', `it lists ${barred}, which exclude forbids`];
  }
  if ((kind === 'file' || kind === 'branch') && c.exists === false) {
    const asked = ['equals', 'includes', 'excludes', 'path'].find((k) => k in c && !(kind === 'file' && k === 'path'));
    if (asked !== undefined) return ['exists', `"exists": false leaves nothing for ${asked} to look at`];
  }
  if (kind === 'branch' && c.path === undefined) {
    const asked = ['includes', 'excludes'].find((k) => k in c);
    if (asked !== undefined) return [asked, `${asked} looks inside a file of the branch: give its "path"`];
  }
  if (kind === 'branch' && c.name === '') return ['name', 'no branch has an empty name'];
  // The mock answers only Claude model ids (a 404 for any other), so a track's requests can name no other.
  if (kind === 'model' && typeof c.equals === 'string' && !c.equals.startsWith('claude-')) {
    return ['equals', `"${c.equals}" is no model id the mock answers (it answers only ids starting with "claude-"), so no request can name it`];
  }
  if (kind === 'notification' && !NOTIFICATION_STATUSES.includes(c.status as string)) {
    return ['status', `a notification's status is ${NOTIFICATION_STATUSES.join(', ')}, never "${String(c.status)}"`];
  }
  if (kind === 'worktrees' && Array.isArray(c.branches)) {
    const branches = c.branches as string[];
    const twice = branches.find((b, i) => branches.indexOf(b) !== i);
    if (twice !== undefined) return ['branches', `"${twice}" is listed twice, and git checks a branch out in one worktree at most`];
    if (n('count') !== undefined && n('count') !== branches.length) return ['branches', `it lists ${branches.length} branch${branches.length === 1 ? '' : 'es'} for count ${n('count')}: a worktree has one`];
  }
  if (kind === 'worktrees' && c.outside !== undefined && (n('count') === 0 || (c.branches as string[] | undefined)?.length === 0)) {
    return ['outside', 'it looks at where the worktrees lie, and there may be none'];
  }
  return undefined;
}

/**
 * A request number no passing run can reach: a track answers one request per turn, and a
 * request past its last turn is a scenario failure, so `usage`, `history` and
 * `while_running` would look for a request that is never answered, and a `requests` check's
 * `count` or `min` above the number of turns could never hold.
 */
function pastLastTurn(kind: string, c: Record<string, unknown>, tracks: Record<string, { turns: unknown[] }>): [field: string, why: string] | undefined {
  const track = c.track as string | undefined;
  if (track === undefined || tracks[track] === undefined) return undefined;
  const turns = tracks[track].turns.length;
  const has = `track "${track}" has ${turns} turn${turns === 1 ? '' : 's'}, and a request past its last turn is a scenario failure`;
  const n = c.request;
  if (typeof n === 'number' && n > turns) return ['request', `request ${n}: ${has}`];
  // A requests check that asks for more requests than there are turns can only fail.
  for (const k of kind === 'requests' ? ['count', 'min'] : []) {
    const wanted = c[k];
    if (typeof wanted === 'number' && wanted > turns) return [k, `${k} ${wanted}: ${has}`];
  }
  return undefined;
}

/**
 * Why a check's includes_file / excludes_file cannot compare anything (undefined: it can).
 * The runner compares the file's setup content from `files`, trimmed: a file not there has
 * none (the check would fail on every run), and an empty one is in every text.
 */
function unusableSetupFile(c: Record<string, unknown>, files: Record<string, string>): [field: string, why: string] | undefined {
  for (const k of ['includes_file', 'excludes_file']) {
    const file = c[k];
    if (typeof file !== 'string') continue;
    if (!Object.hasOwn(files, file)) {
      const names = Object.keys(files);
      return [k, `no file "${file}" in $.files: ${k} compares the setup content of a file the scenario writes (${names.length === 0 ? 'it writes none' : `written: ${names.join(', ')}`})`];
    }
    if (files[file]!.trim() === '') {
      return [k, k === 'includes_file'
        ? `checks nothing: $.files[${JSON.stringify(file)}] is empty (or only white space), and every text holds that`
        : `can never hold: $.files[${JSON.stringify(file)}] is empty (or only white space), and every text holds that`];
    }
  }
  return undefined;
}

/** A place a `breakpoints` check names: a block as the mock's event log names it (Breakpoint.where),
 *  any index `last`. */
export const BREAKPOINT_PLACE = /^(?:(?:tools|system)\[(?:\d+|last)\]|messages\[(?:\d+|last)\]\.content(?:\[(?:\d+|last)\])?)$/;

/** The statuses a <task-notification> can carry (chapter 15). */
const NOTIFICATION_STATUSES = ['completed', 'failed', 'stopped'];

/**
 * Why a check's fields, right in type, take part in nothing (undefined: they all do): a
 * field that only refines another that is not there, or a track compared with itself.
 */
function idleField(kind: string, c: Record<string, unknown>): [field: string, why: string] | undefined {
  if (kind === 'notification' && 'usage_with' in c && c.usage !== true) return ['usage_with', 'it adds tracks to the usage check: set "usage": true'];
  if (kind === 'terminal' && 'usage_of' in c && ![c.includes, c.excludes].some((t) => typeof t === 'string' && /\{(calls|input|output)\}/.test(t))) {
    return ['usage_of', 'it fills in {calls}, {input} and {output}, and neither includes nor excludes has one'];
  }
  if (kind === 'while_running' && c.other === c.track) return ['other', 'a track is always running while it sends its own requests: name another track'];
  if (kind === 'concurrent') {
    const tracks = c.tracks as string[];
    const twice = tracks.find((t, i) => tracks.indexOf(t) !== i);
    if (twice !== undefined) return ['tracks', `"${twice}" is listed twice, and a track always runs at the same time as itself`];
    if (tracks.length < 2) return ['tracks', 'it needs two tracks at least, to run at the same time as each other'];
  }
  return undefined;
}

/** Expectations that read the workspace's git repository: they need `"git": true`. */
const GIT_KINDS = ['branch', 'worktrees'];
const REQUIRED_IN_KIND: Record<string, string[]> = {
  tool_result: ['track', 'tool'],
  file: ['path'],
  requests: ['track'],
  tools: ['track'],
  system: ['track'],
  system_stable: ['track'],
  never: ['track'],
  streamed: ['track'],
  usage: ['track', 'request'],
  breakpoints: ['track', 'at'],
  terminal: [],
  model: ['track', 'equals'],
  fresh_context: ['track'],
  isolated: ['track', 'from'],
  history: ['track', 'request'],
  ledger: [],
  fork_prefix: ['tracks', 'from'],
  fork_costs: ['tracks'],
  concurrent: ['tracks'],
  while_running: ['track', 'request', 'other'],
  notification: ['track', 'tool', 'status'],
  branch: ['name'],
  worktrees: [],
};

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value as the file gave it: JSON, but a number too large for a double (1e400) as Infinity, not as JSON's null. */
function shown(v: unknown): string {
  return typeof v === 'number' ? String(v) : JSON.stringify(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'number') return 'a number';
  if (typeof v === 'boolean') return 'a boolean';
  return typeof v;
}

const child = childPath;

/** A path as a case-insensitive disk sees it (macOS and Windows by default): one spelling per file. */
const fold = (p: string): string => p.normalize('NFC').toLowerCase().replace(/\\/g, '/');

/** Line and column (1-based) of a character offset. */
function lineCol(text: string, pos: number): string {
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - before.lastIndexOf('\n');
  return `line ${line}, column ${col}`;
}

/** Parses and validates a scenario. Throws ScenarioError (one line) on any mistake. */
export function parseScenario(text: string, file: string): Scenario {
  // A byte order mark at the start is skipped, as editors do (positions then count from
  // the first character after it).
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  let data: unknown;
  try {
    data = parseStrictJson(text);
  } catch (e) {
    if (!(e instanceof JsonError)) throw e;
    if (e.path !== undefined) {
      throw new ScenarioError(file, e.path, `duplicate key ${JSON.stringify(e.key)} (${lineCol(text, e.pos)}): JSON would keep only the last one and lose the first without a word; give each key once`);
    }
    throw new ScenarioError(file, lineCol(text, e.pos), `not valid JSON (${e.message})`);
  }
  const fail = (path: string, what: string): never => {
    throw new ScenarioError(file, path, what);
  };

  const fields = (obj: Json, path: string, allowed: string[]): void => {
    for (const k of Object.keys(obj)) {
      if (!allowed.includes(k)) fail(child(path, k), `unknown field "${k}" (allowed here: ${allowed.join(', ')})`);
    }
  };
  const object = (v: unknown, path: string, what: string): Json => {
    if (!isObj(v)) fail(path, `expected an object (${what}), got ${typeName(v)}`);
    return v as Json;
  };
  const string = (v: unknown, path: string, what: string): string => {
    if (typeof v !== 'string') fail(path, `expected a string (${what}), got ${typeName(v)}`);
    return v as string;
  };
  const nonEmpty = (v: unknown, path: string, what: string): string => {
    const s = string(v, path, what);
    if (s.trim() === '') fail(path, `must not be empty (${what})`);
    return s;
  };
  // A title heads the transcript and a name is one line of the verdict: a line break in
  // either would split that line and make the rest look like the agent's output.
  const oneLineText = (s: string, path: string): void => {
    if (/[\r\n\u2028\u2029]/.test(s)) fail(path, 'has a line break: write it on one line (put the detail in "description" or "hint")');
  };
  const boolean = (v: unknown, path: string, what: string): void => {
    if (typeof v !== 'boolean') fail(path, `expected true or false (${what}), got ${typeName(v)}`);
  };
  // Past MAX_SAFE_INTEGER a number is no longer exact (9007199254740993 reads as …992), and
  // 1e300 is "whole" too: neither is a count anything here means.
  const count = (v: unknown, path: string, what: string, min: number, max = Number.MAX_SAFE_INTEGER): void => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      fail(path, `expected a whole number ≥ ${min} (${what}), got ${shown(v)}`);
    }
    if ((v as number) > max) fail(path, `expected a whole number from ${min} to ${max} (${what}), got ${shown(v)}`);
  };
  const stringMap = (v: unknown, path: string, what: string, paths: boolean): void => {
    const o = object(v, path, what);
    // A file path is always shown in brackets, $.files["a.txt"], whatever its spelling.
    const at = (k: string) => (paths ? `${path}[${JSON.stringify(k)}]` : child(path, k));
    for (const [k, val] of Object.entries(o)) {
      if (paths) relPath(k, at(k));
      string(val, at(k), paths ? 'the file content' : 'the value');
    }
    if (paths) onDisk(Object.keys(o), at);
  };
  /**
   * File paths that could not all be written as given: each must name a file (not end in
   * "/"), each name must be possible on disk, and no path may be both a file and a folder
   * or two files on a case-insensitive disk (macOS and Windows by default), where the
   * second would silently overwrite the first.
   */
  const onDisk = (keys: string[], at: (k: string) => string): void => {
    const files = new Map<string, string>();   // folded path -> as written
    for (const k of keys) {
      if (k.includes('\0')) fail(at(k), 'contains a NUL byte: no file name can');
      if (k.endsWith('/') || k.endsWith('\\')) fail(at(k), 'ends with a slash: a file needs a name (folders are made as needed)');
      if (Buffer.byteLength(k) > MAX_PATH_BYTES) fail(at(k), `is ${Buffer.byteLength(k)} bytes long; a path may have at most ${MAX_PATH_BYTES}`);
      for (const name of k.split(/[\\/]/)) {
        if (name === '') fail(at(k), 'has an empty name between two slashes');
        if (name === '.') fail(at(k), 'has a "." in it: write the path without it');
        const bytes = Buffer.byteLength(name);
        if (bytes > MAX_NAME_BYTES) fail(at(k), `has a name of ${bytes} bytes ("${name.slice(0, 24)}…"); a file or folder name may have at most ${MAX_NAME_BYTES}`);
      }
      files.set(fold(k), k);
    }
    const seen = new Map<string, string>();
    for (const k of keys) {
      const f = fold(k);
      const twin = seen.get(f);
      if (twin !== undefined) fail(at(k), `is the same file as ${JSON.stringify(twin)} on a disk that ignores case (macOS, Windows): give them names that differ in more than case`);
      seen.set(f, k);
      const parts = f.split('/');
      for (let n = 1; n < parts.length; n++) {
        const above = files.get(parts.slice(0, n).join('/'));
        if (above !== undefined) fail(at(k), `needs a folder ${JSON.stringify(above)}, but ${at(above)} is a file: a path cannot be both`);
      }
    }
  };
  const relPath = (p: string, path: string): void => {
    if (p === '' || p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p) || p.split(/[\\/]/).includes('..')) {
      fail(path, `"${p}" is not a relative path inside the workspace (no leading "/", no drive letter, no "..")`);
    }
  };
  const required = (obj: Json, key: string, path: string, why: string): unknown => {
    if (!(key in obj)) fail(path, `missing "${key}" (${why})`);
    return obj[key];
  };

  const root = object(data, '$', 'a scenario');
  fields(root, '$', ROOT_FIELDS);
  if ('$schema' in root) string(root.$schema, '$.$schema', 'the editor schema pointer');
  oneLineText(nonEmpty(required(root, 'title', '$', 'a scenario needs a title'), '$.title', 'what the scenario shows'), '$.title');
  if ('description' in root) string(root.description, '$.description', 'a longer explanation');
  if ('model' in root) {
    const model = nonEmpty(root.model, '$.model', 'a model id');
    if (!model.startsWith('claude-')) fail('$.model', `expected a model id starting with "claude-", got "${model}"`);
  }
  if ('files' in root) stringMap(root.files, '$.files', 'workspace files: relative path → content', true);
  if ('home_files' in root) stringMap(root.home_files, '$.home_files', 'home folder files: relative path → content', true);
  if ('links' in root) {
    // Made beside the files: the paths follow the files' rules, and neither may need the other
    // as a folder or name the same file.
    const links = object(root.links, '$.links', 'workspace links: relative path → target');
    const at = (k: string) => (k in links ? `$.links[${JSON.stringify(k)}]` : `$.files[${JSON.stringify(k)}]`);
    for (const [k, target] of Object.entries(links)) {
      relPath(k, at(k));
      // On Linux and macOS a backslash is part of a name, not a separator: "a\\b" is one link at
      // the top, and reading it as two folders would let its target climb one more level.
      if (k.includes('\\') || (typeof target === 'string' && target.includes('\\'))) fail(at(k), 'has a backslash: write a link\'s path and target with /');
      // A .git link would send the run's git (its first commit, chapter 16's worktrees) into
      // another repository on the machine.
      if (k.split(/[\\/]/).some((name) => fold(name) === '.git')) fail(at(k), 'names a .git: a link there would lead git to another repository');
      const to = nonEmpty(target, at(k), "the link's target, relative to its folder");
      if (to.includes('\0')) fail(at(k), 'has a NUL character in its target, which no file system takes');
      if (Buffer.byteLength(to) > MAX_PATH_BYTES) fail(at(k), `has a target of ${Buffer.byteLength(to)} bytes; a path may have at most ${MAX_PATH_BYTES}`);
      if (to.startsWith('/') || to.startsWith('\\') || /^[A-Za-z]:/.test(to)) fail(at(k), `"${to}" is an absolute target: write it relative to the link's folder (the run's folders are made anew each time)`);
      // Where it leads, worked out on paper from the run's folder, which holds work/ and home/: it
      // must stay in one of them. On paper is where it really leads only if ".." comes first
      // (after a name, it would climb out of that name if it is a linked folder).
      const parts = to.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
      const named = parts.findIndex((p) => p !== '..');
      if (named >= 0 && parts.slice(named).includes('..')) fail(at(k), `"${to}" has a ".." after a name: put every ".." at the start`);
      const from = ['work', ...k.split(/[\\/]/).slice(0, -1)];
      const depth = from.length - (named >= 0 ? named : parts.length);   // 0: the run's folder itself
      if (depth < 0 || (depth === 0 && !['work', 'home'].includes(parts[named] ?? ''))) {
        fail(at(k), `"${to}" leads out of the workspace and the home folder: a link may lead only into them (the home folder is ../home from the workspace's top)`);
      }
    }
    onDisk([...Object.keys(isObj(root.files) ? root.files : {}), ...Object.keys(links)], at);
  }
  if ('pipes' in root) {
    // Named pipes (mkfifo) where a program may look for a file: opened as a file is, one waits
    // for a writer for ever (chapter 4's session file). Beside the files and links, by the same rules.
    if (!Array.isArray(root.pipes) || root.pipes.length === 0) fail('$.pipes', `expected a list of workspace paths, one for each named pipe to make, got ${shown(root.pipes)}`);
    const pipes = root.pipes as unknown[];
    pipes.forEach((p, i) => {
      const at = `$.pipes[${i}]`;
      const name = nonEmpty(p, at, 'a workspace path for a named pipe');
      relPath(name, at);
      if (name.includes('\\')) fail(at, "has a backslash: write a pipe's path with /");
      if (name.split('/').some((part) => fold(part) === '.git')) fail(at, 'names a .git: git keeps no pipe there');
    });
    // git cannot commit a pipe: "git": true would fail before the run began.
    if ('git' in root && root.git !== false) fail('$.pipes', 'and "git" do not go together: git cannot commit a named pipe');
    const links = isObj(root.links) ? root.links : {};
    const at = (k: string) => (pipes.includes(k) ? `$.pipes[${pipes.indexOf(k)}]` : k in links ? `$.links[${JSON.stringify(k)}]` : `$.files[${JSON.stringify(k)}]`);
    onDisk([...Object.keys(isObj(root.files) ? root.files : {}), ...Object.keys(links), ...(pipes as string[])], at);
  }
  if ('env' in root) {
    stringMap(root.env, '$.env', 'environment variables: name → value', false);
    // A name no shell could set (empty, with an "=" or a space) never reached the agent's
    // shell commands, and neither did __proto__: their environment is built without them.
    for (const k of Object.keys(root.env as object)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) fail(child('$.env', k), 'is not a variable name a shell can set: letters, digits and _, not starting with a digit');
      if (k === '__proto__') fail(child('$.env', k), 'is a name JavaScript objects treat as their prototype, so it would never reach the agent\'s shell commands: pick another');
    }
  }
  if ('argv' in root) {
    if (!Array.isArray(root.argv)) fail('$.argv', `expected an array of strings (command-line flags), got ${typeName(root.argv)}`);
    (root.argv as unknown[]).forEach((a, i) => string(a, `$.argv[${i}]`, 'one command-line argument'));
    // --resume takes a path as well as an id, and the session is written back there: in a
    // scripted run it must be a file of the workspace, never one elsewhere on the machine.
    const argv = root.argv as string[];
    argv.forEach((a, i) => {
      const value = a === '--resume' ? argv[i + 1] : a.startsWith('--resume=') ? a.slice('--resume='.length) : undefined;
      if (value !== undefined && (value.startsWith('/') || value.startsWith('~') || /^[A-Za-z]:/.test(value) || value.split(/[\\/]/).includes('..'))) {
        fail(`$.argv[${a === '--resume' ? i + 1 : i}]`, `--resume "${value}" leads out of the workspace: a scenario resumes a session of its own files (an id, or a path inside the workspace)`);
      }
    });
  }
  if ('git' in root && root.git !== 'detached') {
    boolean(root.git, '$.git', 'whether the workspace is a git repository with the files as its first commit, or "detached": the same with HEAD detached');
  }
  if (root.git !== true && root.git !== 'detached' && isObj(root.files)) {
    // A repository the scenario makes itself (HEAD, refs/, objects/), or a .git file as a
    // worktree has one, must stay in the run's folder: git follows a "gitdir:" file, and a
    // .git folder's commondir, gitdir, alternates and config (core.worktree) to any folder of
    // the machine, whose repository the run would then read and change.
    const gitDirs: string[] = [];   // the folders git would read as a repository's own: each .git folder, each folder a .git file names
    for (const [k, text] of Object.entries(root.files)) {
      const names = k.split('/');
      const at = names.findIndex((name) => fold(name) === '.git');
      if (at < 0) continue;
      if (at < names.length - 1) { gitDirs.push(names.slice(0, at + 1).join('/')); continue; }
      const to = /^gitdir: *(.*?)\s*$/.exec(String(text))?.[1] ?? '';
      const parts = to.split('/').filter((p) => p !== '' && p !== '.');
      const named = parts.findIndex((p) => p !== '..');
      const inside = !to.startsWith('/') && (named < 0 || !parts.slice(named).includes('..')) && names.length - (named >= 0 ? named : parts.length) >= 0;
      if (!inside) fail(`$.files[${JSON.stringify(k)}]`, 'a .git file must say "gitdir: PATH", PATH relative and inside the run\'s folder (its ".." first): git would follow it to another repository');
      gitDirs.push(path.posix.normalize([...names.slice(0, -1), ...parts].join('/') || '.'));
    }
    for (const k of Object.keys(root.files)) {
      const inDir = gitDirs.map((d) => fold(d)).find((d) => fold(k).startsWith(`${d}/`));
      if (inDir === undefined) continue;
      const rest = fold(k).slice(inDir.length + 1);
      const last = rest.split('/').at(-1)!;
      if (['config', 'commondir', 'gitdir'].includes(last) || rest.endsWith('objects/info/alternates')) {
        fail(`$.files[${JSON.stringify(k)}]`, `names git's ${rest}, which can send git to another repository's files: for a real repository, use "git": true`);
      }
    }
  }
  if ((root.git === true || root.git === 'detached') && isObj(root.files)) {
    // The runner makes the repository's .git itself. One from the files would clash with it,
    // or, as a "gitdir:" file, lead every git command of the run to another repository.
    for (const k of Object.keys(root.files)) {
      if (k.split(/[\\/]/).some((name) => fold(name) === '.git')) {
        fail(`$.files[${JSON.stringify(k)}]`, 'names a .git, which "git": true makes itself: leave git\'s own files out of the scenario');
      }
    }
  }
  if ('cwd' in root) {
    // A folder of the workspace: the same rules as a file's path, and no file of that name.
    const cwd = nonEmpty(root.cwd, '$.cwd', 'the folder of the workspace the agent starts in');
    relPath(cwd, '$.cwd');
    if (cwd.endsWith('/') || cwd.endsWith('\\')) fail('$.cwd', `"${cwd}" ends with a slash: write the folder without it`);
    onDisk([cwd], () => '$.cwd');
    const files = new Map(Object.keys(isObj(root.files) ? root.files : {}).map((k) => [fold(k), k]));
    const links = new Map(Object.keys(isObj(root.links) ? root.links : {}).map((k) => [fold(k), k]));
    const parts = fold(cwd).split('/');
    for (let n = 1; n <= parts.length; n++) {
      const file = files.get(parts.slice(0, n).join('/'));
      if (file !== undefined) fail('$.cwd', `"${cwd}" needs a folder "${file}", but $.files["${file}"] is a file`);
      // The runner makes the folder: through a link, it would make it wherever the link leads.
      const link = links.get(parts.slice(0, n).join('/'));
      if (link !== undefined) fail('$.cwd', `"${cwd}" passes through $.links["${link}"]: the agent's folder must be a real folder of the workspace`);
    }
  }

  const prompts = required(root, 'prompts', '$', 'what the user types, in order');
  if (!Array.isArray(prompts)) fail('$.prompts', `expected an array of strings (what the user types), got ${typeName(prompts)}`);
  if ((prompts as unknown[]).length === 0) fail('$.prompts', 'must not be empty (give at least one prompt)');
  (prompts as unknown[]).forEach((p, i) => nonEmpty(p, `$.prompts[${i}]`, 'a prompt the user types'));

  if ('answers' in root) {
    if (!Array.isArray(root.answers)) fail('$.answers', `expected an array (scripted permission answers), got ${typeName(root.answers)}`);
    (root.answers as unknown[]).forEach((a, i) => {
      const p = `$.answers[${i}]`;
      const o = object(a, p, 'a permission answer {tool, allow}');
      fields(o, p, ['tool', 'allow', 'shows', 'after_ms', 'after_asked', 'after_stopped', 'asker', 'withdrawn']);
      nonEmpty(required(o, 'tool', p, 'the tool the permission prompt is about'), `${p}.tool`, 'a tool name');
      const allow = required(o, 'allow', p, 'whether the user allows the call');
      if (allow !== null && typeof allow !== 'boolean') fail(`${p}.allow`, `expected true (allow), false (deny) or null (no answer: the input ended), got ${typeName(allow)}`);
      if ('shows' in o) nonEmpty(o.shows, `${p}.shows`, 'text the question must show');
      if ('asker' in o) nonEmpty(o.asker, `${p}.asker`, 'text the question must name as who asks');
      if ('after_ms' in o && (typeof o.after_ms !== 'number' || !(o.after_ms >= 0 && o.after_ms <= MAX_ANSWER_MS))) {
        fail(`${p}.after_ms`, `expected a number of milliseconds from 0 to ${MAX_ANSWER_MS} (how long the person takes to answer), got ${shown(o.after_ms)}`);
      }
      if ('after_asked' in o) {
        nonEmpty(o.after_asked, `${p}.after_asked`, 'the tool whose question this answer waits for');
        // The question waited for is asked after this one, so it takes a later answer.
        const later = (root.answers as unknown[]).slice(i + 1).some((b) => typeof b === 'object' && b !== null && (b as { tool?: unknown }).tool === o.after_asked);
        if (!later) fail(`${p}.after_asked`, `waits for a question for ${shown(o.after_asked)}, but no later answer is for that tool: give the answer it will need after this one`);
      }
      if ('after_stopped' in o) {
        boolean(o.after_stopped, `${p}.after_stopped`, 'whether the person answers only once the agent that asks is stopped');
        // A withdrawn question is gone at the stop: no answer comes after it.
        if (o.after_stopped === true && o.withdrawn === true) fail(`${p}.after_stopped`, 'a withdrawn question is taken back at the stop, so no answer comes after it: give one of the two');
      }
      if ('withdrawn' in o) {
        boolean(o.withdrawn, `${p}.withdrawn`, 'whether the question must be withdrawn before the person answers');
        // Withdrawn by a stop that comes while the person thinks: with no time to think, no stop comes first.
        if (o.withdrawn === true && !((o.after_ms as number) > 0)) fail(`${p}.withdrawn`, 'a question is withdrawn while the person takes time to answer: give after_ms too');
      }
    });
  }
  if ('unattended' in root) {
    boolean(root.unattended, '$.unattended', 'whether nobody is there to answer permission prompts');
    if (root.unattended === true && Array.isArray(root.answers) && root.answers.length > 0) {
      fail('$.answers', 'an unattended run has nobody to answer permission prompts: give no answers, or drop "unattended"');
    }
  }

  // Tracks.
  const tracks = object(required(root, 'tracks', '$', 'the scripted conversations, by name'), '$.tracks', 'track name → track');
  const names = Object.keys(tracks);
  if (names.length === 0) fail('$.tracks', 'must define at least one track (usually "main")');
  for (const name of names) {
    const tp = child('$.tracks', name);
    const t = object(tracks[name], tp, 'a track {match?, turns}');
    fields(t, tp, ['description', 'match', 'turns']);
    if ('description' in t) string(t.description, `${tp}.description`, 'what this conversation is');
    if ('match' in t) {
      const mp = `${tp}.match`;
      const m = object(t.match, mp, 'routing conditions');
      fields(m, mp, ['system', 'user', 'first_user', 'not_user']);
      if (Object.keys(m).length === 0) fail(mp, 'needs at least one condition (system, user, first_user or not_user)');
      for (const [k, v] of Object.entries(m)) nonEmpty(v, child(mp, k), 'a substring to look for');
      // A text that holds `user` (or `first_user`) holds every part of it too, so not_user
      // would turn away every request the rest lets in, and the track would never answer.
      // (first_user joins a message's text blocks with a newline: only a not_user without
      // one surely lies within a single block.)
      const not = m.not_user as string | undefined;
      const clash = not === undefined ? undefined
        : typeof m.user === 'string' && m.user.includes(not) ? 'user'
        : typeof m.first_user === 'string' && m.first_user.includes(not) && !not.includes('\n') ? 'first_user' : undefined;
      if (clash) fail(`${mp}.not_user`, `can never match: "${not}" is part of what ${clash} asks for ("${m[clash] as string}"): a request that has one has the other`);
    } else if (name !== 'main') {
      fail(tp, 'missing "match" (only the track named "main" may omit it: it is the fallback; any other track without a match would never receive a request)');
    }
    const turns = required(t, 'turns', tp, 'the answers of this conversation, in order');
    if (!Array.isArray(turns)) fail(`${tp}.turns`, `expected an array of turns, got ${typeName(turns)}`);
    if ((turns as unknown[]).length === 0) fail(`${tp}.turns`, 'must not be empty (a track needs at least one turn)');
    (turns as unknown[]).forEach((turn, i) => checkTurn(turn, `${tp}.turns[${i}]`));
  }

  function checkTurn(v: unknown, p: string): void {
    const t = object(v, p, 'a turn {text?, tool_calls?, stop_reason?, usage?, latency_ms?, idle_ms?, cache_ttl?, error?}');
    fields(t, p, TURN_FIELDS);
    if ('allow_unoffered' in t) boolean(t.allow_unoffered, `${p}.allow_unoffered`, 'allow calling a tool the request does not offer');
    if (!('text' in t) && !('tool_calls' in t) && !('error' in t)) {
      fail(p, 'a turn needs "text", "tool_calls" or "error" (what the model answers)');
    }
    if ('text' in t) string(t.text, `${p}.text`, 'the assistant text');
    const misspelt = typeof t.text === 'string' ? badTextPlaceholder(t.text) : undefined;
    if (misspelt) fail(`${p}.text`, misspelt);
    if ('tool_calls' in t) {
      if (!Array.isArray(t.tool_calls)) fail(`${p}.tool_calls`, `expected an array of {name, input}, got ${typeName(t.tool_calls)}`);
      (t.tool_calls as unknown[]).forEach((c, i) => {
        const cp = `${p}.tool_calls[${i}]`;
        const call = object(c, cp, 'a tool call {name, input}');
        fields(call, cp, ['name', 'input']);
        if (!('name' in call)) fail(cp, 'missing "name" (a tool call needs the name of the tool to call)');
        nonEmpty(call.name, `${cp}.name`, 'the tool name');
        if (!('input' in call)) fail(cp, 'missing "input" (a tool call needs an input object)');
        if (!isObj(call.input)) fail(`${cp}.input`, `expected an object (the tool's arguments), got ${typeName(call.input)}`);
        // A value taken from the request (fill.ts): its pattern must compile.
        for (const [at, why] of badPatterns(call.input, `${cp}.input`)) fail(at, why);
      });
    }
    if ('stop_reason' in t && !STOP_REASONS.includes(t.stop_reason as string)) {
      fail(`${p}.stop_reason`, `expected one of ${STOP_REASONS.join(', ')}, got ${shown(t.stop_reason)}`);
    }
    if ('usage' in t) {
      const u = object(t.usage, `${p}.usage`, 'usage overrides {output_tokens}');
      fields(u, `${p}.usage`, ['output_tokens']);
      if ('output_tokens' in u) count(u.output_tokens, `${p}.usage.output_tokens`, 'output tokens to report', 1);
    }
    if ('latency_ms' in t) {
      if (typeof t.latency_ms !== 'number' || !(t.latency_ms >= 0 && t.latency_ms <= MAX_WAIT_MS)) {
        fail(`${p}.latency_ms`, `expected a number of milliseconds from 0 to ${MAX_WAIT_MS} (ten minutes), got ${shown(t.latency_ms)}`);
      }
    }
    if ('idle_ms' in t) {
      if (typeof t.idle_ms !== 'number' || !(t.idle_ms >= 0 && t.idle_ms <= MAX_WAIT_MS)) {
        fail(`${p}.idle_ms`, `expected a number of milliseconds from 0 to ${MAX_WAIT_MS} (ten minutes: time that passes on the mock's clock before the response), got ${shown(t.idle_ms)}`);
      }
    }
    if ('cache_ttl' in t && t.cache_ttl !== '5m' && t.cache_ttl !== '1h') {
      fail(`${p}.cache_ttl`, `expected "5m" or "1h" (the TTL this request's cache writes get, whatever its markers ask for), got ${shown(t.cache_ttl)}`);
    }
    if ('error' in t) {
      const ep = `${p}.error`;
      const e = object(t.error, ep, 'an injected API error {status, type?, message?, retry_after?, mid_stream?}');
      fields(e, ep, ['status', 'type', 'message', 'retry_after', 'mid_stream']);
      const status = required(e, 'status', ep, 'the HTTP status to answer with');
      if (!ERROR_STATUSES.includes(status as number)) {
        fail(`${ep}.status`, `expected one of ${ERROR_STATUSES.join(', ')}, got ${shown(status)}`);
      }
      if ('type' in e) nonEmpty(e.type, `${ep}.type`, 'the API error type');
      if ('message' in e) string(e.message, `${ep}.message`, 'the error message');
      if ('retry_after' in e) count(e.retry_after, `${ep}.retry_after`, 'seconds for the retry-after header, which the SDK really waits before its retry', 0, MAX_RETRY_AFTER_S);
      if ('mid_stream' in e) boolean(e.mid_stream, `${ep}.mid_stream`, 'fail after the stream started');
    }
  }

  // Expectations.
  if ('expect' in root) {
    if (!Array.isArray(root.expect)) fail('$.expect', `expected an array of expectations, got ${typeName(root.expect)}`);
    const kinds = Object.keys(EXPECTATION_KINDS);
    const named = new Map<string, number>();   // a name, and the first expectation that has it
    (root.expect as unknown[]).forEach((x, i) => {
      const p = `$.expect[${i}]`;
      const e = object(x, p, 'an expectation {name, <one check>}');
      for (const k of Object.keys(e)) {
        if (k !== 'name' && k !== 'hint' && !kinds.includes(k)) {
          fail(child(p, k), `unknown field "${k}" (allowed here: name, hint and exactly one check of: ${kinds.join(', ')})`);
        }
      }
      const name = nonEmpty(required(e, 'name', p, 'say the expected behaviour in words'), `${p}.name`, 'the behaviour in words');
      oneLineText(name, `${p}.name`);
      // The output, a check's verdict and the self-check's shortcuts name an expectation by its name.
      if (named.has(name)) fail(`${p}.name`, `"${name}" is the name of $.expect[${named.get(name)}] too: give each expectation a name of its own, the one its verdict is shown under`);
      named.set(name, i);
      if ('hint' in e) string(e.hint, `${p}.hint`, 'a hint shown when it fails');
      const given = kinds.filter((k) => k in e);
      if (given.length === 0) fail(p, `missing a check (give exactly one of: ${kinds.join(', ')})`);
      if (given.length > 1) fail(p, `two checks "${given[0]}" and "${given[1]}" in one expectation (give exactly one; split it in two)`);
      const kind = given[0]!;
      const kp = child(p, kind);
      const body = object(e[kind], kp, `the ${kind} check`);
      // "detached" makes the same repository (HEAD on no branch): its branches and worktrees are there to read.
      if (GIT_KINDS.includes(kind) && root.git !== true && root.git !== 'detached') fail(kp, `a ${kind} check reads the workspace's git repository: set "git": true (or "detached") at the top of the scenario`);
      const spec = EXPECTATION_KINDS[kind]!;
      fields(body, kp, Object.keys(spec));
      for (const r of REQUIRED_IN_KIND[kind]!) required(body, r, kp, `a ${kind} check needs "${r}"`);
      if (Object.keys(body).length === 0 && kind !== 'ledger') fail(kp, `needs at least one of: ${Object.keys(spec).join(', ')}`);
      for (const [k, v] of Object.entries(body)) {
        const fp = child(kp, k);
        switch (spec[k]) {
          case 'string':
            string(v, fp, k);
            // Every text holds the empty text: includes would always hold, excludes never.
            if (v === '' && (k === 'includes' || k === 'excludes')) fail(fp, `must not be empty (every text holds the empty text, so ${k} would ${k === 'includes' ? 'always' : 'never'} hold)`);
            break;
          case 'boolean': boolean(v, fp, k); break;
          case 'count': count(v, fp, k, 0); break;
          case 'positive': count(v, fp, `${k}, 1-based`, 1); break;
          case 'path': relPath(string(v, fp, 'a workspace path'), fp); break;
          case 'strings':
            if (!Array.isArray(v)) fail(fp, `expected an array of tool names, got ${typeName(v)}`);
            (v as unknown[]).forEach((s, j) => string(s, `${fp}[${j}]`, 'a tool name'));
            // exactly: [] says the track was offered no tool at all; an empty include or exclude says nothing.
            if (k !== 'exactly' && (v as unknown[]).length === 0) fail(fp, `checks nothing: an empty list ${k === 'include' ? 'includes' : 'excludes'} no tool (name the tools, or leave ${k} out)`);
            break;
          case 'texts':
            if (!Array.isArray(v) || v.length < 2) fail(fp, `expected an array of at least two texts, in the order they must appear, got ${Array.isArray(v) ? `${v.length}` : typeName(v)}`);
            (v as unknown[]).forEach((s, j) => nonEmpty(s, `${fp}[${j}]`, 'a text'));
            break;
          case 'places':
            if (!Array.isArray(v)) fail(fp, `expected an array of places (tools[last], system[0], messages[last].content[last] …; [] for none), got ${typeName(v)}`);
            (v as unknown[]).forEach((s, j) => {
              const place = string(s, `${fp}[${j}]`, 'a place in the request');
              if (!BREAKPOINT_PLACE.test(place)) fail(`${fp}[${j}]`, `"${place}" is no place in a request: write tools[N], system[N], messages[N].content[N] or messages[N].content (a string content), each N a number or "last"`);
              if ((v as unknown[]).indexOf(place) !== j) fail(`${fp}[${j}]`, `"${place}" is listed twice: a block carries one marker at most`);
            });
            break;
          case 'openings':
            if (!Array.isArray(v) || v.length === 0) fail(fp, `expected an array of texts, one for each block, each what that block starts with, got ${Array.isArray(v) ? 'none' : typeName(v)}`);
            (v as unknown[]).forEach((s, j) => nonEmpty(s, `${fp}[${j}]`, 'the text a block starts with'));
            break;
          case 'names':
            if (!Array.isArray(v)) fail(fp, `expected an array of branch names, got ${typeName(v)}`);
            (v as unknown[]).forEach((s, j) => nonEmpty(s, `${fp}[${j}]`, 'a branch name'));
            break;
          case 'tracks':
            if (!Array.isArray(v)) fail(fp, `expected an array of track names, got ${typeName(v)}`);
            (v as unknown[]).forEach((t, j) => {
              const name = string(t, `${fp}[${j}]`, 'a track name');
              if (!names.includes(name)) fail(`${fp}[${j}]`, `no track named "${name}" (defined: ${names.join(', ')})`);
            });
            break;
          case 'track': {
            const t = string(v, fp, 'a track name');
            if (!names.includes(t)) fail(fp, `no track named "${t}" (defined: ${names.join(', ')})`);
            break;
          }
        }
      }
      const checks = CHECKS_IN_KIND[kind];
      if (checks && !checks.some((k) => k in body)) {
        const where = REQUIRED_IN_KIND[kind]!;
        fail(kp, `checks nothing: give at least one of ${checks.join(', ')} (${where.join(' and ')} only ${where.length === 1 ? 'says' : 'say'} where to look)`);
      }
      const clash = contradiction(kind, body);
      if (clash) fail(child(kp, clash[0]), `can never hold: ${clash[1]}`);
      const beyond = pastLastTurn(kind, body, tracks as Record<string, { turns: unknown[] }>);
      if (beyond) fail(child(kp, beyond[0]), `can never hold: ${beyond[1]}`);
      const setup = unusableSetupFile(body, isObj(root.files) ? (root.files as Record<string, string>) : {});
      if (setup) fail(child(kp, setup[0]), setup[1]);
      const idle = idleField(kind, body);
      if (idle) fail(child(kp, idle[0]), `checks nothing: ${idle[1]}`);
      // A placeholder only usage_of fills in would be looked for as it is written, and never seen.
      const unfilled = kind === 'terminal' && !('usage_of' in body) ? (['includes', 'excludes'] as const).find((k) => typeof body[k] === 'string' && /\{(calls|input|output)\}/.test(body[k] as string)) : undefined;
      if (unfilled) fail(child(kp, unfilled), `has ${/\{(calls|input|output)\}/.exec(body[unfilled] as string)![0]}, which only usage_of fills in: name the track whose usage it is`);
    });
  }

  return { ...(root as unknown as Scenario), file };
}

/** The most bytes a scenario file may have: the largest here is under 200 KB; a file far past that is not one. */
const MAX_SCENARIO_BYTES = 32 * 1024 * 1024;

/** Reads and validates a scenario file; `file` is kept as given for messages. */
export async function loadScenario(file: string): Promise<Scenario> {
  let bytes: Buffer;
  try {
    // Only a regular file of a sane size: a device (/dev/zero) would be read without end, and
    // a named pipe with no writer would block the read, and Ctrl-C with it.
    const info = statSync(file);
    if (info.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
    if (!info.isFile()) throw new ScenarioError(file, '', 'not a regular file (a device, a pipe or a socket)');
    if (info.size > MAX_SCENARIO_BYTES) throw new ScenarioError(file, '', `${info.size} bytes: a scenario file has at most ${MAX_SCENARIO_BYTES} (32 MiB)`);
    bytes = readFileSync(file);   // synchronous: a tenth of the CPU of a promise-based read, and scenarios are small
  } catch (e) {
    if (e instanceof ScenarioError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new ScenarioError(file, '', code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'a folder, not a file' : `cannot read the file (${code ?? String(e)})`);
  }
  return parseScenario(decodeUtf8(bytes, file), file);
}

/**
 * The file's text, refusing bytes that are not UTF-8 (a plain read would turn them into
 * U+FFFD without a word, and the scenario would script something its author never wrote).
 */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    let line = 1;
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++;
    const shown = [...bytes.subarray(at, at + 4)].map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
    throw new ScenarioError(file, `byte ${at} (line ${line})`, `not valid UTF-8 (bytes ${shown}…): save the file as UTF-8`);
  }
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) { i++; continue; }
    // Sequence length and the range of the second byte (no overlongs, no surrogates, ≤ U+10FFFF).
    let n: number; let lo = 0x80; let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) { n = 3; if (c === 0xe0) lo = 0xa0; if (c === 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; if (c === 0xf0) lo = 0x90; if (c === 0xf4) hi = 0x8f; }
    else return i;
    if (i + n > b.length) return i;
    if (b[i + 1]! < lo || b[i + 1]! > hi) return i;
    for (let k = 2; k < n; k++) if (b[i + k]! < 0x80 || b[i + k]! > 0xbf) return i;
    i += n;
  }
  return b.length;
}
