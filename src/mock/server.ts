// The mock Messages API server: a real node:http server on 127.0.0.1 that speaks
// POST /v1/messages (JSON and SSE) and POST /v1/messages/count_tokens, checks
// requests like the real API, routes each one to a scenario track, answers with
// that track's next turn, simulates prompt caching and logs every exchange.
// It is NOT a model: it never invents an answer; a request the scenario did not
// foresee is a scenario failure, answered with a 400 that names it.

import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { PromptCache, breakpointsOf } from './cache.ts';
import { inProcessFetch, type MockRequest, type MockResponse } from './in-process.ts';
import { messageId, requestId, toolUseId } from './ids.ts';
import { describeRequest, route } from './route.ts';
import { childPath } from './strict-json.ts';
import { emptyTextPlaceholder, fillCalls, lastToolResults } from './fill.ts';
import { flattenRequest, outputTokens, systemText, type CountAs } from './tokens.ts';
import type { ErrorEvent, MockEvent, RequestEvent, ResponseEvent, Scenario, Turn, Usage } from './types.ts';
import { betasOf, unmodelledFields, validateRequest } from './validate.ts';

/** Milliseconds. Tests inject a fake one to move time (TTLs) or freeze it. */
export interface Clock {
  now(): number;
}

export interface MockOptions {
  scenario: Scenario;
  clock?: Clock;
  /** Append every event to this file as one JSON line. */
  logFile?: string;
  /** Keep every event in `events` (default true: a scripted run checks them). The standalone
   *  mock, which serves until stopped, passes false: a long session of large requests would
   *  otherwise hold every body in memory for good. */
  keepEvents?: boolean;
  /** Multiplies each turn's latency_ms (default 1; tests use 0). */
  latencyScale?: number;
  /** Port on 127.0.0.1 (default 0: a free port chosen by the system). */
  port?: number;
  /** Called with each event as it is logged (the CLI prints them live). */
  onEvent?: (event: MockEvent) => void;
  /** Strings the token rule counts as others (see CountAs in tokens.ts): the runner's temp folder. */
  countAs?: CountAs;
}

export interface MockServer {
  url: string;
  /** Answers a request to `url` in this process, without a socket: the same handler, checks
   *  and log as over HTTP (in-process.ts). The runner's scripted runs go this way. */
  fetch: typeof fetch;
  events: MockEvent[];
  /** Scenario problems, one line each (no track, two tracks, out of turns, shared track). */
  failures: string[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
type ContentBlock = ResponseEvent['content'][number];

/** The real error type for each status the scenario may inject. */
export const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** How deep a request body may nest (objects and arrays): far beyond any real request. */
export const MAX_NESTING = 128;

/** Is `value` nested more than `max` levels deep? Walked without recursion, so any depth can be asked about. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Invalid request.',
  401: 'invalid x-api-key',
  404: 'Not found.',
  429: 'Number of requests has exceeded your rate limit. Please try again later.',
  500: 'Internal server error',
  529: 'Overloaded',
};

const realClock: Clock = { now: () => performance.timeOrigin + performance.now() };

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The most bytes a request body may have: the API's errors page gives 32 MB for the Messages
 *  and token counting endpoints (read here as MiB), past which it answers 413 request_too_large. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** The body as text: a socket's bytes decoded once all are in (a character may span two
 *  chunks); a string handed over in process (in-process.ts) as it is. Undefined for a body
 *  over MAX_REQUEST_BYTES, whose bytes are read to the end and let go, never kept. */
function readBody(req: MockRequest): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: (Buffer | string)[] = [];
    let bytes = 0;
    req.on('data', (c: Buffer | string) => {
      bytes += typeof c === 'string' ? Buffer.byteLength(c) : c.length;
      if (bytes <= MAX_REQUEST_BYTES) chunks.push(c);
      else chunks.length = 0;
    });
    req.on('end', () => {
      if (bytes > MAX_REQUEST_BYTES) return resolve(undefined);
      const only = chunks.length === 1 ? chunks[0] : undefined;
      resolve(typeof only === 'string' ? only : Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))).toString('utf8'));
    });
    req.on('error', reject);
  });
}

/** Request headers as the event log keeps them: lower-case names, credentials left out. */
function loggedHeaders(req: MockRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (k === 'x-api-key' || k === 'authorization' || v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Time to first token, on the mock's clock: a response starts this long after its request
 * arrived (a turn's latency_ms, when it has one, is its time to first token instead). The
 * mock never waits for it: its clock simply never shows a time before the start of a
 * response already sent. So two requests that arrive before either response has started
 * both miss the cache, however fast the machine answers, and a request sent once a
 * response has begun arrives after its start and reads what it wrote.
 */
export const TIME_TO_FIRST_TOKEN_MS = 200;
const SETTLE_TURNS = 10;

/** Text split into word-sized chunks (each word keeps its trailing space), at most ~48. */
export function textChunks(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  if (words.length <= 48) return words.length > 0 ? words : [''];
  const per = Math.ceil(words.length / 48);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(''));
  return out;
}

/** Tool input JSON as streamed: an empty first chunk (as the real API often sends),
 *  then the JSON cut into a few pieces. */
export function jsonChunks(json: string): string[] {
  const pieces = Math.min(8, Math.max(2, Math.ceil(json.length / 16)));
  const size = Math.ceil(json.length / pieces);
  const out = [''];
  for (let i = 0; i < json.length; i += size) out.push(json.slice(i, i + size));
  return out;
}

export async function startMock(opts: MockOptions): Promise<MockServer> {
  const scenario = opts.scenario;
  const file = scenario.file;
  const base = opts.clock ?? realClock;
  // Idle time a turn asked for (`idle_ms`) is added here rather than waited out: the
  // mock's clock jumps ahead, so TTLs run out in a test that takes milliseconds. Every
  // time the mock records or compares goes through this clock.
  let idle = 0;
  // The latest start of a response sent so far: whoever saw it can only ask after it.
  let started = -Infinity;
  const clock: Clock = { now: () => Math.max(base.now() + idle, started) };
  const scale = opts.latencyScale ?? 1;
  const events: MockEvent[] = [];
  const failures: string[] = [];
  const cache = new PromptCache();
  const state = new Map<string, { next: number; busy: boolean }>();
  for (const name of Object.keys(scenario.tracks)) state.set(name, { next: 0, busy: false });
  let seq = 0;
  /**
   * Resolves once the event loop has gone round SETTLE_TURNS times without a new request
   * (the SDK needs a few turns between two requests it was asked for at once). Shared:
   * every answer waiting meanwhile resumes at the same moment, in the order it began to
   * wait, so concurrent requests are answered in the order they arrived.
   */
  let settling: Promise<void> | undefined;
  const settle = (): Promise<void> => settling ??= (async () => {
    let quiet = 0;
    let last = seq;
    for (let i = 0; quiet < SETTLE_TURNS && i < 20 * SETTLE_TURNS; i++) {
      await new Promise<void>((r) => { setImmediate(r); });
      quiet = seq === last ? quiet + 1 : 0;
      last = seq;
    }
    settling = undefined;
  })();
  // The query and headers of each request, by seq, for its request event.
  const wire = new Map<number, { query: string; headers: Record<string, string> }>();

  const log = (ev: MockEvent): void => {
    if (opts.keepEvents !== false) events.push(ev);
    opts.onEvent?.(ev);
    if (opts.logFile) appendFileSync(opts.logFile, JSON.stringify(ev) + '\n');
  };

  const sendError = (
    res: MockResponse, rid: string, status: number, type: string, message: string, headers: Record<string, string> = {},
  ): void => {
    if (res.headersSent) return;
    const body = JSON.stringify({ type: 'error', error: { type, message }, request_id: rid });
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': rid, ...headers });
    res.end(body);
  };

  const requestEvent = (
    s: number, time: number, path: string, body: Json, track: string | null, turn: number | null,
  ): RequestEvent => {
    const breakpoints = breakpointsOf(flattenRequest(body, opts.countAs));
    const w = wire.get(s);
    const unmodelled = unmodelledFields(body);
    return {
      type: 'request', seq: s, time, path,
      ...(w?.query && { query: w.query }),
      ...(w && { headers: w.headers }),
      ...(unmodelled.length > 0 && { unmodelled }),
      track, turn,
      stream: body.stream === true,
      model: typeof body.model === 'string' ? body.model : '',
      body,
      system_text: systemText(body.system),
      tool_names: Array.isArray(body.tools) ? body.tools.map((t) => (isObj(t) ? String(t.name) : '')) : [],
      breakpoints,
    };
  };

  const errorEvent = (
    s: number, track: string | null, turn: number | null, status: number, type: string, message: string,
    injected: boolean, midStream: boolean,
  ): ErrorEvent => ({
    type: 'error', seq: s, time: clock.now(), track, turn, status, error_type: type, message, injected, mid_stream: midStream,
  });

  /** Rejects a request that broke an API rule or that the scenario cannot answer. */
  const reject = (
    res: MockResponse, s: number, rid: string, track: string | null, turn: number | null, status: number, type: string, message: string,
  ): void => {
    log(errorEvent(s, track, turn, status, type, message, false, false));
    sendError(res, rid, status, type, message);
  };

  const scenarioFailure = (
    res: MockResponse, s: number, rid: string, arrival: number, path: string, body: Json, track: string | null, line: string,
  ): void => {
    failures.push(line);
    log(requestEvent(s, arrival, path, body, track, null));
    reject(res, s, rid, track, null, 400, 'invalid_request_error', `[mock] ${line}`);
  };

  /** The assistant content of a turn for this request. */
  const buildContent = (turn: Turn, body: Json, track: string, turnIdx: number): ContentBlock[] => {
    const content: ContentBlock[] = [];
    if (turn.text !== undefined && turn.text !== '') {
      let text = turn.text;
      if (text.includes('{{tool_result}}')) text = text.split('{{tool_result}}').join(lastToolResults(body));
      content.push({ type: 'text', text });
    }
    (turn.tool_calls ?? []).forEach((c, i) => {
      const id = toolUseId(file, track, turnIdx, i);
      content.push({ type: 'tool_use', id, name: c.name, input: c.input });
    });
    return content;
  };

  const answer = async (
    res: MockResponse, s: number, rid: string, arrival: number, body: Json, track: string, turnIdx: number, turn: Turn,
  ): Promise<void> => {
    const wait = (turn.latency_ms ?? 0) * scale;
    let waited = 0;
    if (wait > 0) {
      const before = performance.now();
      await sleep(wait);
      waited = Math.round(performance.now() - before);
    } else {
      // Requests already on their way (sent together with this one) arrive first: their
      // arrival must be stamped before this response's start moves the clock.
      await settle();
    }
    // The request has arrived (its arrival time decided what it reads), and now the
    // scripted idle time passes before the response starts. Entries written by this
    // request take their TTL from its arrival, so a gap longer than the TTL means that
    // every request from here on finds them expired.
    if (turn.idle_ms) idle += turn.idle_ms;
    const ttft = Math.max(1, turn.latency_ms ?? TIME_TO_FIRST_TOKEN_MS);
    const start = Math.max(clock.now(), arrival + (turn.idle_ms ?? 0) + ttft);
    started = Math.max(started, start);
    const stream = body.stream === true;
    const model = String(body.model);
    const err = turn.error;
    if (err && !(err.mid_stream && stream)) {
      // Failed before the response started: nothing is written to the cache.
      const type = err.type ?? ERROR_TYPES[err.status] ?? 'api_error';
      const message = err.message ?? DEFAULT_MESSAGES[err.status] ?? 'Error';
      const headers: Record<string, string> = {};
      const retryAfter = err.retry_after ?? (err.status === 429 ? 0 : undefined);
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      log({ ...errorEvent(s, track, turnIdx, err.status, type, message, true, false), waited_ms: waited });
      sendError(res, rid, err.status, type, message, headers);
      return;
    }

    const content = buildContent(turn, body, track, turnIdx);
    const outcome = cache.apply(model, flattenRequest(body, opts.countAs), arrival, start, true, turn.cache_ttl);
    const usage: Usage = { ...outcome.usage, output_tokens: turn.usage?.output_tokens ?? outputTokens(content, opts.countAs) };
    const stopReason = turn.stop_reason ?? (turn.tool_calls && turn.tool_calls.length > 0 ? 'tool_use' : 'end_turn');
    const id = messageId(file, track, turnIdx);

    if (!stream) {
      const message = {
        id, type: 'message', role: 'assistant', model, content,
        stop_reason: stopReason, stop_sequence: null, stop_details: null, usage,
      };
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': rid });
      res.end(JSON.stringify(message));
      log({ type: 'response', seq: s, time: clock.now(), track, turn: turnIdx, content, stop_reason: stopReason, usage, deltas: 0, started: start, waited_ms: waited });
      return;
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': rid,
    });
    const send = (event: string, data: unknown): void => {
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    let deltas = 0;
    send('message_start', {
      type: 'message_start',
      message: {
        id, type: 'message', role: 'assistant', model, content: [],
        stop_reason: null, stop_sequence: null, stop_details: null,
        usage: { ...outcome.usage, output_tokens: 1 },
      },
    });
    send('ping', { type: 'ping' });
    const midStream = err?.mid_stream === true;
    for (const [index, block] of content.entries()) {
      const chunks = block.type === 'text' ? textChunks(block.text) : jsonChunks(JSON.stringify(block.input));
      send('content_block_start', {
        type: 'content_block_start', index,
        content_block: block.type === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      // A mid-stream failure cuts the first block after its first delta.
      const upto = midStream ? Math.min(1, chunks.length) : chunks.length;
      for (const chunk of chunks.slice(0, upto)) {
        send('content_block_delta', {
          type: 'content_block_delta', index,
          delta: block.type === 'text' ? { type: 'text_delta', text: chunk } : { type: 'input_json_delta', partial_json: chunk },
        });
        deltas++;
      }
      if (midStream) break;
      send('content_block_stop', { type: 'content_block_stop', index });
      if (index < content.length - 1) send('ping', { type: 'ping' });
    }
    if (midStream && err) {
      const type = err.type ?? ERROR_TYPES[err.status] ?? 'api_error';
      const message = err.message ?? DEFAULT_MESSAGES[err.status] ?? 'Error';
      send('error', { type: 'error', error: { type, message }, request_id: rid });
      res.end();
      log({ ...errorEvent(s, track, turnIdx, err.status, type, message, true, true), waited_ms: waited });
      return;
    }
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null, stop_details: null },
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
      },
    });
    send('message_stop', { type: 'message_stop' });
    res.end();
    log({ type: 'response', seq: s, time: clock.now(), track, turn: turnIdx, content, stop_reason: stopReason, usage, deltas, started: start, waited_ms: waited });
  };

  const handle = async (req: MockRequest, res: MockResponse): Promise<void> => {
    const s = ++seq;
    const arrival = clock.now();
    const rid = requestId(file, s);
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    wire.set(s, { query: url.search.replace(/^\?/, ''), headers: loggedHeaders(req) });
    if (raw === undefined) {
      // Refused at the door, before anything else is looked at, as the API's front does.
      log(requestEvent(s, arrival, path, {}, null, null));
      reject(res, s, rid, null, null, 413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
      return;
    }
    let body: Json = {};
    let parsed = false;
    try {
      const v: unknown = JSON.parse(raw);
      if (isObj(v)) {
        body = v;
        parsed = true;
      }
    } catch {
      // reported below, after the checks that do not need a body
    }

    const isMessages = path === '/v1/messages';
    const isCount = path === '/v1/messages/count_tokens';
    if (req.method !== 'POST' || (!isMessages && !isCount)) {
      log(requestEvent(s, arrival, path, body, null, null));
      reject(res, s, rid, null, null, 404, 'not_found_error', 'Not Found');
      return;
    }
    // Credentials: `x-api-key`, or `Authorization: Bearer <key>` (how SDK 1.x sends an
    // apiKey). Any non-empty key is accepted; only a missing one is refused.
    const key = req.headers['x-api-key'];
    const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
    if ((typeof key !== 'string' || key.trim() === '') && !bearer) {
      log(requestEvent(s, arrival, path, body, null, null));
      reject(res, s, rid, null, null, 401, 'authentication_error', 'x-api-key header is required');
      return;
    }
    if (!req.headers['anthropic-version']) {
      log(requestEvent(s, arrival, path, body, null, null));
      reject(res, s, rid, null, null, 400, 'invalid_request_error', 'anthropic-version: header is required');
      return;
    }
    if (!parsed) {
      log(requestEvent(s, arrival, path, body, null, null));
      reject(res, s, rid, null, null, 400, 'invalid_request_error', 'There was an issue with the format of your request: the body is not a JSON object');
      return;
    }
    // Every check below walks the body by recursion (as does the log): a body nested many
    // thousands of levels deep would overflow the stack and take a turn with it.
    if (nestedDeeperThan(body, MAX_NESTING)) {
      log(requestEvent(s, arrival, path, {}, null, null));
      reject(res, s, rid, null, null, 400, 'invalid_request_error', `There was an issue with the format of your request: the body is nested more than ${MAX_NESTING} levels deep`);
      return;
    }
    const problem = validateRequest(body, { countTokens: isCount, betas: betasOf(req.headers['anthropic-beta']) });
    if (problem) {
      log(requestEvent(s, arrival, path, body, null, null));
      reject(res, s, rid, null, null, problem.status, problem.type, problem.message);
      return;
    }

    if (isCount) {
      // Counted, never routed, never cached: no turn is used.
      const total = flattenRequest(body, opts.countAs).reduce((n, b) => n + b.tokens, 0);
      log(requestEvent(s, arrival, path, body, null, null));
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': rid });
      res.end(JSON.stringify({ input_tokens: total }));
      log({
        type: 'response', seq: s, time: clock.now(), track: null, turn: null, content: [], stop_reason: 'count_tokens',
        usage: {
          input_tokens: total, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        },
        deltas: 0,
      });
      return;
    }

    const routed = route(scenario, body);
    if ('problem' in routed) {
      scenarioFailure(res, s, rid, arrival, path, body, null, `${file}: ${routed.problem}`);
      return;
    }
    const name = routed.track;
    const track = scenario.tracks[name]!;
    const st = state.get(name)!;
    if (st.next >= track.turns.length) {
      scenarioFailure(res, s, rid, arrival, path, body, name,
        `${file}: track "${name}" is out of turns: it has ${track.turns.length} and this is request ${st.next + 1} (${describeRequest(body)})`);
      return;
    }
    if (st.busy) {
      scenarioFailure(res, s, rid, arrival, path, body, name,
        `${file}: ${childPath(childPath('$.tracks', name), 'turns')}[${st.next}]: a request arrived while the track's previous request was still being answered; two conversations share one track (${describeRequest(body)}); give each its own track with a match`);
      return;
    }
    const turnIdx = st.next;
    const turn = track.turns[turnIdx]!;
    // A real model only calls tools it was offered; a script that does otherwise is
    // wrong unless the turn says so on purpose. Such a request is refused without using
    // up the turn: a client that retries with the tools gets the scripted answer.
    const offered = Array.isArray(body.tools) ? body.tools.map((t) => (isObj(t) ? String(t.name) : '')) : [];
    const unoffered = (turn.tool_calls ?? []).map((c) => c.name).filter((n) => !offered.includes(n));
    if (unoffered.length > 0 && !turn.allow_unoffered && !(turn.error && !turn.error.mid_stream)) {
      failures.push(`${file}: ${childPath(childPath('$.tracks', name), 'turns')}[${turnIdx}]: calls ${unoffered.map((n) => `"${n}"`).join(', ')} but the request offers only [${offered.join(', ')}] (set "allow_unoffered": true if that is the point)`);
      log(requestEvent(s, arrival, path, body, name, turnIdx));
      reject(res, s, rid, name, turnIdx, 400, 'invalid_request_error', `[mock] ${failures[failures.length - 1]}`);
      return;
    }
    // A call whose input takes a value from the request (an id the client made up): filled
    // in now, or, when the request has no such value, refused like an unoffered call.
    // (A turn answered with an error, not mid-stream, sends no text: nothing to fill.)
    const sendsText = !(turn.error && !turn.error.mid_stream);
    const filled = (sendsText ? emptyTextPlaceholder(turn, body) : undefined) ?? fillCalls(turn, body);
    if (typeof filled === 'string') {
      failures.push(`${file}: ${childPath(childPath('$.tracks', name), 'turns')}[${turnIdx}]: ${filled} (${describeRequest(body)})`);
      log(requestEvent(s, arrival, path, body, name, turnIdx));
      reject(res, s, rid, name, turnIdx, 400, 'invalid_request_error', `[mock] ${failures[failures.length - 1]}`);
      return;
    }
    st.next++;
    st.busy = true;
    log(requestEvent(s, arrival, path, body, name, turnIdx));
    try {
      await answer(res, s, rid, arrival, body, name, turnIdx, filled);
    } finally {
      st.busy = false;
    }
  };

  // One entry for both ways in: the HTTP server, and fetch in this process.
  const serve = (req: MockRequest, res: MockResponse): void => {
    handle(req, res).catch((e: unknown) => {
      // A client that hung up in the middle of its body: there is nobody to answer, and
      // nothing went wrong in the scenario or in the mock.
      if ((e as NodeJS.ErrnoException | null)?.code === 'ECONNRESET' || (e instanceof Error && e.message === 'aborted')) return;
      const line = `${file}: mock internal error: ${e instanceof Error ? e.message : String(e)}`;
      failures.push(line);
      if (!res.headersSent) sendError(res, 'req_mock_internal', 500, 'api_error', `[mock] ${line}`, { 'x-should-retry': 'false' });
      else res.end();
    });
  };
  const server = createServer(serve);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    fetch: inProcessFetch(serve),
    events,
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
