// GENERATED from src/agent/fork.ts for chapter 13 (parallel-limits). Do not edit: change src/agent/fork.ts and run npm run gen.
// Fork sub-agents: children that start from the parent's exact bytes. Chapter 11's
// sub-agents start blank; a fork child starts from the whole conversation so far, sent
// byte for byte as the parent sent it, so that the prompt cache serves the shared
// prefix to children 2..N at a tenth of the price.
//
//   system    the parent's already-rendered prompt (config.system), never a re-render
//   tools     the parent's exact tool array, `agent` included: dropping it changes the bytes
//   messages  the parent's history, its assistant message with ALL its tool_use blocks,
//             then one user message: a placeholder result for every tool_use, and the
//             child's own text (the boilerplate and "Your directive: …")
//
// Every child is byte-identical up to its own text. A recursion guard with two
// independent checks keeps a child from forking again.
//
// From chapter 13 on, the loop starts a turn's agent calls together (limits.ts) and the
// concurrency cap may turn some away; a refused call gets no child here.

import { APIError } from '@anthropic-ai/sdk';
import type Anthropic from '@anthropic-ai/sdk';
import type { LoopConfig } from './types.ts';
import { agentLoop } from './agent.ts';
import { Ledger } from './ledger.ts';
import { AGENT_TOOL_NAME } from './tools.ts';
import { errorLine } from './cli.ts';
import { admittedRun } from './limits.ts';

/** The query source of a fork child. It lives on the child's config, not in its messages. */
export const FORK_QUERY_SOURCE = 'agent:builtin:fork';
export const FORK_BOILERPLATE_TAG = 'fork-boilerplate';
export const FORK_DIRECTIVE_PREFIX = 'Your directive: ';
// U+2014, an em dash, not "--": the bytes are the point, and every child must send the same ones.
export const FORK_PLACEHOLDER_RESULT = 'Fork started \u2014 processing in background';
export const FORK_REFUSAL = 'Fork is not available inside a forked worker. Complete your task directly using your tools.';

const FORK_BOILERPLATE = [
  `<${FORK_BOILERPLATE_TAG}>`,
  'You are a forked worker process. You are NOT the main agent: the conversation above is the',
  "main agent's, and the instruction below is for you. You ARE the fork.",
  '- Do NOT spawn sub-agents or forks. Execute the directive directly with your tools.',
  '- Do not ask questions: nobody will answer them. Make reasonable assumptions and say which.',
  '- Your final message is your report, and all the main agent will see: lead with the',
  '  result, keep it short, and name the files you read or changed.',
  `</${FORK_BOILERPLATE_TAG}>`,
].join('\n');

/** CLAUDE_CODE_FORK_SUBAGENT=1 (or true/yes/on) turns forks on; without it nothing changes. */
export function isForkSubagentEnabled(env: Record<string, string | undefined>): boolean {
  return ['1', 'true', 'yes', 'on'].includes((env.CLAUDE_CODE_FORK_SUBAGENT ?? '').trim().toLowerCase());
}

/** A call forks only when forks are on AND it names no type; a named type keeps chapter 11's path. */
export function takesForkPath(input: Record<string, unknown>, config: LoopConfig): boolean {
  return config.forkEnabled === true && input.subagent_type === undefined;
}

/** The child's own text: the same boilerplate for every child, then its directive. */
export function buildChildMessage(directive: string): string {
  return `${FORK_BOILERPLATE}\n\n${FORK_DIRECTIVE_PREFIX}${directive}`;
}

/** True when a user message of this conversation carries the boilerplate tag. */
export function isInForkChild(messages: Anthropic.MessageParam[]): boolean {
  const tag = `<${FORK_BOILERPLATE_TAG}>`;
  return messages.some((m) => m.role === 'user' && (typeof m.content === 'string'
    ? m.content.includes(tag)
    : m.content.some((b) => b.type === 'text' && b.text.includes(tag))));
}

/**
 * The child's messages: the parent's conversation, which ends with the assistant message
 * that holds the `agent` calls (the loop stores it before running any tool), then one user
 * message answering EVERY tool_use of it with the same placeholder, then the child's text.
 */
export function buildForkedMessages(parentMessages: Anthropic.MessageParam[], directive: string, caching = true): Anthropic.MessageParam[] {
  const assistant = parentMessages.at(-1);
  if (assistant?.role !== 'assistant' || typeof assistant.content === 'string') {
    throw new Error("a fork starts from the parent's current assistant message, and there is none");
  }
  const placeholders: Anthropic.ToolResultBlockParam[] = assistant.content
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: FORK_PLACEHOLDER_RESULT }));
  // The shared prefix ends here, so this is where a breakpoint pays: the first child writes
  // it, its siblings read it. It is stored in the child's messages, so it stays on the same
  // block for every call the child makes (chapter 8's three markers plus this one: four).
  // DISABLE_PROMPT_CACHING means no marker anywhere, so not this one either.
  if (caching) placeholders.push({ ...placeholders.pop()!, cache_control: { type: 'ephemeral' } });
  return [
    ...parentMessages,
    { role: 'user', content: [...placeholders, { type: 'text', text: buildChildMessage(directive) }] },
  ];
}

/** The child's config: the parent's bytes and model; its own messages, ledger and query source. */
function childConfig(parent: LoopConfig, directive: string, client: Anthropic): LoopConfig {
  return {
    ...parent,
    client,
    model: parent.model,                 // inherited: another model would be another cache
    system: parent.system,               // the bytes the parent sent, never a re-render
    tools: parent.tools,                 // the exact array, `agent` included
    messages: buildForkedMessages(parent.messages, directive, parent.promptCaching),
    terminal: { write: () => {} },       // the child's text is not the parent's; its report returns
    ledger: new Ledger(),
    depth: parent.depth + 1,
    maxTurns: 20,
    querySource: FORK_QUERY_SOURCE,
  };
}

/** The agent tool's fork path: refuse inside a fork, otherwise run this call's child. */
export async function runForkCall(input: Record<string, unknown>, parent: LoopConfig): Promise<string> {
  // Two checks, either one refuses. The query source sits on the config: compaction, which
  // rewrites messages, cannot erase it. The tag sits in the messages: a code path that builds
  // a new config for the same conversation (a summary call, a resume) cannot erase that.
  if (parent.querySource === FORK_QUERY_SOURCE || isInForkChild(parent.messages)) {
    throw new Error(FORK_REFUSAL);
  }
  if (typeof input.prompt !== 'string' || input.prompt.trim() === '') throw new Error('prompt must be a non-empty string');
  const batch = forkBatch(parent, input);
  const child = batch.children.find((c) => c.input === input);
  if (!child) throw new Error('this agent call is not part of the current assistant message');
  const report = await child.done;
  // The last call of the batch to return prints what the batch cost.
  if (++batch.returned === batch.children.length) parent.terminal.write(forkCostReport(batch.children));
  return report;
}
/**
 * The client a fork batch's first child (its lead) talks through: `started` is called when a
 * response to a model call has begun (its headers are back), the moment what the lead's
 * request writes to the cache becomes readable by its siblings.
 */
function announcingClient(client: Anthropic, started: () => void): Anthropic {
  return client.withOptions({
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      // A model call, not a token count: only a response to /v1/messages writes the cache.
      if (new URL(url instanceof Request ? url.url : url).pathname.endsWith('/messages')) started();
      return response;
    },
  });
}

interface ForkChild {
  input: Record<string, unknown>;     // the tool_use's own input object: how a call finds its child
  label: string;
  ledger: Ledger;
  done: Promise<string>;
}

interface ForkBatch {
  children: ForkChild[];
  returned: number;
}

// One batch per run of agent calls admitted together (limits.ts runs them at the same time):
// the first fork call of the run starts the children of all of its fork calls, and each
// call then waits for its own child.
const batches = new WeakMap<object, ForkBatch>();

function forkBatch(parent: LoopConfig, input: Record<string, unknown>): ForkBatch {
  const assistant = parent.messages.at(-1)!;
  // From chapter 13 on, one batch per run of agent calls admitted together (limits.ts).
  const key: object = admittedRun.get(input) ?? assistant;
  const known = batches.get(key);
  if (known) return known;
  const calls = (typeof assistant.content === 'string' ? [] : assistant.content).filter(
    (b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use' && b.name === AGENT_TOOL_NAME,
  );
  const inputs = calls
    .map((c) => c.input as Record<string, unknown>)
    .filter((i) => takesForkPath(i, parent) && typeof i.prompt === 'string' && i.prompt.trim() !== '');
  // Only the calls of this run that got a slot (limits.ts): a call the concurrency cap turned
  // away gets no child, and a fork call later in the turn starts with its own run.
  const run = admittedRun.get(input);
  if (run) inputs.splice(0, inputs.length, ...inputs.filter((i) => run.includes(i)));
  // A cache entry becomes readable only once the response that wrote it has started:
  // children sent at the same instant would all miss and all pay to write the same prefix.
  // So the first child goes alone, and the others follow as soon as its first response has
  // begun (its headers are back). They share everything the first one wrote.
  let leadStarted!: () => void;
  const started = new Promise<void>((resolve) => { leadStarted = resolve; });
  const announcing = announcingClient(parent.client, leadStarted);
  const children: ForkChild[] = [];
  inputs.forEach((input, i) => {
    const ledger = new Ledger();
    const label = typeof input.description === 'string' ? input.description : `fork ${i + 1}`;
    const run = () => runChild(parent, input.prompt as string, i === 0 ? announcing : parent.client, ledger, label);
    const done = i === 0 ? run() : started.then(run);
    if (i === 0) void done.then(leadStarted);   // a lead that fails before any request must not stall the rest
    children.push({ input, label, ledger, done });
  });
  const batch = { children, returned: 0 };
  batches.set(key, batch);
  return batch;
}

/**
 * One child: run it, hand back its final report, roll its spending into the parent's.
 * It never rejects. A batch's first call launches all its children (the first alone, the rest
 * once its response has begun), but each call awaits only its own child, and only once it
 * gets there (after the calls before it, or its own permission check): a child that failed
 * before its call awaited it would be a rejection nobody handles, and Node ends the whole
 * process for that. So every failure, from building the child's config to its last request,
 * becomes text.
 */
async function runChild(parent: LoopConfig, directive: string, client: Anthropic, ledger: Ledger, label: string): Promise<string> {
  try {
    const config = { ...childConfig(parent, directive, client), ledger, name: `fork "${label}"` };   // its questions say who asks
    const report = await runCompacting(config);
    return report.trim() === '' ? '(the fork finished without a report)' : report;
  } catch (err) {
    return `Fork failed: ${errorLine(err)}`;
  } finally {
    parent.ledger.absorb(ledger);
    parent.terminal.write(`  ⎿ fork "${label}": ${ledger.calls} call${ledger.calls === 1 ? '' : 's'}, ` +
      `${ledger.input + ledger.cacheWrite + ledger.cacheRead} input (${ledger.cacheRead} read from cache) / ${ledger.output} output tokens\n`);
  }
}

// A fork child carries the parent's whole history, so it is the first to outgrow the
// context window. When the API says so, the child's conversation is summarised and
// replaced, and the child goes on: the smallest form of compaction (chapter 7 has the
// whole story). What matters here is what it does to the guard: the new conversation no
// longer holds the boilerplate tag, while the query source on the config survives.
export const COMPACT_INSTRUCTION = 'Summarise this conversation for a continuation: the task, what was found so far, what is left to do. Reply with the summary only.';
export const COMPACTED_PREFIX = 'This conversation was compacted; its summary follows.';

async function runCompacting(config: LoopConfig): Promise<string> {
  try {
    return await agentLoop(config);
  } catch (err) {
    if (!(err instanceof APIError && err.status === 400 && err.message.includes('prompt is too long'))) throw err;
    // The summary call shares the child's prefix (tools included, so it reads the cache) but
    // gets options of its own: its query source says "compact", not "fork".
    const summary = await agentLoop({
      ...config,
      messages: [...config.messages, { role: 'user', content: COMPACT_INSTRUCTION }],
      terminal: { write: () => {} },
      maxTurns: 3,
      querySource: 'compact',
    });
    config.messages.splice(0, config.messages.length, { role: 'user', content: `${COMPACTED_PREFIX}\n\n${summary}` });
    return agentLoop(config);
  }
}

/**
 * What a batch of children cost, from the usage fields their ledgers summed, in
 * base-price input tokens, under two accountings: the popular one (a cache write at the
 * base price, a read at 0.1×) and the documented one (a 5-minute write at 1.25×, a 1-hour
 * write at 2×, a read at 0.1×). The rows and "with fork" are measured. "Without fork" is
 * computed: the same tokens with nothing shared, every one at the base price (a run with
 * DISABLE_PROMPT_CACHING=1 measures it: its "with fork" row is that number). "Cold" assumes
 * no cache at all before the batch: the first child writes the shared prefix, the others
 * read it; "warm" assumes the parent's own last call had cached it already, so every child
 * reads it. Both are computed from the measured shared prefix (what the later children
 * read) and each child's own tokens, those at the base price. A run whose cache expired
 * before the children started measures cold in its "with fork" row; at the documented
 * price that row is a little higher than the cold line, because each child here also
 * writes its own tail to the cache (chapter 8's marker on the latest message), at 1.25×.
 */
export function forkCostReport(children: { label: string; ledger: Ledger }[]): string {
  // 48500 -> "48,500". A regex, not toLocaleString: that starts up Intl, ~15 ms of a demo.
  const fmt = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  const popular = (l: Ledger) => l.input + l.cacheWrite + l.cacheRead * 0.1;
  const total = (l: Ledger) => l.input + l.cacheWrite + l.cacheRead;
  const col = (cells: (string | number)[]) => cells.map((c, i) => (i === 0 ? String(c).padEnd(26) : String(c).padStart(12))).join('');
  const lines = [
    `fork cost: ${children.length} ${children.length === 1 ? 'child' : 'children'}, input tokens from the usage fields`,
    col(['child', 'uncached', 'cache write', 'cache read', 'popular¹', 'documented²']),
  ];
  for (const { label, ledger } of children) {
    lines.push(col([`  ${label}`.slice(0, 25), fmt(ledger.input), fmt(ledger.cacheWrite), fmt(ledger.cacheRead), fmt(popular(ledger)), fmt(ledger.cost())]));
  }
  const sum = (f: (l: Ledger) => number) => children.reduce((n, c) => n + f(c.ledger), 0);
  lines.push(col(['with fork', '', '', '', fmt(sum(popular)), fmt(sum((l) => l.cost()))]));
  lines.push(col(['without fork (no sharing)', '', '', '', fmt(sum(total)), fmt(sum(total))]));
  // The shared prefix is what a child after the first read; each child's own part is the rest.
  // Only for children of one call each: a second call of a child reads its own first turn
  // back from the cache, and the totals can no longer tell that apart from the prefix.
  const shared = Math.max(...children.map((c) => c.ledger.cacheRead));
  const own = children.map((c) => total(c.ledger) - shared);
  const later = own.slice(1).reduce((n, t) => n + shared * 0.1 + t, 0);
  if (children.length > 1 && shared > 0 && children.some((c) => c.ledger.calls !== 1)) {
    lines.push('(a child made more calls than one: its cache reads include its own earlier turns, so no shared prefix is worked out)');
  } else if (children.length > 1 && shared > 0) {
    lines.push(`shared prefix ${fmt(shared)}; own part per child ${own.map(fmt).join(', ')}`);
    lines.push(`cold, popular¹:    ${fmt(shared + own[0]!)} + ${fmt(later)} = ${fmt(shared + own[0]! + later)}`);
    lines.push(`cold, documented²: ${fmt(shared * 1.25 + own[0]!)} + ${fmt(later)} = ${fmt(shared * 1.25 + own[0]! + later)}`);
    lines.push(`warm (every child reads the prefix): ${fmt(shared * 0.1 * children.length + own.reduce((n, t) => n + t, 0))}`);
  }
  lines.push('¹ write 1×, read 0.1× (the popular write-ups)   ² 5-minute write 1.25×, read 0.1× (the price list)');
  return lines.join('\n') + '\n';
}
