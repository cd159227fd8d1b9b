// The chapter table: the one place that knows every chapter's number, folder name,
// title and what the agent can do once the chapter is done. The generator, the
// runner (--list), the docs index and the tests all read it from here.

export interface Chapter {
  n: number;
  slug: string;          // folder name: steps/NN-slug, docs/NN-slug.md, scenarios/NN-slug
  title: string;
  canNow: string;        // "the agent can now …"
  /** Written chapters get a snapshot in steps/ and can be run; the others are planned. */
  written: boolean;
}

export const CHAPTERS: readonly Chapter[] = [
  { n: 1, slug: 'agent-loop', title: 'The agent loop', canNow: 'call the model in a loop and run one tool (read_file)', written: true },
  { n: 2, slug: 'tools', title: 'Tools', canNow: 'read, write, edit, list, grep and run shell; failures go back as is_error results', written: true },
  { n: 3, slug: 'system-prompt', title: 'The system prompt', canNow: 'render its prompt once per session (CLAUDE.md, memory, style, env, git) and reuse the bytes', written: true },
  { n: 4, slug: 'cli-sessions', title: 'CLI and sessions', canNow: 'take flags, run as a REPL or one-shot --print, save and --resume sessions', written: true },
  { n: 5, slug: 'streaming', title: 'Streaming', canNow: 'stream text and tool input as the model generates them', written: true },
  { n: 6, slug: 'permissions', title: 'Permissions', canNow: 'gate every tool call by mode; deny dangerous commands and paths outside the workspace', written: true },
  { n: 7, slug: 'context', title: 'Context', canNow: 'count tokens and compact history without breaking tool_use/tool_result pairs', written: true },
  { n: 8, slug: 'prompt-caching', title: 'Prompt caching', canNow: 'place cache breakpoints, read usage fields and keep a cost ledger', written: true },
  { n: 9, slug: 'skills', title: 'Skills', canNow: 'run /name prompt templates with frontmatter', written: true },
  { n: 10, slug: 'plan-mode', title: 'Plan mode', canNow: 'go read-only through the permission gate', written: true },
  { n: 11, slug: 'subagents', title: 'Sub-agents: fork-return', canNow: 'delegate to explore/plan/general sub-agents in a fresh context; only the result returns', written: true },
  { n: 12, slug: 'fork-subagents', title: 'Fork sub-agents', canNow: "fork children that share the parent's bytes and prompt cache, behind a two-check recursion guard", written: true },
  { n: 13, slug: 'parallel-limits', title: 'Parallel sub-agents and limits', canNow: 'run sub-agents concurrently under concurrency and depth caps; scan reports; coordinator mode', written: true },
  { n: 14, slug: 'custom-agents', title: 'Custom agents and policy islands', canNow: 'load .claude/agents/*.md; run context: fork skills as isolated sub-agents', written: true },
  { n: 15, slug: 'background-agents', title: 'Background sub-agents', canNow: 'launch sub-agents in the background; reports arrive as notifications; continue or stop an agent by id', written: true },
  { n: 16, slug: 'worktree-isolation', title: 'Worktree isolation', canNow: 'give a writing sub-agent its own git worktree and branch, kept only if it changed something', written: true },
];

/** The chapters that exist as runnable snapshots, in order. */
export const WRITTEN_CHAPTERS: readonly Chapter[] = CHAPTERS.filter((c) => c.written);

/** The written chapter before n (what n's diff compares against), if any. */
export function previousWritten(n: number): Chapter | undefined {
  return WRITTEN_CHAPTERS.filter((c) => c.n < n).at(-1);
}

export function chapterDir(ch: Chapter): string {
  return `${String(ch.n).padStart(2, '0')}-${ch.slug}`;
}

export function findChapter(n: number): Chapter | undefined {
  return CHAPTERS.find((c) => c.n === n);
}
