// GENERATED from src/agent/prompt.ts for chapter 4 (cli-sessions). Do not edit: change src/agent/prompt.ts and run npm run gen.
// The system prompt. It is gathered and rendered ONCE, when a session starts, and the
// same bytes go out on every call of that session: the date, the git status and the
// files it quotes are all "as of session start". A prompt that changed from call to
// call would cost more (chapter 8: the cache matches bytes) and, for chapter 12's fork
// children, would break the promise that a child sends exactly its parent's bytes.
//
// Not here: sending the prompt (agent.ts) or choosing the output style from flags
// (chapter 4).

import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { AgentHost, PromptParts } from './types.ts';
import { projectRoot, readWithin, type Tree } from './linked-files.ts';
import { repoFiltersOff, SAFE_GIT } from './git.ts';

/** The fixed core: who the agent is and how it works. The same in every session. */
const CORE = [
  "You are a coding agent working in the user's project. Use your tools to read, search and change the files in the working directory and to run commands there.",
  'Read before you edit, keep changes small, and when a tool fails, read the error and try another way.',
  'The user reads your text in a terminal: answer briefly.',
].join('\n');

/** Output styles: a name the user picks → instructions added at the end of the prompt. */
export const OUTPUT_STYLES: Record<string, string> = {
  explanatory: 'While you work, add short "Insight" notes that explain why the code is shaped the way it is and why you chose your approach.',
  learning: 'Teach as you go: explain each step, and leave one small, clearly marked piece (a TODO(human) comment) for the user to write.',
  concise: 'Lead with the result. No preamble and no narration of your steps.',
};

/** The auto-memory file, relative to the project root: notes the agent keeps for later sessions. */
export const MEMORY_FILE = '.claude/memory.md';
const MEMORY_MAX_LINES = 200;   // a memory file grows; only its head goes into every prompt

/** Read everything the prompt needs, now. `style` defaults to the OUTPUT_STYLE variable. */
export async function gatherPromptParts(host: AgentHost, style = host.env.OUTPUT_STYLE): Promise<PromptParts> {
  if (style && !Object.hasOwn(OUTPUT_STYLES, style)) {   // own names only: not "toString"
    throw new Error(`unknown output style "${style}" (known: ${Object.keys(OUTPUT_STYLES).join(', ')})`);
  }
  const root = projectRoot(host.cwd);
  const memory = (await readWithin(path.join(root, MEMORY_FILE), { dir: root, name: 'the project' }, MEMORY_FILE, host.terminal)) ?? '';
  return {
    // The date is read here, once: a clock in the prompt would change its bytes every call.
    env: `Working directory: ${host.cwd}\nPlatform: ${host.platform}\nToday's date: ${new Date().toISOString().slice(0, 10)}`,
    claudeMd: await readClaudeMd(host, root),
    memory: memory.split('\n').slice(0, MEMORY_MAX_LINES).join('\n').trim(),
    style: style ? OUTPUT_STYLES[style]! : '',
    gitStatus: await gitSnapshot(host.cwd, root),
  };
}

/** The prompt as one string. Empty parts leave no heading behind. */
export function renderSystemPrompt(parts: PromptParts): string {
  return [
    CORE,
    `# Environment\n${parts.env}`,
    claudeMdSection(parts.claudeMd),
    parts.memory && `# Memory (${MEMORY_FILE}: notes from earlier sessions)\n${parts.memory}`,
    gitStatusSection(parts.gitStatus),
    parts.style && `# Output style\n${parts.style}`,
  ].filter((s) => s !== '').join('\n\n');
}

export function claudeMdSection(claudeMd: string): string {
  return claudeMd && `# Instructions from CLAUDE.md files (later files are more specific and win)\n\n${claudeMd}`;
}

export function gitStatusSection(gitStatus: string): string {
  return `# Git status at session start (a snapshot: it does not update during the session)\n${gitStatus}`;
}

/** The user's CLAUDE.md, then one per folder from the project root down to cwd. */
async function readClaudeMd(host: AgentHost, root: string): Promise<string> {
  const project = { dir: root, name: 'the project' };
  const files: { label: string; file: string; tree?: Tree }[] = [{ label: '~/.claude/CLAUDE.md (user)', file: path.join(host.home, '.claude', 'CLAUDE.md') }];
  const folders: string[] = [];
  for (let dir = host.cwd; ; dir = path.dirname(dir)) {
    folders.unshift(dir);
    if (dir === root || dir === path.dirname(dir)) break;
  }
  for (const dir of folders) {
    const rel = path.relative(root, path.join(dir, 'CLAUDE.md')).split(path.sep).join('/');
    files.push({ label: `${rel} (project)`, file: path.join(dir, 'CLAUDE.md'), tree: project });
  }
  const found: string[] = [];
  for (const { label, file, tree } of files) {
    const text = await readWithin(file, tree, label, host.terminal);
    if (text !== undefined && text.trim() !== '') found.push(`## ${label}\n${text.trim()}`);   // an empty file says nothing
  }
  return found.join('\n\n');
}

/** Branch and short status, taken once. A missing git or a folder outside any repository is
 *  information for the model, never a reason to fail the session. */
async function gitSnapshot(cwd: string, root: string): Promise<string> {
  // No .git at or above cwd (projectRoot found none): outside any repository. A look at the
  // disk says so without starting a process; git is asked only where there is a repository.
  if (!existsSync(path.join(root, '.git'))) return 'Not a git repository.';
  const branch = await git(['branch', '--show-current'], cwd);
  if (branch === undefined) return 'Not a git repository.';
  const status = await git(['status', '--short'], cwd);
  return `Current branch: ${branch || '(detached HEAD)'}\nStatus:\n${status || '(clean)'}`;
}

/**
 * Run git; its output without trailing whitespace (a status line's leading space is kept), or
 * undefined when it fails for any reason. With git.ts's settings: the repository's own config
 * starts no command, whatever the model wrote into it.
 */
async function git(args: string[], cwd: string): Promise<string | undefined> {
  const env = await repoFiltersOff(cwd, args);
  return new Promise((resolve) => {
    execFile('git', [...SAFE_GIT, ...args], { cwd, env, timeout: 10_000 }, (error, stdout) => resolve(error ? undefined : stdout.trimEnd()));
  });
}
