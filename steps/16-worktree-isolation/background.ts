// GENERATED from src/agent/background.ts for chapter 16 (worktree-isolation). Do not edit: change src/agent/background.ts and run npm run gen.
// Background sub-agents: the main agent's `agent` call no longer waits. It starts the
// sub-agent, registers it under an id, and returns at once with a launch notice; the main
// agent goes on working (or ends its turn) while the sub-agent runs. When the sub-agent
// finishes, its report (scanned and framed, chapter 13) waits in a queue and reaches the
// main agent as a notification: a user-side message of its own holding a
// <task-notification> block with the id, the tool_use it answers, a status, the result
// and what the run cost.
//
//   launch    the call's tool_result is the launch notice, never the report
//   run       the sub-agent loops in its own messages, kept here by id
//   notify    its end (completed, failed, stopped) is queued as a notification
//   deliver   at the main loop's next turn boundary, in a user message of its own: never
//             inside the message that carries tool_results, so every tool_use keeps its
//             result right after it
//   wake      when the main agent has already answered and the prompts are done, the
//             session waits for what still runs and sends the notifications (session.ts, settle)
//
// Two tools act on a registered agent by id: `send_message` continues a finished one in
// its own context (a second notification follows), `stop_agent` ends a running one.
//
// Only the main agent's calls run in the background. A sub-agent's own delegations still
// wait for their reports: it has no turn boundary at which a notification could reach it.
//
// This file knows nothing of the loop: a launcher hands it a `run` function and the
// child's config, and it only keeps the books. A child in a worktree of its own (chapter 16)
// has it finished when a run ends, before the run counts as over; the notification says what
// became of it, after the report.

import { APIError } from '@anthropic-ai/sdk';
import type Anthropic from '@anthropic-ai/sdk';
import { Ledger } from './ledger.ts';
import { scanReport } from './scan.ts';
import { finishWorktree, worktreeGone, worktreeRemoved, type Worktree } from './worktree.ts';

export const SEND_MESSAGE = 'send_message';
export const STOP_AGENT = 'stop_agent';
/** How a launch notice starts: the words Claude Code 2.1.328 uses (measured). */
export const LAUNCHED = 'Async agent launched successfully.';
export const NOTIFICATION_TAG = 'task-notification';

export type AgentStatus = 'running' | 'completed' | 'failed' | 'stopped';

/** What this file needs of a child's config (agent.ts's LoopConfig has all of it). */
export interface ChildConfig {
  messages: Anthropic.MessageParam[];   // its own context: kept, so send_message can continue it
  ledger: Ledger;                       // this run's usage; a new one for each run
  permissions: Gate;                    // the gate's state: narrowed from its launch on (narrowedGate)
  signal?: AbortSignal;                 // stop_agent aborts it; the loop checks it at each step
  worktree?: Worktree;                  // an isolated child's own checkout (worktree.ts)
}

/** What this file needs of the main agent's config. */
export interface ParentConfig {
  background?: Background;
  messages: Anthropic.MessageParam[];
  ledger: Ledger;
  limits: { running: number; maxConcurrent: number };
  terminal: { write(text: string): void };
}

/** One background agent: its id, its context, and the run in progress (if any). */
export interface BackgroundAgent {
  id: string;
  kind: string;            // "explore", "fork", a custom agent's name: for the summary line
  label: string;           // the call's description
  toolUseId: string;       // the call its next notification answers (agent, then send_message)
  status: AgentStatus;
  config: ChildConfig;
  run: () => Promise<string>;   // one run of its loop, on config.messages as they are
  onEnd?: () => void;      // the launcher's own bookkeeping, once a run has ended and is queued
  stop?: () => void;
  done: Promise<void>;     // settles when the current run has queued its notification
}

/** A notification waiting for the next turn boundary; `order` is its agent's place in launch order. */
export interface Queued { order: number; text: string }

/** The session's background agents by id, and the notifications not yet delivered. */
export class Background {
  readonly agents = new Map<string, BackgroundAgent>();
  readonly queue: Queued[] = [];

  /** Running agents, or notifications the main agent has not seen yet. */
  busy(): boolean {
    return this.queue.length > 0 || [...this.agents.values()].some((a) => a.status === 'running');
  }

  /** Resolves when no agent is running any more. */
  async idle(): Promise<void> {
    let running = [...this.agents.values()].filter((a) => a.status === 'running');
    while (running.length > 0) {
      const awaited = new Set(running.map((a) => a.done));
      await Promise.all(awaited);
      running = [...this.agents.values()].filter((a) => a.status === 'running');
      // Still running on a run that has ended: nothing will ever change it, and this loop
      // would spin on settled promises, never letting anything else run. Said instead.
      const stuck = running.find((a) => awaited.has(a.done));
      if (stuck) throw new Error(`${stuck.id} is marked running, but its run has ended: only startRun starts a run (and gives it a new done)`);
    }
  }
}

/** The id of the tool_use whose input this is: the main agent's last message holds the call. */
export function callIdOf(input: Record<string, unknown>, config: ParentConfig): string {
  const last = config.messages.at(-1);
  const call = last?.role === 'assistant' && typeof last.content !== 'string'
    ? last.content.find((b) => b.type === 'tool_use' && b.input === input)
    : undefined;
  return call?.type === 'tool_use' ? call.id : 'unknown';
}

/**
 * Register a child and start it. Returns the launch notice, the call's tool_result; the
 * report comes later, as a notification.
 */
export async function launch(
  parent: ParentConfig, input: Record<string, unknown>, kind: string, config: ChildConfig, run: () => Promise<string>, onEnd?: () => void,
): Promise<string> {
  // It outlives this prompt: at each call, the narrower of its own gate and the session's then (narrowedGate).
  config.permissions = narrowedGate(config.permissions);
  const background = parent.background!;
  const agent: BackgroundAgent = {
    id: `agent-${background.agents.size + 1}`,
    kind,
    label: typeof input.description === 'string' ? input.description : kind,
    toolUseId: callIdOf(input, parent),
    status: 'running',
    config,
    run,
    onEnd,
    done: Promise.resolve(),
  };
  background.agents.set(agent.id, agent);
  startRun(agent, parent);
  return launchNotice(agent);
}

/** The permission modes (types.ts's PermissionMode), from the one that lets a call do least without a question to the one that lets it do most. */
const LEAST_FIRST = ['plan', 'default', 'acceptEdits', 'bypassPermissions'] as const;

/** What this file needs of the gate's state (types.ts's Permissions). */
interface Gate {
  mode: typeof LEAST_FIRST[number];
  preApproved?: string[];
  prePlanMode?: typeof LEAST_FIRST[number];
  ask?: unknown;
}

/**
 * The gate of an agent that outlives the prompt that launched it: at every call, the narrower
 * of two. Its own, as the session's was at the launch: what a later prompt pre-approves (a
 * skill's allowed-tools) or a wider mode (a plan approved) never reaches it. And the session's
 * as it is now: a /plan typed later holds it back too, and so does the next prompt, where the
 * session drops the pre-approval of the skill that launched it (session.ts keeps a skill's
 * allowed-tools until then, through the wait for its agents). Once dropped, that pre-approval
 * never comes back, not even when a later prompt's skill pre-approves the same tools: those are
 * for that prompt's work. So a background agent, still running or continued by send_message,
 * never holds more than its session does at that moment, nor what was given to another prompt.
 * What the agent changes itself only changes its own, so it can only narrow it further.
 */
export function narrowedGate(session: Gate): Gate {
  const own: Gate = { ...session, preApproved: [...(session.preApproved ?? [])] };
  // The pre-approval in force at the launch, known by identity: every prompt gives the session
  // a list of its own (session.ts's [], skills.ts's copy of a skill's allowed-tools), so
  // another prompt's is another list, even when it holds the same tools.
  const launchedUnder = session.preApproved;
  return {
    get mode() { return LEAST_FIRST[Math.min(LEAST_FIRST.indexOf(own.mode), LEAST_FIRST.indexOf(session.mode))]!; },
    set mode(mode) { own.mode = mode; },
    get preApproved() { return session.preApproved !== launchedUnder ? [] : (own.preApproved ?? []).filter((tool) => session.preApproved?.includes(tool)); },
    set preApproved(tools) { own.preApproved = tools; },
    get prePlanMode() { return own.prePlanMode; },
    set prePlanMode(mode) { own.prePlanMode = mode; },
    get ask() { return session.ask; },
  };
}

/** What the main agent reads instead of the report: the id, and how the report will come. */
export function launchNotice(agent: BackgroundAgent): string {
  return `${LAUNCHED} agentId: ${agent.id} (${agent.kind}: "${agent.label}"). It works in the background: ` +
    'do not wait for it and do not guess its result. Its report arrives in a <task-notification> message when it finishes; ' +
    `go on with other work or end your turn. ${SEND_MESSAGE} continues it after it finishes, ${STOP_AGENT} ends it early.`;
}

/**
 * One run of a background agent: it holds a slot of the session's concurrency cap while it
 * runs (chapter 13's count includes it), its usage goes into the session's ledger when it
 * ends, and its end, whatever it was, becomes a notification. It never rejects.
 */
function startRun(agent: BackgroundAgent, parent: ParentConfig): void {
  const controller = new AbortController();
  agent.config.signal = controller.signal;
  agent.config.ledger = new Ledger();   // this run's usage: what its notification reports
  agent.stop = () => controller.abort(new Error(`stopped by ${STOP_AGENT}`));
  agent.status = 'running';
  parent.limits.running++;
  agent.done = (async () => {
    let status: AgentStatus;
    let result: string;
    try {
      const report = await agent.run();
      status = 'completed';
      result = report.trim() === '' ? '(the sub-agent finished without a report)' : report;
    } catch (err) {
      status = controller.signal.aborted ? 'stopped' : 'failed';
      result = status === 'stopped' ? `(stopped by ${STOP_AGENT} before it finished: no report)` : `Sub-agent failed: ${errorText(err)}`;
    }
    // Before the run counts as over: the session must not see it done while git is still at work.
    // (finishWorktree reports what git refused as text; should it throw all the same, the run
    // still ends and says so: agent.done is awaited only once the main agent waits.)
    const wt = agent.config.worktree;
    const finished = wt && (await finishWorktree(wt).catch((err: unknown) => `${wt.shown} could not be finished: ${errorText(err)}`));
    const worktree = wt ? finished ?? worktreeRemoved(wt) : undefined;
    parent.limits.running--;
    const ledger = agent.config.ledger;
    parent.ledger.absorb(ledger);
    parent.terminal.write(`  ⎿ ${agent.kind} sub-agent "${agent.label}" (${agent.id}, ${status}): ${ledger.calls} call${ledger.calls === 1 ? '' : 's'}, ` +
      `${ledger.input + ledger.cacheRead + ledger.cacheWrite} input / ${ledger.output} output tokens\n`);
    agent.status = status;
    parent.background!.queue.push({ order: Number(agent.id.slice('agent-'.length)), text: notification(agent, status, scanReport(result).text, ledger, worktree) });
    agent.onEnd?.();
  })().catch((err: unknown) => {
    // Only a step after the run itself can get here (the run's own failure is an outcome
    // above). The agent still ends, as failed, and says so: a rejection nobody awaits would
    // end the process, and an agent left "running" would keep the session waiting for ever.
    if (agent.status === 'running') parent.limits.running--;
    agent.status = 'failed';
    const text = notification(agent, 'failed', scanReport(`Sub-agent failed: ${errorText(err)}`).text, agent.config.ledger);
    parent.background!.queue.push({ order: Number(agent.id.slice('agent-'.length)), text });
  });
}

/** An error as one line, as cli.ts's errorLine words an API error (this file imports nothing above it). */
function errorText(err: unknown): string {
  const body = err instanceof APIError ? (err.error as { error?: { type?: string; message?: string } } | undefined) : undefined;
  if (body?.error?.message) return `API error ${(err as APIError).status ?? 'mid-stream'} (${body.error.type}): ${body.error.message}`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The notification for one finished run: id, the call it answers, status, result, usage, and
 * for an isolated child what became of its worktree: outside <result>, in this series' words.
 */
export function notification(agent: BackgroundAgent, status: AgentStatus, result: string, ledger: Ledger, worktree?: string): string {
  const input = ledger.input + ledger.cacheWrite + ledger.cacheRead;
  return [
    `<${NOTIFICATION_TAG}>`,
    `<task-id>${agent.id}</task-id>`,
    `<tool-use-id>${agent.toolUseId}</tool-use-id>`,
    `<status>${status}</status>`,
    `<summary>${agent.kind} agent "${agent.label}" ${status}</summary>`,
    `<result>\n${result}\n</result>`,
    ...(worktree === undefined ? [] : [`<worktree>${worktree}</worktree>`]),
    `<usage>input_tokens: ${input}, output_tokens: ${ledger.output}, requests: ${ledger.calls}</usage>`,
    `</${NOTIFICATION_TAG}>`,
  ].join('\n');
}

/**
 * The turn boundary: the notifications queued so far go to the main agent, in a user
 * message of their own, after the message that answered the last tool calls.
 */
export function deliverNotifications(config: ParentConfig): void {
  const due = config.background?.queue.splice(0).sort((a, b) => a.order - b.order) ?? [];   // in launch order
  if (due.length === 0) return;
  config.messages.push({ role: 'user', content: due.map((n) => ({ type: 'text' as const, text: n.text })) });
}

/** The agent a tool call names: unknown ids are a clear error, listing the known ones. */
function agentNamed(input: Record<string, unknown>, config: ParentConfig): BackgroundAgent {
  const background = config.background;
  if (!background) throw new Error('only the main agent has background agents');
  const agent = typeof input.id === 'string' ? background.agents.get(input.id) : undefined;
  if (!agent) {
    const known = [...background.agents.keys()];
    throw new Error(`no background agent with id ${JSON.stringify(input.id)}; ${known.length === 0 ? 'none has been started' : `known: ${known.join(', ')}`}`);
  }
  return agent;
}

/** send_message: continue a finished agent in its own context; a new notification follows. */
export const sendMessageTool = {
  spec: {
    name: SEND_MESSAGE,
    description: 'Continue a background agent that has finished, by its agentId: it keeps its own context and works on your message; a new notification follows.',
    input_schema: {
      type: 'object' as const,
      properties: {
        id: { type: 'string', description: 'The agentId from the launch notice' },
        message: { type: 'string', description: 'What the agent should do next' },
      },
      required: ['id', 'message'],
    },
  },
  run: async (input: Record<string, unknown>, config: ParentConfig): Promise<string> => {
    const agent = agentNamed(input, config);
    if (typeof input.message !== 'string' || input.message.trim() === '') throw new Error('message must be a non-empty string');
    if (agent.status === 'running') {
      throw new Error(`${agent.id} is still running: its report arrives as a notification when it finishes. Wait for it; do not guess what it will say.`);
    }
    // The same gap was reported against Claude Code in April 2026 (anthropics/claude-code #50889).
    const gone = agent.config.worktree && worktreeGone(agent.config.worktree);
    if (gone) throw new Error(`${agent.id} ${gone}`);
    if (config.limits.running >= config.limits.maxConcurrent) throw new Error(`Concurrent subagent limit reached: ${agent.id} cannot continue while ${config.limits.running} sub-agents run.`);
    agent.config.messages.push({ role: 'user', content: input.message });
    agent.toolUseId = callIdOf(input, config);
    startRun(agent, config);
    return `Message sent to ${agent.id}; it continues in the background with its own context. A new notification follows when it finishes.`;
  },
};

/** stop_agent: end a running agent; its notification says "stopped". */
export const stopAgentTool = {
  spec: {
    name: STOP_AGENT,
    description: 'Stop a running background agent by its agentId. Its notification follows, with status "stopped".',
    input_schema: {
      type: 'object' as const,
      properties: { id: { type: 'string', description: 'The agentId from the launch notice' } },
      required: ['id'],
    },
  },
  run: async (input: Record<string, unknown>, config: ParentConfig): Promise<string> => {
    const agent = agentNamed(input, config);
    if (agent.status !== 'running') throw new Error(`${agent.id} is not running (it ${agent.status}); there is nothing to stop`);
    agent.stop?.();
    // It stops at its next step (a model call already under way is answered first); then its
    // notification is queued, and the next turn boundary delivers it.
    await agent.done;
    return `${agent.id} stopped. Its notification follows.`;
  },
};

export const BACKGROUND_TOOLS = [sendMessageTool, stopAgentTool];
