// Renders a run as a readable transcript, from the mock's event log: what really went
// over the wire, not what the agent says it did. A sub-agent's activity is indented
// under the call that started it.

import type { ChalkInstance } from 'chalk';
import type { MockEvent, RequestEvent, ResponseEvent, ErrorEvent } from '../mock/types.ts';
import { blocksOf, type Block } from './event-log.ts';
import { measuredRequests, resultText } from './expectations.ts';
import { flattenRequest, type FlatBlock } from '../mock/index.ts';
import { sameBytes } from './fork-checks.ts';

export interface TranscriptOptions {
  color: ChalkInstance;
  trace?: boolean;     // add each request's shape and each response's usage
  width?: number;      // trim long lines to this many characters
  /** What the user typed and the flags the agent got: the wire shows only what was sent. */
  scenario?: { prompts: string[]; argv?: string[] };
  /** Permission questions the agent asked, with the answers it got, in order. */
  asked?: AskedQuestion[];
}

export interface AskedQuestion {
  /** undefined: no answer came (the scenario's null: the input ended at the question). */
  tool: string; input: unknown; summary?: string; allow: boolean | undefined;
  /** Who asked: a sub-agent's name (chapter 11 on); none for the main agent. */
  from?: string;
  /** Set when the runner answered no itself, not the scenario: why (no answer left, one for another tool, a question that hid what its answer shows). */
  refusedBecause?: string;
  /** Withdrawn before the person answered: the agent that asked was stopped (chapter 15). */
  withdrawn?: boolean;
}

/**
 * A control character (ESC begins a terminal's colour codes), or a format character: a bidi
 * override, which reorders what follows, or an invisible one (zero-width space, soft hyphen).
 * Either would act on the terminal, or hide from the reader, instead of showing.
 */
const ACTS_ON_TERMINAL = /[\p{Cc}\p{Cf}]/gu;

/**
 * Text as a terminal should show it, line breaks and tabs kept: every other control or format
 * character as a visible \uXXXX. A permission question quotes the model's input, and an ESC in
 * it could move the cursor and redraw what the user is approving.
 */
export function printable(text: string): string {
  return text.replace(ACTS_ON_TERMINAL, (ch) => (ch === '\n' || ch === '\t' ? ch : escaped(ch)));
}

/** \u001b; past \uffff (a tag character), \u{e0041}. */
function escaped(ch: string): string {
  const code = ch.codePointAt(0)!.toString(16);
  return ch.length === 1 ? `\\u${code.padStart(4, '0')}` : `\\u{${code}}`;
}

/** Who asks a permission question, before it: a sub-agent (chapter 11 on); the main agent, nobody. */
function askedBy(from: string | undefined): string {
  return from ? `${printable(from)} asks: ` : '';
}

/** A permission question as a terminal shows it: who asks, and what. */
export function questionLine(q: { tool: string; summary?: string; from?: string }): string {
  return `${askedBy(q.from)}Allow ${printable(q.summary ?? q.tool)}? [y/N] `;
}

/** Said on the terminal when a question on screen is withdrawn: its agent was stopped (chapter 15). */
export const WITHDRAWN = '(withdrawn: the agent that asked was stopped)';

/**
 * A typed answer to a permission question: yes or no, or undefined when the input ended
 * before one came (Ctrl-D while background agents still ran), which is said on the screen:
 * nobody can answer any more, and the agent tells its model so.
 */
export function permissionAnswer(line: string | undefined): boolean | undefined {
  if (line === undefined) {
    process.stdout.write('(no answer: the input is closed)\n');
    return undefined;
  }
  return /^y(es)?$/i.test(line.trim());
}

function flat(text: string, max: number): string {
  const one = printable(text.replace(/\s+/g, ' ').trim());   // no line break or tab is left to keep
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function argsOf(input: Record<string, unknown>, max: number): string {
  return flat(Object.entries(input).map(([k, v]) => `${k}: ${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}`).join(', '), max);
}

/** The blocks of the request's last user turn: every user message after the last assistant one
 *  (a notification, chapter 15, is a user message of its own after the tool results). */
function lastUserBlocks(req: RequestEvent, previous?: RequestEvent): Block[] {
  const messages = messagesOf(req);
  let from = messages.length;
  while (from > 0 && messages[from - 1]!.role === 'user') from--;
  // What the track's previous request already ended with, when that request's answer was
  // lost, is not new: a prompt whose answer was dropped (an empty one) goes out again with
  // the next prompt, and a retry sends the same messages twice. Each would otherwise be shown
  // as said again. (`previous` is given only then: after an answer that was kept, the same
  // messages again are a prompt typed again, after /clear say.)
  const before = previous ? messagesOf(previous) : [];
  if (before.length > from && before.length <= messages.length && sameBytes(before, messages.slice(0, before.length))) from = before.length;
  return messages.slice(from).flatMap(blocksOf);
}

/** Whether `next` goes on with `before`'s conversation: it has as many messages at least, and
 *  the same first one, read as blocks (a cache breakpoint, which moves from request to request,
 *  makes a text into a block that carries it). */
function goesOn(before: RequestEvent, next: RequestEvent): boolean {
  const earlier = messagesOf(before);
  const later = messagesOf(next);
  const plain = (m: { role: string; content: unknown } | undefined) =>
    m && JSON.stringify([m.role, blocksOf(m)], (k, v: unknown) => (k === 'cache_control' ? undefined : v));
  return later.length >= earlier.length && plain(later[0]) === plain(earlier[0]);
}

function messagesOf(req: RequestEvent): { role: string; content: unknown }[] {
  return (req.body.messages as { role: string; content: unknown }[] | undefined) ?? [];
}

/** How a background agent's launch notice starts (chapter 15): its sub-agent is shown after it. */
const LAUNCH_NOTICE = 'Async agent launched successfully.';

/** A chapter 15 notification, in one line: which agent, its status, and the first line of its report. */
function notificationLine(text: string): string | undefined {
  if (!text.startsWith('<task-notification>')) return undefined;
  const field = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text)?.[1]?.trim() ?? '?';
  const report = field('result').split('\n').slice(1).join(' ').trim() || field('result');
  return `${field('task-id')} ${field('status')}: ${report}`;
}

/** Which track started which: a track's parent is the one whose `agent` call was pending when it first spoke. */
function nesting(events: MockEvent[]): Map<string, number> {
  const depth = new Map<string, number>([['main', 0]]);
  const pendingAgentCall = new Map<string, boolean>();
  for (const e of events) {
    if (e.track === null) continue;
    if (e.type === 'request') {
      if (!depth.has(e.track)) {
        const parent = [...pendingAgentCall.entries()].filter(([, p]) => p).map(([t]) => t).at(-1);
        depth.set(e.track, parent !== undefined ? (depth.get(parent) ?? 0) + 1 : 1);
      }
      pendingAgentCall.set(e.track, false);
    } else if (e.type === 'response') {
      pendingAgentCall.set(e.track, e.content.some((b) => b.type === 'tool_use' && b.name === 'agent'));
    }
  }
  return depth;
}

/** All the text the user side wrote in a request's first message or last message. */
function userText(req: RequestEvent): string {
  const messages = (req.body.messages as { role: string; content: unknown }[] | undefined) ?? [];
  const texts = (m: { content: unknown } | undefined) =>
    m === undefined ? '' : typeof m.content === 'string' ? m.content : (m.content as Block[]).map((b) => (b.type === 'text' ? String(b.text) : '')).join('\n');
  return `${texts(messages[0])}\n${texts(messages.at(-1))}`;
}

/** The name of the tool that starts a sub-agent, in the chapters (Claude Code calls it Agent). */
export const AGENT_TOOLS: readonly string[] = ['agent'];

/** The events of each track (an unrouted event is its own group, keyed "#seq"), in log order. */
function tracksOf(events: MockEvent[]): Map<string, MockEvent[]> {
  const byTrack = new Map<string, MockEvent[]>();
  const keyOf = (e: MockEvent) => e.track ?? `#${e.seq}`;
  for (const e of events) byTrack.set(keyOf(e), [...(byTrack.get(keyOf(e)) ?? []), e]);
  return byTrack;
}

/**
 * Which track each agent call started: for every response, in call order, the first
 * unclaimed track whose opening request was sent after it and carries the call's prompt.
 * `agentTools`: the names of the tool that starts a sub-agent.
 */
export function agentChildren(events: MockEvent[], agentTools: readonly string[] = AGENT_TOOLS): Map<ResponseEvent, string[]> {
  const byTrack = tracksOf(events);
  const childrenOf = new Map<ResponseEvent, string[]>();
  const claimed = new Set<string>(['main']);
  for (const e of events) {
    if (e.type !== 'response' || e.track === null) continue;
    const kids: string[] = [];
    for (const b of e.content) {
      if (b.type !== 'tool_use' || !agentTools.includes(b.name) || typeof b.input.prompt !== 'string') continue;
      const prompt = b.input.prompt;
      const child = [...byTrack.entries()].find(([t, list]) => {
        const first = list.find((x): x is RequestEvent => x.type === 'request' && x.path === '/v1/messages');
        return !claimed.has(t) && first !== undefined && first.seq > e.seq && userText(first).includes(prompt);
      })?.[0];
      if (child !== undefined) { claimed.add(child); kids.push(child); }
    }
    childrenOf.set(e, kids);
  }
  return childrenOf;
}

/**
 * The event log in an order that does not depend on timing. Sub-agents that run at the
 * same time interleave their events differently on every run; here each sub-agent's
 * events follow the `agent` call that started it, sub-agents in call order, so the
 * same run always reads (and the docs always render) the same way. A track that no
 * call started (a compaction call, a rejected request) stays right after the event it
 * followed in the log.
 */
export function canonicalOrder(events: MockEvent[], agentTools: readonly string[] = AGENT_TOOLS): MockEvent[] {
  const byTrack = tracksOf(events);
  const sentMessages = sentMessagesOf(events);
  const keyOf = (e: MockEvent) => e.track ?? `#${e.seq}`;

  const childrenOf = agentChildren(events, agentTools);
  const claimed = new Set<string>(['main', ...[...childrenOf.values()].flat()]);

  // Everything else hangs after the nearest event before it that belongs to main or a sub-agent.
  const after = new Map<MockEvent, MockEvent[][]>();
  const loose: MockEvent[][] = [];
  let anchor: MockEvent | undefined;
  for (const e of events) {
    if (claimed.has(keyOf(e))) { anchor = e; continue; }
    if (anchor) after.set(anchor, [...(after.get(anchor) ?? []), [e]]);
    else loose.push([e]);
  }

  const out: MockEvent[] = [];
  const emitted = new Set<string>();
  // A background sub-agent (chapter 15) is shown after its launch notice; a later run of it
  // (continued by send_message) after the tool_result of the call that continued it.
  const continued = new Map<MockEvent, MockEvent[][]>();
  const showBackground = (kid: string): MockEvent[] => {
    emitted.add(kid);
    const [first, ...later] = runsOf(byTrack.get(kid)!, sentMessages);
    const orphans: MockEvent[] = [];
    for (const run of later) {
      // The message is the run's last user block. A stopped agent's unanswered turn may still
      // come before it (its task, when the stop came before any answer was kept).
      const text = String(lastUserBlocks(run[0] as RequestEvent).at(-1)?.text ?? '');
      const by = events.find((x) => x.type === 'response' && x.seq < run[0]!.seq && x.content.some((b) => b.type === 'tool_use' && b.name === 'send_message' && b.input.message === text));
      if (by) continued.set(by, [...(continued.get(by) ?? []), run]);
      else orphans.push(...run);
    }
    return [...first!, ...orphans];
  };
  const emit = (list: MockEvent[]) => {
    let launched: MockEvent[][] = [];   // shown after the next request of this track
    for (const e of list) {
      out.push(e);
      const kids = (e.type === 'response' ? childrenOf.get(e) ?? [] : []).filter((kid) => !emitted.has(kid));
      if (kids.length > 0 && launchedIn(e as ResponseEvent, list)) launched.push(...kids.map(showBackground));
      else for (const kid of kids) { emitted.add(kid); emit(byTrack.get(kid)!); }
      launched.push(...(continued.get(e) ?? []));
      if (e.type === 'request' && launched.length > 0) {
        for (const run of launched) emit(run);
        launched = [];
      }
      for (const hung of after.get(e) ?? []) emit(hung);
    }
    for (const run of launched) emit(run);
  };
  emit(byTrack.get('main') ?? []);
  for (const list of loose) emit(list);
  // Claimed tracks whose parent never showed (cannot happen in a well-formed log) are kept, not dropped.
  for (const [track, list] of byTrack) if (!emitted.has(track) && claimed.has(track) && track !== 'main') { emitted.add(track); emit(list); }
  return out;
}

/** The messages the log's send_message calls sent (chapter 15). */
function sentMessagesOf(events: MockEvent[]): Set<string> {
  return new Set(events.flatMap((x) => (x.type === 'response' ? x.content.flatMap((c) => (c.type === 'tool_use' && c.name === 'send_message' && typeof c.input.message === 'string' ? [c.input.message] : [])) : [])));
}

/**
 * A track's events cut into runs: a new run starts at a request whose last user turn is new
 * text, not tool results, or ends with a message send_message sent (after the results of the
 * calls a stop left unanswered).
 */
function runsOf(list: MockEvent[], sentMessages: Set<string>): MockEvent[][] {
  const runs: MockEvent[][] = [];
  for (const e of list) {
    const blocks = e.type === 'request' && e.path === '/v1/messages' ? lastUserBlocks(e) : undefined;
    const fresh = blocks !== undefined && (!blocks.some((b) => b.type === 'tool_result') || sentMessages.has(String(blocks.at(-1)?.text ?? '')));
    if (runs.length === 0 || fresh) runs.push([]);
    runs.at(-1)!.push(e);
  }
  return runs;
}

/** Whether the next request of a response's track answers its agent calls with launch notices. */
function launchedIn(response: ResponseEvent, list: MockEvent[]): boolean {
  const next = list.find((x): x is RequestEvent => x.type === 'request' && x.seq > response.seq && x.path === '/v1/messages');
  if (!next) return false;
  const ids = new Set(response.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
  return lastUserBlocks(next).some((b) => b.type === 'tool_result' && ids.has(String(b.tool_use_id)) && resultText(b).startsWith(LAUNCH_NOTICE));
}

export function renderTranscript(logged: MockEvent[], opts: TranscriptOptions): string[] {
  const events = canonicalOrder(logged);
  const c = opts.color;
  const width = opts.width ?? 100;
  const depth = nesting(events);
  const forkBytes = opts.trace ? forkDivergence(events) : new Map<number, string>();
  const counts = opts.trace ? countRequests(events) : { before: new Map<number, string[]>(), unmatched: [] };
  const seenTrack = new Set<string>();
  const previousRequest = new Map<string, RequestEvent>();
  // A request whose answer the agent did not keep: an error (a retry follows), or an answer
  // with nothing in it (dropped: the prompt goes out again with the next one).
  const failedSeqs = new Set(events.flatMap((x) => (x.type === 'error' ? [x.seq] : [])));
  const emptySeqs = new Set(events.flatMap((x) => (x.type === 'response' && x.content.every((b) => b.type === 'text' && b.text.trim() === '') ? [x.seq] : [])));
  const answerLost = (seq: number) => failedSeqs.has(seq) || emptySeqs.has(seq);
  const lines: string[] = [];
  const say = (track: string | null, text: string) => {
    const d = track === null ? 0 : depth.get(track) ?? 1;
    lines.push(`${'    '.repeat(d)}${text}`);
  };
  const who = (track: string) => (track === 'main' ? c.bold.cyan('main') : c.bold.magenta(track));
  const argv = opts.scenario?.argv ?? [];
  if (argv.length > 0) lines.push(c.dim(`(${startedWith(argv)})`));
  const prompts = opts.scenario?.prompts ?? [];
  let nextPrompt = 0;
  // A command the agent handles itself, /clear or a /plan with nothing after it, sends nothing,
  // so the wire shows no trace of it: it is shown where it was typed, saying so. (Not when it
  // went out as a prompt after all: a chapter before the one that knows it sends it as typed.)
  const userTexts = events.flatMap((x) => (x.type === 'request' ? messagesOf(x).filter((m) => m.role === 'user').flatMap((m) => blocksOf(m).map((b) => String(b.text ?? '').trim())) : []));
  const sentUnhandled = (typed: string) => userTexts.includes(typed.trim());
  const unsent = (typed: string) => ['/clear', '/plan'].includes(typed.trim()) && !sentUnhandled(typed);
  const sayUnsent = (typed: string) => say('main', `${c.bold.green('you')} ▸ ${flat(typed, width - 30)} ${c.dim('(nothing sent)')}`);
  const unsentUpTo = (end: number) => {
    for (; nextPrompt < end; nextPrompt++) if (unsent(prompts[nextPrompt]!)) sayUnsent(prompts[nextPrompt]!);
  };
  // At the end, only what was typed after the last prompt that went out (on any track): one
  // typed between two prompts the main track did not send has no place to be shown.
  const sentLater = (k: number) => prompts.slice(k + 1).some((p) => p.trim() !== '' && userTexts.some((t) => t.includes(p.trim())));
  const unasked = [...(opts.asked ?? [])];
  const sentMessages = sentMessagesOf(events);
  // A policy island (chapter 14): a /skill typed by the user runs in a sub-agent of its own
  // before the main agent is sent anything, and what the main agent is then sent is the
  // island's report. The typed line is shown before the island, the report under it.
  let typedAhead = false;
  const islandOf = (at: number): string | undefined => {
    const next = events.slice(at + 1).find((x): x is RequestEvent => x.type === 'request' && x.track === 'main' && x.path === '/v1/messages');
    const text = next === undefined ? '' : String(lastUserBlocks(next).at(-1)?.text ?? '');
    const skill = /^The (\/\S+) skill ran in an isolated /.exec(text)?.[1];
    const typed = prompts[nextPrompt];
    return skill !== undefined && typed !== undefined && (typed.trim() === skill || typed.trim().startsWith(`${skill} `)) ? typed : undefined;
  };

  for (const [at, e] of events.entries()) {
    if (e.type === 'request') {
      if (e.path !== '/v1/messages' || e.track === null) continue;
      const first = !seenTrack.has(e.track);
      seenTrack.add(e.track);
      const island = first && e.track !== 'main' && !typedAhead ? islandOf(at) : undefined;
      if (island !== undefined) {
        unsentUpTo(nextPrompt);
        say('main', `${c.bold.green('you')} ▸ ${flat(island, width - 12)}`);
        nextPrompt++;
        typedAhead = true;
      }
      const previous = previousRequest.get(e.track);
      // A conversation that starts over without a prompt of its own (a wake-up after /clear):
      // the /clear typed before it is shown here, not at the end.
      if (e.track === 'main' && previous !== undefined && prompts[nextPrompt] === '/clear' && !goesOn(previous, e)) unsentUpTo(nextPrompt + 1);
      const blocks = lastUserBlocks(e, previous && answerLost(previous.seq) ? previous : undefined);
      previousRequest.set(e.track, e);
      let typedShown = false;
      for (const [i, b] of blocks.entries()) {
        if (b.type === 'tool_result') {
          const text = resultText(b);
          // A fork child's placeholders are the same text once per call of its parent: one line says
          // it, with the count. An error is shown each time, so it is not counted ahead either.
          const same = (x: Block | undefined) => x?.type === 'tool_result' && x.is_error !== true && resultText(x) === text;
          if (b.is_error !== true && same(blocks[i - 1])) continue;
          let n = 1;
          while (b.is_error !== true && same(blocks[i + n])) n++;
          const mark = b.is_error === true ? c.red('⎿ error: ') : c.dim('⎿ ');
          // The agent writes an error result as "Error: …"; after the mark that would say it twice.
          const shown = b.is_error === true ? text.replace(/^Error: /, '') : text;
          say(e.track, `${who(e.track)} ${mark}${c.dim(flat(shown, width - 20))}${n > 1 ? c.dim(` (×${n})`) : ''}`);
        } else if (b.type === 'text' && e.track === 'main' && notificationLine(String(b.text)) !== undefined) {
          say(e.track, `${who(e.track)} ${c.blue('⇠ notification')} ${c.dim(flat(notificationLine(String(b.text))!, width - 30))}`);
        } else if (b.type === 'text' && !first && e.track !== 'main' && sentMessages.has(String(b.text))) {
          say(e.track, `${who(e.track)} ${c.dim('message')} ▸ ${flat(String(b.text), width - 20)}`);   // send_message (chapter 15)
        } else if (b.type === 'text' && (e.track === 'main' || first)) {
          const label = e.track === 'main' ? c.bold.green('you') : `${who(e.track)} ${c.dim('task')}`;
          // A fork child's text is the shared boilerplate, then its own directive: show the directive.
          const text = String(b.text);
          const own = text.includes('</fork-boilerplate>') ? `${c.dim('[boilerplate]')} ${text.slice(text.lastIndexOf('</fork-boilerplate>') + 19).trim()}` : text;
          // What the user typed, when the agent sent something else for it (a /skill, expanded).
          if (e.track === 'main' && !typedShown && typedAhead) {
            typedShown = true;
            typedAhead = false;
            say(e.track, `${c.dim('  sent as')} ▸ ${flat(own, width - 20)}`);
            continue;
          }
          if (e.track === 'main' && !typedShown && prompts.length > nextPrompt) {
            typedShown = true;
            const j = prompts.findIndex((p, k) => k >= nextPrompt && p.trim() !== '' && text.startsWith(p.trim()));
            if (j >= 0) {
              unsentUpTo(j);
              nextPrompt = j + 1;
            } else if (prompts[nextPrompt]!.startsWith('/')) {
              say(e.track, `${label} ▸ ${flat(prompts[nextPrompt++]!, width - 12)}`);
              say(e.track, `${c.dim('  sent as')} ▸ ${flat(own, width - 20)}`);
              continue;
            }
          }
          say(e.track, `${label} ▸ ${flat(own, width - 12)}`);
        }
      }
      if (opts.trace) {
        for (const line of counts.before.get(e.seq) ?? []) say(e.track, c.gray(line));
        const messages = Array.isArray(e.body.messages) ? e.body.messages : [];
        const bps = e.breakpoints.map((b) => `${b.where}${b.ttl === '1h' ? ' (1h)' : ''}`).join(', ') || 'none';
        say(e.track, c.gray(`  → request #${e.seq} ${e.model}${e.stream ? ' stream' : ''}: system ${e.system_text.length} chars, ` +
          `tools [${e.tool_names.join(', ')}], ${messages.length} message${messages.length === 1 ? '' : 's'}${lastMessageShape(messages.at(-1))}, breakpoints: ${bps}`));
        const fork = forkBytes.get(e.seq);
        if (fork) say(e.track, c.gray(`  ≡ ${fork}`));
      }
    } else if (e.type === 'response') {
      const r = e as ResponseEvent;
      if (r.track === null) continue;
      for (const b of r.content) {
        if (b.type === 'text' && b.text.trim() !== '') say(r.track, `${who(r.track)} ▸ ${flat(b.text, width - 12)}`);
        if (b.type === 'tool_use') {
          say(r.track, `${who(r.track)} ${c.yellow('⏺')} ${c.yellow(b.name)}(${argsOf(b.input, width - 24)})`);
          // The permission question this call raised (chapter 6 on), and the answer it got.
          const q = unasked.findIndex((a) => a.tool === b.name && JSON.stringify(a.input) === JSON.stringify(b.input));
          if (q >= 0) {
            const [a] = unasked.splice(q, 1);
            const answer = a!.withdrawn ? `${c.yellow('withdrawn')} ${c.dim('(its agent was stopped before the person answered)')}`
              : `${a!.allow === undefined ? c.yellow('no answer (the input ended)') : a!.allow ? c.green('yes') : c.red('no')} ${c.dim(a!.refusedBecause ? `(the runner's: ${a!.refusedBecause})` : '(the scenario\'s answer)')}`;
            say(r.track, `${who(r.track)} ${c.yellow('?')} ${askedBy(a!.from)}allow ${a!.summary ?? a!.tool}? ${answer}`);
          }
        }
      }
      const agentCalls = r.content.filter((b) => b.type === 'tool_use' && b.name === 'agent').length;
      if (agentCalls > 1) say(r.track, c.dim(`  (${agentCalls} agent calls in one turn; each sub-agent is shown in full below, in call order)`));
      if (opts.trace) {
        const u = r.usage;
        const hour = u.cache_creation.ephemeral_1h_input_tokens;
        say(r.track, c.gray(`  ← usage: input ${u.input_tokens}, cache write ${u.cache_creation_input_tokens}${hour > 0 ? ` (${hour} of it 1-hour)` : ''}, ` +
          `cache read ${u.cache_read_input_tokens}, output ${u.output_tokens}${r.deltas ? `, ${r.deltas} deltas` : ''}`));
      }
    } else {
      const err = e as ErrorEvent;
      // The mock's own complaints about the scenario are listed in full after the transcript.
      if (err.message.startsWith('[mock]')) { say(err.track, c.red('✖ (the scenario has no answer for this request: see below)')); continue; }
      const kind = err.injected ? 'API error (scripted)' : 'API rejected the request';
      say(err.track, c.red(`✖ ${kind}: ${err.status} ${err.error_type}: ${flat(err.message, width - 40)}`));
    }
  }
  for (; nextPrompt < prompts.length; nextPrompt++) {
    if (!sentLater(nextPrompt) && unsent(prompts[nextPrompt]!)) sayUnsent(prompts[nextPrompt]!);
  }
  if (counts.unmatched.length > 0) lines.push(c.gray(`  (count_tokens requests ${counts.unmatched.join(', ')}: no model request followed with the same messages)`));
  return lines;
}

/**
 * --trace numbers every request, token counts included: so that the numbers never skip
 * silently, each count_tokens request is shown before the model request it measured (the
 * next one carrying the same messages: a count has no track of its own, and matching by
 * content reads the same however concurrent agents interleave).
 */
function countRequests(events: MockEvent[]): { before: Map<number, string[]>; unmatched: string[] } {
  const before = new Map<number, string[]>();
  const unmatched: string[] = [];
  for (const [count, measured] of measuredRequests(events)) {
    if (!measured) { unmatched.push(`#${count.seq}`); continue; }
    const tokens = events.find((r): r is ResponseEvent => r.type === 'response' && r.seq === count.seq)?.usage.input_tokens;
    before.set(measured.seq, [...(before.get(measured.seq) ?? []), `  → request #${count.seq} count_tokens${tokens === undefined ? '' : `: ${tokens} tokens`} (measuring the context before the next call)`]);
  }
  return { before, unmatched };
}

/**
 * Byte identity of fork children (chapter 12), for --trace: for each child's first request,
 * where its prefix (as the cache keys it: tools, system, messages, cache_control ignored)
 * first differs from its siblings' and from the parent request it extends. Children are
 * the first requests of tracks whose last message answers the same tool calls.
 */
export function forkDivergence(events: MockEvent[]): Map<number, string> {
  const out = new Map<number, string>();
  const seen = new Set<string>();
  const groups = new Map<string, { req: RequestEvent; blocks: readonly FlatBlock[] }[]>();
  for (const e of events) {
    if (e.type !== 'request' || e.track === null || e.path !== '/v1/messages' || seen.has(e.track)) continue;
    seen.add(e.track);
    const blocks = lastUserBlocks(e);
    const ids = blocks.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id));
    if (e.track === 'main' || ids.length === 0 || blocks.at(-1)?.type !== 'text') continue;
    const key = ids.join(',');
    groups.set(key, [...(groups.get(key) ?? []), { req: e, blocks: flattenRequest(e.body) }]);
  }
  const fmt = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',');   // 48500 -> "48,500", without Intl's start-up
  const common = (a: readonly FlatBlock[], b: readonly FlatBlock[]) => {
    let bytes = 0;
    let tokens = 0;
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const x = a[i]!.canonical;
      const y = b[i]!.canonical;
      if (x !== y) {
        let k = 0;
        while (k < x.length && x[k] === y[k]) k++;
        return { bytes: bytes + Buffer.byteLength(x.slice(0, k)), tokens, where: a[i]!.where, whole: false };
      }
      bytes += Buffer.byteLength(x);
      tokens += a[i]!.tokens;
    }
    return { bytes, tokens, where: '', whole: a.length <= b.length };
  };
  for (const [key, members] of groups) {
    const firstId = key.split(',')[0];
    const parentResp = events.find((e): e is ResponseEvent => e.type === 'response' && e.content.some((b) => b.type === 'tool_use' && b.id === firstId));
    const parentReq = parentResp && events.find((e): e is RequestEvent => e.type === 'request' && e.seq === parentResp.seq);
    for (const m of members) {
      const total = m.blocks.reduce((n, b) => n + Buffer.byteLength(b.canonical), 0);
      const parts: string[] = [];
      const siblings = members.filter((o) => o !== m).map((o) => common(m.blocks, o.blocks));
      if (siblings.length > 0) {
        const best = siblings.reduce((a, b) => (b.bytes > a.bytes ? b : a));
        parts.push(`same bytes as a sibling up to byte ${fmt(best.bytes)} of ${fmt(total)} (${fmt(best.tokens)} tokens; first difference in ${best.where || 'nothing'})`);
      }
      if (parentReq) {
        const p = common(flattenRequest(parentReq.body), m.blocks);
        parts.push(p.whole ? `extends ${parentResp.track}'s request #${parentReq.seq} byte for byte` : `differs from ${parentResp.track}'s request #${parentReq.seq} at byte ${fmt(p.bytes)} (${p.where})`);
      }
      out.set(m.req.seq, parts.join('; '));
    }
  }
  return out;
}

/**
 * What the agent itself printed about its spending, echoed by the runner under the
 * transcript: its one-line summary of each sub-agent or fork it ran, its ledger and cost
 * lines (chapter 8 on), and chapter 12's fork cost table. The transcript above comes from
 * the wire; these lines show the agent's own books, which the expectations check against it.
 * Without `withSummaries` (a doc's excerpt) the one-line summaries are left out.
 */
export function agentReports(terminal: string, withSummaries = true): string[] {
  const lines = terminal.split('\n');
  const at = lines.map((l, i) => (l.startsWith('fork cost:') ? i : -1)).filter((i) => i >= 0);
  const tables = at.flatMap((i) => {
    const end = lines.findIndex((l, j) => j > i && l.startsWith('¹'));
    return end < 0 ? [] : [...lines.slice(i, end + 1), ''];
  });
  // Sub-agents that run at the same time report in the order they happen to finish, which
  // changes from one run to the next. The summaries are shown in the order the agent called
  // them instead: a summary names its call's description, and the agent printed its calls
  // in the order the model made them. (A summary with no such call keeps its place after them.)
  const isSummary = (l: string) => /^\s+⎿ .*(sub-agent|fork) /.test(l);
  const calledAt = (summary: string): number => {
    const description = /"((?:[^"\\]|\\.)*)"/.exec(summary)?.[1];
    const at = description === undefined ? -1 : lines.findIndex((l) => l.includes(`"description":"${description}"`));
    return at < 0 ? Infinity : at;
  };
  const printed = lines.filter(isSummary).map((l) => `  ${l.trim()}`);
  const summaries = withSummaries ? printed.map((l, i) => ({ l, i, at: calledAt(l) })).sort((a, b) => a.at - b.at || a.i - b.i).map((x) => x.l) : [];
  const shown = summaries.length > 8 ? [...summaries.slice(0, 8), `  … and ${summaries.length - 8} more`] : summaries;
  const books = lines.filter((l) => l.startsWith('ledger: ') || l.startsWith('cost: ')).slice(-2).map((l) => `  ${l}`);
  const own = [...shown, ...books];
  const heading = `the agent's own accounting (from its terminal${summaries.length > 1 ? '; sub-agents in call order' : ''}):`;
  // Its warnings (a bad limit variable, a skipped agent file, a failed prompt) say what went
  // wrong before or beside the wire: they belong in the transcript too.
  // (A failure mid-stream follows the words that did arrive, on the same line.)
  const warnings = lines.filter((l) => /^\S/.test(l) && l.includes('✖ ')).map((l) => `  ${l.slice(l.indexOf('✖ '))}`);
  // And its notes: what it read but leaves aside (an agent file's field with no effect here).
  const notes = lines.filter((l) => l.startsWith('ⓘ ')).map((l) => `  ${l}`);
  return [
    ...(warnings.length > 0 ? ["the agent's own warnings (from its terminal):", ...warnings, ''] : []),
    ...(notes.length > 0 ? ["the agent's own notes (from its terminal):", ...notes, ''] : []),
    ...tables, ...(own.length > 0 ? [heading, ...own, ''] : []),
  ];
}

/** Usage per track, summed from the responses. */
export function usageTable(events: MockEvent[], color: ChalkInstance): string[] {
  const rows = new Map<string, { calls: number; input: number; write: number; read: number; output: number }>();
  // Tracks in the transcript's order, not in the order they happened to finish.
  for (const e of canonicalOrder(events)) {
    if (e.type !== 'response' || e.track === null) continue;
    const row = rows.get(e.track) ?? { calls: 0, input: 0, write: 0, read: 0, output: 0 };
    row.calls += 1;
    row.input += e.usage.input_tokens;
    row.write += e.usage.cache_creation_input_tokens;
    row.read += e.usage.cache_read_input_tokens;
    row.output += e.usage.output_tokens;
    rows.set(e.track, row);
  }
  if (rows.size === 0) return [];
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const out = [color.dim(`${'track'.padEnd(14)}${pad('calls', 6)}${pad('input', 9)}${pad('c.write', 9)}${pad('c.read', 9)}${pad('output', 8)}`)];
  for (const [track, r] of rows) out.push(`${track.padEnd(14)}${pad(r.calls, 6)}${pad(r.input, 9)}${pad(r.write, 9)}${pad(r.read, 9)}${pad(r.output, 8)}`);
  return out;
}

/** The flags a scenario starts the agent with (--plan, a permission mode), in words: they change what the session does. */
export function startedWith(argv: readonly string[]): string {
  return `the agent is started with the flags: ${argv.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`;
}

/** What the last message of a request holds, by block type in order: " (the last: user, tool_result ×2)";
 *  a result flagged is_error is a "tool_result (error)". */
function lastMessageShape(message: unknown): string {
  if (typeof message !== 'object' || message === null) return '';
  const { role, content } = message as { role?: unknown; content?: unknown };
  const kinds: [string, number][] = [];
  for (const block of typeof content === 'string' ? [{ type: 'text' }] : Array.isArray(content) ? content : []) {
    const b = block as { type?: unknown; is_error?: unknown } | null;
    const named = typeof b === 'object' && b !== null && typeof b.type === 'string' ? b.type : '?';
    const type = named === 'tool_result' && b!.is_error === true ? 'tool_result (error)' : named;
    const run = kinds.at(-1);
    if (run && run[0] === type) run[1]++;
    else kinds.push([type, 1]);
  }
  return ` (the last: ${String(role)}, ${kinds.map(([t, n]) => (n > 1 ? `${t} ×${n}` : t)).join(', ') || 'empty'})`;
}
