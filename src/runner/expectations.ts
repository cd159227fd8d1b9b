// Checks a scenario's `expect` list against what really happened: the requests the
// agent sent (from the mock's event log), what it printed, and the files on disk.
// Nothing here reads the scenario's scripted turns: an expectation that could be
// satisfied by the script alone would test nothing.

import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Expectation, MockEvent, RequestEvent, ResponseEvent, Scenario } from '../mock/types.ts';
import { blocksOf, modelOf, requestsOf, responsesOf, type Block } from './event-log.ts';
import { checkForkCosts, checkForkPrefix, checkOwnForkPrefix } from './fork-checks.ts';
import { weighUsage } from '../mock/index.ts';
import { branchesOf, fileInBranch, worktreesOf } from './git-repo.ts';


/** The most a `file` expectation reads (32 MiB, the mock's own cap on a request). */
const MAX_CHECKED_FILE = 32 * 1024 * 1024;
export interface ExpectationResult {
  name: string;
  ok: boolean;
  /** Why it failed (or what was seen), one line. */
  detail: string;
  hint?: string;
}

export interface Observed {
  events: MockEvent[];
  terminal: string;
  workspace: string;
}

// ---------------------------------------------------------------------------
// Reading blocks (the event log's readers are in event-log.ts)

/** The text of a tool_result block's content (a string, or text blocks). */
export function resultText(block: Block): string {
  const c = block.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((b) => (b as Block).text ?? '').join('\n');
  return '';
}

/** The text of any block: what was written, called or returned. */
function blockText(b: Block): string {
  if (b.type === 'text') return String(b.text ?? '');
  if (b.type === 'tool_result') return resultText(b);
  if (b.type === 'tool_use') return `${String(b.name)} ${JSON.stringify(b.input)}`;
  return '';
}

export interface SentResult { id: string; text: string; isError: boolean; /** the request that first carried it */ seq: number }

/**
 * The tool_results a track sent back for its calls of `tool`, in call order: found in the
 * track's own later requests, so this is what the agent really returned to its model.
 */
export function toolResultsSent(events: MockEvent[], track: string, tool: string): SentResult[] {
  const ids = responsesOf(events, track).flatMap((r) => r.content.filter((b) => b.type === 'tool_use' && b.name === tool).map((b) => (b as { id: string }).id));
  const sent = new Map<string, SentResult>();
  for (const req of requestsOf(events, track)) {
    const messages = (req.body.messages as unknown[]) ?? [];
    for (const m of messages) {
      if ((m as { role?: string }).role !== 'user') continue;
      for (const b of blocksOf(m)) {
        if (b.type === 'tool_result' && typeof b.tool_use_id === 'string' && ids.includes(b.tool_use_id) && !sent.has(b.tool_use_id)) {
          sent.set(b.tool_use_id, { id: b.tool_use_id, text: resultText(b), isError: b.is_error === true, seq: req.seq });
        }
      }
    }
  }
  return ids.flatMap((id) => (sent.has(id) ? [sent.get(id)!] : []));
}

/** The text of the last response a track received. */
export function finalTextOf(events: MockEvent[], track: string): string | undefined {
  const last = responsesOf(events, track).at(-1);
  return last?.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}

/**
 * Which model request each count_tokens request measured: the next one, of any track,
 * carrying the same messages (cache_control marks ignored: they are the agent's choice per
 * call, not part of what is measured; a string content is one text block, as the API reads
 * it). A count has no track of its own, and matching by content reads the same however
 * concurrent agents interleave. A count no model request followed maps to undefined.
 */
export function measuredRequests(events: MockEvent[]): Map<RequestEvent, RequestEvent | undefined> {
  const requests = events.filter((e): e is RequestEvent => e.type === 'request').sort((a, b) => a.seq - b.seq);
  const keys = new Map<number, string>();
  const keyOf = (r: RequestEvent) => JSON.stringify(
    ((r.body.messages as { role: string; content: unknown }[] | undefined) ?? []).map((m) => ({ role: m.role, content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content })),
    (k, v: unknown) => (k === 'cache_control' ? undefined : v));
  const key = (r: RequestEvent) => keys.get(r.seq) ?? keys.set(r.seq, keyOf(r)).get(r.seq)!;
  const out = new Map<RequestEvent, RequestEvent | undefined>();
  for (const count of requests.filter((r) => r.path.endsWith('/count_tokens'))) {
    const k = key(count);
    out.set(count, requests.find((r) => r.seq > count.seq && r.path === '/v1/messages' && r.track !== null && key(r) === k));
  }
  return out;
}

/**
 * Text as a failure message quotes it: line breaks, tabs and other control characters shown
 * as escapes (\n, \t, \u001b). Folded into spaces, "…]\nWritten by" and "…] Written by"
 * would read the same, and the learner could not see what differs.
 */
function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (ch) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The first `n` UTF-16 units of `text`, one fewer where the last would be half of a character (an emoji's surrogate pair). */
function head(text: string, n: number): string {
  const last = text.charCodeAt(n - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? n - 1 : n);
}

/**
 * Why the last user message of `messages` is not exactly these blocks, each a text block
 * that starts with its text (undefined: it is). A string content is one text, no block.
 */
function userBlocksDiffer(messages: unknown[], openings: string[]): string | undefined {
  const last = [...messages].reverse().find((m) => (m as { role?: unknown }).role === 'user') as { content?: unknown } | undefined;
  const want = `${openings.length} text block${openings.length === 1 ? '' : 's'}`;
  if (!last) return `is missing: the request has no user message, expected ${want}`;
  if (!Array.isArray(last.content)) return `is one string ("${short(String(last.content ?? ''))}"), not ${want}`;
  const blocks = last.content as Block[];
  if (blocks.length !== openings.length) return `has ${blocks.length} block${blocks.length === 1 ? '' : 's'} (${blocks.map((b) => String(b.type)).join(', ')}), expected ${want}`;
  for (const [i, b] of blocks.entries()) {
    if (b.type !== 'text') return `has a ${String(b.type)} block as block ${i + 1}, expected a text block starting "${short(openings[i]!)}"`;
    if (!String(b.text ?? '').startsWith(openings[i]!)) return `has block ${i + 1} starting "${short(String(b.text ?? ''), 40)}", expected "${short(openings[i]!)}"`;
  }
  return undefined;
}

/** The start of a text, visible, cut at `max` characters. */
function short(text: string, max = 90): string {
  const shown = visible(text.trim());
  return shown.length > max ? `${head(shown, max - 1)}…` : shown;
}

/**
 * The part of `text` nearest to what a check looked for: around the longest piece of `wanted`
 * found in it (sharedPiece: half of wanted, six to ten characters at least); the text's start
 * when none is. A report's header is rarely where the line the learner got wrong is. A text
 * that fits is shown whole.
 */
function near(text: string, wanted: string, max = 90): string {
  if (visible(text.trim()).length <= max) return short(text, max);
  const piece = sharedPiece(text, wanted);
  return piece === undefined ? short(text, max) : excerptAt(text, piece.at, piece.from, max);
}

/**
 * The part of `text` around the first place it holds `unwanted`, for a check that found there
 * what must not be (it is there: the check has just found it, however short it is). A text
 * that fits is shown whole.
 */
function around(text: string, unwanted: string, max = 90): string {
  if (visible(text.trim()).length <= max) return short(text, max);
  return excerptAt(text, text.indexOf(unwanted), 0, max);
}

/**
 * Two texts that should be equal, each cut to the part where they first differ: two long
 * files cut at their start alike would show the same words twice and hide the difference.
 * Texts that fit are shown whole.
 */
function whereTheyDiffer(got: string, wanted: string, max = 90): [string, string] {
  let at = 0;
  while (at < got.length && got[at] === wanted[at]) at++;
  // Not trimmed: a difference of a trailing line break is a difference too.
  return [got, wanted].map((text) => (visible(text).length <= max ? visible(text) : excerptAt(text, at, 0, max))) as [string, string];
}

/**
 * An excerpt of `text`, `max` characters at most, that shows what is at `at` (`from`
 * characters into what the check looked for).
 */
function excerptAt(text: string, at: number, from: number, max: number): string {
  // From the start of its line when the piece is near enough to it to be shown too (a line is
  // read from its start: the error's kind, the label), the line break before it included;
  // otherwise from a little before the piece.
  const line = text.lastIndexOf('\n', at - 1) + 1;
  let start = at - line <= max - 20 ? Math.max(0, line - 1) : at - from - 10;
  if (start <= 0) return short(text, max);
  const second = text.charCodeAt(start);
  if (second >= 0xdc00 && second <= 0xdfff) start++;   // not from the second half of a character
  const shown = visible(text.slice(start));
  return `…${shown.length > max - 1 ? `${head(shown, max - 2)}…` : shown}`;
}

/**
 * Where in `text` the longest piece of `wanted` (24 characters at most) is: `at` in text,
 * `from` in wanted. Undefined when no piece of half of wanted is there (six characters at
 * least, ten at most): a short common word ("worktree" in a path, for "git worktree add
 * failed") says nothing of where the line the check looked for should have been.
 */
function sharedPiece(text: string, wanted: string): { at: number; from: number } | undefined {
  const least = Math.min(10, Math.max(6, Math.ceil(wanted.length / 2)));
  for (let size = Math.min(24, wanted.length); size >= least; size--) {
    for (let from = 0; from + size <= wanted.length; from++) {
      const at = text.indexOf(wanted.slice(from, from + size));
      if (at >= 0) return { at, from };
    }
  }
  return undefined;
}

/** The line of `text` that holds the longest piece of `wanted`, as a failure quotes it; undefined when none does. */
function nearestLine(text: string, wanted: string): string | undefined {
  const piece = sharedPiece(text, wanted);
  if (piece === undefined) return undefined;
  // A piece that begins with a line break (the text looked for spans two lines) is quoted
  // from the line after the break: the break itself ends a line and holds none of it.
  let at = piece.at;
  while (text[at] === '\n' || text[at] === '\r') at++;
  const start = text.lastIndexOf('\n', at) + 1;
  const end = text.indexOf('\n', at);
  return short(text.slice(start, end < 0 ? undefined : end), 120);
}

/**
 * A terminal text with `{calls}`, `{input}` and `{output}` standing for what the mock reported
 * to `track`: its responses, and their input with cache writes and reads (what a sub-agent's
 * usage line counts). A number the text fixed would hold only for the reference's exact bytes.
 */
function withUsage(text: string, events: MockEvent[], track: string): string {
  const responses = responsesOf(events, track);
  const sum = (f: (r: ResponseEvent) => number) => responses.reduce((a, r) => a + f(r), 0);
  const values: Record<string, number> = {
    calls: responses.length,
    input: sum((r) => r.usage.input_tokens + r.usage.cache_creation_input_tokens + r.usage.cache_read_input_tokens),
    output: sum((r) => r.usage.output_tokens),
  };
  return text.replace(/\{(calls|input|output)\}/g, (_, name: string) => String(values[name]));
}

// ---------------------------------------------------------------------------
// The checks

export async function checkExpectations(scenario: Scenario, seen: Observed): Promise<ExpectationResult[]> {
  const results: ExpectationResult[] = [];
  const repo = repositoryAfterRun(seen.workspace);
  for (const exp of scenario.expect ?? []) {
    let detail: string | true;
    try {
      detail = await checkOne(exp, scenario, seen, repo);
    } catch (err) {
      detail = err instanceof Error ? err.message : String(err);
    }
    results.push({ name: exp.name, ok: detail === true, detail: detail === true ? 'ok' : detail, hint: exp.hint });
  }
  return results;
}

/**
 * Text with each line's leading white space dropped. From chapter 13 on a report comes back
 * framed, every line indented (scan.ts): it still carries the track's text, line for line.
 */
function unindented(text: string): string {
  return text.split('\n').map((line) => line.trimStart()).join('\n');
}

/**
 * `in_order`: each text found after the end of the one before it. Undefined when they are all
 * there in that order; otherwise what is missing, or out of place.
 */
function outOfOrder(text: string, parts: readonly string[]): string | undefined {
  let at = 0;
  for (const [i, part] of parts.entries()) {
    const found = text.indexOf(part, at);
    if (found >= 0) { at = found + part.length; continue; }
    if (i > 0 && text.includes(part)) return `has "${short(part, 40)}" only before "${short(parts[i - 1]!, 40)}"`;
    return `lacks "${short(part, 40)}"`;
  }
  return undefined;
}

/**
 * The workspace repository's branches, linked worktrees and files on a branch, each read with
 * one git call the first time a check asks, for all the checks of the run: the run is over,
 * and a scenario has several `branch` checks, often two of the same file (what it must hold,
 * what it must not).
 */
interface RepositoryAfterRun {
  branches(): Promise<string[]>;
  worktrees(): Promise<{ dir: string; branch: string }[]>;
  file(branch: string, file: string): Promise<string | undefined>;
}

function repositoryAfterRun(workspace: string): RepositoryAfterRun {
  let branches: Promise<string[]> | undefined;
  let worktrees: Promise<{ dir: string; branch: string }[]> | undefined;
  const files = new Map<string, Promise<string | undefined>>();
  return {
    branches: () => (branches ??= branchesOf(workspace)),
    worktrees: () => (worktrees ??= worktreesOf(workspace)),
    file: (branch, file) => {
      const key = `${branch}\0${file}`;
      if (!files.has(key)) files.set(key, fileInBranch(workspace, branch, file));
      return files.get(key)!;
    },
  };
}

/** true when the expectation holds; otherwise a one-line reason. */
async function checkOne(exp: Expectation, scenario: Scenario, seen: Observed, repo: RepositoryAfterRun): Promise<string | true> {
  const { events } = seen;
  if ('tool_result' in exp) {
    const t = exp.tool_result;
    const all = toolResultsSent(events, t.track, t.tool);
    const n = t.call ?? 1;
    const r = all[n - 1];
    // Which call was looked at, so a learner can find it in the transcript (--trace numbers the requests).
    const call = `${t.track}'s ${t.tool} call #${n}`;
    if (!r) return `${call}: no tool_result was sent back (${all.length} sent for ${t.tool})`;
    const looked = `${call} (its result went back in request #${r.seq})`;
    // (A result without the field and one with is_error: false are the same to the API.)
    if (t.is_error !== undefined && r.isError !== t.is_error) return `${looked}: ${t.is_error ? 'the result is not flagged is_error: true' : 'the result is flagged is_error: true, expected no error'}: "${short(r.text)}"`;
    if (t.includes !== undefined && !r.text.includes(t.includes)) return `${looked}: the result lacks "${visible(t.includes)}": got "${near(r.text, t.includes)}"`;
    // Quoted around what it must not hold: the result's start may end before that line.
    if (t.excludes !== undefined && r.text.includes(t.excludes)) return `${looked}: the result contains "${visible(t.excludes)}": "${around(r.text, t.excludes)}"`;
    if (t.includes_file !== undefined) {
      const content = scenario.files?.[t.includes_file];
      if (content === undefined) return `scenario has no file ${t.includes_file}`;
      if (!r.text.includes(content.trim())) return `${looked}: the result does not contain the content of ${t.includes_file}: got "${short(r.text)}"`;
    }
    if (t.includes_track_text !== undefined) {
      const text = finalTextOf(events, t.includes_track_text);
      // What came back instead (a failure's own words) is what says why it never did.
      if (!text) return `${looked}: track ${t.includes_track_text} never answered; the result was "${short(r.text)}"`;
      if (!unindented(r.text).includes(unindented(text.trim()))) return `${looked}: the result is not ${t.includes_track_text}'s report: got "${short(r.text)}"`;
    }
    return true;
  }
  if ('file' in exp) {
    const f = exp.file;
    let content: string | undefined;
    let other: string | undefined;   // what is there instead of a file
    // Looked at before it is read: a shell command can leave a named pipe there (mkfifo), or a
    // link to /dev/zero, and reading either would hold the check, and the run, for good.
    try {
      const st = statSync(path.join(seen.workspace, f.path));
      if (st.isDirectory()) other = 'a folder, not a file';
      else if (!st.isFile()) other = 'a pipe or a device, not a file';
      else if (st.size > MAX_CHECKED_FILE) other = `${st.size} bytes long: more than a check reads (32 MiB)`;
      else content = readFileSync(path.join(seen.workspace, f.path), 'utf8');
    } catch { /* not there */ }
    if (f.exists === false) return content === undefined && other === undefined ? true : `${f.path} exists but should not`;
    if (content === undefined) return other ? `${f.path} is ${other}` : `${f.path} does not exist`;
    if (f.equals !== undefined && content !== f.equals) {
      const [got, wanted] = whereTheyDiffer(content, f.equals);
      return `${f.path} is "${got}", expected "${wanted}"`;
    }
    if (f.includes !== undefined && !content.includes(f.includes)) return `${f.path} lacks "${visible(f.includes)}": "${near(content, f.includes)}"`;
    return true;
  }
  if ('requests' in exp) {
    const r = exp.requests;
    const n = requestsOf(events, r.track).length;
    // Requests that reached no track (the API refused them before any script saw them, or no
    // script matched them) are not the track's, but they are in the run's count: say so.
    const astray = events.filter((e) => e.type === 'request' && e.track === null && e.path === '/v1/messages').length;
    const sent = `${r.track} sent ${n} request${n === 1 ? '' : 's'}${astray > 0 ? ` (and ${astray} more that reached no track: refused by the API, or matched by no script)` : ''}`;
    if (r.count !== undefined && n !== r.count) return `${sent}, expected ${r.count}`;
    if (r.min !== undefined && n < r.min) return `${sent}, expected at least ${r.min}`;
    if (r.max !== undefined && n > r.max) return `${sent}, expected at most ${r.max}`;
    if (r.counted !== undefined) {
      const counted = [...measuredRequests(events).values()].filter((m) => m?.track === r.track).length;
      if (counted !== r.counted) return `${counted} count_tokens request${counted === 1 ? '' : 's'} measured ${r.track}'s requests, expected ${r.counted}`;
    }
    return true;
  }
  if ('tools' in exp) {
    const t = exp.tools;
    const reqs = requestsOf(events, t.track);
    if (reqs.length === 0) return `${t.track} sent no request`;
    for (const req of reqs) {
      const names = req.tool_names;
      for (const name of t.include ?? []) if (!names.includes(name)) return `${t.track} request #${req.seq} lacks tool ${name} (had: ${names.join(', ')})`;
      for (const name of t.exclude ?? []) if (names.includes(name)) return `${t.track} request #${req.seq} offers ${name} (had: ${names.join(', ')})`;
      if (t.exactly && [...names].sort().join(',') !== [...t.exactly].sort().join(',')) return `${t.track} offered [${names.join(', ')}], expected exactly [${t.exactly.join(', ')}]`;
    }
    return true;
  }
  if ('system' in exp) {
    const s = exp.system;
    const reqs = requestsOf(events, s.track);
    if (reqs.length === 0) return `${s.track} sent no request`;
    for (const req of reqs) {
      if (s.includes !== undefined && !req.system_text.includes(s.includes)) return `${s.track} system prompt lacks "${visible(s.includes)}"`;
      if (s.excludes !== undefined && req.system_text.includes(s.excludes)) return `${s.track} system prompt contains "${visible(s.excludes)}"`;
      const order = s.in_order && outOfOrder(req.system_text, s.in_order);
      if (order) return `${s.track} request #${req.seq}'s system prompt ${order}`;
    }
    return true;
  }
  if ('system_stable' in exp) {
    const { track: t, also } = exp.system_stable;
    const reqs = [...requestsOf(events, t), ...(also === undefined ? [] : requestsOf(events, also))].sort((a, b) => a.seq - b.seq);
    const which = also === undefined ? t : `${t} and ${also}`;
    if (reqs.length < 2) return `${which} sent ${reqs.length} request(s); stability needs at least two`;
    const changed = reqs.find((r) => r.system_text !== reqs[0]!.system_text);
    return changed ? `${changed.track} request #${changed.seq} sent other system bytes than ${reqs[0]!.track} request #${reqs[0]!.seq}` : true;
  }
  if ('never' in exp) {
    const n = requestsOf(events, exp.never.track).length;
    return n === 0 ? true : `${exp.never.track} received ${n} request(s); it should never have started`;
  }
  if ('streamed' in exp) {
    const s = exp.streamed;
    const reqs = requestsOf(events, s.track);
    if (reqs.length === 0) return `${s.track} sent no request`;
    const notStreamed = reqs.find((r) => !r.stream);
    if (notStreamed) return `${s.track} request #${notStreamed.seq} did not ask for a stream`;
    const min = s.min_deltas ?? 2;
    const thin = responsesOf(events, s.track).find((r) => r.deltas < min);
    if (thin) return `${s.track} response #${thin.seq} had ${thin.deltas} deltas, expected at least ${min}`;
    return true;
  }
  if ('usage' in exp) {
    const u = exp.usage;
    const resp = responsesOf(events, u.track)[u.request - 1];
    if (!resp) return `${u.track} has no response #${u.request}`;
    const read = resp.usage.cache_read_input_tokens;
    const write = resp.usage.cache_creation_input_tokens;
    if (u.cache_read_min !== undefined && read < u.cache_read_min) return `${u.track} #${u.request} read ${read} cached tokens, expected ≥ ${u.cache_read_min}`;
    if (u.cache_read_max !== undefined && read > u.cache_read_max) return `${u.track} #${u.request} read ${read} cached tokens, expected ≤ ${u.cache_read_max}`;
    if (u.cache_write_min !== undefined && write < u.cache_write_min) return `${u.track} #${u.request} wrote ${write} cache tokens, expected ≥ ${u.cache_write_min}`;
    if (u.cache_write_max !== undefined && write > u.cache_write_max) return `${u.track} #${u.request} wrote ${write} cache tokens, expected ≤ ${u.cache_write_max}`;
    const hour = resp.usage.cache_creation.ephemeral_1h_input_tokens;
    if (u.cache_write_1h_min !== undefined && hour < u.cache_write_1h_min) return `${u.track} #${u.request} wrote ${hour} cache tokens with the 1-hour TTL, expected ≥ ${u.cache_write_1h_min}`;
    if (u.cache_write_1h_max !== undefined && hour > u.cache_write_1h_max) return `${u.track} #${u.request} wrote ${hour} cache tokens with the 1-hour TTL (2× the input price), expected ≤ ${u.cache_write_1h_max}`;
    return true;
  }
  if ('breakpoints' in exp) return checkBreakpoints(exp.breakpoints, events);
  if ('terminal' in exp) {
    const t = exp.terminal;
    const filled = (text: string | undefined) => (text === undefined || t.usage_of === undefined ? text : withUsage(text, events, t.usage_of));
    const [includes, excludes] = [filled(t.includes), filled(t.excludes)];
    if (includes !== undefined && !seen.terminal.includes(includes)) {
      // What it printed instead, when a line comes close: the check says what it wanted, the learner needs to see what it got.
      const closest = nearestLine(seen.terminal, includes);
      return `the terminal never showed "${visible(includes)}"${closest === undefined ? '' : `; the nearest it came: "${closest}"`}`;
    }
    if (excludes !== undefined && seen.terminal.includes(excludes)) return `the terminal showed "${visible(excludes)}"`;
    return true;
  }
  if ('model' in exp) {
    const m = exp.model;
    const reqs = requestsOf(events, m.track);
    if (reqs.length === 0) return `${m.track} sent no request`;
    const other = reqs.find((r) => r.model !== m.equals);
    return other ? `${m.track} asked for model ${other.model}, expected ${m.equals}` : true;
  }
  if ('fresh_context' in exp) {
    const f = exp.fresh_context;
    const first = requestsOf(events, f.track)[0];
    if (!first) return `${f.track} sent no request`;
    const n = (first.body.messages as unknown[]).length;
    return n === (f.messages ?? 1) ? true : `${f.track} started with ${n} messages, expected ${f.messages ?? 1} (a fresh context)`;
  }
  if ('isolated' in exp) {
    const { track, from } = exp.isolated;
    const foreign = new Set(responsesOf(events, from).flatMap((r) => r.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))));
    if (foreign.size === 0) return `${from} made no tool call, so isolation cannot be shown`;
    for (const req of requestsOf(events, track)) {
      const text = JSON.stringify(req.body.messages);
      for (const id of foreign) if (text.includes(id)) return `${track} request #${req.seq} carries ${from}'s tool call ${id}`;
    }
    return true;
  }
  if ('history' in exp) {
    const h = exp.history;
    const req = requestsOf(events, h.track)[h.request - 1];
    if (!req) return `${h.track} sent no request #${h.request}`;
    const messages = (req.body.messages as unknown[]) ?? [];
    if (h.messages !== undefined && messages.length !== h.messages) return `${h.track} request #${h.request} had ${messages.length} messages, expected ${h.messages}`;
    if (h.max !== undefined && messages.length > h.max) return `${h.track} request #${h.request} had ${messages.length} messages, expected at most ${h.max}`;
    const text = messages.flatMap((m) => blocksOf(m).map(blockText)).join('\n');
    if (h.includes_track_text !== undefined) {
      const want = finalTextOf(events, h.includes_track_text);
      if (!want) return `track ${h.includes_track_text} never answered`;
      if (!unindented(text).includes(unindented(want.trim()))) return `${h.track} request #${h.request} does not carry ${h.includes_track_text}'s text "${short(want)}"`;
    }
    if (h.includes !== undefined && !text.includes(h.includes)) return `${h.track} request #${h.request} does not carry "${short(h.includes)}"`;
    if (h.excludes !== undefined && text.includes(h.excludes)) return `${h.track} request #${h.request} carries "${short(h.excludes)}"`;
    const order = h.in_order && outOfOrder(text, h.in_order);
    if (order) return `${h.track} request #${h.request} ${order}`;
    if (h.last_user_blocks !== undefined) {
      const shape = userBlocksDiffer(messages, h.last_user_blocks);
      if (shape) return `${h.track} request #${h.request}'s last user message ${shape}`;
    }
    for (const [file, want] of [[h.includes_file, true], [h.excludes_file, false]] as const) {
      if (file === undefined) continue;
      const content = scenario.files?.[file];
      if (content === undefined) return `scenario has no file ${file}`;
      if (text.includes(content.trim()) !== want) return `${h.track} request #${h.request} ${want ? 'lacks' : 'still carries'} the content of ${file}`;
    }
    return true;
  }
  if ('ledger' in exp) {
    const line = seen.terminal.split('\n').reverse().find((l) => l.startsWith('ledger: '));
    if (!line) return 'the agent printed no "ledger:" line';
    const tracks = exp.ledger.tracks;
    const responses = events.filter((e): e is ResponseEvent => e.type === 'response' && e.track !== null && (!tracks || tracks.includes(e.track)));
    // A track named here must have spent something: "the sub-agent's usage is in the ledger"
    // is no behaviour at all when no sub-agent ever ran.
    const idle = tracks?.find((t) => !responses.some((r) => r.track === t));
    if (idle) return `${idle} was never answered: there is no usage of it to add up`;
    const sum = (f: (r: ResponseEvent) => number) => responses.reduce((a, r) => a + f(r), 0);
    const expected = `ledger: calls=${responses.length} input=${sum((r) => r.usage.input_tokens)} output=${sum((r) => r.usage.output_tokens)} ` +
      `cache_write=${sum((r) => r.usage.cache_creation_input_tokens)} cache_read=${sum((r) => r.usage.cache_read_input_tokens)}`;
    if (line.trim() !== expected) return `the agent reported "${line.trim()}", the API reported "${expected}"`;
    if (exp.ledger.cost) {
      // Each response at its model's documented cache prices, in thousandths so the sum is exact.
      const cost = sum((r) => weighUsage(r.usage, modelOf(events, r))) / 1000;
      const costLine = seen.terminal.split('\n').reverse().find((l) => l.startsWith('cost: '));
      if (!costLine) return 'the agent printed no "cost:" line';
      const reported = Number(/^cost: ([\d.]+) /.exec(costLine)?.[1]);
      if (reported !== cost) return `the agent reported "${costLine.trim()}", the API's usage at the documented prices is ${cost}`;
    }
    return true;
  }
  if ('fork_prefix' in exp) return exp.fork_prefix.own ? checkOwnForkPrefix(exp.fork_prefix, events) : checkForkPrefix(exp.fork_prefix, events);
  if ('fork_costs' in exp) return checkForkCosts(exp.fork_costs, events, seen.terminal);
  if ('concurrent' in exp) return checkConcurrent(exp.concurrent.tracks, events);
  if ('while_running' in exp) return checkWhileRunning(exp.while_running, events);
  if ('notification' in exp) return checkNotification(exp.notification, scenario, events);
  if ('branch' in exp) {
    const b = exp.branch;
    const branches = await repo.branches();
    const exists = branches.includes(b.name);
    if (b.exists === false) return exists ? `the branch ${b.name} exists but should not` : true;
    if (!exists) return `there is no branch ${b.name} (branches: ${branches.join(', ')})`;
    if (b.path === undefined) return true;
    const content = await repo.file(b.name, b.path);
    if (content === undefined) return `the branch ${b.name} has no file ${b.path}`;
    if (b.includes !== undefined && !content.includes(b.includes)) return `${b.path} on branch ${b.name} lacks "${visible(b.includes)}": "${near(content, b.includes)}"`;
    if (b.excludes !== undefined && content.includes(b.excludes)) return `${b.path} on branch ${b.name} contains "${visible(b.excludes)}": "${around(content, b.excludes)}"`;
    return true;
  }
  if ('worktrees' in exp) {
    const w = exp.worktrees;
    const found = await repo.worktrees();
    const shown = found.length === 0 ? 'none' : found.map((f) => `${path.basename(f.dir)} on ${f.branch}`).join(', ');
    if (w.count !== undefined && found.length !== w.count) return `the repository has ${found.length} linked worktree${found.length === 1 ? '' : 's'} (${shown}), expected ${w.count}`;
    const branches = found.map((f) => f.branch).sort();
    if (w.branches !== undefined && branches.join(',') !== [...w.branches].sort().join(',')) return `the worktrees have the branches [${branches.join(', ')}], expected [${w.branches.join(', ')}]`;
    if (w.outside !== undefined) {
      if (found.length === 0) return 'the repository has no linked worktree to look at';
      // git names a worktree by its real path, symbolic links resolved: so is the workspace here.
      const top = realpathSync(seen.workspace);
      const within = (dir: string) => { const rel = path.relative(top, dir); return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)); };
      const wrong = found.find((f) => within(f.dir) === w.outside);
      if (wrong) return `the worktree ${path.basename(wrong.dir)} (on ${wrong.branch}) lies ${w.outside ? 'inside' : 'outside'} the workspace: ${wrong.dir}`;
    }
    return true;
  }
  return `unknown expectation kind in "${(exp as Expectation).name}"`;
}

/**
 * A place a `breakpoints` check names, in this request's terms: each `last` the index of the
 * last element of its list (`tools[last]` of six tools is `tools[5]`), as the event log names a
 * breakpoint. Undefined when the request has no such list (no tools, a string system prompt, a
 * string content asked for by block).
 */
function placeIn(place: string, body: Record<string, unknown>): string | undefined {
  const index = (list: unknown, i: string): number | undefined => (Array.isArray(list) && list.length > 0 ? (i === 'last' ? list.length - 1 : Number(i)) : undefined);
  const top = /^(tools|system)\[(\d+|last)\]$/.exec(place);
  if (top) {
    const i = index(body[top[1]!], top[2]!);
    return i === undefined ? undefined : `${top[1]}[${i}]`;
  }
  const msg = /^messages\[(\d+|last)\]\.content(?:\[(\d+|last)\])?$/.exec(place);
  if (!msg) return undefined;
  const messages = body.messages;
  const m = index(messages, msg[1]!);
  if (m === undefined) return undefined;
  const content = ((messages as unknown[])[m] as { content?: unknown } | undefined)?.content;
  if (msg[2] === undefined) return typeof content === 'string' ? `messages[${m}].content` : undefined;
  const b = index(content, msg[2]);
  return b === undefined ? undefined : `messages[${m}].content[${b}]`;
}

/**
 * `breakpoints`: the blocks that carry cache_control in each request of the track (or request
 * number `request`) are exactly the places named. A marker left on a stored message shows
 * here as one more place, well before it makes the API refuse a request with a fifth.
 */
function checkBreakpoints(b: { track: string; request?: number; at: string[] }, events: MockEvent[]): string | true {
  const all = requestsOf(events, b.track);
  const looked = b.request === undefined ? all : all.slice(b.request - 1, b.request);
  if (looked.length === 0) return `${b.track} sent no request${b.request === undefined ? '' : ` #${b.request}`}`;
  const named = b.at.length === 0 ? 'none' : b.at.join(', ');
  for (const req of looked) {
    const found = req.breakpoints.map((x) => x.where);
    const has = `its breakpoints: ${found.length === 0 ? 'none' : found.join(', ')}`;
    const wanted: string[] = [];
    for (const place of b.at) {
      const where = placeIn(place, req.body);
      if (where === undefined || !found.includes(where)) {
        return `${b.track} request #${req.seq} has no breakpoint at ${place}${where !== undefined && where !== place ? ` (${where})` : ''}; ${has}`;
      }
      wanted.push(where);
    }
    const extra = found.find((w) => !wanted.includes(w));
    if (extra !== undefined) return `${b.track} request #${req.seq} has a breakpoint at ${extra}, which is none of the places expected (${named}); ${has}`;
  }
  return true;
}

/**
 * `concurrent`: each track's life runs from its first request's arrival to its last answer
 * (response or error), by the mock's clock. Taken in order of their start, every track must
 * start before the tracks started earlier have all finished: then no track waited for the
 * others to be done, and from the first start to the last answer one of them was always in
 * flight. Run one after another, each would start only after the previous one had ended.
 * (Not "all in flight at one moment": with no scripted latency the mock answers a short
 * track before it has even read the twentieth track's first request.)
 */
function checkConcurrent(tracks: string[], events: MockEvent[]): string | true {
  if (tracks.length < 2) return 'concurrent needs at least two tracks';
  const spans = tracks.map((track) => {
    const starts = requestsOf(events, track).map((e) => e.time);
    const ends = events.filter((e) => (e.type === 'response' || e.type === 'error') && e.track === track).map((e) => e.time);
    return { track, start: Math.min(...starts), end: Math.max(...ends), requests: starts.length };
  });
  const idle = spans.find((s) => s.requests === 0);
  if (idle) return `${idle.track} got no request`;
  spans.sort((a, b) => a.start - b.start);
  const t0 = spans[0]!.start;
  const ms = (t: number) => `${Math.round(t - t0)} ms`;
  let done = spans[0]!;   // of the tracks started so far, the one that finished last
  for (const s of spans.slice(1)) {
    if (s.start >= done.end) {
      return `not at the same time: ${s.track} started at ${ms(s.start)}, after every track before it had finished (the last, ${done.track}, at ${ms(done.end)}): ` +
        spans.map((x) => `${x.track} ${ms(x.start)}–${ms(x.end)}`).join(', ');
    }
    if (s.end > done.end) done = s;
  }
  return true;
}

/** When a track's last answer (response or error) went out, by the mock's clock. */
function endOf(events: MockEvent[], track: string): number | undefined {
  const ends = events.filter((e) => (e.type === 'response' || e.type === 'error') && e.track === track).map((e) => e.time);
  return ends.length === 0 ? undefined : Math.max(...ends);
}

/**
 * `while_running`: the request arrived before the other track's last answer. A parent that
 * waited for its background agent would send it only after that answer.
 */
function checkWhileRunning(w: { track: string; request: number; other: string }, events: MockEvent[]): string | true {
  const req = requestsOf(events, w.track)[w.request - 1];
  if (!req) return `${w.track} sent no request #${w.request}`;
  const end = endOf(events, w.other);
  if (end === undefined) return `${w.other} got no answer, so it never ran`;
  const t0 = Math.min(...events.map((e) => e.time));
  const ms = (t: number) => `${Math.round(t - t0)} ms`;
  if (req.time >= end) return `${w.track}'s request #${w.request} (#${req.seq}) went out at ${ms(req.time)}, after ${w.other} had finished at ${ms(end)}: it waited`;
  return true;
}

/** The text of every message of a request, one string per message. */
function messageTexts(req: RequestEvent): { role: string; text: string; hasResult: boolean; blocks: Block[] }[] {
  return ((req.body.messages as unknown[]) ?? []).map((m) => {
    const blocks = blocksOf(m);
    return { role: String((m as { role?: string }).role), text: blocks.map(blockText).join('\n'), hasResult: blocks.some((b) => b.type === 'tool_result'), blocks };
  });
}

/**
 * `notification`: where a background agent's report first reached the track, and how. The
 * notification is found by the id of the call it answers; what it must carry (the agent's
 * final text, a string, a file's content) must not have reached the track any earlier.
 */
function checkNotification(
  n: { track: string; tool: string; call?: number; status: string; from?: string; includes?: string; includes_file?: string; usage?: boolean; usage_with?: string[] },
  scenario: Scenario, events: MockEvent[],
): string | true {
  const k = n.call ?? 1;
  const calls = responsesOf(events, n.track).flatMap((r) => r.content.flatMap((b) => (b.type === 'tool_use' && b.name === n.tool ? [{ id: b.id, seq: r.seq }] : [])));
  const call = calls[k - 1];
  if (!call) return `${n.track} made no ${n.tool} call #${k} (${calls.length} made)`;
  const what = `the notification for ${n.track}'s ${n.tool} call #${k} (${call.id})`;
  const reqs = requestsOf(events, n.track);
  const marker = `<tool-use-id>${call.id}</tool-use-id>`;
  let found: { req: RequestEvent; index: number; text: string; hasResult: boolean } | undefined;
  for (const req of reqs) {
    const at = messageTexts(req).findIndex((m) => m.role === 'user' && m.blocks.some((b) => b.type === 'text' && String(b.text).includes('<task-notification>') && String(b.text).includes(marker)));
    if (at >= 0) {
      const m = messageTexts(req)[at]!;
      found = { req, index: at, text: m.blocks.map((b) => (b.type === 'text' && String(b.text).includes(marker) ? String(b.text) : '')).join(''), hasResult: m.hasResult };
      break;
    }
  }
  if (!found) return `${n.track} never received ${what}`;
  const where = `${what}, first in request #${found.req.seq}`;
  // One block, one notification: the fields read below are this call's, not another agent's.
  const together = found.text.split('<task-notification>').length - 1;
  if (together > 1) return `${where}: it shares one text block with ${together - 1} other notification${together === 2 ? '' : 's'}: each goes in a block of its own (deliverNotifications)`;
  if (found.hasResult) return `${where}: delivered inside the message that carries tool_results, not in a message of its own`;
  const texts = messageTexts(found.req);
  const answered = texts.findIndex((m) => m.blocks.some((b) => b.type === 'tool_result' && b.tool_use_id === call.id));
  if (answered < 0 || answered > found.index) return `${where}: it comes before the call's own tool_result`;
  const status = /<status>([^<]*)<\/status>/.exec(found.text)?.[1];
  if (status !== n.status) return `${where}: status is ${status === undefined ? 'missing' : `"${status}"`}, expected "${n.status}"`;
  const payloads: [string, string][] = [];
  if (n.from !== undefined) {
    const text = finalTextOf(events, n.from);
    if (!text) return `track ${n.from} never answered`;
    payloads.push([`${n.from}'s report`, text.trim()]);
  }
  if (n.includes !== undefined) payloads.push([`"${short(n.includes, 40)}"`, n.includes]);
  if (n.includes_file !== undefined) {
    const content = scenario.files?.[n.includes_file];
    if (content === undefined) return `scenario has no file ${n.includes_file}`;
    payloads.push([`the content of ${n.includes_file}`, content.trim()]);
  }
  for (const [label, payload] of payloads) {
    const want = unindented(payload);
    if (!unindented(found.text).includes(want)) return `${where}: it does not carry ${label}: got "${near(found.text, want)}"`;
    const early = reqs.find((r) => r.seq < found!.req.seq && messageTexts(r).some((m) => unindented(m.text).includes(want)));
    if (early) return `${label} reached ${n.track} in request #${early.seq}, before its notification (request #${found.req.seq})`;
    const inResult = texts.find((m, i) => i !== found!.index && m.hasResult && unindented(m.text).includes(want));
    if (inResult) return `${where}: ${label} is in a tool_result of that request too, outside the notification`;
  }
  if (n.usage) {
    if (n.from === undefined) return 'a notification usage check needs "from"';
    const counted = [n.from, ...(n.usage_with ?? [])];
    const ran = events.filter((e): e is ResponseEvent => e.type === 'response' && e.track !== null && counted.includes(e.track) && e.seq > call.seq && e.seq < found!.req.seq);
    const sum = (f: (r: ResponseEvent) => number) => ran.reduce((a, r) => a + f(r), 0);
    const input = sum((r) => r.usage.input_tokens + r.usage.cache_creation_input_tokens + r.usage.cache_read_input_tokens);
    const expected = `input_tokens: ${input}, output_tokens: ${sum((r) => r.usage.output_tokens)}, requests: ${ran.length}`;
    const line = /<usage>([^<]*)<\/usage>/.exec(found.text)?.[1];
    if (line !== expected) return `${where}: its usage says "${line ?? '(none)'}", the mock reported "${expected}" to ${counted.join(' and ')}`;
  }
  return true;
}
