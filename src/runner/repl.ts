// `node steps/run.mjs N --repl` (chapter 4 on): the chapter's own interactive session,
// typed line by line, with the local mock on the chapter's scenario standing in for the
// model, so a learner without an API key can try the REPL. The scenario's files are laid
// out in a temp workspace, removed when the session ends.
//
// The mock only knows the answers its scenario scripts: a prompt it has none for gets
// one clear line, not the mock's raw 400. Lines come from a terminal or a pipe alike
// (`printf 'hi\n/exit\n' | node steps/run.mjs 4 --repl`), which is how the tests drive it.
//
// What it is not: a second agent loop. Prompts go to the snapshot's runSession, as
// bin.ts sends them; only the host (workspace, mock URL, terminal) is the runner's.

import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Chapter } from '../chapters.ts';
import { startMock, type Scenario } from '../mock/index.ts';
import { snapshotDir } from './scenarios.ts';
import { permissionAnswer, questionLine, startedWith, WITHDRAWN } from './transcript.ts';
import { layOutScenario, loadChapterModule, SCRIPTED_PLATFORM } from './run-chapter.ts';
import { FIRST_GATED_CHAPTER, liveRefusal } from './live.ts';
import { makeTempDir, release, removeWorktreesOf, stopProcessesIn, onExit } from './cleanup.ts';
import { writerAbove } from './write-above.ts';

export interface ReplOptions {
  chapter: Chapter;
  scenario: Scenario;
  model?: string;
  latencyScale: number;
}

/** The chapter the REPL arrives in (sessions and flags). */
export const FIRST_REPL_CHAPTER = 4;

/** The line the agent prints for a prompt the mock refused as a scenario problem. */
const MOCK_REFUSAL = /^✖ .*\[mock\] (.*)$/m;
const RESUME_HINT = /\n?\(session saved; continue it with --resume [^)]*\)\n/;

export async function runRepl(o: ReplOptions): Promise<number> {
  if (o.chapter.n < FIRST_REPL_CHAPTER) {
    console.error(`chapter ${o.chapter.n} has no interactive session yet: the REPL arrives in chapter ${FIRST_REPL_CHAPTER} (try node steps/run.mjs ${FIRST_REPL_CHAPTER} --repl)`);
    return 2;
  }
  const tty = process.stdin.isTTY === true;
  const temp = await makeTempDir('subagents-repl-');   // removed at exit, even on Ctrl-C
  const mock = await startMock({ scenario: o.scenario, latencyScale: o.latencyScale });
  const closeMock = onExit(() => mock.close());
  // One reader for everything typed: prompts and permission answers.
  const rl = createInterface({ input: process.stdin, output: tty ? process.stdout : undefined, terminal: tty });
  const queue: string[] = [];
  // Who waits for the next line: the prompt, and permission questions, which sub-agents at
  // work at the same time (chapters 13 and 15) may ask while the prompt waits or another
  // question does. The line typed answers what is on screen: a question before the prompt,
  // questions one at a time in the order asked; then what still waits is shown again.
  const waiting: { prompt: string; question: boolean; resolve: (line: string | undefined) => void }[] = [];
  let shown: (typeof waiting)[number] | undefined;
  const onScreen = () => waiting.find((w) => w.question) ?? waiting[0];
  const showNext = () => {
    const w = onScreen();
    // (On a line of its own when it comes while another is on screen, unanswered.) readline is
    // told the prompt too: its cursor position and its own redraws count from it.
    if (w && w !== shown) { process.stdout.write(`${shown ? '\n' : ''}${w.prompt}`); rl.setPrompt(w.prompt); shown = w; }
  };
  let closed = false;
  // What the session prints while a line waits goes above it (write-above.ts).
  const writeAbove = writerAbove(rl, () => (tty && !closed ? shown?.prompt : undefined));
  rl.on('line', (line) => {
    const w = onScreen();
    if (!w) { queue.push(line); return; }
    waiting.splice(waiting.indexOf(w), 1);
    shown = undefined;
    w.resolve(line);
    showNext();
  });
  rl.on('close', () => { closed = true; for (const w of waiting.splice(0)) w.resolve(undefined); });
  // Ctrl-C at the prompt ends the session like Ctrl-D. While the agent works, it ends the
  // input too: the prompt is answered, then the session ends. That is said at once, or the
  // key would seem ignored; and the terminal takes Ctrl-C back with the input, so a second
  // one is a signal, which stops the run now. (Signals, and Ctrl-C from a pipe, go to
  // cleanup.ts's handlers: the mock is closed, the workspace removed.)
  rl.on('SIGINT', () => {
    const working = waiting.length === 0 && !closed;
    rl.close();   // first: once the line below is on screen, the terminal sends Ctrl-C as a signal again
    if (working) process.stdout.write('\n(Ctrl-C: no more prompts; the session ends once this one is answered. Ctrl-C again stops it now)\n');
  });
  // A question whose agent is stopped while it waits (its signal, chapter 15) is withdrawn:
  // said so if it is on screen, unseen if it waits behind another; the promise rejects.
  const next = (prompt: string, question = false, signal?: AbortSignal): Promise<string | undefined> => {
    if (queue.length > 0 || closed) {
      process.stdout.write(prompt);
      return Promise.resolve(queue.length > 0 ? echo(queue.shift()!) : undefined);
    }
    if (signal?.aborted) return Promise.reject(signal.reason);   // stopped before it could be shown: an abort listener would never fire
    return new Promise((resolve, reject) => {
      const withdraw = () => {
        waiting.splice(waiting.indexOf(w), 1);
        if (shown === w) {
          shown = undefined;
          // What was typed toward it goes with it (as in bin.ts): left in readline's line, it
          // would begin the next line typed, an answer or a prompt meant for something else.
          Object.assign(rl, { line: '', cursor: 0 });
          process.stdout.write(`\n${WITHDRAWN}\n`);
        }
        reject(signal!.reason);
        showNext();
      };
      // Answered: the signal no longer needs to reach it (an agent asks many questions in one run).
      const w: (typeof waiting)[number] = { prompt, question, resolve: (line) => { signal?.removeEventListener('abort', withdraw); resolve(line === undefined ? undefined : echo(line)); } };
      waiting.push(w);
      signal?.addEventListener('abort', withdraw, { once: true });
      showNext();
    });
  };
  // Typed at a terminal, a line is already on screen; from a pipe, it is shown once here.
  const echo = (line: string) => { if (!tty) process.stdout.write(`${line}\n`); return line; };

  let ok = true;
  let started = false;   // the session asked for its first typed line: it started
  try {
    const { home, cwd } = await layOutScenario(temp, o.scenario);
    const { module: mod } = await loadChapterModule(snapshotDir(o.chapter));
    // The scenario's flags, but not -p: one-shot mode is the opposite of a REPL.
    const argv = (o.scenario.argv ?? []).filter((a) => a !== '-p' && a !== '--print');
    console.log(`REPL: chapter ${o.chapter.n} (${o.chapter.title}) against the scripted model of ${o.scenario.file}`);
    console.log(`the scenario's prompts: ${o.scenario.prompts.map((p) => JSON.stringify(p)).join(', ')}`);
    // The flags change what the session does (--plan, a permission mode): say them, as a demo run does.
    if (argv.length > 0) console.log(startedWith(argv));
    console.log('/clear starts a new conversation, /exit or Ctrl-D quits');
    async function* typed(): AsyncGenerator<string> {
      started = true;
      while (true) {
        const line = await next('\nyou ▸ ');
        if (line === undefined) process.stdout.write('\n');
        if (line === undefined || line.trim() === '/exit') return;
        yield line;
      }
    }
    // Pointed at --live only where --live would run this scenario (live.ts: a gate that asks).
    const tryLive = liveRefusal(o.chapter, o.scenario) === undefined ? '; try --live'
      : o.chapter.n < FIRST_GATED_CHAPTER ? `; a real model (--live) from chapter ${FIRST_GATED_CHAPTER} on` : '';
    // false: the session could not start (a bad flag, a session file it cannot resume), or a
    // prompt failed. Only the first ends the REPL with exit 1: a prompt the script has no answer
    // for is what a REPL on a scripted model meets, and the session goes on after it.
    ok = (await mod.runSession(typed(), {
      cwd, home, apiKey: 'mock-key', baseURL: mock.url,
      model: o.model ?? o.scenario.model ?? mod.DEFAULT_MODEL,
      env: { ...o.scenario.env }, argv,
      terminal: {
        write: (t) => {
          const refused = MOCK_REFUSAL.exec(t);
          const text = refused
            ? t.replace(MOCK_REFUSAL, /out of turns/.test(refused[1]!)
              ? `✖ the scripted model has no more answers (the scenario's turns are used up)${tryLive}`
              : `✖ the scripted model has no answer for this prompt${tryLive}`)
            : t;
          // The workspace goes when the REPL ends: no hint to resume a session saved there.
          writeAbove(text.replace(RESUME_HINT, '\n'));
        },
      },
      platform: SCRIPTED_PLATFORM,
      ask: async (q: { tool: string; summary?: string; from?: string; signal?: AbortSignal }) => permissionAnswer(await next(questionLine(q), true, q.signal)),
    })) !== false;
  } finally {
    rl.close();
    closeMock();
    await mock.close();
    stopProcessesIn(temp);
    if (o.scenario.git) removeWorktreesOf(path.join(temp, 'work'), temp);   // chapter 16's, wherever they are
    await rm(temp, { recursive: true, force: true });
    release(temp);
  }
  console.log('(the temporary workspace, saved session included, is removed now)');
  return ok || started ? 0 : 1;
}
