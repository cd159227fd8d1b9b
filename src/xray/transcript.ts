// The transcript of one x-ray case, in the chapters' style (src/runner/transcript.ts:
// same order, same marks, sub-agents indented under the call that started them), from
// the mock's event log. What differs is whose words are shown: the case's own text (the
// prompt, the scripted turns, anything carrying an `[xray:` marker) is shown as it is;
// text Claude Code wrote itself (system prompts, reminders, launch notices,
// notifications, the fork boilerplate) is shown as its first line, its size in bytes
// and a short hash, never in full unless `full` is asked for: it is not the project's
// to reprint. It prints nothing and analyses nothing.

import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ChalkInstance } from 'chalk';
import type { MockEvent, RequestEvent, ResponseEvent } from '../mock/types.ts';
import { resultText } from '../runner/expectations.ts';
import { agentChildren, canonicalOrder } from '../runner/transcript.ts';

/** Claude Code's tool that starts a sub-agent. */
export const CLAUDE_AGENT_TOOLS: readonly string[] = ['Agent'];
/** What marks the case's own text inside anything Claude Code sends. */
export const OWN_MARKER = '[xray:';

type Block = Record<string, unknown>;
type Message = { role: string; content: unknown };

export interface XrayTranscriptOptions {
  color: ChalkInstance;
  /** Claude Code's own text in full, indented, instead of first line + size + hash. */
  full?: boolean;
  width?: number;
  /** The run's workspace and home: written as $WORK / $HOME / $TEMP, so sizes and hashes
   *  do not change with the random temp folder names. */
  paths?: { cwd: string; home: string };
}

/** Replaces a run's temp paths (also in the dashed form Claude Code names folders by). */
export function stripPaths(text: string, paths: { cwd: string; home: string } | undefined): string {
  if (!paths) return text;
  const temp = path.dirname(paths.cwd) === path.dirname(paths.home) ? path.dirname(paths.cwd) : undefined;
  const pairs: [string, string][] = [[paths.cwd, '$WORK'], [paths.home, '$HOME'], ...(temp ? [[temp, '$TEMP'] as [string, string]] : [])];
  let out = text;
  for (const [p, name] of pairs) {
    out = out.split(p).join(name).split(p.replace(/[\\/.]/g, '-')).join(name);
  }
  return out;
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

function flat(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, Math.max(1, max - 1))}…` : one;
}

const fmt = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

function blocksOf(m: Message): Block[] {
  return typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? (m.content as Block[]) : [];
}

/**
 * Text Claude Code wrote, as the transcript shows it: first line (cut to `max`), bytes,
 * hash. With `full`, the whole text on the lines after it.
 */
export function theirs(text: string, max: number, full = false): string[] {
  // A line that is only a tag (`<system-reminder>`) says little on its own: it leads the
  // first line that says something.
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  let k = 0;
  while (k < lines.length - 1 && k < 3 && /^<\/?[\w-]+>$/.test(lines[k]!)) k++;
  const first = lines.slice(0, k + 1).join(' ');
  const head = `${flat(first, max)} (${fmt(Buffer.byteLength(text))} bytes #${shortHash(text)})`;
  return full ? [head, ...text.split('\n').map((l) => `  │ ${l}`)] : [head];
}

/** A text that may hold the case's own words after Claude Code's: split at the marker. */
function textLines(text: string, max: number, full: boolean): { lines: string[]; own: boolean } {
  const at = text.indexOf(OWN_MARKER);
  if (at === 0) return { lines: [flat(text, max)], own: true };
  if (at < 0) return { lines: theirs(text, max, full), own: false };
  // Claude Code's framing, then the case's text (a fork child's boilerplate and directive).
  const budget = Math.min(30, Math.floor(max / 3));
  const [head, ...rest] = theirs(text.slice(0, at), budget, full);
  return { lines: [`${head} + ${flat(text.slice(at), Math.max(20, max - budget - 24))}`, ...rest], own: true };
}

/** How deep each track sits: main 0, a track started by a call of track T one deeper than T. */
export function depths(events: MockEvent[]): Map<string, number> {
  const parent = new Map<string, string>();
  for (const [resp, kids] of agentChildren(events, CLAUDE_AGENT_TOOLS)) for (const k of kids) if (resp.track) parent.set(k, resp.track);
  const depth = new Map<string, number>([['main', 0]]);
  const of = (t: string, seen = new Set<string>()): number => {
    if (depth.has(t)) return depth.get(t)!;
    const p = parent.get(t);
    const d = p === undefined || seen.has(p) ? 1 : of(p, new Set([...seen, t])) + 1;
    depth.set(t, d);
    return d;
  };
  for (const e of events) if (e.track) of(e.track);
  return depth;
}

function systemSummary(req: RequestEvent, paths: XrayTranscriptOptions['paths']): string {
  const sys = req.body.system;
  const blocks = (typeof sys === 'string' ? [sys] : Array.isArray(sys) ? sys.map((b) => String((b as Block).text ?? '')) : []).map((b) => stripPaths(b, paths));
  const bytes = blocks.map((b) => Buffer.byteLength(b));
  return `system ${blocks.length} block${blocks.length === 1 ? '' : 's'} (${bytes.map(fmt).join(' + ')} bytes #${shortHash(blocks.join('\n'))})`;
}

export function renderXrayTranscript(logged: MockEvent[], opts: XrayTranscriptOptions): string[] {
  const events = canonicalOrder(logged, CLAUDE_AGENT_TOOLS);
  const c = opts.color;
  const width = opts.width ?? 100;
  const full = opts.full === true;
  const depth = depths(logged);
  const seenCount = new Map<string, number>();   // messages a track's previous request carried
  const lines: string[] = [];
  const say = (track: string | null, text: string) => {
    const d = track === null ? 0 : depth.get(track) ?? 1;
    lines.push(`${'    '.repeat(d)}${text}`);
  };
  const who = (track: string) => (track === 'main' ? c.bold.cyan('main') : c.bold.magenta(track));

  for (const e of events) {
    if (e.type === 'request') {
      if (e.track === null || e.path !== '/v1/messages') {
        if (e.path !== '/v1/messages') say(e.track, c.dim(`· ${e.path}${e.query ? `?${e.query}` : ''}`));
        continue;
      }
      const track = e.track;
      const messages = (e.body.messages as Message[] | undefined) ?? [];
      const before = seenCount.get(track);
      seenCount.set(track, messages.length);
      let from: number;
      if (before === undefined) {
        say(track, c.dim(`${who(track)} ⚙ ${systemSummary(e, opts.paths)} · tools ${e.tool_names.length} [${e.tool_names.join(', ')}]`));
        // A fresh context opens with the task; one that carries a history (a fork child)
        // shows only where it departs from it: its last two messages.
        const fresh = messages.length <= 3;
        from = fresh ? 0 : Math.max(0, messages.length - 2);
        if (!fresh) say(track, c.dim(`${who(track)} ≡ carries ${from} earlier messages`));
      } else {
        // The assistant message right after the previous request is the mock's own answer, shown below it.
        from = before + 1;
      }
      for (const m of messages.slice(from)) {
        if (m.role === 'assistant') {
          for (const b of blocksOf(m)) {
            if (b.type === 'tool_use') say(track, `${who(track)} ${c.yellow('⏺')} ${c.yellow(String(b.name))}(${flat(JSON.stringify(b.input), width - 24)}) ${c.dim('(in the history)')}`);
          }
          continue;
        }
        for (const b of blocksOf(m)) {
          if (b.type === 'tool_result') {
            const text = stripPaths(resultText(b), opts.paths);
            const mark = b.is_error === true ? c.red('⎿ error: ') : c.dim('⎿ ');
            const shown = text.includes(OWN_MARKER) ? [flat(text, width - 20)] : theirs(text, width - 40, full);
            say(track, `${who(track)} ${mark}${c.dim(shown[0]!)}`);
            for (const l of shown.slice(1)) say(track, c.dim(l));
          } else if (b.type === 'text') {
            const { lines: shown, own } = textLines(stripPaths(String(b.text), opts.paths), width - 30, full);
            const label = m.role === 'system' ? c.dim('system turn') : own ? (track === 'main' ? c.bold.green('you') : `${who(track)} ${c.dim('task')}`) : c.dim('cc');
            say(track, `${own ? label : `${who(track)} ${label}`} ▸ ${own ? shown[0]! : c.dim(shown[0]!)}`);
            for (const l of shown.slice(1)) say(track, c.dim(l));
          } else {
            say(track, c.dim(`${who(track)} · ${String(b.type)} block`));
          }
        }
      }
    } else if (e.type === 'response') {
      const r = e as ResponseEvent;
      if (r.track === null) continue;
      for (const b of r.content) {
        if (b.type === 'text' && b.text.trim() !== '') say(r.track, `${who(r.track)} ▸ ${flat(b.text, width - 12)}`);
        if (b.type === 'tool_use') say(r.track, `${who(r.track)} ${c.yellow('⏺')} ${c.yellow(b.name)}(${flat(JSON.stringify(b.input), width - 24)})`);
      }
    } else {
      if (e.message.startsWith('[mock]')) { say(e.track, c.red('✖ (the case has no answer for this request: see below)')); continue; }
      const kind = e.injected ? 'API error (scripted)' : 'the mock refused the request';
      say(e.track, c.red(`✖ ${kind}: ${e.status} ${e.error_type}: ${flat(e.message, width - 40)}`));
    }
  }
  return lines;
}

/** Every field the mock accepted without modelling it, over a run, with how many requests carried it. */
export function unmodelledSummary(events: readonly MockEvent[]): { field: string; requests: number }[] {
  const n = new Map<string, number>();
  for (const e of events) if (e.type === 'request') for (const f of e.unmodelled ?? []) n.set(f, (n.get(f) ?? 0) + 1);
  return [...n.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([field, requests]) => ({ field, requests }));
}

/** The anthropic-beta values the client sent, over a run. */
export function betasSeen(events: readonly MockEvent[]): string[] {
  const out = new Set<string>();
  for (const e of events) {
    if (e.type !== 'request') continue;
    for (const b of (e.headers?.['anthropic-beta'] ?? '').split(',')) if (b.trim() !== '') out.add(b.trim());
  }
  return [...out].sort();
}
