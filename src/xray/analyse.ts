// The x-ray's analysis: pure functions from wire traces (the mock's event log of a run)
// to facts, the things the chapters teach about sub-agents, each reduced to a derived
// value: a tool name, a short constant string, a count, a yes or no. The same code reads
// a real Claude Code's traces and the series' own runs, so the two columns of the fact
// table are measured the same way.
//
// Roles come from the wire, never from a scenario's text: a conversation is a track; a
// child is a conversation whose first request carries a parent's agent tool_use (a fork:
// it inherited the history) or that call's prompt (a fresh sub-agent). Tool and agent-type
// names go through one small mapping (Claude Code's Agent/Read/Bash… to the series'
// agent/read_file/run_shell…).
//
// This file runs nothing and prints nothing (facts.ts does); it never returns Claude
// Code's prompt or tool-description text, only what is derived from it.

import type { RequestEvent, ResponseEvent } from '../mock/types.ts';
import path from 'node:path';
import type { XrayCase, XrayTrace } from './trace.ts';
import type { RepoWorktree } from './repo.ts';

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One fact as one source showed it. `value` is what the table compares. */
export interface Fact {
  id: string;
  value: string;
  /** Derived specifics that are not compared (counts, raw tool names). */
  detail?: string;
  /** Which run showed it: the trace's version ("2.1.328", "chapter 12") and x-ray case. */
  version?: string;
  case?: string;
}

/** What a fact is about, in the order of the table. The chapter is the one that teaches it. */
export const FACT_TITLES: readonly { id: string; title: string; chapter: number }[] = [
  { id: 'wire.stream', title: 'which requests ask for a streamed answer (stream: true)', chapter: 5 },
  { id: 'session.id', title: 'which --session-id values start a session', chapter: 4 },
  { id: 'context.placement', title: "where the main agent's first request carries CLAUDE.md and the git status", chapter: 3 },
  { id: 'cache.breakpoints', title: "where the main agent's requests put cache breakpoints", chapter: 8 },
  { id: 'fork.trigger', title: 'how a fork is triggered', chapter: 12 },
  { id: 'fork.omitted-type', title: 'a call with no subagent_type, forks on (CLAUDE_CODE_FORK_SUBAGENT=1)', chapter: 12 },
  { id: 'fork.system', title: "fork child's system prompt vs the parent's", chapter: 12 },
  { id: 'fork.tools', title: "fork child's tools vs the parent's", chapter: 12 },
  { id: 'fork.layout', title: "fork child's messages after the parent's history", chapter: 12 },
  { id: 'fork.placeholder', title: "placeholder result of the child's own call", chapter: 12 },
  { id: 'fork.boilerplate', title: 'boilerplate tag and directive prefix', chapter: 12 },
  { id: 'fork.breakpoints', title: "cache breakpoints of a fork child's first request", chapter: 12 },
  { id: 'fork.refusal', title: 'a fork child tries to fork', chapter: 12 },
  { id: 'fork.named-child', title: 'a fork child starts a named sub-agent', chapter: 12 },
  { id: 'report.delivery', title: "how a sub-agent's report reaches the main agent", chapter: 11 },
  { id: 'report.notice', title: 'what the agent call returns at once', chapter: 15 },
  { id: 'report.notification', title: 'where a later report arrives', chapter: 15 },
  { id: 'report.framing', title: 'how a report returned inline is framed', chapter: 13 },
  { id: 'report.failure', title: "what a call that waits returns when its sub-agent's requests fail", chapter: 11 },
  { id: 'report.stopped', title: 'a running background agent stopped by the main agent', chapter: 15 },
  { id: 'report.continued', title: 'a finished background agent sent a follow-up by the main agent', chapter: 15 },
  { id: 'report.message-running', title: 'a background agent sent a message while it still runs', chapter: 15 },
  { id: 'explore.tools', title: "Explore's tools", chapter: 11 },
  { id: 'explore.context', title: "Explore's start context", chapter: 11 },
  { id: 'general.tools', title: "general-purpose's tools", chapter: 11 },
  { id: 'general.context', title: "general-purpose's start context", chapter: 11 },
  { id: 'limits.concurrency', title: 'a second call at a concurrency cap of 1', chapter: 13 },
  { id: 'limits.depth', title: 'how a spawn depth cap of 1 shows', chapter: 13 },
  { id: 'limits.default-cap', title: 'no cap set: how many sub-agents one message starts before one is refused', chapter: 13 },
  { id: 'limits.malformed-cap', title: 'a cap that is not a number: how many sub-agents one message starts before one is refused', chapter: 13 },
  { id: 'limits.default-depth', title: 'no depth cap set: down to which depth a sub-agent is offered the agent tool', chapter: 13 },
  { id: 'skills.precedence', title: 'a skill of the same name in the project and in ~/.claude/skills', chapter: 9 },
  { id: 'skills.folders', title: "started in a subfolder: which folders' .claude/skills it reads", chapter: 9 },
  { id: 'skills.own-folder', title: 'acceptEdits: writes into .claude/skills and .claude/agents, beside an ordinary file', chapter: 9 },
  { id: 'agents.precedence', title: 'an agent of the same name in the project and in ~/.claude/agents', chapter: 14 },
  { id: 'agents.folders', title: "started in a subfolder: which folders' .claude/agents it reads", chapter: 14 },
  { id: 'agents.models', title: "an agent file's model alias: the model id its sub-agent's requests name", chapter: 14 },
  { id: 'worktree.isolation', title: "the agent tool's isolation field", chapter: 16 },
  { id: 'worktree.cwd', title: 'where an isolated sub-agent works', chapter: 16 },
  { id: 'worktree.unchanged', title: 'after a run, the worktree of a sub-agent that changed nothing', chapter: 16 },
  { id: 'worktree.changed', title: 'after a run, the worktree of a sub-agent that wrote a file', chapter: 16 },
  { id: 'worktree.report', title: "what the caller is told of a kept worktree", chapter: 16 },
];

export const NOT_MEASURED = 'not measured';

// ---------------------------------------------------------------------------
// Names: Claude Code's spelling to the series'. Anything not listed keeps its name.

const TOOL_NAMES: Record<string, string> = {
  Agent: 'agent', Task: 'agent', Read: 'read_file', Write: 'write_file', Edit: 'edit_file',
  Bash: 'run_shell', Grep: 'grep_search', Glob: 'list_files', LS: 'list_files', Skill: 'skill',
  ExitPlanMode: 'exit_plan_mode', TaskStop: 'stop_agent', SendMessage: 'send_message',
};

export function toolName(name: string): string {
  return TOOL_NAMES[name] ?? name;
}

/** Agent types: Explore → explore, general-purpose → general; absent stays undefined. */
export function agentType(input: Json): string | undefined {
  const t = input.subagent_type;
  if (typeof t !== 'string' || t === '') return undefined;
  const lower = t.toLowerCase();
  return lower === 'general-purpose' ? 'general' : lower;
}

// ---------------------------------------------------------------------------
// The wire, read into conversations.

interface Block extends Json { type: string }

interface Message { role: string; blocks: Block[] }

interface Exchange {
  req: RequestEvent;
  messages: Message[];
  res?: ResponseEvent;
}

/** An agent tool_use some conversation's response made. */
interface Spawn {
  id: string;
  input: Json;
  conv: Conversation;
  /** Index into conv.exchanges of the exchange whose response made the call. */
  at: number;
  /** How many tool_use blocks (any tool) and text blocks that response held. */
  siblings: number;
  texts: number;
}

interface Conversation {
  track: string;
  exchanges: Exchange[];
  parent?: Spawn;
  kind: 'root' | 'fork' | 'fresh' | 'orphan';
  trace: XrayTrace;
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter((b): b is Block => isObj(b) && typeof b.type === 'string');
}

function messagesOf(body: Json): Message[] {
  const list = Array.isArray(body.messages) ? body.messages : [];
  return list.filter(isObj).map((m) => ({ role: String(m.role), blocks: blocksOf(m.content) }));
}

/** The text of a block: a text block's text, a tool_result's text content. */
export function blockText(b: Block): string {
  if (b.type === 'text') return typeof b.text === 'string' ? b.text : '';
  if (b.type === 'tool_result') return blocksOf(b.content).map((c) => (c.type === 'text' && typeof c.text === 'string' ? c.text : '')).join('\n');
  return '';
}

function userTexts(messages: Message[]): string[] {
  return messages.filter((m) => m.role === 'user').flatMap((m) => m.blocks.filter((b) => b.type === 'text').map(blockText));
}

function systemBlocks(body: Json): Block[] {
  return blocksOf(body.system);
}

/** Everything a request put in front of the model, as text: system, every message's text and results. */
function allText(ex: Exchange): string {
  const sys = systemBlocks(ex.req.body).map(blockText);
  const msgs = ex.messages.flatMap((m) => m.blocks.map(blockText));
  return [...sys, ...msgs].join('\n');
}

function responseText(res: ResponseEvent | undefined): string {
  return (res?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** The tools' descriptions, one text: where an agent type's description may be listed. */
function toolDescriptions(body: Json): string {
  return (Array.isArray(body.tools) ? body.tools : []).map((t) => (isObj(t) && typeof t.description === 'string' ? t.description : '')).join('\n');
}

function toolNames(body: Json): string[] {
  return (Array.isArray(body.tools) ? body.tools : []).map((t) => (isObj(t) ? String(t.name) : ''));
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Equal once cache_control markers are ignored: a breakpoint moves, the bytes it marks do not. */
function sameContent(a: unknown, b: unknown): boolean {
  const strip = (_key: string, v: unknown) => (isObj(v) && 'cache_control' in v ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'cache_control')) : v);
  return JSON.stringify(a, strip) === JSON.stringify(b, strip);
}

/** Every conversation of one trace, with who started whom. */
function conversations(trace: XrayTrace): { convs: Conversation[]; spawns: Spawn[] } {
  const responses = new Map<number, ResponseEvent>();
  for (const e of trace.events) if (e.type === 'response') responses.set(e.seq, e);
  const byTrack = new Map<string, Conversation>();
  for (const e of trace.events) {
    if (e.type !== 'request' || e.path !== '/v1/messages' || e.track === null) continue;
    let conv = byTrack.get(e.track);
    if (!conv) byTrack.set(e.track, (conv = { track: e.track, exchanges: [], kind: 'orphan', trace }));
    conv.exchanges.push({ req: e, messages: messagesOf(e.body), res: responses.get(e.seq) });
  }
  const convs = [...byTrack.values()].sort((a, b) => a.exchanges[0]!.req.seq - b.exchanges[0]!.req.seq);
  const spawns: Spawn[] = [];
  for (const conv of convs) {
    conv.exchanges.forEach((ex, at) => {
      const content = ex.res?.content ?? [];
      const siblings = content.filter((b) => b.type === 'tool_use').length;
      const texts = content.filter((b) => b.type === 'text').length;
      for (const b of content) {
        if (b.type === 'tool_use' && toolName(b.name) === 'agent') spawns.push({ id: b.id, input: b.input, conv, at, siblings, texts });
      }
    });
  }
  for (const conv of convs) {
    const first = conv.exchanges[0]!;
    // A refused call started nothing, though its id lives on in its own conversation's
    // history (and in a compaction of it): it is nobody's parent. Refused means its error
    // went back before this conversation began; a child that failed began first.
    const refused = (s: Spawn) => resultOf(s)?.isError === true && (resultSentAt(s) ?? Infinity) < first.req.seq;
    const earlier = spawns.filter((s) => s.conv !== conv && (s.conv.exchanges[s.at]!.res?.seq ?? Infinity) < first.req.seq && !refused(s));
    const texts = userTexts(first.messages);
    const hasPrompt = (s: Spawn) => typeof s.input.prompt === 'string' && s.input.prompt !== '' && texts.some((t) => t.includes(s.input.prompt as string));
    // A fork child inherited the history: the parent's call is in it. Of several (a fork of
    // a fork carries both), the calls furthest down the history are its parent's turn; of
    // the calls of that turn, its own is the one whose prompt it was given.
    let deepest: Spawn[] = [];
    for (const m of first.messages) {
      if (m.role !== 'assistant') continue;
      const here = m.blocks.flatMap((b) => (b.type === 'tool_use' ? earlier.filter((x) => x.id === b.id) : []));
      if (here.length > 0) deepest = here;
    }
    if (deepest.length > 0) {
      conv.parent = deepest.find(hasPrompt) ?? deepest[0];
      conv.kind = 'fork';
      continue;
    }
    // A fresh sub-agent starts from the call's prompt, in a user text block.
    const fresh = earlier.filter(hasPrompt);
    if (fresh.length > 0) {
      conv.parent = fresh[fresh.length - 1];
      conv.kind = 'fresh';
    }
  }
  const root = convs.find((c) => c.kind === 'orphan');
  if (root) root.kind = 'root';
  return { convs, spawns };
}

/** The seq of the calling conversation's first request that carries the call's tool_result. */
function resultSentAt(spawn: Spawn): number | undefined {
  return spawn.conv.exchanges.slice(spawn.at + 1).find((ex) => ex.messages.some((m) => m.blocks.some((b) => b.type === 'tool_result' && b.tool_use_id === spawn.id)))?.req.seq;
}

/** The tool_result the calling conversation got back for a call, if it sent one. */
function resultOf(call: Pick<Spawn, 'conv' | 'at' | 'id'>): { text: string; isError: boolean } | undefined {
  for (const ex of call.conv.exchanges.slice(call.at + 1)) {
    for (const m of ex.messages) {
      for (const b of m.blocks) {
        if (b.type === 'tool_result' && b.tool_use_id === call.id) return { text: blockText(b), isError: b.is_error === true };
      }
    }
  }
  return undefined;
}

function childrenOf(spawn: Spawn, convs: Conversation[]): Conversation[] {
  return convs.filter((c) => c.parent === spawn);
}

/** The report's lines, each found in the text: the report is there, re-indented or not. */
function carries(text: string | undefined, report: string): boolean {
  if (text === undefined || report === '') return false;
  if (text.includes(report)) return true;
  const lines = report.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.length > 0 && lines.every((l) => text.includes(l));
}

/** The conversation's report: the text of its last answer. */
function reportOf(conv: Conversation): string {
  for (let i = conv.exchanges.length - 1; i >= 0; i--) {
    const text = responseText(conv.exchanges[i]!.res).trim();
    if (text !== '') return text;
  }
  return '';
}

function depthOf(conv: Conversation): number {
  let d = 0;
  for (let c: Conversation | undefined = conv; c?.parent; c = c.parent.conv) d++;
  return d;
}

// ---------------------------------------------------------------------------
// Small derivations.

/** "Error: x" and "<tool_use_error>x</tool_use_error>" are wrappers; the message is x. */
export function errorMessage(text: string): string {
  return text.trim().replace(/^<tool_use_error>([\s\S]*)<\/tool_use_error>$/, '$1').replace(/^Error:\s*/, '').trim();
}

function firstSentence(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  const m = /^(.*?[.!?])(\s|$)/.exec(one);
  const s = m ? m[1]! : one;
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

/** The words before the first stop or colon: "Concurrent subagent limit reached". */
function headline(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return /^(.*?)[.:!?](\s|$)/.exec(one)?.[1] ?? firstSentence(one);
}

/** "a, a, b" → "a×2, b" */
function runs(items: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < items.length;) {
    let j = i;
    while (j < items.length && items[j] === items[i]) j++;
    out.push(j - i > 1 ? `${items[i]}×${j - i}` : items[i]!);
    i = j;
  }
  return out.join(', ');
}

function yesNo(b: boolean): string {
  return b ? 'yes' : 'no';
}

function fact(id: string, value: string, from?: XrayTrace, detail?: string): Fact {
  const f: Fact = { id, value };
  if (detail !== undefined) f.detail = detail;
  if (from) {
    f.version = from.version;
    f.case = from.case;
  }
  return f;
}

// ---------------------------------------------------------------------------
// The facts.

interface Analysed {
  trace: XrayTrace;
  convs: Conversation[];
  spawns: Spawn[];
}

/** A fork child and where its own part starts. */
interface ForkChild {
  a: Analysed;
  conv: Conversation;
  spawn: Spawn;
  first: Exchange;
  /** The request whose answer made the call. */
  parentEx: Exchange;
  /** Index of the assistant message holding the child's own tool_use. */
  at: number;
}

function forkChildren(all: Analysed[]): ForkChild[] {
  const out: ForkChild[] = [];
  for (const a of all) {
    for (const conv of a.convs) {
      if (conv.kind !== 'fork' || !conv.parent) continue;
      const first = conv.exchanges[0]!;
      const spawn = conv.parent;
      const at = first.messages.findIndex((m) => m.role === 'assistant' && m.blocks.some((b) => b.type === 'tool_use' && b.id === spawn.id));
      out.push({ a, conv, spawn, first, parentEx: spawn.conv.exchanges[spawn.at]!, at });
    }
  }
  return out;
}

/** The fork child that shows the layout best: one of a turn with several calls, from the `fork` case if there is one. */
function bestFork(all: Analysed[]): ForkChild | undefined {
  const forks = forkChildren(all).filter((f) => f.spawn.conv.kind === 'root');
  const score = (f: ForkChild) => (f.a.trace.case === 'fork' ? 2 : 0) + (f.spawn.siblings > 1 ? 1 : 0);
  return [...forks].sort((x, y) => score(y) - score(x))[0];
}

/** Block roles in the child's own part: its call, its placeholder, the directive. */
function roleOf(b: Block, f: ForkChild): string {
  const prompt = typeof f.spawn.input.prompt === 'string' ? f.spawn.input.prompt : undefined;
  if (b.type === 'tool_use') return b.id === f.spawn.id ? 'own tool_use' : 'sibling tool_use';
  if (b.type === 'tool_result') return b.tool_use_id === f.spawn.id ? 'own placeholder' : 'sibling placeholder';
  if (b.type === 'text') return prompt !== undefined && blockText(b).includes(prompt) ? 'directive' : 'text';
  return b.type;
}

function forkTrigger(all: Analysed[]): Fact {
  const forks = forkChildren(all);
  const f = forks.find((x) => x.a.trace.case === 'fork') ?? forks[0];
  if (!f) return fact('fork.trigger', NOT_MEASURED);
  const type = f.spawn.input.subagent_type;
  return fact('fork.trigger', typeof type === 'string' ? `subagent_type: "${type}"` : 'no subagent_type', f.a.trace);
}

function omittedType(all: Analysed[]): Fact {
  for (const a of all) {
    if (a.trace.env?.CLAUDE_CODE_FORK_SUBAGENT !== '1') continue;
    for (const s of a.spawns) {
      if (s.input.subagent_type !== undefined || s.conv.kind !== 'root') continue;
      const child = childrenOf(s, a.convs)[0];
      if (child) return fact('fork.omitted-type', child.kind === 'fork' ? 'starts a fork' : 'starts a fresh sub-agent', a.trace);
      const r = resultOf(s);
      if (r?.isError) return fact('fork.omitted-type', `refused: "${firstSentence(errorMessage(r.text))}"`, a.trace);
    }
  }
  return fact('fork.omitted-type', NOT_MEASURED);
}

function forkSystem(f: ForkChild | undefined): Fact {
  if (!f) return fact('fork.system', NOT_MEASURED);
  const parent = systemBlocks(f.parentEx.req.body);
  const child = systemBlocks(f.first.req.body);
  const cached = parent.map((b, i) => ({ b, i })).filter(({ b }) => b.cache_control !== undefined);
  const differ = parent.filter((b, i) => !same(b, child[i])).length + Math.max(0, child.length - parent.length);
  const cachedSame = cached.length > 0 && cached.every(({ b, i }) => same(b, child[i]));
  const value = differ === 0 ? 'byte-identical'
    : cachedSame && child.length === parent.length ? 'cached blocks byte-identical, an uncached block differs'
    : 'differs';
  return fact('fork.system', value, f.a.trace, `${parent.length} block${parent.length === 1 ? '' : 's'}, ${cached.length} cached, ${differ} differ`);
}

function forkTools(f: ForkChild | undefined): Fact {
  if (!f) return fact('fork.tools', NOT_MEASURED);
  const parent = f.parentEx.req.body.tools;
  const child = f.first.req.body.tools;
  const kept = toolNames(f.first.req.body).some((n) => toolName(n) === 'agent');
  const sameNames = same(toolNames(f.parentEx.req.body), toolNames(f.first.req.body));
  const how = same(parent, child) ? 'byte-identical' : sameNames ? 'same names, bytes differ' : 'a different set';
  return fact('fork.tools', `${how}, agent tool ${kept ? 'kept' : 'removed'}`, f.a.trace, `${toolNames(f.first.req.body).length} tools`);
}

function forkLayout(f: ForkChild | undefined): Fact {
  if (!f || f.at < 0) return fact('fork.layout', NOT_MEASURED);
  const history = sameContent(f.first.messages.slice(0, f.at), f.parentEx.messages);
  const assistant = f.first.messages[f.at]!.blocks;
  const calls = assistant.filter((b) => b.type === 'tool_use').length;
  const texts = assistant.filter((b) => b.type === 'text').length;
  const whole = calls === f.spawn.siblings && texts === f.spawn.texts;
  const which = calls === f.spawn.siblings ? 'every tool_use' : calls === 1 ? 'its own tool_use only' : `${calls} of ${f.spawn.siblings} tool_uses`;
  const asst = whole ? `the whole turn (${f.spawn.texts > 0 ? 'text + ' : ''}every tool_use)`
    : `${which}${f.spawn.texts > texts ? ', text dropped' : ''}`;
  const after = f.first.messages.slice(f.at + 1);
  const roles = after.map((m) => m.blocks.map((b) => roleOf(b, f)));
  const results = roles.flat().filter((r) => r.endsWith('placeholder'));
  const own = results.includes('own placeholder');
  const placeholders = results.length === calls && own ? (calls === 1 ? 'its own placeholder' : 'a placeholder for every call')
    : results.length === 1 && own ? 'its own placeholder only'
    : `${results.length} placeholder${results.length === 1 ? '' : 's'} for ${calls} call${calls === 1 ? '' : 's'}${own ? '' : ', none for its own'}`;
  const userPart = roles.length === 1 ? `${placeholders}, then the directive` : `${placeholders}, over ${roles.length} messages`;
  const directiveLast = roles.length > 0 && roles[roles.length - 1]!.at(-1) === 'directive';
  return fact('fork.layout', `history ${history ? 'as sent' : 'changed'} · assistant: ${asst} · user: ${userPart}${directiveLast ? '' : ' (directive not last)'}`,
    f.a.trace, after.map((m, i) => `${m.role}[${runs(roles[i]!)}]`).join(' · '));
}

function ownPlaceholder(f: ForkChild): Block | undefined {
  for (const m of f.first.messages.slice(f.at + 1)) for (const b of m.blocks) if (b.type === 'tool_result' && b.tool_use_id === f.spawn.id) return b;
  return undefined;
}

function forkPlaceholder(f: ForkChild | undefined): Fact {
  const b = f && f.at >= 0 ? ownPlaceholder(f) : undefined;
  if (!f || !b) return fact('fork.placeholder', NOT_MEASURED);
  return fact('fork.placeholder', `"${blockText(b).trim()}"`, f.a.trace);
}

function directiveBlock(f: ForkChild): string | undefined {
  for (const m of f.first.messages.slice(f.at + 1)) for (const b of m.blocks) if (roleOf(b, f) === 'directive') return blockText(b);
  return undefined;
}

function forkBoilerplate(f: ForkChild | undefined): Fact {
  const text = f && f.at >= 0 ? directiveBlock(f) : undefined;
  if (!f || text === undefined) return fact('fork.boilerplate', NOT_MEASURED);
  const tag = /^\s*<([A-Za-z][\w-]*)>/.exec(text)?.[1];
  const prompt = f.spawn.input.prompt as string;
  const before = text.slice(0, text.lastIndexOf(prompt));
  const prefix = before.slice(before.lastIndexOf('\n') + 1);
  return fact('fork.boilerplate', `${tag ? `<${tag}>` : 'no tag'} · directive prefix "${prefix}"`, f.a.trace);
}

/** A breakpoint on a tool or a system block, named by its place: "last tool", "system block 2 of 3". */
function toolOrSystemBreakpoint(where: string, body: Json): string | undefined {
  let m = /^tools\[(\d+)\]$/.exec(where);
  const nTools = toolNames(body).length;
  if (m) return Number(m[1]) === nTools - 1 ? 'last tool' : `tool ${Number(m[1]) + 1} of ${nTools}`;
  m = /^system\[(\d+)\]$/.exec(where);
  if (m) return `system block ${Number(m[1]) + 1} of ${systemBlocks(body).length}`;
  return undefined;
}

function forkBreakpoints(f: ForkChild | undefined): Fact {
  if (!f || f.at < 0) return fact('fork.breakpoints', NOT_MEASURED);
  const body = f.first.req.body;
  const where = f.first.req.breakpoints.map((bp) => {
    const prefix = toolOrSystemBreakpoint(bp.where, body);
    if (prefix) return prefix;
    const m = /^messages\[(\d+)\]\.content\[(\d+)\]$/.exec(bp.where);
    if (m) {
      const mi = Number(m[1]);
      if (mi <= f.at) return 'history';
      const msg = f.first.messages[mi];
      const b = msg?.blocks[Number(m[2])];
      if (!b) return bp.where;
      const role = roleOf(b, f);
      const results = msg.blocks.filter((x) => x.type === 'tool_result');
      return role.endsWith('placeholder') && results.at(-1) === b ? 'last placeholder' : role;
    }
    return bp.where;
  });
  return fact('fork.breakpoints', where.length === 0 ? 'none' : runs(where), f.a.trace);
}

/** A call that asks for a fork the way this source forks: no type, or "fork". */
function isForkCall(s: Spawn): boolean {
  const t = agentType(s.input);
  return t === undefined || t === 'fork';
}

function forkRefusal(all: Analysed[]): Fact {
  for (const a of all) {
    for (const s of a.spawns) {
      if (s.conv.kind !== 'fork' || !isForkCall(s)) continue;
      const child = childrenOf(s, a.convs)[0];
      if (child) return fact('fork.refusal', `not refused: a ${child.kind === 'fork' ? 'fork' : 'sub-agent'} started`, a.trace);
      const r = resultOf(s);
      if (r) return fact('fork.refusal', `is_error: ${r.isError} · "${errorMessage(r.text)}"`, a.trace);
    }
  }
  return fact('fork.refusal', NOT_MEASURED);
}

function namedFromFork(all: Analysed[]): Fact {
  for (const a of all) {
    for (const s of a.spawns) {
      if (s.conv.kind !== 'fork' || isForkCall(s)) continue;
      const child = childrenOf(s, a.convs)[0];
      if (child) return fact('fork.named-child', `yes: the ${agentType(s.input)} sub-agent ran`, a.trace);
      const r = resultOf(s);
      if (r) return fact('fork.named-child', `no: ${r.isError ? 'is_error ' : ''}"${firstSentence(errorMessage(r.text))}"`, a.trace);
    }
  }
  return fact('fork.named-child', NOT_MEASURED);
}

/** One finished child of the main conversation and how its report came back. */
interface Delivery {
  a: Analysed;
  spawn: Spawn;
  report: string;
  result?: { text: string; isError: boolean };
  /** The later user text block of the caller that carries the report, when not inline. */
  later?: string;
}

function deliveries(all: Analysed[], from: (s: Spawn) => boolean): Delivery[] {
  const out: Delivery[] = [];
  for (const a of all) {
    for (const s of a.spawns) {
      if (!from(s)) continue;
      const child = childrenOf(s, a.convs)[0];
      if (!child) continue;
      const report = reportOf(child);
      if (report === '') continue;
      const result = resultOf(s);
      let later: string | undefined;
      if (!carries(result?.text, report)) {
        for (const ex of s.conv.exchanges.slice(s.at + 1)) {
          later = userTexts(ex.messages).find((t) => carries(t, report));
          if (later !== undefined) break;
        }
      }
      out.push({ a, spawn: s, report, result, later });
    }
  }
  return out;
}

function deliveryMode(d: Delivery): string {
  if (carries(d.result?.text, d.report)) return 'inline: the agent call\'s tool_result';
  if (d.later !== undefined) return 'a launch notice as the tool_result, the report later in a user-side text block';
  return d.result ? 'a tool_result without the report; the report never reached the caller' : 'never reached the caller';
}

function fromRoot(s: Spawn): boolean {
  return s.conv.kind === 'root';
}

/** Read on the first run of the delegate case: the series' is chapter 11's, which waits for the report. */
function reportDelivery(all: Analysed[]): Fact {
  const ds = deliveries(all, fromRoot);
  const d = ds.find((x) => x.a.trace.case === 'delegate') ?? ds[0];
  if (!d) return fact('report.delivery', NOT_MEASURED);
  return fact('report.delivery', deliveryMode(d), d.a.trace);
}

/**
 * The latest run of the delegate case: the series runs it in chapter 11 (the call waits) and
 * again in chapter 15 (background agents); Claude Code runs it once. How the call returns and
 * where the report arrives are read on this one: a chapter 15 that waits again shows it here.
 */
function latestDelegate(ds: Delivery[]): Delivery | undefined {
  const last = ds.filter((x) => x.a.trace.case === 'delegate').at(-1)?.a.trace;
  return ds.find((x) => x.a.trace === last) ?? ds[0];
}

/** The agent id a launch notice gives ("agentId: X", "agent id: X"), if it gives one. */
function agentIdIn(text: string): string | undefined {
  return /\bagent ?id:\s*([\w-]+)/i.exec(text)?.[1];
}

function reportNotice(all: Analysed[]): Fact {
  const d = latestDelegate(deliveries(all, fromRoot));
  if (!d || !d.result) return fact('report.notice', NOT_MEASURED);
  if (carries(d.result.text, d.report)) return fact('report.notice', 'nothing: the call waits for the report', d.a.trace);
  const id = agentIdIn(d.result.text) !== undefined;
  const named = toolsNamed(d.result.text, d.spawn.conv.exchanges[d.spawn.at]!);
  return fact('report.notice', `"${firstSentence(d.result.text)}" · names an agent id: ${yesNo(id)}`, d.a.trace,
    named.length > 0 ? `tools it names: ${named.join(', ')}` : undefined);
}

/**
 * The tools a text names, each with where the request that made the call has it: among its
 * tools, or only named on a line of its own in what the request sent (a list of tools loaded
 * on demand; "behind ToolSearch" when the request carries a tool of that name to load them).
 * Only names no sentence uses as a word: SendMessage or send_message, not "Read" or "agent".
 */
function toolsNamed(text: string, ex: Exchange): string[] {
  const carried = toolNames(ex.req.body);
  const listed = new Set(allText(ex).split('\n').map((l) => l.trim()));
  const words = [...new Set(text.match(/\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b/g) ?? [])];
  const out: string[] = [];
  for (const w of words) {
    if (carried.includes(w)) out.push(`${w} (one of the request's tools)`);
    else if (listed.has(w)) out.push(`${w} (not one of the request's tools: listed${carried.includes('ToolSearch') ? ', behind ToolSearch' : ''})`);
  }
  return out;
}

/** The tags open at a position of a text, outermost first: "<a> > <b>". */
function openTags(text: string, at: number): string[] {
  const stack: string[] = [];
  for (const m of text.slice(0, at).matchAll(/<(\/?)([A-Za-z][\w-]*)>/g)) {
    if (m[1] === '/') {
      const i = stack.lastIndexOf(m[2]!);
      if (i >= 0) stack.splice(i);
    } else stack.push(m[2]!);
  }
  return stack;
}

function reportNotification(all: Analysed[]): Fact {
  const d = latestDelegate(deliveries(all, fromRoot));
  if (!d) return fact('report.notification', NOT_MEASURED);
  if (d.later === undefined) return fact('report.notification', 'none: the report is the tool_result', d.a.trace);
  const tags = openTags(d.later, d.later.indexOf(d.report.split('\n')[0]!.trim()));
  // The fields beside the report: the child tags of the innermost element that holds it.
  const holder = tags.length >= 2 ? tags[tags.length - 2]! : undefined;
  const held = holder === undefined ? '' : new RegExp(`<${holder}>([\\s\\S]*?)</${holder}>`).exec(d.later)?.[1] ?? '';
  const fields = [...held.matchAll(/<([A-Za-z][\w-]*)>[\s\S]*?<\/\1>/g)].map((m) => m[1]!);
  // Beside the names: a field made of fields (a usage block), theirs; a field that holds the
  // agent's id in a path (a file of its output), the path's last two steps, the id named.
  const id = agentIdIn(d.result?.text ?? '');
  const parts = fields.length > 0 ? [`fields: ${fields.join(', ')}`] : [];
  for (const field of fields) {
    const inner = new RegExp(`<${field}>([\\s\\S]*?)</${field}>`).exec(held)?.[1] ?? '';
    const sub = [...inner.matchAll(/<([A-Za-z][\w-]*)>[\s\S]*?<\/\1>/g)].map((m) => m[1]!);
    if (sub.length > 0) parts.push(`${field}: ${sub.join(', ')}`);
    else if (id !== undefined && inner.includes(id) && inner.includes('/')) {
      parts.push(`${field}: …/${inner.trim().split('/').slice(-2).join('/').replaceAll(id, '<agent id>')}`);
    }
  }
  return fact('report.notification', `a user text block: ${tags.map((t) => `<${t}>`).join(' > ') || 'untagged'}`, d.a.trace,
    parts.length > 0 ? parts.join(' · ') : undefined);
}

/**
 * The main agent stops a background agent it started (stop_agent, Claude Code's TaskStop):
 * what the stop call returns, and the notification that follows in the same conversation,
 * if any: its status, and whether it carries a result.
 */
function reportStopped(all: Analysed[]): Fact {
  for (const a of all) {
    if (a.trace.case !== 'stop') continue;
    for (const conv of a.convs) {
      const [stop] = callsNamed(conv, 'stop_agent');
      if (!stop) continue;
      const id = Object.values(stop.input).find((v): v is string => typeof v === 'string' && v !== '');
      const notice = id === undefined ? undefined : notificationAbout(conv, stop.at, id);
      const r = resultOf(stop);
      const call = r === undefined ? 'no answer' : r.isError ? 'is_error' : 'ok';
      const value = notice === undefined ? `the stop call: ${call} · no notification follows`
        : `the stop call: ${call} · a notification follows: status "${statusOf(notice)}" · a result: ${yesNo(/<result>/.test(notice))}`;
      return fact('report.stopped', value, a.trace);
    }
  }
  return fact('report.stopped', NOT_MEASURED);
}

/** The tool_use blocks of `conv`'s responses that call the series' tool `name` (Claude Code's names mapped), in order, each with the exchange it is in. */
function callsNamed(conv: Conversation, name: string): { conv: Conversation; at: number; id: string; input: Json }[] {
  return conv.exchanges.flatMap((ex, at) => (ex.res?.content ?? []).flatMap((b) =>
    (b.type === 'tool_use' && toolName(b.name) === name ? [{ conv, at, id: b.id, input: b.input as Json }] : [])));
}

/** The text of the first user-side block, after exchange `from` of `conv`, that reads as a notification about `id` (it has a <status>). */
function notificationAbout(conv: Conversation, from: number, id: string): string | undefined {
  return conv.exchanges.slice(from + 1).flatMap((ex) => ex.messages.filter((m) => m.role === 'user').flatMap((m) => m.blocks))
    .filter((b) => b.type === 'text').map(blockText).find((t) => /<status>/.test(t) && t.includes(id));
}

/** A notification's <status>. */
function statusOf(notice: string): string | undefined {
  return /<status>([^<]*)<\/status>/.exec(notice)?.[1]?.trim();
}

/** A send_message (SendMessage) the main agent made to an agent it started, and whether that agent had reported by then. */
interface Send { a: Analysed; conv: Conversation; at: number; callId: string; id: string; message: string; spawn: Spawn; finished: boolean }

/** The x-ray case's messages to agents, in order. A call made to show a refusal (no message, an id nobody started) is left out. */
function sendsOf(all: Analysed[], xrayCase: XrayCase): Send[] {
  const found: Send[] = [];
  for (const a of all) {
    if (a.trace.case !== xrayCase) continue;
    for (const conv of a.convs) {
      for (const { at, id: callId, input } of callsNamed(conv, 'send_message')) {
        const id = [input.to, input.id].find((v): v is string => typeof v === 'string' && v !== '');
        const message = typeof input.message === 'string' ? input.message.trim() : '';
        const spawn = id === undefined ? undefined : a.spawns.find((s) => resultOf(s)?.text.includes(id));
        if (id === undefined || message === '' || !spawn) continue;
        // Finished: the request that made the call already held the agent's notification.
        const finished = userTexts(conv.exchanges[at]!.messages).some((t) => /<status>/.test(t) && t.includes(id));
        found.push({ a, conv, at, callId, id, message, spawn, finished });
      }
    }
  }
  return found;
}

/** What the call returned, and where the agent read the message: in its own context (after its task), in a fresh one, or not at all. */
function sendOutcome(s: Send): { call: string; goesOn: string } {
  const r = resultOf({ conv: s.conv, at: s.at, id: s.callId });
  const call = r === undefined ? 'no answer' : r.isError ? `is_error "${headline(errorMessage(r.text))}"` : 'ok';
  // Its own context: the request that carries the message still holds the task the agent
  // started with. Usually a later request; the first one when the message was queued before
  // the agent's first request went out (a main agent quicker than its child, which a loaded
  // machine can make happen): read with its task, all the same.
  const child = childrenOf(s.spawn, s.a.convs)[0];
  const task = typeof s.spawn.input.prompt === 'string' ? s.spawn.input.prompt : '';
  const resumed = child?.exchanges.find((ex) => allText(ex).includes(s.message));
  const own = resumed !== undefined && task !== '' && allText(resumed).includes(task);
  // Or a request that starts with the message: the agent run again from nothing but it.
  const fresh = s.a.convs.some((c) => c.exchanges.some((ex) => userTexts(ex.messages.slice(0, 1)).some((t) => t.includes(s.message))));
  return { call, goesOn: own ? 'in its own context' : fresh ? 'in a fresh context' : 'no' };
}

/**
 * The main agent sends a follow-up to a background agent that has reported (send_message,
 * Claude Code's SendMessage): what the call returns; whether the agent goes on in its own
 * context; the notification that follows the call, if any.
 */
function reportContinued(all: Analysed[]): Fact {
  const s = sendsOf(all, 'continue').find((x) => x.finished);
  if (!s) return fact('report.continued', NOT_MEASURED);
  const { call, goesOn } = sendOutcome(s);
  const notice = notificationAbout(s.conv, s.at, s.id);
  const parts = [`the call: ${call}`, `the agent goes on: ${goesOn}`, notice === undefined ? 'no notification follows' : `a notification follows: status "${statusOf(notice)}"`];
  return fact('report.continued', parts.join(' · '), s.a.trace);
}

/** The same to an agent still running: what the call returns, and whether the agent reads the message. */
function messageWhileRunning(all: Analysed[]): Fact {
  const s = sendsOf(all, 'continue').find((x) => !x.finished);
  if (!s) return fact('report.message-running', NOT_MEASURED);
  const { call, goesOn } = sendOutcome(s);
  return fact('report.message-running', `the call: ${call} · the agent reads it: ${goesOn === 'no' ? 'no' : goesOn}`, s.a.trace);
}

function reportFraming(all: Analysed[]): Fact {
  // The latest run that returns a report inline: the series' later chapters frame it.
  const inline = deliveries(all, () => true).filter((d) => carries(d.result?.text, d.report));
  const d = inline[inline.length - 1];
  if (!d || !d.result) return fact('report.framing', NOT_MEASURED);
  const text = d.result.text;
  const lines = d.report.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const before = text.slice(0, text.indexOf(lines[0]!));
  // Indented means every line of the report starts after whitespace at the start of a line.
  const indented = lines.every((l) => new RegExp(`(^|\\n)[ \\t]+${escapeRe(l)}`).test(text));
  // The frame's opening bracket or tag; what follows a colon inside it varies by report.
  const opener = /^\s*(\[[^\]\n]{1,60}\]|<[A-Za-z][\w-]*>)/.exec(before)?.[1]?.replace(/^(\[[^:\]]*):[^\]]*\]$/, '$1: …]');
  const value = before.trim() === '' ? 'not framed: the report as the child wrote it'
    : `framed: opens with "${opener ?? firstSentence(before)}" · report lines indented: ${yesNo(indented)}`;
  return fact('report.framing', value, d.a.trace);
}

/**
 * A child whose requests were all refused (the mock answered each with an error, none with
 * a message), and the tool_result its caller got back: is_error, the words before the first
 * colon, whether the API's message is in it. Only a call that waited: a launch notice went
 * out before the child failed, and says nothing of it.
 */
function reportFailure(all: Analysed[]): Fact {
  for (const a of all) {
    const errors = new Map<number, string>();
    for (const e of a.trace.events) if (e.type === 'error') errors.set(e.seq, e.message);
    for (const s of a.spawns) {
      const child = childrenOf(s, a.convs)[0];
      if (!child || child.exchanges.some((ex) => ex.res !== undefined || !errors.has(ex.req.seq))) continue;
      const r = resultOf(s);
      // The call waited: its tool_result first went out after the child's last request.
      const sent = resultSentAt(s);
      if (!r || sent === undefined || sent < child.exchanges.at(-1)!.req.seq) continue;
      const messages = [...new Set(child.exchanges.map((ex) => errors.get(ex.req.seq)!))];
      const n = child.exchanges.length;
      return fact('report.failure', `is_error: ${r.isError} · "${headline(errorMessage(r.text))}" · the API's message: ${yesNo(messages.some((m) => r.text.includes(m)))}`,
        a.trace, `the sub-agent sent ${n} request${n === 1 ? '' : 's'}, each refused`);
    }
  }
  return fact('report.failure', NOT_MEASURED);
}

function namedChild(all: Analysed[], type: string): { a: Analysed; conv: Conversation } | undefined {
  const found: { a: Analysed; conv: Conversation }[] = [];
  for (const a of all) for (const c of a.convs) if (c.parent && c.kind === 'fresh' && agentType(c.parent.input) === type) found.push({ a, conv: c });
  return found.find((x) => x.a.trace.case === 'delegate' && x.conv.parent?.conv.kind === 'root') ?? found[0];
}

const KEY_TOOLS = ['read_file', 'run_shell', 'edit_file', 'write_file', 'agent'];

function toolsFact(id: string, all: Analysed[], type: string): Fact {
  const c = namedChild(all, type);
  if (!c) return fact(id, NOT_MEASURED);
  const names = toolNames(c.conv.exchanges[0]!.req.body);
  const have = new Set(names.map(toolName));
  const yes = KEY_TOOLS.filter((t) => have.has(t));
  const no = KEY_TOOLS.filter((t) => !have.has(t));
  return fact(id, `${yes.join(', ') || 'none of the key tools'}${no.length > 0 ? `; no ${no.join(', ')}` : ''}`, c.a.trace, names.join(', '));
}

/** The content of a CLAUDE.md the run set up, if any: found in a request, it reached the model. */
function claudeMdContents(trace: XrayTrace): string[] {
  const out: string[] = [];
  for (const [p, content] of Object.entries(trace.files ?? {})) if (/(^|\/)CLAUDE\.md$/.test(p) && content.trim() !== '') out.push(content.trim());
  for (const [p, content] of Object.entries(trace.homeFiles ?? {})) if (p === '.claude/CLAUDE.md' && content.trim() !== '') out.push(content.trim());
  return out;
}

function contextFact(id: string, all: Analysed[], type: string): Fact {
  const c = namedChild(all, type);
  if (!c) return fact(id, NOT_MEASURED);
  const text = allText(c.conv.exchanges[0]!);
  const mds = claudeMdContents(c.a.trace);
  const md = mds.length === 0 ? 'not set up' : yesNo(mds.some((m) => text.includes(m)));
  const git = yesNo(/current branch:/i.test(text));
  return fact(id, `CLAUDE.md ${md} · git status ${git}`, c.a.trace);
}

function concurrency(all: Analysed[]): Fact {
  for (const a of all) {
    if (a.trace.env?.CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS !== '1') continue;
    for (const s of a.spawns) {
      const r = resultOf(s);
      if (!r?.isError || childrenOf(s, a.convs).length > 0 || !/concurren/i.test(r.text)) continue;
      const names = /CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS/.test(r.text);
      return fact('limits.concurrency', `is_error · "${headline(errorMessage(r.text))}" · names the variable: ${yesNo(names)}`, a.trace);
    }
  }
  return fact('limits.concurrency', NOT_MEASURED);
}

/**
 * One response making more agent calls than any cap could hold (over twenty), in a run whose
 * concurrency variable `fits` what the fact is about: how many of them started (a child
 * conversation, or a result that is no error) before the first was refused, and whether the
 * refusal says the number.
 */
function capOfBatch(id: string, all: Analysed[], fits: (value: string | undefined) => boolean): Fact {
  for (const a of all) {
    if (!fits(a.trace.env?.CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS)) continue;
    const batches = new Map<string, Spawn[]>();
    for (const s of a.spawns) {
      const key = `${a.convs.indexOf(s.conv)}:${s.at}`;
      batches.set(key, [...(batches.get(key) ?? []), s]);
    }
    const batch = [...batches.values()].find((b) => b.length > 20);
    if (!batch) continue;
    const refused = batch.findIndex((s) => { const r = resultOf(s); return r?.isError === true && childrenOf(s, a.convs).length === 0 && /concurren/i.test(r.text); });
    if (refused < 0) return fact(id, `no limit met: all ${batch.length} calls of one message started`, a.trace);
    const says = new RegExp(`\\b${refused}\\b`).test(resultOf(batch[refused]!)!.text);
    return fact(id, `${refused} start, call ${refused + 1} of ${batch.length} is refused · the refusal names ${refused}: ${yesNo(says)}`, a.trace);
  }
  return fact(id, NOT_MEASURED);
}

/** No concurrency variable set. */
const defaultCap = (all: Analysed[]): Fact => capOfBatch('limits.default-cap', all, (v) => v === undefined);

/** A concurrency variable that is not a number at all. */
const malformedCap = (all: Analysed[]): Fact => capOfBatch('limits.malformed-cap', all, (v) => v !== undefined && !/^\s*-?\d/.test(v));

/**
 * With no depth variable set, a chain of fresh sub-agents each starting the next, three
 * deep at least: at which depths the first request offers the agent tool. A chain that
 * stops before its deepest level is refused shows only the depths it reached.
 */
function defaultDepth(all: Analysed[]): Fact {
  for (const a of all) {
    if (a.trace.env?.CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH !== undefined) continue;
    const chain = a.convs.filter((c) => c.kind === 'fresh' && !['explore', 'plan'].includes(agentType(c.parent!.input) ?? ''));
    const deepest = Math.max(0, ...chain.map(depthOf));
    if (deepest < 3) continue;
    const offered: number[] = [];
    const missing: number[] = [];
    for (let d = 1; d <= deepest; d++) {
      const at = chain.find((c) => depthOf(c) === d);
      if (!at) continue;
      (toolNames(at.exchanges[0]!.req.body).some((n) => toolName(n) === 'agent') ? offered : missing).push(d);
    }
    const list = (ds: number[]) => ds.join(', ');
    return fact('limits.default-depth', `agent tool offered at depth ${list(offered) || 'none'} · missing at depth ${list(missing) || 'none'}`, a.trace);
  }
  return fact('limits.default-depth', NOT_MEASURED);
}

function depthLimit(all: Analysed[]): Fact {
  for (const a of all) {
    if (a.trace.env?.CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH !== '1') continue;
    // A sub-agent one level down, of a type that would otherwise delegate (not Explore/Plan).
    const child = a.convs.find((c) => c.kind === 'fresh' && depthOf(c) === 1 && !['explore', 'plan'].includes(agentType(c.parent!.input) ?? ''));
    if (!child) continue;
    const offered = toolNames(child.exchanges[0]!.req.body).some((n) => toolName(n) === 'agent');
    if (!offered) return fact('limits.depth', 'the agent tool is missing from the sub-agent\'s tools', a.trace);
    const call = a.spawns.find((s) => s.conv === child);
    const r = call ? resultOf(call) : undefined;
    return fact('limits.depth', r?.isError ? `agent tool offered; a call is refused: "${firstSentence(errorMessage(r.text))}"` : 'agent tool offered', a.trace);
  }
  return fact('limits.depth', NOT_MEASURED);
}

/** A skill body's fixed parts (frontmatter and $ARGUMENTS-like placeholders taken out). */
/** A front-matter field of a skill or agent file, as written: `description: …`. */
function frontmatterField(text: string, key: string): string | undefined {
  return new RegExp(`^${key}:[ \\t]*(.+)$`, 'm').exec(text)?.[1]?.trim();
}

/** Of a project copy and a personal copy of one name, which reached the model. */
function whichWon(project: boolean, personal: boolean, folder: 'skills' | 'agents'): string {
  if (project && personal) return 'both reached the model';
  if (personal) return `the personal one (~/.claude/${folder})`;
  return project ? `the project's (.claude/${folder})` : 'neither reached the model';
}

function skillFragments(file: string): string[] {
  const body = file.replace(/^---\n[\s\S]*?\n---\n?/, '');
  return body.split(/\$\{?[A-Za-z0-9_]+\}?/).map((s) => s.trim()).filter((s) => s.length >= 8);
}

function skillPrecedence(all: Analysed[]): Fact {
  for (const a of all) {
    const project = a.trace.files ?? {};
    const home = a.trace.homeFiles ?? {};
    for (const p of Object.keys(project)) {
      const m = /^\.claude\/skills\/([^/]+)\/SKILL\.md$/.exec(p);
      if (!m || home[p] === undefined) continue;
      const text = a.convs.flatMap((c) => c.exchanges.map(allText)).join('\n');
      const reached = (file: string) => { const parts = skillFragments(file); return parts.length > 0 && parts.every((s) => text.includes(s)); };
      const proj = reached(project[p]!);
      const pers = reached(home[p]!);
      return fact('skills.precedence', whichWon(proj, pers, 'skills'), a.trace);
    }
  }
  return fact('skills.precedence', NOT_MEASURED);
}

/**
 * A session started in a subfolder (trace.start): which project folders' skills (or agent
 * files) reached the model, by where each folder lies: the starting folder, the folders
 * between it and the root, the root, a sibling off the way; and, for a name defined both at
 * the root and in the starting folder, whose won. A file reached the model when its
 * description (or, for a skill, its body) is in what was sent: a listing, a tool's
 * description, a skill that ran.
 */
/**
 * An agent file of the same name in the workspace's .claude/agents and in the home's: which
 * one's description the model was shown (the agent tool lists each agent by it).
 */
function agentPrecedence(all: Analysed[]): Fact {
  const agents = (files: Record<string, string> | undefined) => Object.entries(files ?? {})
    .filter(([p]) => /^\.claude\/agents\/[^/]+\.md$/.test(p))
    .map(([, text]) => ({ name: frontmatterField(text, 'name'), description: frontmatterField(text, 'description') }));
  for (const a of all) {
    const home = agents(a.trace.homeFiles);
    for (const project of agents(a.trace.files)) {
      const personal = home.find((h) => h.name !== undefined && h.name === project.name);
      if (!personal?.description || !project.description || personal.description === project.description) continue;
      const sent = a.convs.flatMap((c) => c.exchanges.map((ex) => `${allText(ex)}\n${toolDescriptions(ex.req.body)}`)).join('\n');
      const [proj, pers] = [sent.includes(project.description), sent.includes(personal.description)];
      return fact('agents.precedence', whichWon(proj, pers, 'agents'), a.trace);
    }
  }
  return fact('agents.precedence', NOT_MEASURED);
}

function folderReach(id: 'skills.folders' | 'agents.folders', all: Analysed[]): Fact {
  const file = id === 'skills.folders' ? /^(?:(.+)\/)?\.claude\/skills\/[^/]+\/SKILL\.md$/ : /^(?:(.+)\/)?\.claude\/agents\/[^/]+\.md$/;
  for (const a of all) {
    const start = a.trace.start;
    if (start === undefined) continue;
    const found = Object.entries(a.trace.files ?? {}).flatMap(([p, text]) => {
      const m = file.exec(p);
      return m ? [{ folder: m[1] ?? '', name: frontmatterField(text, 'name'), text }] : [];
    });
    if (found.length === 0) continue;
    const sent = a.convs.flatMap((c) => c.exchanges.map((ex) => `${allText(ex)}\n${toolDescriptions(ex.req.body)}`)).join('\n');
    const reached = (text: string) => {
      const description = frontmatterField(text, 'description');
      if (description !== undefined && sent.includes(description)) return true;
      const parts = skillFragments(text);
      return id === 'skills.folders' && parts.length > 0 && parts.every((s) => sent.includes(s));
    };
    const where = (folder: string) => (folder === start ? 'start' : folder === '' ? 'root' : start.startsWith(`${folder}/`) ? 'between' : 'sibling');
    const twins = found.filter((f) => f.name !== undefined && found.some((g) => g !== f && g.name === f.name));
    const read = (place: string) => found.some((f) => where(f.folder) === place && !twins.includes(f) && reached(f.text));
    const places = [['start', 'the starting folder'], ['between', 'the folders between'], ['root', 'the root']] as const;
    const listed = places.filter(([p]) => found.some((f) => where(f.folder) === p && !twins.includes(f)));
    const hasSibling = found.some((f) => where(f.folder) === 'sibling');
    const parts = [
      `reads ${listed.filter(([p]) => read(p)).map(([, shown]) => shown).join(', ') || 'none of them'}`,
      ...(listed.some(([p]) => !read(p)) ? [`not ${listed.filter(([p]) => !read(p)).map(([, shown]) => shown).join(', ')}`] : []),
      ...(hasSibling ? [`a sibling folder: ${read('sibling') ? 'read' : 'not read'}`] : []),
    ];
    const atStart = twins.find((t) => where(t.folder) === 'start');
    const atRoot = twins.find((t) => where(t.folder) === 'root' && t.name === atStart?.name);
    if (atStart && atRoot) {
      const [s, r] = [reached(atStart.text), reached(atRoot.text)];
      parts.push(`one name at both ends: ${s && r ? 'both reached the model' : s ? "the starting folder's wins" : r ? "the root's wins" : 'neither reached the model'}`);
    }
    return fact(id, parts.join(' · '), a.trace);
  }
  return fact(id, NOT_MEASURED);
}

/**
 * A session in acceptEdits that writes an ordinary file, a skill and an agent file (the
 * x-ray's skills-write, chapter 9's own-skills): which went through unasked. The answer to
 * each write says: no is_error, written; an is_error about permission, held for a yes that
 * nobody can give here (print mode, an unattended run). A folder written twice with two
 * outcomes shows both.
 */
function ownFolderWrites(all: Analysed[]): Fact {
  const place = (p: string) => (/(?:^|\/)\.claude\/skills\//.test(p) ? '.claude/skills' : /(?:^|\/)\.claude\/agents\//.test(p) ? '.claude/agents' : 'an ordinary file');
  for (const a of all) {
    if (a.trace.case !== 'skills') continue;
    const seen = new Map<string, Set<string>>();
    for (const conv of a.convs) {
      for (const call of [...callsNamed(conv, 'write_file'), ...callsNamed(conv, 'edit_file')]) {
        const file = call.input.file_path ?? call.input.path;
        const r = resultOf(call);
        if (typeof file !== 'string' || r === undefined) continue;
        const outcome = !r.isError ? 'written unasked' : /permission|approved in advance/i.test(r.text) ? 'held for a yes' : 'an error';
        seen.set(place(file), (seen.get(place(file)) ?? new Set()).add(outcome));
      }
    }
    if (!seen.has('.claude/skills')) continue;
    const value = ['an ordinary file', '.claude/skills', '.claude/agents'].filter((p) => seen.has(p)).map((p) => `${p}: ${[...seen.get(p)!].sort().join(' / ')}`).join(' · ');
    return fact('skills.own-folder', value, a.trace);
  }
  return fact('skills.own-folder', NOT_MEASURED);
}

// ---------------------------------------------------------------------------
// Worktrees: the wire says where a sub-agent was told it works; the disk (trace.repo, read
// after the run) says what was kept.

function escapeRe(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The agent tool's input schema, as the first request of the main conversation offered it. */
function agentSchema(a: Analysed): Json | undefined {
  const root = a.convs.find((c) => c.kind === 'root');
  const tools = root?.exchanges[0]!.req.body.tools;
  const tool = (Array.isArray(tools) ? tools : []).find((t) => isObj(t) && toolName(String(t.name)) === 'agent');
  return isObj(tool) && isObj(tool.input_schema) ? tool.input_schema : undefined;
}

function isolationField(all: Analysed[]): Fact {
  const a = all.find((x) => x.trace.case === 'worktree' && agentSchema(x));
  const schema = a && agentSchema(a);
  if (!a || !schema) return fact('worktree.isolation', NOT_MEASURED);
  const field = isObj(schema.properties) ? schema.properties.isolation : undefined;
  if (!isObj(field)) return fact('worktree.isolation', 'no isolation field', a.trace);
  const values = Array.isArray(field.enum) ? field.enum.map((v) => `"${String(v)}"`) : [];
  return fact('worktree.isolation', values.length > 0 ? `isolation: one of ${values.join(', ')}` : `isolation: any ${String(field.type ?? 'value')}`, a.trace);
}

/** The sub-agents started with isolation: "worktree", and whether each called a writing tool. */
function isolatedChildren(all: Analysed[]): { a: Analysed; conv: Conversation; spawn: Spawn; wrote: boolean }[] {
  const out: { a: Analysed; conv: Conversation; spawn: Spawn; wrote: boolean }[] = [];
  for (const a of all) {
    if (a.trace.case !== 'worktree') continue;
    for (const conv of a.convs) {
      if (!conv.parent || conv.parent.input.isolation !== 'worktree') continue;
      const wrote = conv.exchanges.some((ex) => (ex.res?.content ?? []).some((b) => b.type === 'tool_use' && ['write_file', 'edit_file'].includes(toolName(b.name))));
      out.push({ a, conv, spawn: conv.parent, wrote });
    }
  }
  return out;
}

/** A worktree folder relative to the workspace, as a shape: the repository's name and the worktree's own replaced. */
function worktreeShape(rel: string, cwd: string): string {
  const segs = rel.split('/');
  if (segs[0] === '..') {
    const sibling = segs.slice(1).join('/').replace(new RegExp(`^${escapeRe(path.posix.basename(cwd))}`), '<repo>');
    return `beside the repository: ${sibling.replace(/[^/]+$/, '<name>')}`;
  }
  return `inside the repository: ${rel.replace(/[^/]+$/, '<name>')}`;
}

/**
 * Where an isolated child works, as a shape relative to the workspace. From the wire first:
 * the paths its first request mentions that start with the workspace's own path (the
 * workspace, a folder inside it, or a sibling named after it), the shortest that is not a
 * file the run set up. When no request names one, from the disk: a worktree a writing
 * child's run kept (the detail says so).
 */
function isolatedCwd(all: Analysed[]): Fact {
  const children = isolatedChildren(all);
  if (children.length === 0) return fact('worktree.cwd', NOT_MEASURED);
  for (const c of children) {
    const cwd = c.a.trace.cwd;
    const text = allText(c.conv.exchanges[0]!);
    const rels = [...new Set([...text.matchAll(new RegExp(`${escapeRe(cwd)}[^\\s"'<>\`),:;]*`, 'g'))].map((m) => path.posix.relative(cwd, m[0].replace(/[./]+$/, ''))))];
    const setUp = new Set(Object.keys(c.a.trace.files ?? {}));
    const rel = rels.filter((r) => r !== '' && !setUp.has(r) && !r.startsWith('.git/')).sort((x, y) => x.length - y.length)[0];
    if (rel !== undefined) return fact('worktree.cwd', worktreeShape(rel, cwd), c.a.trace, `folder name: ${rel.split('/').at(-1)!.replace(/[0-9a-f]{8,}/g, '<hex>')}`);
  }
  const kept = children.find((c) => c.wrote && (c.a.trace.repo?.worktrees.length ?? 0) > 0);
  if (kept) return fact('worktree.cwd', worktreeShape(kept.a.trace.repo!.worktrees[0]!.dir, kept.a.trace.cwd), kept.a.trace, 'read on disk: its requests name no path of it');
  return fact('worktree.cwd', 'no path of it in its requests', children[0]!.a.trace);
}

/** Branches a run made: every branch but the one the workspace was on (main). */
function newBranches(trace: XrayTrace): string[] {
  return (trace.repo?.branches ?? []).filter((b) => b !== 'main');
}

function unchangedWorktree(all: Analysed[]): Fact {
  const c = isolatedChildren(all).find((x) => !x.wrote && x.a.trace.repo);
  if (!c) return fact('worktree.unchanged', NOT_MEASURED);
  const repo = c.a.trace.repo!;
  return fact('worktree.unchanged', `worktree ${repo.worktrees.length > 0 ? 'kept' : 'removed'} · branch ${newBranches(c.a.trace).length > 0 ? 'kept' : 'removed'}`, c.a.trace);
}

/** The worktree a writing child left, if its run kept one. */
function keptBy(all: Analysed[]): { c: ReturnType<typeof isolatedChildren>[number]; kept?: RepoWorktree } | undefined {
  const c = isolatedChildren(all).find((x) => x.wrote && x.a.trace.repo);
  return c && { c, kept: c.a.trace.repo!.worktrees[0] };
}

function changedWorktree(all: Analysed[]): Fact {
  const k = keptBy(all);
  if (!k) return fact('worktree.changed', NOT_MEASURED);
  const w = k.kept;
  const change = !w ? '' : ` · the change: ${w.committed ? 'committed on the branch' : w.dirty ? 'uncommitted in the worktree' : 'not in the worktree'}`;
  return fact('worktree.changed', `worktree ${w ? 'kept' : 'removed'} · branch ${newBranches(k.c.a.trace).length > 0 ? 'kept' : 'removed'}${change}`, k.c.a.trace,
    `${k.c.a.trace.repo!.worktrees.length} worktree(s) kept`);
}

function keptReport(all: Analysed[]): Fact {
  const k = keptBy(all);
  if (!k || !k.kept) return fact('worktree.report', NOT_MEASURED);
  const d = deliveries([{ trace: k.c.a.trace, convs: k.c.a.convs, spawns: k.c.a.spawns }], (s) => s === k.c.spawn)[0];
  if (!d) return fact('worktree.report', NOT_MEASURED);
  const told = [d.result?.text ?? '', d.later ?? ''].join('\n');
  const kept = k.c.a.trace.repo!.worktrees;
  const absolute = kept.some((w) => told.includes(path.posix.join(k.c.a.trace.cwd, w.dir)));
  const relative = kept.some((w) => told.includes(w.dir));
  const where = absolute ? 'yes (absolute)' : relative ? 'yes (relative to the workspace)' : 'no';
  const tags = [...told.matchAll(/<([A-Za-z][\w-]*)>[^<]*<\/\1>/g)].map((m) => m[1]!).filter((t) => /worktree|branch|path/i.test(t));
  return fact('worktree.report', `names its path: ${where} · names its branch: ${yesNo(kept.some((w) => told.includes(w.branch)))}`, k.c.a.trace,
    tags.length > 0 ? `tags: ${[...new Set(tags)].join(', ')}` : undefined);
}

/** Every fact the traces of one source show; `not measured` where none of them shows it. */
/** The aliases an agent file may name its model by (models.ts holds the series' ids for them). */
const MODEL_ALIAS_NAMES = ['haiku', 'opus', 'sonnet'];

/**
 * Agent files in .claude/agents whose `model:` is an alias: the model id of the first request
 * of a sub-agent of that type, alias by alias; "no sub-agent ran" when the file started none
 * (a loader that refused the alias, say).
 */
function agentModels(all: Analysed[]): Fact {
  for (const a of all) {
    const seen = new Map<string, string>();
    for (const [p, text] of Object.entries(a.trace.files ?? {})) {
      const [name, alias] = [frontmatterField(text, 'name'), frontmatterField(text, 'model')];
      if (!/^\.claude\/agents\/[^/]+\.md$/.test(p) || name === undefined || alias === undefined || !MODEL_ALIAS_NAMES.includes(alias)) continue;
      const child = a.convs.find((c) => c.parent?.input.subagent_type === name);
      seen.set(alias, child?.exchanges[0]?.req.model ?? 'no sub-agent ran');
    }
    if (seen.size > 0) return fact('agents.models', [...seen].sort(([x], [y]) => (x < y ? -1 : 1)).map(([alias, id]) => `${alias}: ${id}`).join(' · '), a.trace);
  }
  return fact('agents.models', NOT_MEASURED);
}

export function extractFacts(traces: XrayTrace[]): Fact[] {
  const all: Analysed[] = traces.map((trace) => ({ trace, ...conversations(trace) }));
  const f = bestFork(all);
  const facts = [
    contextPlacement(all), sessionIds(all), streaming(all), mainBreakpoints(all),
    forkTrigger(all), omittedType(all), forkSystem(f), forkTools(f), forkLayout(f), forkPlaceholder(f),
    forkBoilerplate(f), forkBreakpoints(f), forkRefusal(all), namedFromFork(all),
    reportDelivery(all), reportNotice(all), reportNotification(all), reportFraming(all), reportFailure(all), reportStopped(all), reportContinued(all), messageWhileRunning(all),
    toolsFact('explore.tools', all, 'explore'), contextFact('explore.context', all, 'explore'),
    toolsFact('general.tools', all, 'general'), contextFact('general.context', all, 'general'),
    concurrency(all), depthLimit(all), defaultCap(all), malformedCap(all), defaultDepth(all), skillPrecedence(all), folderReach('skills.folders', all), ownFolderWrites(all), agentPrecedence(all), folderReach('agents.folders', all), agentModels(all),
    isolationField(all), isolatedCwd(all), unchangedWorktree(all), changedWorktree(all), keptReport(all),
  ];
  const order = FACT_TITLES.map((t) => t.id);
  return facts.sort((x, y) => order.indexOf(x.id) - order.indexOf(y.id));
}

/**
 * The delegate case's run and its main conversation: where the facts about what every
 * request carries are read (a main agent, two sub-agents, a CLAUDE.md, a git repository), so
 * that an x-ray of that case alone measures them again.
 */
function delegateRun(all: Analysed[]): { a: Analysed; root: Conversation } | undefined {
  const a = all.find((x) => x.trace.case === 'delegate');
  const root = a?.convs.find((c) => c.kind === 'root');
  return a && root ? { a, root } : undefined;
}

/**
 * How many of the main agent's requests, and of its sub-agents', ask for a streamed answer:
 * "every request", "none", or "3 of 4", in the delegate case's run.
 */
function streaming(all: Analysed[]): Fact {
  const run = delegateRun(all);
  if (!run) return fact('wire.stream', NOT_MEASURED);
  const count = (convs: Conversation[]) => {
    const sent = convs.flatMap((c) => c.exchanges.map((ex) => ex.req));
    const streamed = sent.filter((r) => r.stream).length;   // the mock's record of the body's stream: true
    const said = sent.length === 0 ? 'none sent' : streamed === sent.length ? 'every request' : streamed === 0 ? 'none' : `${streamed} of ${sent.length}`;
    return { said, sent: sent.length };
  };
  const main = count([run.root]);
  const subs = count(run.a.convs.filter((c) => c.kind === 'fork' || c.kind === 'fresh'));
  // No counts beside the value: how many requests a main agent makes in the background case
  // depends on when its notifications arrive, and --check compares the details too.
  return fact('wire.stream', `main agent: ${main.said} · sub-agents: ${subs.said}`, run.a.trace);
}

/**
 * Where the main agent's requests carry cache breakpoints, in the delegate case's run: each
 * breakpoint named by its place (a tool, a system block, a message's block counted from the
 * end), then the TTLs. One description when every request has the same layout.
 */
function mainBreakpoints(all: Analysed[]): Fact {
  const run = delegateRun(all);
  if (!run) return fact('cache.breakpoints', NOT_MEASURED);
  const layouts = run.root.exchanges.map((ex) => {
    const where = ex.req.breakpoints.map((bp) => {
      const prefix = toolOrSystemBreakpoint(bp.where, ex.req.body);
      if (prefix) return prefix;
      const m = /^messages\[(\d+)\]\.content\[(\d+)\]$/.exec(bp.where);
      if (!m) return bp.where;
      const fromEnd = ex.messages.length - 1 - Number(m[1]);
      const blocks = ex.messages[Number(m[1])]?.blocks.length ?? 0;
      const block = Number(m[2]) === blocks - 1 ? 'last block' : `block ${Number(m[2]) + 1} of ${blocks}`;
      return fromEnd === 0 ? `the last message's ${block}` : `${block} of message ${fromEnd + 1} from the end`;
    });
    const ttls = [...new Set(ex.req.breakpoints.map((bp) => bp.ttl))].sort();
    return where.length === 0 ? 'none' : `${where.join(', ')} · TTL ${ttls.join(' and ')}`;
  });
  const distinct = [...new Set(layouts)];
  return fact('cache.breakpoints', distinct.length === 1 ? distinct[0]! : `differs by request: ${distinct.join(' | ')}`, run.a.trace);
}

/**
 * Where the main agent's first request carries the project's CLAUDE.md and the git status:
 * in the system prompt, or in a message (which one, and in what block), in the delegate
 * case's run.
 */
function contextPlacement(all: Analysed[]): Fact {
  const run = delegateRun(all);
  const first = run?.root.exchanges[0];
  const mds = run ? claudeMdContents(run.a.trace) : [];
  if (!run || !first || mds.length === 0) return fact('context.placement', NOT_MEASURED);
  const place = (found: (text: string) => boolean): string => {
    if (systemBlocks(first.req.body).some((b) => found(blockText(b)))) return 'the system prompt';
    for (const [i, m] of first.messages.entries()) {
      const at = m.blocks.findIndex((b) => found(blockText(b)));
      if (at < 0) continue;
      const tag = /^<([\w-]+)>/.exec(blockText(m.blocks[at]!).trim())?.[1];
      const block = tag ? `a <${tag}> block` : 'a block';
      const firstUser = first.messages.findIndex((x) => x.role === 'user') === i;
      if (firstUser) return `the first user message, ${block} ${at < m.blocks.length - 1 ? 'before the prompt' : 'holding the prompt'}`;
      return `message ${i + 1} (${m.role}), ${block}`;
    }
    return 'not sent';
  };
  const md = place((text) => mds.some((m) => text.includes(m)));
  const git = place((text) => /current branch:/i.test(text));
  return fact('context.placement', `CLAUDE.md: ${md} · git status: ${git}`, run.a.trace);
}

/**
 * Which session ids start a session: for each run of the session case, the id given with
 * --session-id, told apart by its shape (a file name, a plain name, a UUID), and whether
 * any request reached the mock after it. A client that refuses an id sends nothing.
 */
function sessionIds(all: Analysed[]): Fact {
  const kinds = ['a file name', 'a plain name', 'a UUID'] as const;
  const kindOf = (id: string) => (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? kinds[2] : /[./]/.test(id) ? kinds[0] : kinds[1]);
  const seen = new Map<string, { id: string; started: boolean; trace: XrayTrace }>();
  for (const a of all) {
    const argv = a.trace.argv ?? [];
    const id = a.trace.case === 'session' && argv.includes('--session-id') ? argv[argv.indexOf('--session-id') + 1] : undefined;
    if (id === undefined || seen.has(kindOf(id))) continue;
    seen.set(kindOf(id), { id, started: a.trace.events.some((e) => e.type === 'request' && e.path === '/v1/messages'), trace: a.trace });
  }
  const rows = kinds.filter((k) => seen.has(k)).map((k) => ({ kind: k, ...seen.get(k)! }));
  if (rows.length === 0) return fact('session.id', NOT_MEASURED);
  return fact('session.id', rows.map((r) => `${r.kind}: ${r.started ? 'starts a session' : 'refused, nothing sent'}`).join(' · '), rows[0]!.trace,
    `the ids: ${rows.map((r) => (r.kind === kinds[2] ? 'a UUID' : r.id)).join(', ')}`);
}

/** Who started whom, for tests and the transcript: track → parent track and kind. */
export function roles(trace: XrayTrace): { track: string; kind: Conversation['kind']; parent?: string; type?: string }[] {
  return conversations(trace).convs.map((c) => {
    const r: { track: string; kind: Conversation['kind']; parent?: string; type?: string } = { track: c.track, kind: c.kind };
    if (c.parent) {
      r.parent = c.parent.conv.track;
      const t = agentType(c.parent.input);
      if (t !== undefined) r.type = t;
    }
    return r;
  });
}
