// The shapes shared by the mock, the runner and the tests: a scenario as it is
// written in JSON, and the events the mock logs. Types only; no behaviour here.
// scenarios/README.md documents the same format for people who write scenarios,
// and src/mock/scenario.schema.json for their editors. Keep the three in step.

/** A scenario file: one script that drives the demo, the tests and the doc transcript. */
export interface Scenario {
  /** Where the scenario came from (set by the loader, not written in JSON). */
  file: string;
  /** Editors' schema pointer; ignored. */
  $schema?: string;
  title: string;
  description?: string;
  /** Model id the agent is told to use for this run (default: the project's default model). */
  model?: string;
  /** Workspace files to create before the run: relative path → content. */
  files?: Record<string, string>;
  /** Files in the fake home folder (user-level CLAUDE.md, .claude/agents/…). */
  home_files?: Record<string, string>;
  /** Symbolic links to make in the workspace before the run: relative path → the link's target,
   *  as `ln -s` takes it, relative to the link's folder (the home folder lies beside the
   *  workspace: `../home/…` from its top). With "git": true they are in the first commit. */
  links?: Record<string, string>;
  /** Named pipes to make in the workspace (mkfifo), by relative path: where a program may look
   *  for a file, a plain read of one would wait for a writer for ever. Not with "git". */
  pipes?: string[];
  /** Environment variables the agent sees (e.g. CLAUDE_CODE_FORK_SUBAGENT). */
  env?: Record<string, string>;
  /** Command-line flags given to the agent (chapter 4 on). */
  argv?: string[];
  /** The workspace is a git repository on branch main with the files as its first commit
   *  (chapters 3 and 16); "detached": the same, with HEAD detached at that commit (chapter 3). */
  git?: boolean | 'detached';
  /** The folder of the workspace the agent starts in (its cwd), relative; default the workspace itself. */
  cwd?: string;
  /** What the user types, in order, in one session. */
  prompts: string[];
  /** Scripted answers to permission prompts (chapter 6 on), consumed in order. */
  answers?: PermissionAnswer[];
  /** Nobody is there to answer permission prompts: the agent is given no way to ask (as from a script or a pipe). */
  unattended?: boolean;
  /** The scripted conversations, by name. `main` is the user's own agent. */
  tracks: Record<string, Track>;
  /** What must be true after the run, checked from the event log and the workspace. */
  expect?: Expectation[];
}

export interface PermissionAnswer {
  /** Tool the prompt is about (checked: a prompt for another tool is a scenario failure). */
  tool: string;
  /** true: allow; false: deny; null: no answer came (the input ended at the question: Ctrl-D). */
  allow: boolean | null;
  /** Text the question must show the person (the command, the plan): a person answers what they see. */
  shows?: string;
  /** Real milliseconds the person takes to answer (not skipped by --no-latency: no model's time). */
  after_ms?: number;
  /** A tool: the person answers only once a question for it has been asked too (another agent's,
   *  waiting behind this one), after_ms counted from then. Two agents' questions then come in the
   *  scenario's order however long the other agent takes to ask, instead of racing a timer. */
  after_asked?: string;
  /** true: the person answers only once the agent that asks has been stopped (chapter 15: the
   *  question carries its signal), after_ms counted from then: a yes that comes too late,
   *  whenever the stop comes, on a terminal that cannot take a question back. */
  after_stopped?: boolean;
  /** Text the question must name as who asks (a sub-agent: its type and task), chapter 11 on. */
  asker?: string;
  /** true: the person's terminal takes a question back, as bin.ts, --repl and --live do, and the
   *  agent that asks is stopped before this answer comes (after_ms), so the question must be
   *  withdrawn by then (chapter 15); one still waiting when the answer comes is a failure.
   *  Without it, the answer comes after after_ms whatever happened meanwhile. */
  withdrawn?: boolean;
}

/** One scripted conversation: which requests it answers, and its turns in order. */
export interface Track {
  description?: string;
  /** Content rule that routes a request here. Omitted only on `main`, the fallback. */
  match?: Match;
  turns: Turn[];
}

/**
 * All given conditions must hold. Each is a substring test.
 * - system: the request's system prompt (string, or the text blocks joined with "\n")
 * - user: any text written by the user side: string content or `text` blocks of
 *   user messages (never tool_result content, never assistant text)
 * - first_user: the text of the first user message only
 * - not_user: no user text contains this (lets `main` stay clear of fork children)
 */
export interface Match {
  system?: string;
  user?: string;
  first_user?: string;
  not_user?: string;
}

/** What the model "says" on one request. */
export interface Turn {
  /** Assistant text. `{{tool_result}}` is replaced by the text of the tool_result
   *  blocks in the request's last user message (joined with "\n"); a request whose last
   *  user message has none is a scenario failure (fill.ts). */
  text?: string;
  /** Tool calls, in order, after the text. Ids are generated deterministically. */
  tool_calls?: { name: string; input: Record<string, unknown> }[];
  /** Default: "tool_use" if there are tool calls, else "end_turn". */
  stop_reason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';
  /** Override the counted output tokens (input-side usage is always computed). */
  usage?: { output_tokens?: number };
  /** Wait this long (real milliseconds) before the response starts. */
  latency_ms?: number;
  /** Let this many milliseconds pass on the mock's clock (never really waited) after the
   *  request arrived and before its response starts: the user walked away. The request
   *  itself reads and writes the cache as of its arrival; every later request arrives at
   *  least this much later, so a gap beyond a TTL expires what was cached before it. */
  idle_ms?: number;
  /** The TTL this request's cache writes get, and are reported with (usage.cache_creation),
   *  whatever TTL its markers ask for: what a client sees when something between it and the API
   *  rewrites its breakpoints (a gateway that gives every one the hour). Default: each marker's own. */
  cache_ttl?: '5m' | '1h';
  /** Answer with an API error instead. The turn is consumed, so a retry gets the next turn. */
  error?: InjectedError;
  /** A real model only calls tools the request offers, so the mock refuses to script a call
   *  to a tool the request did not offer (a scenario failure) unless this is true: for
   *  scenarios that test what an agent does when a confused model calls one anyway. */
  allow_unoffered?: boolean;
}

export interface InjectedError {
  status: 400 | 401 | 404 | 429 | 500 | 529;
  /** Default: the real type for the status (invalid_request_error, …, overloaded_error). */
  type?: string;
  message?: string;
  /** Seconds, sent as the retry-after header (429/529). */
  retry_after?: number;
  /** Streaming only: send message_start and part of the content, then an `error` event. */
  mid_stream?: boolean;
}

/**
 * An expectation: `name` says the behaviour in words (it is what `--check` prints when
 * it fails); exactly one of the checks below is given. Checks read the mock's event
 * log (what the agent really sent and received) and the workspace, never the script.
 */
export type Expectation = { name: string; hint?: string } & ExpectationCheck;

export type ExpectationCheck =
  /** The tool_result that `track` sent back for its call of `tool` (the first one, or
   *  call number `call`, 1-based) contains `includes` / does not / is_error as given.
   *  `includes_file`: contains the workspace file's setup content. `includes_track_text`:
   *  contains the final text that the named track's last response carried. */
  | { tool_result: { track: string; tool: string; call?: number; includes?: string; includes_file?: string;
      includes_track_text?: string; excludes?: string; is_error?: boolean } }
  /** A file in the workspace after the run. */
  | { file: { path: string; equals?: string; includes?: string; exists?: boolean } }
  /** How many requests a track got (exact, or at least/at most); how many of them a count_tokens request measured. */
  | { requests: { track: string; count?: number; min?: number; max?: number; counted?: number } }
  /** The tool names offered in every request of a track. */
  | { tools: { track: string; include?: string[]; exclude?: string[]; exactly?: string[] } }
  /** Every request of a track had a system prompt that includes / excludes text, or carries the
   *  `in_order` texts each after the one before it. */
  | { system: { track: string; includes?: string; excludes?: string; in_order?: string[] } }
  /** Every request of a track (at least two) sent byte-identical system text: rendered once, reused. */
  | { system_stable: { track: string; also?: string } }
  /** No request was routed to this track (e.g. a nested sub-agent that must not start). */
  | { never: { track: string } }
  /** The requests of a track asked for streaming and were answered with ≥ min_deltas deltas. */
  | { streamed: { track: string; min_deltas?: number } }
  /** Usage of request number `request` (1-based) of a track. */
  | { usage: { track: string; request: number; cache_read_min?: number; cache_read_max?: number;
      cache_write_min?: number; cache_write_max?: number; cache_write_1h_min?: number; cache_write_1h_max?: number } }
  /** Where the cache_control markers of a track's requests sit (every request; with `request`, that
   *  one, 1-based): on exactly the blocks `at` names, and on no other. A place is named as the event
   *  log names a breakpoint (`tools[5]`, `system[0]`, `messages[2].content[0]`, `messages[0].content`
   *  for a string content marked by a top-level cache_control), any index `last`: the last of its
   *  list in that request. `at: []`: no marker at all. */
  | { breakpoints: { track: string; request?: number; at: string[] } }
  /** The terminal output of the agent includes / excludes text. */
  | { terminal: { includes?: string; excludes?: string; usage_of?: string } }
  /** Every request of a track asked for this model. */
  | { model: { track: string; equals: string } }
  /** A track's first request started a fresh context: exactly `messages` messages. */
  | { fresh_context: { track: string; messages?: number } }
  /** No request of `track` carries any tool call that `from` made: its work stayed out of track's context. */
  | { isolated: { track: string; from: string } }
  /** The messages of request number `request` (1-based) of a track: exactly `messages` of them / at
   *  most `max`; their text (prompts, assistant text, tool calls and results) contains the final
   *  text of another track / a workspace file's setup content, or lacks a file's content; contains /
   *  lacks a text; carries the `in_order` texts each after the one before it; `last_user_blocks`:
   *  its last user message is exactly that many blocks, each a text block starting with its text. */
  | { history: { track: string; request: number; messages?: number; max?: number; includes_track_text?: string;
      includes_file?: string; excludes_file?: string; includes?: string; excludes?: string; in_order?: string[];
      last_user_blocks?: string[] } }
  /** The agent's final `ledger:` line (chapter 8 on) equals the sum of the usage the mock
   *  reported to the listed tracks (default: every track). `cost: true`: the `cost:` line
   *  after it also equals that usage at the documented prices (uncached input ×1, 5-minute
   *  cache write ×1.25, 1-hour write ×2, cache read ×0.1), in input-token equivalents. */
  | { ledger: { tracks?: string[]; cost?: boolean } }
  /** Fork children (chapter 12): the first request of each track carries `from`'s exact
   *  system prompt and tools, `from`'s messages and the assistant message that made the
   *  calls, then one user message with a tool_result for every tool_use of it (first) and the
   *  child's own text (last). The tracks' first requests differ only in that last block.
   *  `cached`: every track after the first read exactly that shared prefix from the cache.
   *  `own` (Claude Code 2.1.328's layout, chapter 15): instead of the whole assistant message, each
   *  child carries only its own tool_use, then its own placeholder result and its text; siblings
   *  share `from`'s request (its history) and part at their own tool_use; `cached`: every track,
   *  the first too, read exactly that history from the cache. */
  | { fork_prefix: { tracks: string[]; from: string; cached?: boolean; own?: boolean } }
  /** The agent's `fork cost:` table: one row per track, in order, whose uncached / cache
   *  write / cache read columns equal the usage the mock reported to the track, and whose
   *  two cost columns (popular: write ×1, read ×0.1; documented: 5m write ×1.25, 1h ×2,
   *  read ×0.1) follow from it. `input_each` / `input_total`: every track's input tokens
   *  (uncached + cache write + cache read, from the mock's usage) equal `input_each`, and
   *  all the tracks' together equal `input_total`. */
  | { fork_costs: { tracks: string[]; input_each?: number; input_total?: number } }
  /** The tracks ran at the same time (chapter 13): by the mock's clock (first request to last
   *  answer), each track, taken in order of its start, started before the tracks started
   *  earlier had all finished. Run one after another, each would start after the last ended. */
  | { concurrent: { tracks: string[] } }
  /** Request number `request` (1-based) of `track` arrived, by the mock's clock, before `other`
   *  had finished (its last answer): the track did not wait for it (chapter 15). */
  | { while_running: { track: string; request: number; other: string } }
  /** A background agent's notification (chapter 15): the first request of `track` that carries a
   *  <task-notification> for its call number `call` (default 1) of `tool` carries it in a user
   *  message of its own (no tool_result in it), after the call's own tool_result, with this
   *  status. `from`: it carries that track's final text, which no earlier request of `track`
   *  (nor the call's own tool_result) carried. `includes` / `includes_file`: it carries that
   *  text / the file's setup content, likewise never seen before. `usage`: its usage line
   *  equals what the mock reported to `from` (and the `usage_with` tracks: its own sub-agents)
   *  between the call and the notification. */
  | { notification: { track: string; tool: string; call?: number; status: string; from?: string; includes?: string;
      includes_file?: string; usage?: boolean; usage_with?: string[] } }
  /** The workspace repository's branch `name` exists (`exists: false`: does not); with `path`, the
   *  branch's last commit has that file, and it includes / lacks the text. Needs `"git": true`. */
  | { branch: { name: string; exists?: boolean; path?: string; includes?: string; excludes?: string } }
  /** The workspace repository's linked worktrees after the run (its own folder not counted):
   *  exactly `count` of them; `branches`: exactly these branches checked out in them. Needs `"git": true`. */
  | { worktrees: { count?: number; branches?: string[]; outside?: boolean } };

// ---------------------------------------------------------------------------
// The event log. One JSON object per line when written to a file.

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface Breakpoint {
  /** Where the cache_control sits, e.g. "tools[3]", "system[0]", "messages[4].content[1]". */
  where: string;
  /** Index in the flattened prefix (tools, then system blocks, then message blocks). */
  position: number;
  ttl: '5m' | '1h';
  /** Tokens of the prefix up to and including this block. */
  prefix_tokens: number;
}

export type MockEvent = RequestEvent | ResponseEvent | ErrorEvent;

export interface RequestEvent {
  type: 'request';
  seq: number;          // 1, 2, 3 … in arrival order
  time: number;         // the mock clock, ms
  path: string;         // "/v1/messages" or "/v1/messages/count_tokens"
  /** The query string as received, without '?' ("beta=true" from a real Claude Code); absent when empty. */
  query?: string;
  /** Request headers as received, lower-case names, x-api-key and authorization left out. */
  headers?: Record<string, string>;
  /** Fields of the request the mock accepted without simulating them (validate.ts,
   *  unmodelledFields): names without indices, sorted; absent when there are none. */
  unmodelled?: string[];
  track: string | null; // null when routing failed (see failures)
  turn: number | null;  // 0-based index into the track's turns
  stream: boolean;
  model: string;
  body: Record<string, unknown>;  // the JSON body exactly as received
  system_text: string;            // the system prompt as one string
  tool_names: string[];
  breakpoints: Breakpoint[];
}

export interface ResponseEvent {
  type: 'response';
  seq: number;          // same seq as its request
  time: number;
  track: string | null;
  turn: number | null;
  content: ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> })[];
  stop_reason: string;
  usage: Usage;
  /** Streaming: how many content_block_delta events were sent; 0 for JSON answers. */
  deltas: number;
  /** When the response started (its first token), on the mock's clock: at least a time to
   *  first token after its request arrived. Absent for count_tokens. */
  started?: number;
  /** Real milliseconds the mock waited for the turn's latency_ms (0 with latencyScale 0). */
  waited_ms?: number;
}

export interface ErrorEvent {
  type: 'error';
  seq: number;
  time: number;
  track: string | null;
  turn: number | null;
  status: number;
  error_type: string;
  message: string;
  /** true when the scenario asked for it; false when the request broke a rule. */
  injected: boolean;
  mid_stream: boolean;
  /** For an injected error: real milliseconds waited for the turn's latency_ms first. */
  waited_ms?: number;
}
