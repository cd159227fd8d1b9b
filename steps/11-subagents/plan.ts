// GENERATED from src/agent/plan.ts for chapter 11 (subagents). Do not edit: change src/agent/plan.ts and run npm run gen.
// Plan mode: the agent may look but not touch until the user has approved a plan. The
// permission gate (chapter 6) already refuses edits and commands in mode 'plan'; this file
// adds the three things around it:
//
//   entering  --plan (or --permission-mode plan) at start, or /plan typed mid-session
//   telling   while the mode is on, each prompt carries a <system-reminder> that says so.
//             In the conversation, not in the system prompt: the system prompt's bytes must
//             stay the same all session (chapter 8's cache reads them), and the mode changes.
//   leaving   the model calls exit_plan_mode with its plan; the user approves it (host.ask)
//             and the mode goes back to what it was, or says no and the model revises.
//
// Not here: refusing writes (permissions.ts), and the choice Claude Code offers on approval
// (accept edits from now on, or keep asking): approving here restores the earlier mode.

import type { LoopConfig, Tool } from './types.ts';

export const EXIT_PLAN_MODE = 'exit_plan_mode';

/** What the model reads with every prompt while plan mode is on. */
export const PLAN_REMINDER = [
  '<system-reminder>',
  'Plan mode is on: the user wants a plan before any change. Read and search as much as you need, but do not write or edit files and do not run commands; the permission gate refuses them.',
  `When your plan is ready, call ${EXIT_PLAN_MODE} with it. The user either approves it, and you carry it out, or tells you what to change.`,
  '</system-reminder>',
].join('\n');

/** Plan mode on; what was on before comes back when the plan is approved. */
export function enterPlanMode(config: LoopConfig): void {
  const p = config.permissions;
  if (p.mode === 'plan') return;
  p.prePlanMode = p.mode;
  p.mode = 'plan';
}

/** "/plan" or "/plan TASK" turns plan mode on and returns what is left to send ('' for nothing).
 *  Any other prompt comes back unchanged. */
export function planCommand(prompt: string, config: LoopConfig): string {
  const m = /^\/plan(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!m) return prompt;
  enterPlanMode(config);
  config.terminal.write('(plan mode on: read-only until you approve a plan)\n');
  return (m[1] ?? '').trim();
}

/** While plan mode is on, the prompt just pushed gets the reminder as a second text block. */
export function remindOfPlanMode(config: LoopConfig): void {
  if (config.permissions.mode !== 'plan') return;
  const last = config.messages.at(-1);
  if (!last || typeof last.content !== 'string') return;
  last.content = [{ type: 'text', text: last.content }, { type: 'text', text: PLAN_REMINDER }];
}

export const exitPlanModeTool: Tool = {
  spec: {
    name: EXIT_PLAN_MODE,
    description: 'Only in plan mode: present your finished plan to the user for approval. If they approve, plan mode ends and you carry the plan out; if not, stay in plan mode and revise it.',
    input_schema: {
      type: 'object',
      properties: { plan: { type: 'string', description: 'The plan, in Markdown: the steps and the files they change' } },
      required: ['plan'],
    },
  },
  run: (input, config) => exitPlanMode(input, config),
};

/** The user approves the plan, or the call fails and the model keeps planning. */
async function exitPlanMode(input: Record<string, unknown>, config: LoopConfig): Promise<string> {
  const p = config.permissions;
  if (p.mode !== 'plan') throw new Error('plan mode is not on: there is nothing to exit');
  if (typeof input.plan !== 'string' || input.plan.trim() === '') throw new Error('plan must be a non-empty string');
  const yes = p.ask ? await p.ask({ tool: EXIT_PLAN_MODE, input, summary: `leaving plan mode to carry out this plan:\n${input.plan}` }) : undefined;
  // Nobody to ask (a pipe, a script), or nobody answered (the input ended): not a no, and said as the gate says it.
  if (yes === undefined) throw new Error('nobody can be asked to approve the plan here. Stay in plan mode: give the plan as your answer, for the user to read.');
  if (!yes) throw new Error('the user did not approve the plan. Stay in plan mode: ask what to change, then present a revised plan.');
  p.mode = p.prePlanMode ?? 'default';
  p.prePlanMode = undefined;
  config.terminal.write(`(plan approved: permission mode ${p.mode})\n`);
  return `The user approved the plan. Plan mode is off (permission mode: ${p.mode}); carry the plan out now.`;
}
