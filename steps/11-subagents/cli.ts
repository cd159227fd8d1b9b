// GENERATED from src/agent/cli.ts for chapter 11 (subagents). Do not edit: change src/agent/cli.ts and run npm run gen.
// The command line: the flags `runSession` reads from host.argv, and saved sessions
// (the conversation as JSON on disk, so that `--resume` can continue it tomorrow).
// Nothing here talks to the model or to a real terminal; bin.ts does the terminal.

import minimist from 'minimist';
import { access, lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { readPlainFile } from './plain-files.ts';
import { OUTPUT_STYLES } from './prompt.ts';
import type { AgentHost, PermissionMode } from './types.ts';

export interface Flags {
  print: boolean;            // -p: answer once, print only the final answer, exit
  resume?: string;           // a session id, or a path to a session file
  sessionId?: string;        // the id a new session is saved under
  model?: string;
  outputStyle?: string;
  permissionMode: string;    // the permission gate's mode (permissionMode, below); stored with the session
  help: boolean;
  prompt: string;            // words after the flags: a first prompt
}

/** Four of Claude Code's permission modes (it has more: auto, dontAsk). Accepted and saved here; nothing enforces them before chapter 6. */
const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];

export const HELP = `usage: agent [flags] [prompt]

  -p, --print              answer the prompt, print only the final answer, exit
  --resume ID|FILE         continue a saved session (.agent/sessions/ID.json, or a file)
  --session-id ID          save a new session under this id (default: a random one)
  --model MODEL            the model to use
  --output-style NAME      ${Object.keys(OUTPUT_STYLES).join(', ')}
  --permission-mode MODE   what the permission gate lets through unasked (saved with the
                           session): ${PERMISSION_MODES.join(', ')}
  --plan                   start in plan mode (--permission-mode plan): look, plan, and
                           change nothing until you approve the plan
  -h, --help               this text

Typed in a session:
  /clear                   start a new conversation
  /compact [KEEP]          summarise the conversation so far (KEEP: what the summary keeps)
  /NAME [ARGS]             run the skill NAME (.claude/skills/NAME/SKILL.md) with ARGS
  /plan [TASK]             turn plan mode on; TASK, if given, is sent as the prompt
  /exit, Ctrl-D            quit
`;

/** Parse host.argv. A mistake throws one line that says what is wrong. */
export function parseFlags(argv: string[]): Flags {
  const args = minimist(argv, {
    boolean: ['print', 'help', 'plan'],
    string: ['resume', 'session-id', 'model', 'output-style', 'permission-mode'],
    alias: { p: 'print', h: 'help' },
    unknown: (arg) => {
      if (arg.startsWith('-')) throw new Error(`unknown flag ${arg} (see --help)`);
      return true;   // a word of the prompt
    },
  });
  // minimist reads `--print=no` as --print: a switch given a value is refused instead.
  for (const arg of argv) {
    if (arg === '--') break;   // what follows is the prompt's
    const named = /^--?([\w-]+)=/.exec(arg)?.[1];
    if (named !== undefined && (typeof args[named] === 'boolean' || named === 'p' || named === 'h')) throw new Error(`${arg.split('=')[0]} takes no value`);
  }
  const value = (name: string): string | undefined => {
    const v = args[name] as string | string[] | undefined;
    // minimist gathers a flag given twice into a list: one of the two would be lost.
    if (Array.isArray(v)) throw new Error(`--${name} given twice`);
    if (v === '') throw new Error(`--${name} needs a value`);
    return v;
  };
  // --plan is --permission-mode plan: another mode beside it would be dropped without a word.
  const mode = value('permission-mode');
  if (args.plan === true && mode !== undefined && mode !== 'plan') throw new Error(`--plan and --permission-mode ${mode} do not go together: --plan is --permission-mode plan`);
  const flags: Flags = {
    print: args.print === true,
    resume: value('resume'),
    sessionId: value('session-id'),
    model: value('model'),
    outputStyle: value('output-style'),
    permissionMode: args.plan === true ? 'plan' : (mode ?? 'default'),   // --plan: --permission-mode plan
    help: args.help === true,
    prompt: args._.join(' '),
  };
  if (flags.outputStyle !== undefined && !Object.hasOwn(OUTPUT_STYLES, flags.outputStyle)) {   // own names: not "toString"
    throw new Error(`unknown output style "${flags.outputStyle}" (known: ${Object.keys(OUTPUT_STYLES).join(', ')})`);
  }
  if (!PERMISSION_MODES.includes(flags.permissionMode)) {
    throw new Error(`unknown permission mode "${flags.permissionMode}" (known: ${PERMISSION_MODES.join(', ')})`);
  }
  // An id becomes .agent/sessions/ID.json, and sessionFile reads anything with a / or a
  // .json ending as a path: so an id is a plain name, no dot, no slash, never a path or a
  // file name of the workspace. Claude Code 2.1.328 goes further and takes only a UUID
  // (the x-ray's session case: `notes.json` and a plain name are refused before anything is
  // sent); a readable name like `demo` is this series' own design.
  if (flags.sessionId !== undefined && !/^[A-Za-z0-9][\w-]*$/.test(flags.sessionId)) {
    throw new Error(`--session-id "${flags.sessionId}": an id is a plain name (letters, digits, _ and -, no . or /)`);
  }
  // A resumed session is saved under the id it already has: a --session-id beside --resume
  // would be dropped without a word (this series' own rule).
  if (flags.resume !== undefined && flags.sessionId !== undefined) {
    throw new Error('--resume and --session-id do not go together: a resumed session keeps the id it was saved under');
  }
  return flags;
}

// ---------------------------------------------------------------------------
// Saved sessions

/** A session on disk: the messages (all the model ever sees of the past) and a few facts. */
export interface SavedSession {
  version: 1;
  id: string;
  model: string;
  permissionMode: string;
  created: string;
  updated: string;
  messages: Anthropic.MessageParam[];
}

export const SESSIONS_DIR = '.agent/sessions';

/**
 * Sessions live in the workspace's own .agent/sessions, never where a link leads: a
 * repository may commit `.agent` as a link, and every save (a temp file, a removal, a
 * rename over a file) would land there, outside the workspace, and a resume would read
 * from there. Throws one line when .agent or .agent/sessions is a link; one not made yet
 * is fine. (A file the user names with --resume is the user's choice, wherever it is.)
 */
export async function refuseLinkedSessions(cwd: string): Promise<void> {
  let dir = cwd;
  for (const part of SESSIONS_DIR.split('/')) {
    dir = path.join(dir, part);
    const link = await lstat(dir).then((s) => s.isSymbolicLink(), () => false);
    if (link) throw new Error(`${path.relative(cwd, dir)} is a link: sessions are kept only in the workspace's own ${SESSIONS_DIR}, never where a link leads`);
  }
}

/** `--resume abc` means .agent/sessions/abc.json; anything that looks like a path is a path. */
export function sessionFile(cwd: string, idOrPath: string): string {
  const isPath = idOrPath.endsWith('.json') || idOrPath.includes('/') || idOrPath.includes(path.sep);
  return isPath ? path.resolve(cwd, idOrPath) : path.join(cwd, SESSIONS_DIR, `${idOrPath}.json`);
}

/** Read a saved session, or throw one line saying why not. Never writes. */
export async function loadSession(file: string, cwd: string): Promise<SavedSession> {
  const shown = path.relative(cwd, file) || '.';
  let text: string;
  try {
    text = await readPlainFile(file);   // a regular file only: a pipe's read would wait for ever
  } catch (err) {
    const kind = / is (a folder|a named pipe|a socket|a device), not a regular file$/.exec((err as Error).message)?.[1];
    const code = (err as NodeJS.ErrnoException).code;
    if (kind || code === 'ENOENT' || code === 'ENOTDIR') throw new Error(`cannot resume: no session file ${shown}${kind ? ` (${kind})` : ''}`);
    // There, but not readable (no permission, a loop of links): said as it is, not as missing.
    throw new Error(`cannot resume: cannot read ${shown} (${(err as Error).message.split(',')[0]})`);
  }
  let data: Partial<SavedSession>;
  try {
    data = JSON.parse(text) as Partial<SavedSession>;
  } catch (err) {
    throw new Error(`cannot resume: ${shown} is not valid JSON (${(err as Error).message}); the file was left as it is`);
  }
  const roles = typeof data === 'object' && data !== null && Array.isArray(data.messages) && data.messages.every((m) => m?.role === 'user' || m?.role === 'assistant');
  if (!roles || typeof data.id !== 'string') throw new Error(`cannot resume: ${shown} is not a saved session (it needs an id and a messages array)`);
  return data as SavedSession;
}

/**
 * A new session's id must be free: the first save under the id of a saved session would
 * overwrite it, conversation and all. Throws one line saying what to do instead.
 */
export async function refuseSavedId(cwd: string, id: string): Promise<void> {
  const file = sessionFile(cwd, id);
  const saved = await access(file).then(() => true, () => false);
  if (saved) throw new Error(`--session-id ${id}: a session is already saved under this id (${path.relative(cwd, file)}); continue it with --resume ${id}, or choose another id`);
}

/** Write the session. A temp file and a rename: a crash mid-write never leaves half a file.
 *  The session folder is checked again: a link made since the session started is refused too. */
export async function saveSession(file: string, session: SavedSession, cwd: string): Promise<void> {
  await refuseLinkedSessions(cwd);
  await mkdir(path.dirname(file), { recursive: true });
  // The temp file is always made new ('wx'): whatever stood at its name is removed, never
  // opened. The workspace is the model's to write in, and a named pipe there would hold
  // the write for ever, a link would lead it elsewhere.
  const temp = `${file}.tmp`;
  await rm(temp, { force: true });
  await writeFile(temp, JSON.stringify(session, null, 2) + '\n', { flag: 'wx' });
  await rename(temp, file);
}

/** One line for any error; for an API error, its status, type and the API's own message. */
export function errorLine(err: unknown): string {
  const api = (err as { status?: number; error?: { error?: { type?: string; message?: string } } } | null);
  // An error inside a stream has no HTTP status (the answer had begun with 200 OK).
  if (api?.error?.error?.message) return `API error ${api.status ?? 'mid-stream'} (${api.error.error.type}): ${api.error.error.message}`;
  // The SDK says only "Connection error."; what the network said (a refused port, a host
  // that does not resolve) is two causes down: fetch's "fetch failed", then the reason.
  const reason = (err as { cause?: { cause?: { message?: string } } } | null)?.cause?.cause?.message;
  if (err instanceof Error && reason) return `${err.message} (${reason})`;
  return err instanceof Error ? err.message : String(err);
}

/** The permission mode from the command line (--permission-mode), parsed where every other
 *  flag is: the gate (permissions.ts) gets it from the session's config, never from argv. */
export function permissionMode(host: AgentHost): PermissionMode {
  return parseFlags(host.argv).permissionMode as PermissionMode;
}
