// `npm run mock -- scenario.json` (node steps/run.mjs mock scenario.json): run the mock on
// its own so a learner can point curl, a script or their own agent at it and watch every
// exchange. A thin shell around startMock; it is NOT how chapters are run. The runner's
// command line hands `mock` over to it, so it starts as quickly as a chapter does.

import chalk from 'chalk';
import { closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseCommandLine } from '../command-line.ts';
import { loadScenario, ScenarioError, startMock } from './index.ts';
import { curlExample } from './example.ts';
import type { MockEvent } from './types.ts';

const HELP = `Usage: npm run mock -- SCENARIO.json [--port N] [--log FILE.jsonl]

Starts the local Messages API mock for one scenario and prints each request and
answer on one line. Point any client at the printed URL (any non-empty API key).
Stop with Ctrl-C: it lists the scenario failures it saw, then exits (130, as any
command of steps/run.mjs that Ctrl-C ends).

  --port N     listen on 127.0.0.1:N (default: a free port)
  --log FILE   also append every event to FILE as JSON lines
  --help       this text`;

function cut(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

/** The last user message, in short. A request is shown before it is judged, so any JSON may come here: what is not a message or a block is passed over. */
function lastUser(body: Record<string, unknown>): string {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (!isObj(m) || m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const parts = m.content.filter(isObj).map((b) =>
        b.type === 'text' ? String(b.text ?? '') : b.type === 'tool_result' ? `[tool_result ${typeof b.content === 'string' ? b.content : '…'}]` : `[${String(b.type)}]`);
      return parts.join(' ');
    }
  }
  return '';
}

/** One line per event. */
export function formatEvent(ev: MockEvent): string {
  const who = ev.track === null ? chalk.red('(no track)') : chalk.cyan(ev.turn === null ? ev.track : `${ev.track}#${ev.turn}`);
  const seq = chalk.dim(`[${ev.seq}]`);
  if (ev.type === 'request') {
    const kind = ev.path.endsWith('count_tokens') ? 'count_tokens' : ev.stream ? 'stream' : 'json';
    return `${seq} → ${who} ${kind} ${chalk.dim(ev.model)} "${cut(lastUser(ev.body))}"`;
  }
  if (ev.type === 'response') {
    const parts = ev.content.map((b) => (b.type === 'text' ? `"${cut(b.text, 40)}"` : `${b.name}(${cut(JSON.stringify(b.input), 40)})`));
    const u = ev.usage;
    const usage = `in=${u.input_tokens} read=${u.cache_read_input_tokens} write=${u.cache_creation_input_tokens} out=${u.output_tokens}`;
    return `${seq} ← ${who} ${chalk.green(ev.stop_reason)} ${parts.join(' ')} ${chalk.dim(usage)}${ev.deltas ? chalk.dim(` deltas=${ev.deltas}`) : ''}`;
  }
  const tag = ev.injected ? 'injected' : 'rejected';
  return `${seq} ✗ ${who} ${chalk.red(`${ev.status} ${ev.error_type}`)} (${tag}${ev.mid_stream ? ', mid-stream' : ''}) ${cut(ev.message, 160)}`;
}

/**
 * Why the mock could not append its log to `file`, before it starts: otherwise the first
 * request would fail with the error instead of an answer. The file is really opened for
 * appending (asking for permission would not do: root is granted everything, yet cannot
 * write in /sys), and one that this made is removed again. Undefined when it can be written.
 */
function whyNotWritable(file: string): string | undefined {
  const dir = path.dirname(path.resolve(file));
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a folder`;
  } catch {
    return `no such folder ${dir}`;
  }
  const existed = existsSync(file);
  if (existed && statSync(file).isDirectory()) return 'a folder, not a file';
  // A named pipe would hold the open below until something read it, Ctrl-C included.
  if (existed && !statSync(file).isFile()) return 'not a regular file (a pipe, a device)';
  try {
    closeSync(openSync(file, 'a'));
  } catch {
    return existed ? 'cannot be written' : `cannot make a file in ${dir}`;
  }
  if (!existed) rmSync(file, { force: true });
  return undefined;
}

/** Whether `a` and `b` are one file (a link, or another spelling of the path, included). */
function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;   // one of them is not there yet: not the same file
  }
}

/**
 * Serves the scenario until the process is stopped. `onStop` registers what to do then:
 * close the mock and list the failures it saw (the runner's exit handlers run it on
 * Ctrl-C, then end the process). Resolves only for a usage error or --help: 2 or 0.
 */
export async function runMock(argv: string[], onStop: (fn: () => Promise<void>) => void): Promise<number> {
  const { args, problem } = parseCommandLine(argv, { string: ['log', 'port'], boolean: ['help'], alias: { h: 'help' } });
  if (problem !== undefined) {
    console.error(`${problem} (see mock --help)`);
    return 2;
  }
  if (args.help) {
    console.log(HELP);
    return 0;
  }
  if (args._.length === 0) {
    console.error('mock needs a scenario file: npm run mock -- SCENARIO.json (see mock --help)');
    return 2;
  }
  if (args._.length > 1) {
    console.error(`one scenario at a time (got ${args._.join(' ')})`);
    return 2;
  }
  const file = String(args._[0]);
  let port: number | undefined;
  if (args.port !== undefined) {
    if (args.port === '') {
      console.error('--port needs a value');
      return 2;
    }
    // Digits only: Number() would read "" as 0 (a free port) and 0x50 as 80.
    port = Number(args.port);
    if (!/^\d+$/.test(args.port) || port > 65535) {
      console.error(`--port: expected a port number, got "${args.port}"`);
      return 2;
    }
  }
  if (args.log !== undefined) {
    // The scenario itself would be appended to, and no longer load.
    const same = args.log !== '' && sameFile(args.log, file);
    const problem = args.log === '' ? 'needs a value' : same ? 'is the scenario being served: the log would be appended to it' : whyNotWritable(args.log);
    if (problem) {
      console.error(`--log${args.log === '' ? '' : ` ${args.log}:`} ${problem}`);
      return 2;
    }
  }
  let scenario;
  try {
    scenario = await loadScenario(file);
  } catch (e) {
    if (e instanceof ScenarioError) {
      console.error(e.message.split(process.cwd() + path.sep).join(''));   // relative, as the docs show
      return 2;
    }
    throw e;
  }
  let mock;
  try {
    mock = await startMock({
      scenario,
      port,
      logFile: typeof args.log === 'string' ? args.log : undefined,
      keepEvents: false,   // each is printed (and logged) as it happens, then let go
      onEvent: (ev) => console.log(formatEvent(ev)),
    });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE') console.error(`port ${port} is in use; pass --port 0 for a free one`);
    else if (code === 'EACCES') console.error(`port ${port} needs privileges; pass --port 0 for a free one`);
    else console.error(`cannot start the mock: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  console.log(chalk.bold(`mock for ${scenario.file} listening on ${mock.url}`));
  console.log(`tracks: ${Object.keys(scenario.tracks).map((t) => `${t} (${scenario.tracks[t]!.turns.length} turns)`).join(', ')}`);
  console.log(`try (answered by ${'main' in scenario.tracks ? 'main' : Object.keys(scenario.tracks)[0]}'s first turn):`);
  for (const line of curlExample(scenario, mock.url)) console.log(`  ${line}`);
  console.log(chalk.dim('Ctrl-C to stop.'));

  onStop(async () => {
    await mock.close();
    if (mock.failures.length > 0) {
      console.log(chalk.red(`${mock.failures.length} scenario failure(s):`));
      for (const f of mock.failures) console.log(`  ${f}`);
    }
  });
  return new Promise<number>(() => {});   // serves until the process is stopped
}
