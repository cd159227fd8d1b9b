// GENERATED from src/agent/main.ts for chapter 6 (permissions). Do not edit: change src/agent/main.ts and run npm run gen.
// The front door of every chapter: what a terminal, the demo runner or a test calls to
// start the agent. It holds no agent logic; it hands the outside world (a workspace,
// an API key, a place to print) to a session (session.ts) and sends it the prompts.
//
// Its shape stays the same from chapter 1 to the last, runSession(prompts, host) with
// the host types of types.ts, so the same runner can drive every chapter's snapshot.
// (From chapter 4 the prompts may also come one at a time, as typed, and it resolves to
// false when the session could not start or a prompt failed: bin.ts's exit status.)

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { AgentHost } from './types.ts';
import { Session } from './session.ts';
import { gatherPromptParts } from './prompt.ts';
import { parseFlags, HELP, sessionFile, loadSession, refuseLinkedSessions, refuseSavedId, saveSession, errorLine, type Flags, type SavedSession } from './cli.ts';

/** The model used when nobody names one. The one place it is written down. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

/** One session: each prompt is sent in turn, as if the user typed it. `prompts` is a list
 *  (the runner, a test) or typed lines as they come (bin.ts's interactive prompt). Resolves
 *  false when the session could not start or a prompt failed: bin.ts's exit status. */
export async function runSession(prompts: string[] | AsyncIterable<string>, host: AgentHost): Promise<boolean> {
  let flags: Flags;
  let saved: SavedSession | undefined;
  try {
    flags = parseFlags(host.argv);
    await refuseLinkedSessions(host.cwd);
    if (flags.resume !== undefined) saved = await loadSession(sessionFile(host.cwd, flags.resume), host.cwd);
    else if (flags.sessionId !== undefined) await refuseSavedId(host.cwd, flags.sessionId);
  } catch (err) {
    problem(host.terminal, `✖ ${errorLine(err)}\n`);
    return false;
  }
  if (flags.help) {
    host.terminal.write(HELP);
    return true;
  }
  // -p answers one prompt: given none (no words, nothing piped), it has nothing to answer.
  if (flags.print && flags.prompt.trim() === '' && Array.isArray(prompts) && prompts.length === 0) {
    problem(host.terminal, '✖ -p needs a prompt: words after the flags, or text on stdin\n');
    return false;
  }
  const out = host.terminal;
  // Flags win over the environment: fold them into the host that the rest of the code reads.
  host = {
    ...host,
    model: flags.model ?? host.model,
    env: { ...host.env, OUTPUT_STYLE: flags.outputStyle ?? host.env.OUTPUT_STYLE },
    // -p: only the final answer is printed; a line about something wrong (a ✖ line: a file
    // skipped, a setting refused) still goes where problems go.
    terminal: flags.print ? { write: (text) => { if (text.startsWith('✖ ')) problem(out, text); } } : host.terminal,
    // -p answers once and exits: nobody is there to ask, even at a terminal, so a call that
    // needs a yes is refused with a reason (so does Claude Code 2.1.328's print mode).
    ask: flags.print ? undefined : host.ask,
  };
  // The SDK as it ships: only the base URL changes when a mock stands in for the API.
  const client = new Anthropic({ apiKey: host.apiKey, baseURL: host.baseURL });
  // The prompt's parts are read now, at session start, and never again in this session. One
  // that cannot be read (an OUTPUT_STYLE variable nobody knows) is said in one line, as a bad
  // flag is, before any request.
  const parts = await gatherPromptParts(host).catch((err: unknown) => { problem(out, `✖ ${errorLine(err)}\n`); });
  if (!parts) return false;
  const session = new Session(client, host, parts);
  let id = saved?.id ?? flags.sessionId ?? randomUUID();
  let file = sessionFile(host.cwd, flags.resume ?? id);
  if (saved) {
    session.config.messages.push(...saved.messages);   // the model sees the old conversation again
    out.write(`(resumed session ${saved.id}: ${saved.messages.length} messages)\n`);
  }
  const created = saved?.created ?? new Date().toISOString();
  let savedTo: string | undefined;   // nothing to resume until a prompt got its answer
  let failed = false;                // a prompt that failed: the session goes on, and says so at its end
  for await (const prompt of withFirst(flags.prompt, prompts)) {
    if (prompt.trim() === '') continue;
    if (prompt.trim() === '/clear') {
      // A new conversation: new id, new file; the old file stays for --resume.
      session.config.messages.length = 0;
      id = randomUUID();
      file = sessionFile(host.cwd, id);
      out.write('(new conversation)\n');
      continue;
    }
    if (Array.isArray(prompts)) host.terminal.write(`\n> ${prompt}\n`);   // a typed prompt is already on screen
    const before = [...session.config.messages];
    try {
      const answer = await session.send(prompt);   // the loop prints the model's text as it arrives
      if (flags.print) out.write(`${answer}\n`);
    } catch (err) {
      // One failed prompt does not end the session: say why, and take the prompt back, so
      // the conversation (and the file) never ends on a question with no answer.
      session.config.messages.splice(0, session.config.messages.length, ...before);
      problem(out, `✖ ${errorLine(err)}\n`);
      failed = true;
    }
    if (session.config.messages.length > 0 || saved) {
      await saveSession(file, {
        version: 1, id, model: host.model, permissionMode: flags.permissionMode,
        created, updated: new Date().toISOString(), messages: session.config.messages,
      }, host.cwd);
      savedTo = file;
    }
    if (flags.print) break;   // one-shot
  }
  if (!flags.print && savedTo) out.write(`\n(session saved; continue it with --resume ${path.relative(host.cwd, savedTo)})\n`);
  return !failed;
}

/** A line about something wrong: to the terminal's place for problems when it has one (stderr, in bin.ts). */
function problem(terminal: AgentHost['terminal'], line: string): void {
  if (terminal.problem) terminal.problem(line);
  else terminal.write(line);
}

/** The prompt given on the command line (if any), then the others. */
async function* withFirst(first: string, rest: string[] | AsyncIterable<string>): AsyncGenerator<string> {
  if (first !== '') yield first;
  yield* rest;
}
