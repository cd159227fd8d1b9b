// GENERATED from src/agent/permissions.ts for chapter 16 (worktree-isolation). Do not edit: change src/agent/permissions.ts and run npm run gen.
// The permission gate: every tool call passes here before it runs. It answers one
// question, "may this call run?", from three things: what the call would do (read,
// edit, run a command), the session's mode, and, when the mode says so, a person.
// A call the gate refuses never reaches the tool, so it has no side effect; the model
// is told why, in an is_error tool_result, and can try something else.
//
// Two refusals come before any mode: a path outside the workspace, and a shell command
// on the deny-list below. Not even bypassPermissions lets those through. "Outside" is
// judged by where a path really leads on disk, symbolic links followed, not by its text.
//
// Who answers a question is injected (host.ask): a terminal in the CLI, scripted
// answers in a scenario. Not here: allow/deny rules from settings files, and plan
// mode's planning workflow (chapter 10 builds it on this gate).
// A running skill's allowed-tools (skills.ts) are pre-approved here: a yes given in advance.

import path from 'node:path';
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import type { LoopConfig } from './types.ts';
import { leaves } from './plain-files.ts';

type Kind = 'read' | 'edit' | 'shell' | 'delegate';   // delegate: changes nothing itself

/** What each tool can do. A tool missing here is treated like the shell: the most it could do. */
const KINDS: Record<string, Kind> = {
  read_file: 'read', list_files: 'read', grep_search: 'read',
  write_file: 'edit', edit_file: 'edit',
  run_shell: 'shell',
  agent: 'delegate',   // starting a sub-agent changes nothing; each of its calls comes through here
  exit_plan_mode: 'delegate',   // changes nothing itself: it asks the user to approve the plan (plan.ts)
  // They act on the session's own background agents; each call those agents make comes through here.
  send_message: 'delegate', stop_agent: 'delegate',
};

/**
 * Commands refused in every mode. A short list of the classic disasters, matched as text:
 * a teaching deny-list, not a security boundary (quoting or a variable defeats a regex).
 */
export const DANGEROUS_COMMANDS: { pattern: RegExp; why: string }[] = [
  { pattern: /\brm\s+(-\S+\s+)*(\/|~|\$HOME)\/?\*?(\s|;|&|\||$)/, why: 'it deletes the root or home folder' },
  { pattern: /(^|[\s;&|(])sudo(\s|$)/, why: 'it runs a command as root' },
  // Piped into a shell at any point of the pipe, the shell named by its path or not.
  { pattern: /\b(curl|wget)\b.*\|\s*(sudo\s+)?(\S*\/)?(ba|z|da)?sh\b/, why: 'it runs a downloaded script without reading it' },
  // --force, --force-with-lease, -f alone or among other letters (-fu), or a +refspec.
  { pattern: /\bgit\b.*\spush\b.*\s(--force(-with-lease)?(=\S*)?|-[a-z]*f[a-z]*|\+\S+)(\s|$)/, why: 'it rewrites the remote history (git push --force)' },
  { pattern: /\bmkfs\b|\bdd\b[^;&|]*\bof=\/dev\//, why: 'it overwrites a disk' },
  { pattern: /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, why: 'it is a fork bomb' },
];

/**
 * The outcome for one call: allowed, or refused with a reason the model will read. Allowed,
 * `path` is where the call's path led when it was judged: the file tools open that very file
 * or nothing (plain-files.ts), so a link swapped in after the judgement changes nothing.
 */
export type Decision = { allow: true; path?: string } | { allow: false; reason: string };

/** Decide, asking a person if the mode says so. Throws only when the agent is stopped while it asks; the caller turns a refusal into a result. */
export async function decide(tool: string, input: Record<string, unknown>, config: LoopConfig): Promise<Decision> {
  const kind = Object.hasOwn(KINDS, tool) ? KINDS[tool]! : 'shell';
  // Where the path leads, resolved once: every check judges this one file, and it is the one
  // the tool must open (Decision.path). Resolved again for each check, a link swapped between
  // two of them would have each judge another file.
  const target = typeof input.path === 'string' ? await whereItLeads(path.resolve(config.cwd, input.path)) : undefined;
  const allowed: Decision = { allow: true, path: target };
  const outside = await outsideWorkspace(input, config.cwd, target);
  if (outside) return { allow: false, reason: `${outside} is outside the workspace; only files under the working directory may be used` };
  if (kind === 'shell' && typeof input.command === 'string') {
    const hit = DANGEROUS_COMMANDS.find((d) => d.pattern.test(input.command as string));
    if (hit) return { allow: false, reason: `this command is never allowed: ${hit.why}` };
  }
  const { mode, ask } = config.permissions;
  if (mode === 'bypassPermissions' || kind === 'read' || kind === 'delegate') return allowed;
  // An edit in a guarded folder (git's own, below) is never approved in advance: it asks.
  const guarded = kind === 'edit' ? await guardedFolder(input, config.cwd, target) : undefined;
  if (mode === 'plan') return { allow: false, reason: 'plan mode is read-only: present a plan instead of making changes' };
  // A skill's allowed-tools answer "yes" in advance. After the two refusals above and plan
  // mode: a skill can spare the user questions, never lift a refusal.
  if (config.permissions.preApproved?.includes(tool) && !guarded) return allowed;
  if (mode === 'acceptEdits' && kind === 'edit' && !guarded) return allowed;
  // Nobody to ask (a pipe, a script), or nobody answered (the input ended): no yes, and the model is told why.
  // A sub-agent's question names it: several may be at work, and the person sees none of their
  // turns. It carries the agent's signal: stopped while the question waits, the agent withdraws
  // it (ask rejects, and runTool makes that the call's error result), so stop_agent does not
  // wait for an answer that could no longer change anything.
  const yes = ask ? await ask({ tool, input, summary: summarise(tool, input, guarded), from: config.name, signal: config.signal }) : undefined;
  if (yes === undefined) {
    return { allow: false, reason: guarded ? `${String(input.path)} is in ${guarded}: an edit there is never approved in advance, and nobody can be asked here` : `${tool} needs the user's permission and nobody can be asked here` };
  }
  return yes ? allowed : { allow: false, reason: 'the user denied this call. Ask them what to do instead, or try another way' };
}

/**
 * The path argument, as the model wrote it, when it leads outside the workspace.
 *
 * The text alone is not enough. "src/../../etc" and "/etc" are outside by their text, but
 * "notes/key" is inside by its text and may still be a symbolic link to ~/.ssh/id_rsa (a
 * shell command made it: `ln -s ~/.ssh/id_rsa notes/key`), and a file tool follows links.
 * So both sides are compared as the file system resolves them: the workspace's real path
 * (it may sit below a link itself: /tmp is one on macOS) and the real path of what the
 * call would touch (`target`, resolved by decide; undefined: it does not resolve).
 */
async function outsideWorkspace(input: Record<string, unknown>, cwd: string, target: string | undefined): Promise<string | undefined> {
  const p = input.path;
  if (typeof p !== 'string') return undefined;
  // path.resolve first: the tools open exactly this string ("./a/../b" is "b"), so this is what decide followed.
  if (leaves(cwd, path.resolve(cwd, p))) return p;
  const root = await realpath(cwd);
  if (target === undefined) return `${p} (a path that does not resolve: a loop of links, or too long)`;
  return leaves(root, target) ? `${p} (through a symbolic link)` : undefined;
}

/**
 * The guarded folder the call's path lies in, named for the reason, as the file system
 * resolves the path (a link named notes.txt may lead to .git/config); undefined: none.
 * git's own: a .git folder or file of the workspace, or anything in one. git runs what its
 * folder says (a hook, core.fsmonitor in .git/config), and a .git file sends it to any
 * repository on the disk. And .agent, where the saved sessions are.
 */
async function guardedFolder(input: Record<string, unknown>, cwd: string, target: string | undefined): Promise<string | undefined> {
  if (typeof input.path !== 'string' || target === undefined) return undefined;   // no path; or one that does not resolve, refused already
  const root = await realpath(cwd);
  // The path as it resolves and as it was written: a link named .git (or .claude/skills) may
  // lead to a folder of another name, and that folder is the guarded one all the same.
  const names = [path.relative(root, target), path.relative(cwd, path.resolve(cwd, input.path))]
    .flatMap((rel) => rel.split(path.sep)).map((name) => name.toLowerCase());
  if (names.includes('.git')) return "git's own folder";
  if (await inGitDir(root, target)) return "git's own folder";
  // The saved sessions (chapter 4's .agent/sessions): a conversation written there is taken, at
  // --resume, for the user's own, its "yes, always run that" included.
  if (names.includes('.agent')) return 'the .agent folder, where sessions are saved: --resume takes what is there for your own conversation';
  // A .claude folder holds skills, whose allowed-tools answer yes in advance (and, from chapter
  // 14, agent files): a model that wrote one unasked would pre-approve its own next command.
  if (names.includes('.claude')) return 'a .claude folder, where skills say which tools are approved in advance';
  return undefined;
}

/**
 * The text of a `.git` file, or undefined when the name holds no regular file. Opened without
 * waiting: a named pipe called .git (one mkfifo away) would hold a plain read, and every edit
 * below it, for ever. (Not plain-files.ts's readPlainFile: that refuses a file with a second
 * name, and git reads a hard-linked .git file all the same.)
 */
async function gitFileText(file: string): Promise<string | undefined> {
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    return (await handle.stat()).isFile() ? await handle.readFile('utf8') : undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Is `target` inside a git folder of another name? Two kinds, whatever they are called: one
 * a `.git` *file* of the workspace names (`gitdir: .repo`, as `git init --separate-git-dir`
 * writes it; each folder from the workspace down may hold one), and one that is a repository
 * by its shape, HEAD beside objects/ and refs/ (a bare clone, `project.git`), or would be
 * once this write is done. git obeys the config and hooks of either.
 */
async function inGitDir(root: string, target: string): Promise<boolean> {
  for (let dir = path.dirname(target); !leaves(root, dir); dir = path.dirname(dir)) {
    // A folder named .git is no file: nothing named there (the check above has it).
    const named = await gitFileText(path.join(dir, '.git')).then((text) => text && /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1]);
    const gitDir = named === undefined ? undefined : await realpath(path.resolve(dir, named)).catch(() => undefined);
    if (gitDir !== undefined && !leaves(gitDir, target)) return true;
    const [head, objects, refs] = await Promise.all(['HEAD', 'objects', 'refs'].map((n) => lstat(path.join(dir, n)).catch(() => undefined)));
    // The folder as this write would leave it: the write that completes the shape is refused
    // too, in whatever order the parts come (a config first, then HEAD, objects/ and refs/).
    const fills = (name: string) => target.startsWith(`${path.join(dir, name)}${path.sep}`);
    if ((head?.isFile() || target === path.join(dir, 'HEAD')) && (objects?.isDirectory() || fills('objects')) && (refs?.isDirectory() || fills('refs'))) return true;
    if (dir === root) break;
  }
  return false;
}

/**
 * Where a call on `p` really lands: its real path when it exists; for a file that does not
 * exist yet, the real path of its folder plus its name (that is where write_file would
 * create it); for a link that points at nothing yet, where the link points, since writing
 * through it creates its target. undefined: too many links, a link that cannot be read, or a
 * path that cannot be resolved for another reason (too long): the caller refuses it.
 */
async function whereItLeads(p: string, hops = 0): Promise<string | undefined> {
  if (hops > 40) return undefined;   // the kernel gives up on a loop of links too (ELOOP)
  try {
    return await realpath(p);
  } catch (err) {
    // Does not resolve: it does not exist, or it is (or passes through) a dangling link. Any
    // other failure leaves it unknown, so refused: a real path past PATH_MAX (ENAMETOOLONG)
    // cannot be resolved, and the kernel still opens a short path that leads there.
    if (!notThere(err)) return undefined;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const folder = await whereItLeads(parent, hops);
  if (folder === undefined) return undefined;
  const here = path.join(folder, path.basename(p));
  const isLink = await lstat(here).then((s) => s.isSymbolicLink(), (err: unknown) => (notThere(err) ? false : undefined));
  if (isLink === undefined) return undefined;
  if (!isLink) return here;   // nothing there yet: this is where it would be created
  // Joined as text, not resolved: the kernel reads "a/../b" in a link's target through a.
  const to = await readlink(here).catch(() => undefined);
  return to === undefined ? undefined : whereItLeads(path.isAbsolute(to) ? to : `${folder}${path.sep}${to}`, hops + 1);
}

/** The error of a path that is not there (yet): nothing else may be taken for "not there". */
function notThere(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The question's words: what the call does, read by the tool's name, never by which fields
 * its input has. A model may add any field to an input: a write_file carrying `command: "ls"`
 * too would otherwise be put to the user as "run: ls", and a yes would write the file.
 */
function summarise(tool: string, input: Record<string, unknown>, guarded?: string): string {
  if (tool === 'run_shell' && typeof input.command === 'string') return `run: ${input.command}`;
  // An edit in a guarded folder says so: through a link, the path as written need not show it.
  if ((tool === 'write_file' || tool === 'edit_file') && typeof input.path === 'string') return `${tool === 'edit_file' ? 'edit' : 'write'} ${input.path}${guarded ? ` (in ${guarded})` : ''}`;
  return `${tool}(${JSON.stringify(input)})`;
}
