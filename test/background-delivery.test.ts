// Chapter 15's background agents, on the config, where a scenario cannot time it; the code
// is chapter 15's snapshot. First the turn boundary: only the main agent's loop hands over
// the notifications of its background agents. A compaction runs the loop too, for its
// summary, on a copy of the main agent's config; a notification waiting in the queue must
// not go to the summariser (where it would be summarised away and never reach the main
// agent as a notification), it waits for the main loop's next turn. The model is a stand-in
// client that records what each request carried. Then the launch: the gate a child keeps. Last,
// the session's wait for its agents (idle).

import { describe, it, expect } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import { compactByHand } from '../steps/15-background-agents/context.ts';
import { Background, deliverNotifications, launch, NOTIFICATION_TAG } from '../steps/15-background-agents/background.ts';
import { Ledger } from '../steps/15-background-agents/ledger.ts';
import { MODEL_ALIASES } from '../steps/15-background-agents/models.ts';
import type { LoopConfig, Permissions } from '../steps/15-background-agents/types.ts';

/** A client whose every streamed answer is one text block; it keeps each request's messages. */
function recordingClient(sent: Anthropic.MessageParam[][]): Anthropic {
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const stream = (params: Anthropic.MessageStreamParams) => {
    sent.push(structuredClone(params.messages));
    return {
      on() { return this; },
      finalMessage: async () => ({ role: 'assistant', content: [{ type: 'text', text: 'The user asked about the port.' }], stop_reason: 'end_turn', usage }),
    };
  };
  return { messages: { stream } } as unknown as Anthropic;
}

function mainConfig(sent: Anthropic.MessageParam[][]): LoopConfig {
  const background = new Background();
  background.queue.push({ order: 1, text: `<${NOTIFICATION_TAG}>\n<task-id>agent-1</task-id>\n<status>completed</status>\n</${NOTIFICATION_TAG}>` });
  return {
    client: recordingClient(sent), model: MODEL_ALIASES.sonnet!, system: 'sys', tools: [],
    messages: [{ role: 'user', content: 'Which variable sets the port?' }, { role: 'assistant', content: 'An explorer is on it.' }],
    cwd: '/nowhere', terminal: { write: () => {} }, permissions: { mode: 'default' },
    querySource: 'repl_main_thread', compact: async () => {}, ledger: new Ledger(), promptCaching: false,
    depth: 0, maxTurns: 5, refuse: () => undefined,
    promptParts: { env: '', claudeMd: '', memory: '', style: '', gitStatus: '', skills: [], agents: [] },
    limits: { maxConcurrent: 10, maxDepth: 1, running: 0 }, runCalls: async () => [],
    background, deliver: deliverNotifications,
  };
}

describe("chapter 15: notifications reach the main agent's loop only", () => {
  it('/compact while a notification waits: the summary request carries none, the queue keeps it for the main loop', async () => {
    const sent: Anthropic.MessageParam[][] = [];
    const config = mainConfig(sent);
    expect(await compactByHand(config)).toMatch(/conversation compacted/);
    expect(sent).toHaveLength(1);   // the summary call, and only it
    expect(JSON.stringify(sent[0])).not.toContain(`<${NOTIFICATION_TAG}>`);
    expect(config.background!.queue).toHaveLength(1);
    config.deliver!(config);   // the main loop's next turn boundary
    const last = config.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('<task-id>agent-1</task-id>');
  });
});

// A background agent outlives the prompt that launched it. The gate's state is an object the
// session changes as prompts come and go: a skill's allowed-tools pre-approved for one prompt
// (a policy island's for its sub-agent), the mode a plan's approval restores. Shared, those
// would reach an agent started earlier, unasked: a shell run nobody allowed it. (The other
// way round, a gate that narrows later and holds the agent back too, is chapter 15's
// `later-plan` and `later-skills` cases: a scenario can time those.)
describe('a background agent never gets what the session is given after its launch', () => {
  it('what a later prompt pre-approves, or a plan approved later, never reaches it', async () => {
    const session: Permissions = { mode: 'plan', preApproved: [] };
    const parent = { background: new Background(), messages: [], ledger: new Ledger(), limits: { running: 0, maxConcurrent: 5 }, terminal: { write: () => {} } };
    const child = { messages: [], ledger: new Ledger(), permissions: session };
    let release!: () => void;
    const later = new Promise<void>((resolve) => { release = resolve; });
    let asItRuns: Permissions | undefined;
    await launch(parent, { description: 'helper' }, 'general', child, async () => {
      await later;
      asItRuns = { ...child.permissions };
      return 'done';
    });
    // The next prompt runs a skill that pre-approves the shell, and the plan is approved.
    session.preApproved = ['run_shell'];
    session.mode = 'acceptEdits';
    release();
    await parent.background.agents.get('agent-1')!.done;
    expect(asItRuns).toEqual({ mode: 'plan', preApproved: [] });
  });
});

// The session waits for its background agents with Background.idle. An agent marked running
// whose run has ended (its status set by hand, its run never started) would have it spin on
// settled promises for ever, holding the thread: it says so at once instead.
it('idle: an agent marked running on a run that has ended is said at once, not waited for', async () => {
  const background = new Background();
  // Its run has ended: its done is settled. Should idle await it again and again, the 1000th
  // time ends the agent, so that this test fails instead of holding its thread for ever.
  let awaited = 0;
  const stuck = { id: 'agent-1', status: 'running', done: { then: (resolve: () => void) => { if (++awaited >= 1000) stuck.status = 'completed'; resolve(); } } };
  background.agents.set('agent-1', stuck as unknown as Parameters<typeof background.agents.set>[1]);
  await expect(background.idle()).rejects.toThrow('agent-1 is marked running, but its run has ended');
  expect(awaited).toBe(1);
  // A run in progress is waited for, and then idle resolves.
  const later = new Background();
  const agent = { id: 'agent-2', status: 'running', done: new Promise<void>((resolve) => setTimeout(() => { agent.status = 'completed'; resolve(); }, 10)) };
  later.agents.set('agent-2', agent as unknown as Parameters<typeof later.agents.set>[1]);
  await expect(later.idle()).resolves.toBeUndefined();
  expect(agent.status).toBe('completed');
});
