// GENERATED from src/agent/coordinator.ts for chapter 15 (background-agents). Do not edit: change src/agent/coordinator.ts and run npm run gen.
// Coordinator mode (--coordinator): the main agent stops doing the work and only hands
// it out. Its one tool for work is `agent` (beside `exit_plan_mode`, which every session
// offers, so that a coordinator in plan mode can present its plan: this series' own
// choice); its system prompt says it is the coordinator; the
// sub-agents it starts have their usual tools and do the reading, editing and running.
// A useful shape for long jobs: the coordinator's own context holds the plan and the
// reports, never the 40 files a worker read on the way.
//
// Forks are off here, even with CLAUDE_CODE_FORK_SUBAGENT=1. A fork child starts from
// its parent's exact bytes: this system prompt ("you are the coordinator, delegate") and
// this tool list (`agent` its only tool for work). It would read its directive as one more
// job to hand out and orchestrate instead of executing, and with only `agent` to work with
// it could not execute anyway. So an agent call without a type takes the general
// sub-agent's path.
//
// From chapter 15 on, its workers run in the background, and it keeps the two tools that act
// on them by id: send_message (a follow-up to a worker that has reported) and stop_agent.

import type { AgentHost, LoopConfig } from './types.ts';
import { parseFlags } from './cli.ts';
import { AGENT_TOOL_NAME } from './tools.ts';
import { EXIT_PLAN_MODE } from './plan.ts';
import { SEND_MESSAGE, STOP_AGENT } from './background.ts';

export const COORDINATOR_ROLE = [
  '# Coordinator mode',
  'You are the coordinator. You do not read, search or change files yourself: you hand the work out with `agent`, and use `send_message` and `stop_agent` for the workers you started.',
  'Split the task into self-contained pieces, hand each to a sub-agent (several calls in one turn run at the same time),',
  'then combine their reports into the answer. Each sub-agent sees only the prompt you write: make it complete.',
].join('\n');

export function isCoordinator(host: AgentHost): boolean {
  return parseFlags(host.argv).coordinator;
}

/** The main agent's config, turned into a coordinator's: the agent tool (and exit_plan_mode), the role, no forks. */
export function becomeCoordinator(config: LoopConfig): void {
  config.workerTools = config.tools;   // what its sub-agents choose from, as before
  config.tools = config.tools.filter((t) => [AGENT_TOOL_NAME, SEND_MESSAGE, STOP_AGENT, EXIT_PLAN_MODE].includes(t.spec.name));
  config.system = `${config.system}\n\n${COORDINATOR_ROLE}`;
  config.forkEnabled = false;   // a forked coordinator would coordinate, not execute (see above)
}
