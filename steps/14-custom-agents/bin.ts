// GENERATED from src/agent/bin.ts for chapter 14 (custom-agents). Do not edit: change src/agent/bin.ts and run npm run gen.
// Run the agent in a real terminal, as a program of its own:
//
//   ANTHROPIC_API_KEY=sk-... npx tsx steps/<this chapter's folder>/bin.ts [flags] [prompt]
//
// It builds the host from this process (folder, home, environment, flags, stdout) and
// hands it to runSession, the same entry the runner calls with a fake host. The runner
// never loads this file; test/bin.test.ts runs it in the test's process, against the mock.

import os from 'node:os';
import readline from 'node:readline/promises';
import chalk from 'chalk';
import { runSession, DEFAULT_MODEL } from './main.ts';
import type { AgentHost } from './types.ts';
import { clearScreenDown, cursorTo, moveCursor } from 'node:readline';

// A reader that went away (`bin.ts -p "…" | head -1`) is the reader's choice, not an error:
// the session goes on quietly, and still saves, as steps/run.mjs does.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.stdout.write = () => true;
});

const given = process.argv.slice(2);
const wantsHelp = given.includes('--help') || given.includes('-h');
// The SDK would say only "Invalid URL", at the first request, naming neither the variable nor its value.
const baseURL = process.env.ANTHROPIC_BASE_URL;
if (!wantsHelp && baseURL !== undefined && baseURL !== '' && !httpAddress(baseURL)) {
  process.stderr.write(`ANTHROPIC_BASE_URL=${baseURL}: not an http:// or https:// address\n`);
  process.exit(1);
}

function httpAddress(url: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;   // no URL at all (a port past 65535, a space in the host)
  }
}
if (!process.env.ANTHROPIC_API_KEY && !wantsHelp) {
  // The SDK sends no request without a key, and the mock takes any: say so to someone who set up the mock.
  process.stderr.write(process.env.ANTHROPIC_BASE_URL
    ? `Set ANTHROPIC_API_KEY: any value will do for the mock at ${process.env.ANTHROPIC_BASE_URL} (e.g. ANTHROPIC_API_KEY=mock); the real API needs your key.\n`
    : 'Set ANTHROPIC_API_KEY to talk to the real API (or run a chapter against the mock: node steps/run.mjs N).\n');
  process.exit(1);
}
// A pipe, not a terminal: what it carries is the prompt, after any words given as arguments,
// as `echo "…" | claude -p` reads it. (`--`: a piped text that starts with "-" is no flag.)
const piped = process.stdin.isTTY || wantsHelp ? '' : (await readPipe(process.stdin)).trim();
const argv = piped === '' ? given : [...given, '--', piped];

/**
 * Everything a pipe carries, until it closes; nothing when it stays silent for a second.
 * A parent that hands over stdin as a pipe and never writes to it or closes it (a script, a
 * CI job) must not keep the agent waiting for ever.
 */
function readPipe(stream: NodeJS.ReadStream, quietMs = 1000): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => { clearTimeout(silent); stream.pause(); resolve(text); };
    const silent = setTimeout(() => { stream.removeAllListeners('data'); stream.destroy(); done(); }, quietMs);
    stream.on('data', (chunk) => { clearTimeout(silent); text += String(chunk); });
    stream.once('end', done);
    stream.once('error', done);
  });
}

// One reader for everything typed: prompts and (from chapter 6) permission answers.
// Two readers on one stdin would each see every line.
const rl = process.stdin.isTTY ? readline.createInterface({ input: process.stdin, output: process.stdout }) : undefined;
let closed = false;

// Who waits for the next line: the prompt, and (from chapter 6) permission questions, which
// sub-agents working at the same time (chapters 13 and 15) may ask while the prompt waits or
// while another question does. The line typed answers what is on screen: a question before
// the prompt, and questions one at a time, in the order they were asked; once one is answered,
// the next waiting line is shown again.
interface Waiting { prompt: string; question: boolean; resolve: (line: string | undefined) => void }
const waiting: Waiting[] = [];
let shown: Waiting | undefined;
const onScreen = () => waiting.find((w) => w.question) ?? waiting[0];
function showNext(): void {
  const next = onScreen();
  if (!rl || !next || next === shown) return;
  shown = next;
  rl.setPrompt(next.prompt);
  rl.prompt();
}
rl?.on('line', (line) => {
  const w = onScreen();
  if (!w) return;   // typed while nothing waits for it (the agent at work): not an answer to anything
  waiting.splice(waiting.indexOf(w), 1);
  shown = undefined;
  w.resolve(line);
  showNext();
});
rl?.on('close', () => {
  closed = true;
  for (const w of waiting.splice(0)) w.resolve(undefined);
});

// From chapter 12 on, agents work side by side: one prints while another's question (or the
// prompt) waits on screen, and its text would run on after "[y/N] ", leaving the question above
// it, out of sight. So what is printed while a line waits goes above that line: held until a line of it ends; then
// the waiting line is cleared, the text written, and the waiting line drawn again below it,
// with what was typed so far. The same prompt and typed text, the cursor where it was: the
// screen is as readline last drew it, and its own redraws still fit.
let held = '';
function writeAbove(text: string): void {
  if (!rl || !shown || closed) {
    process.stdout.write(held + text);
    held = '';
    return;
  }
  held += text;
  const end = held.lastIndexOf('\n');
  if (end < 0) return;
  moveCursor(process.stdout, 0, -rl.getCursorPos().rows);   // to the waiting line's first row
  cursorTo(process.stdout, 0);
  clearScreenDown(process.stdout);
  process.stdout.write(held.slice(0, end + 1) + shown.prompt + rl.line);
  held = held.slice(end + 1);
  moveCursor(process.stdout, rl.cursor - rl.line.length, 0);
}
// What is still held when the line is answered (Enter) or the input ends comes out then,
// before anything is shown next.
const flushHeld = () => { process.stdout.write(held); held = ''; };
rl?.prependListener('line', flushHeld);
rl?.prependListener('close', flushHeld);

// While readline holds the terminal, Ctrl-C reaches it as a key, not as a signal, and ends
// the input as Ctrl-D does. At the prompt, that ends the session. While the agent works, it
// means: answer this prompt, then stop. That is said at once, or the key would seem ignored;
// and with the input closed the terminal sends Ctrl-C as a signal again, so a second one
// stops the process.
rl?.on('SIGINT', () => {
  const working = waiting.length === 0 && !closed;
  rl.close();
  if (working) process.stdout.write('\n(Ctrl-C: no more prompts; the session ends once this one is answered. Ctrl-C again stops it now)\n');
});

/** One line typed by the user, or undefined once input is closed (Ctrl-D, or Ctrl-C). */
function readLine(prompt: string, question = false): Promise<string | undefined> {
  if (!rl || closed) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    waiting.push({ prompt, question, resolve });
    showNext();
  });
}

/**
 * A permission question quotes the model's input: a control character in it (an ESC that
 * moves the cursor and redraws the line), a bidi override or an invisible character (a
 * zero-width space in a path, a Unicode "tag" letter) would change what the user sees
 * approving. Each is shown as an escape, \u001b (past \uffff: \u{e0041}). Line breaks and
 * tabs stay, so that a script of several lines reads as one.
 */
function visible(text: string): string {
  return text.replace(/(?![\n\t])[\p{Cc}\p{Cf}]/gu, (ch) => {
    const code = ch.codePointAt(0)!.toString(16);
    return ch.length === 1 ? `\\u${code.padStart(4, '0')}` : `\\u{${code}}`;
  });
}

const host: AgentHost = {
  cwd: process.cwd(),
  home: os.homedir(),
  apiKey: process.env.ANTHROPIC_API_KEY ?? '',
  baseURL: process.env.ANTHROPIC_BASE_URL,
  model: process.env.ANTHROPIC_MODEL ?? DEFAULT_MODEL,
  env: process.env,
  argv,
  // The answer and the conversation on stdout; a line about something wrong on stderr, so that
  // `bin.ts -p "…" > answer.txt` keeps the answer alone, and a failure still shows.
  terminal: { write: writeAbove, problem: (line) => { process.stderr.write(line); } },
  platform: process.platform,
  // Without a terminal (a pipe, a script) there is nobody to ask: `ask` stays absent and
  // calls that need a yes are refused; choose a --permission-mode for such runs.
  ...(rl && {
    ask: async (question) => {
      // A sub-agent's question says which one asks (its task is the model's words: escaped too).
      const prompt = chalk.yellow(`\n${question.from ? `${visible(question.from)} asks: ` : ''}Allow ${visible(question.summary)}? [y/N] `);
      if (closed) process.stdout.write(prompt);   // readline shows nothing once the input ended: the question still shows
      const answer = await readLine(prompt, true);
      if (answer === undefined) {
        process.stdout.write('(no answer: the input is closed)\n');   // Ctrl-D: nobody can answer any more
        return undefined;
      }
      return /^y(es)?$/i.test(answer.trim());
    },
  }),
};

/** Lines typed at the prompt, one at a time, until /exit or Ctrl-D. */
async function* typed(): AsyncGenerator<string> {
  writeAbove(chalk.dim(`agent in ${host.cwd} · /clear for a new conversation · /exit to quit\n`));   // a question may be waiting already
  while (true) {
    const line = await readLine(chalk.bold.green('\nyou ▸ '));
    if (line === undefined || line.trim() === '/exit') return;
    yield line;
  }
}

// A terminal gets the interactive prompt; -p, a pipe or a script gets one-shot mode.
const oneShot = argv.includes('-p') || argv.includes('--print') || !process.stdin.isTTY;
// Exit status 1 when the session could not start or a prompt failed, so that a script can tell.
const ok = await runSession(oneShot ? [] : typed(), host);
rl?.close();
process.exitCode = ok ? 0 : 1;
