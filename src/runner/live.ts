// `node steps/run.mjs N --live`: a chapter against the real API (or any endpoint in
// ANTHROPIC_BASE_URL), with the chapter's demo files laid out in a temp workspace and a
// person at the terminal. What a live run adds over a scripted one is that it can fail
// for reasons outside the project (nothing listening, DNS, TLS, a refused key), so this
// file also watches the wire and names, in one line, what failed and where.
//
// What it is not: a retry layer or a client of its own. The chapter's agent builds its
// own SDK client; the watch only looks at what that client's fetch calls returned.

import path from 'node:path';
import { rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Chapter } from '../chapters.ts';
import type { Scenario } from '../mock/index.ts';
import { snapshotDir } from './scenarios.ts';
import { permissionAnswer, questionLine, WITHDRAWN } from './transcript.ts';
import { layOutScenario, loadChapterModule, oneLine } from './run-chapter.ts';
import { makeTempDir, release, removeWorktreesOf, stopProcessesIn } from './cleanup.ts';
import { writerAbove } from './write-above.ts';
import { originOf, watchNetwork } from './wire.ts';

/** One request as the wire saw it: the URL, and how it ended when it did not end well. */
interface WireFailure { url: string; cause: string }

/**
 * Watches the network while a live run lasts (wire.ts: the SDK picks up the global fetch
 * when the agent builds its client). The SDK retries a failed request itself, marking each
 * retry with `x-stainless-retry-count`; a request counts as failed only when its last
 * attempt failed. Given the API's origin, only requests to it count: the watch is on the
 * whole process's fetch, and a request of something else there (another test's, in the
 * test suite) is not the run's. Without one (the SDK's default address), every request counts.
 */
export function watchFetch(apiOrigin?: string): { failures(): WireFailure[]; restore(): void } {
  const attempts: { failure?: WireFailure }[] = [];
  const restore = watchNetwork((next) => async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (apiOrigin !== undefined && originOf(input) !== apiOrigin) return next(input, init);
    const retry = Number(new Headers(init?.headers).get('x-stainless-retry-count') ?? '0');
    if (retry === 0 || attempts.length === 0) attempts.push({});
    const attempt = attempts.at(-1)!;
    try {
      const res = await next(input, init);
      attempt.failure = res.status >= 400 ? { url, cause: await httpCause(res) } : undefined;
      return res;
    } catch (err) {
      attempt.failure = { url, cause: networkCause(err) };
      throw err;
    }
  });
  return {
    failures: () => attempts.flatMap((a) => (a.failure ? [a.failure] : [])),
    restore,
  };
}

/** What an HTTP error answer says, in a few words: its status, its type, and what to do for the common ones. */
async function httpCause(res: Response): Promise<string> {
  let type = '';
  let message = '';
  try {
    const body = (await res.clone().json()) as { error?: { type?: string; message?: string } };
    type = body.error?.type ?? '';
    message = body.error?.message ?? '';
  } catch {
    // not JSON: the status says enough
  }
  const what = [String(res.status), type, message].filter((s) => s !== '').join(' ');
  if (res.status === 401) return `${what} (the API key was refused: check ANTHROPIC_API_KEY)`;
  if (res.status === 403) return `${what} (this key may not use this model or endpoint)`;
  if (res.status === 404) return `${what} (is ANTHROPIC_BASE_URL the API's address, and the model id right?)`;
  return what;
}

/** Why a request never got an answer, from the error fetch threw (its cause carries the system's code). */
export function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | null)?.cause;
  const code = cause?.code ?? (err as { code?: string } | null)?.code ?? '';
  const detail = (cause?.message ?? (err instanceof Error ? err.message : String(err))).trim();
  // fetch refuses some ports outright (9, 25, 6000 … on its blocked-ports list) before connecting.
  if (detail === 'bad port') return 'fetch refuses to connect to this port (it is on fetch\'s list of blocked ports): use another one';
  if (code === 'ECONNREFUSED') return 'connection refused (nothing is listening at that address)';
  if (code === 'ENOTFOUND') return 'DNS lookup failed: no such host';
  if (code === 'EAI_AGAIN') return 'DNS lookup failed (temporarily): is the network up?';
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return `TLS failed: ${code} (the server does not speak TLS: an https:// address for an http:// server?)`;
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) return `TLS failed: ${code}${/^[^\n]{1,100}$/.test(detail) ? ` (${detail})` : ''}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `the connection was closed (${detail}); an http:// address for an https:// server?`;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || /timed? ?out/i.test(detail)) return 'timed out';
  const first = detail.split('\n')[0]!;
  return code !== '' ? `${code} (${first})` : first;
}

/** Whether `text` is an http:// or https:// URL. */
function isHttpAddress(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** The first chapter whose agent asks before it edits or runs a command: its permission gate. */
export const FIRST_GATED_CHAPTER = 6;

/**
 * Why this run must not meet a real model, or undefined when it may. A scripted run is safe
 * whatever its tools can reach: every call it makes is written in the scenario. A real
 * model's calls are not. So --live runs only an agent that asks before a shell command:
 * chapter 6's gate or later, not started in bypassPermissions, and no skill of the scenario
 * answering yes to the shell in advance (its allowed-tools). The gate keeps the file tools
 * in the workspace in every mode; a shell command can only be asked about.
 */
export function liveRefusal(chapter: Chapter, scenario: Scenario): string | undefined {
  if (chapter.n < FIRST_GATED_CHAPTER) {
    const instead = chapter.n >= 4 ? `, or this chapter with --repl (a scripted model)` : '';
    // What its tools could do: chapter 1 has read_file only; chapter 2 adds writes and the shell.
    const reach = chapter.n === 1 ? 'read any file on this machine (its read_file)' : 'read, write and run anything on this machine through its tools';
    return `--live: chapter ${chapter.n}'s agent has no permission gate yet (chapter ${FIRST_GATED_CHAPTER} adds it): a real model could ${reach}. Use --live from chapter ${FIRST_GATED_CHAPTER} on (node steps/run.mjs ${FIRST_GATED_CHAPTER} --live)${instead}`;
  }
  const file = path.relative(process.cwd(), path.resolve(scenario.file));
  const argv = scenario.argv ?? [];
  const bypass = argv.some((a, i) => a === '--dangerously-skip-permissions' || a === '--permission-mode=bypassPermissions' || (a === '--permission-mode' && argv[i + 1] === 'bypassPermissions'));
  if (bypass) return `--live: ${file} starts the agent in bypassPermissions (its argv): a real model's shell commands would run on this machine without a question. Live, use a case that asks (the demo does)`;
  // Any file may be a skill's: a SKILL.md may be a link to a file of another name.
  const files = { ...scenario.files, ...prefixed('~/', scenario.home_files) };
  for (const [name, text] of Object.entries(files)) {
    if (listsShell(text)) {
      return `--live: ${file} has a skill whose allowed-tools list run_shell (${name}): while it runs, a real model's shell commands would run on this machine without a question. Live, use a case without one (the demo does)`;
    }
  }
  return undefined;
}

/**
 * Whether a text has an allowed-tools line that lists run_shell, on the line or in the
 * "- item" lines below it. Read more widely than skills.ts reads a front matter (any line of
 * the file, given twice or not): a skill this misreads must not pass as one that asks.
 */
function listsShell(text: string): boolean {
  const fields = [...text.matchAll(/^allowed-tools:(.*(?:\r?\n[ \t]*-.*)*)/gm)].map((m) => m[1]!);
  return fields.some((field) => /\brun_shell\b/.test(field));
}

function prefixed(prefix: string, files: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(files ?? {}).map(([k, v]) => [prefix + k, v]));
}

export interface LiveOptions {
  chapter: Chapter;
  scenario: Scenario;
  /** The learner's own prompt instead of the scenario's. */
  prompt?: string;
  model?: string;
  keep: boolean;
}

/** The agent's own "(session saved; continue it with --resume …)" line. */
const RESUME_HINT = /\n?\(session saved; continue it with --resume [^)]*\)\n/;

export async function runLive(o: LiveOptions): Promise<number> {
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (!apiKey) {
    console.error('--live talks to the real API: set ANTHROPIC_API_KEY first (and ANTHROPIC_BASE_URL for a gateway).');
    return 2;
  }
  // A key goes into an HTTP header, which takes visible ASCII only: a key pasted with curly
  // quotes or a line break would fail inside fetch, with a message that may echo the key.
  const bad = [...apiKey].findIndex((ch) => !/^[\x21-\x7e]$/.test(ch));
  if (bad !== -1) {
    console.error(`ANTHROPIC_API_KEY: the character ${JSON.stringify([...apiKey][bad])} at position ${bad + 1} cannot go in an HTTP header (a key pasted with quotes or a line break?)`);
    return 2;
  }
  const baseURL = process.env.ANTHROPIC_BASE_URL || undefined;
  // Refused before anything is laid out: the SDK would say only "Invalid URL", at the first request.
  if (baseURL !== undefined && !isHttpAddress(baseURL)) {
    console.error(`ANTHROPIC_BASE_URL=${baseURL}: not an http:// or https:// address (unset it for the API's own)`);
    return 2;
  }
  const temp = await makeTempDir('subagents-live-');   // removed at exit, even on Ctrl-C
  const wire = watchFetch(baseURL && originOf(baseURL));
  let failed: string | undefined;
  let promptFailed = false;
  try {
    const { home, cwd } = await layOutScenario(temp, o.scenario);
    const { module: mod } = await loadChapterModule(snapshotDir(o.chapter));
    const model = o.model ?? (process.env.ANTHROPIC_MODEL || mod.DEFAULT_MODEL);   // set but empty: as if unset
    // Live, a person answers permission questions (chapter 6 on) when there is a terminal.
    const rl = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
    // While readline holds the terminal, Ctrl-C reaches it as a key, not as a signal, and
    // would only end its input: the run, and its spending, would go on. So it is made the
    // signal it would have been, which stops the run (cleanup.ts: workspace removed, exit 130).
    rl?.on('SIGINT', () => { rl.close(); process.kill(process.pid, 'SIGINT'); });
    // The input's end (Ctrl-D): a question still waiting would otherwise wait for ever.
    let inputEnded = false;
    const ended = rl && new Promise<undefined>((resolve) => rl.once('close', () => { inputEnded = true; resolve(undefined); }));
    let questions: Promise<unknown> = Promise.resolve();   // the one asked last: the next waits for it
    // The question on screen, if any: what the session prints meanwhile goes above it (write-above.ts).
    let asking: string | undefined;
    const write = rl ? writerAbove(rl, () => (inputEnded ? undefined : asking)) : (text: string) => { process.stdout.write(text); };
    console.log(`Live: chapter ${o.chapter.n} in ${cwd}, model ${model}${baseURL ? `, API at ${baseURL}` : ''}`);
    try {
      // From chapter 4, false: a prompt failed, which the agent said in a ✖ line and went on.
      promptFailed = (await mod.runSession(o.prompt !== undefined ? [o.prompt] : o.scenario.prompts, {
        cwd, home, apiKey, baseURL, model,
        env: { ...process.env, ...o.scenario.env }, argv: o.scenario.argv ?? [],
        // The workspace goes when the run ends (unless --keep): the agent's hint to resume
        // a session saved there would point at a folder that no longer exists.
        terminal: { write: (t) => { write(o.keep ? t : t.replace(RESUME_HINT, '\n')); } },
        platform: process.platform,
        // A question the input ends on (Ctrl-D) is refused as one nobody can answer.
        // (readline shows no prompt once the input ended: the question is written here then.)
        ...(rl && {
          // One question at a time: sub-agents at work together (chapter 13 on) may ask at once,
          // and readline's question() drops a second one asked while the first waits.
          // A question whose agent is stopped while it waits (its signal, chapter 15) is
          // withdrawn: unseen if it waits behind another, said so if it is on screen.
          ask: (q: { tool: string; summary?: string; from?: string; signal?: AbortSignal }) => {
            const turn = questions.then(async () => {
              q.signal?.throwIfAborted();
              const prompt = questionLine(q);
              if (inputEnded) process.stdout.write(prompt);
              let withdrawn = false;
              asking = prompt;
              const line = await Promise.race([rl.question(prompt, q.signal ? { signal: q.signal } : {}), ended])
                .catch(() => { withdrawn = q.signal?.aborted === true; return undefined; })
                .finally(() => { asking = undefined; });
              if (withdrawn) {
                process.stdout.write(`\n${WITHDRAWN}\n`);
                q.signal!.throwIfAborted();
              }
              return permissionAnswer(line);
            });
            questions = turn.then(() => undefined, () => undefined);
            return turn;
          },
        }),
      })) === false;
    } catch (err) {
      failed = oneLine(err);
    } finally {
      rl?.close();
    }
  } finally {
    wire.restore();
    // From chapter 4 the agent saves its session in the workspace: say what becomes of it.
    stopProcessesIn(temp);   // a shell command the agent ran may have left something running there
    if (o.keep) { release(temp); console.log(`workspace kept at ${temp}`); }
    else {
      const saved = existsSync(path.join(temp, 'work', o.scenario.cwd ?? '', '.agent', 'sessions'));   // saved where the agent started
      if (o.scenario.git) removeWorktreesOf(path.join(temp, 'work'), temp);   // chapter 16's, wherever they are
      await rm(temp, { recursive: true, force: true });
      release(temp);
      console.log(`(the temporary workspace${saved ? ', saved session included,' : ''} is removed now: add --keep to keep it)`);
    }
  }
  // From chapter 4 the agent says why a prompt failed and goes on; the wire says where.
  const wireFailure = wire.failures().at(-1);
  if (wireFailure) {
    console.error(`live run failed: ${wireFailure.url}: ${wireFailure.cause}`);
    return 1;
  }
  if (failed !== undefined) {
    console.error(`live run failed: ${failed}${baseURL ? ` (API at ${baseURL})` : ''}`);
    return 1;
  }
  // Answered, but not with what the agent could use (a server that is not the Messages API,
  // say): the agent's own ✖ line said what went wrong.
  if (promptFailed) {
    console.error(`live run failed: ${baseURL ?? 'the API'} answered, but a prompt failed (the agent's ✖ line above says why)`);
    return 1;
  }
  return 0;
}
