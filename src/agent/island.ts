//> 14 island-file
// Policy islands: a skill (chapter 9) whose frontmatter says `context: fork` is not pasted
// into the conversation. It runs as a sub-agent of the type its `agent:` names (general when
// it names none), its allowed-tools pre-approved at the gate for that sub-agent's calls,
// and only the report comes back to the main conversation. Pre-approved, not restricted:
// every other tool is still there and still asks.
//
// Not here: reading the skill (skills.ts) or the agent types it may name (agents.ts).

import type { LoopConfig, Skill } from './types.ts';
import { agentLoop } from './agent.ts';
import { runSubagent } from './subagent.ts';
import { scanReport } from './scan.ts';

/** `/name args` naming a skill with `context: fork`: that skill; anything else: undefined. */
export function forkedSkill(prompt: string, skills: Skill[]): Skill | undefined {
  const name = /^\/([a-z0-9][a-z0-9-]*)(?:\s|$)/.exec(prompt.trim())?.[1];
  return skills.find((s) => s.name === name && s.context === 'fork');
}

/**
 * Run a policy island: the skill's expanded prompt becomes the task of a sub-agent of the
 * skill's `agent` type, with the skill's allowed-tools pre-approved while it runs. The main
 * conversation gets one user message holding the (scanned) report, and its model answers.
 * What the island read and did stays in the island.
 */
export async function runIsland(skill: Skill, task: string, config: LoopConfig): Promise<string> {
  //> 14 run-island
  //! hint: Set config.permissions.preApproved to skill.allowedTools, run runSubagent with the task and
  //! hint: subagent_type skill.agent ?? 'general', then clear preApproved (a failure too: its "Error: <message>"
  //! hint: is the report). Push ONE user message into config.messages, "The /NAME skill ran in an isolated
  //! hint: TYPE sub-agent. Its report:", a blank line, then the scanned report; return agentLoop(config).
  const agent = skill.agent ?? 'general';
  config.permissions.preApproved = [...skill.allowedTools];   // the island's calls pass this same gate, for this run only
  let report: string;
  //> 16 island-worktree-notes
  const notes: string[] = [];   // an agent type with isolation: worktree: where its worktree ended up
  //<
  try {
    //> 14-15 island-report
    report = scanReport(await runSubagent({ description: `/${skill.name}`, prompt: task, subagent_type: agent }, config)).text;
    //<
    //> 16 island-report-worktree
    report = [scanReport(await runSubagent({ description: `/${skill.name}`, prompt: task, subagent_type: agent }, config, false, notes)).text, ...notes].join('\n\n');
    //<
  } catch (err) {
    report = `Error: ${(err as Error).message}`;   // an unknown agent type, a missing skill: the model is told
  } finally {
    config.permissions.preApproved = [];   // the main conversation asks as usual again
  }
  config.messages.push({ role: 'user', content: `The /${skill.name} skill ran in an isolated ${agent} sub-agent. Its report:\n\n${report}` });
  return agentLoop(config);
  //<
}
//<
