// The half-done shortcuts test/half-done-shortcuts.test.ts proves the checks catch: for each
// TODO of a chapter's exercise, ways a learner might fill it in so that the demo looks right
// while a behaviour the chapter teaches is skipped (an edge case ignored, a field never set, an
// error swallowed, a value hard-coded). Each names the scenario case and the expectation that
// must fail on it.
//
// Not the mutation catalogue (src/tooling/mutations.ts): a mutation may break any line of
// src/agent/ and needs some scenario of its chapter to go red; a shortcut is an edit inside one
// TODO of the learner's copy, and names the expectation the check shows the learner.

export interface Shortcut {
  chapter: number;
  /** The exercise file and the TODO the shortcut is taken in. */
  file: string;
  todo: string;
  /** What the learner skipped, in words. */
  shortcut: string;
  /** Text of the reference inside the TODO (once in the file), and what the learner wrote instead. */
  find: string;
  replace: string;
  /** More edits of the same shortcut, in the same file. */
  and?: [string, string][];
  /** The case whose expectation `fails` must fail. */
  case: string;
  fails: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  // Chapter 2 · tools
  { chapter: 2, file: 'tools.ts', todo: 'run-tool-errors', shortcut: 'a tool it was not offered is answered, but not flagged is_error',
    find: 'if (!tool) throw new Error(`no tool named ${call.name} is available here`);',
    replace: "if (!tool) return { type: 'tool_result', tool_use_id: call.id, content: `no tool named ${call.name}` };",
    case: 'made-up-tool', fails: 'a tool the agent was not given is refused as an is_error result that names it' },
  { chapter: 2, file: 'tools.ts', todo: 'run-tool-errors', shortcut: "the error message is passed on as it is, with the workspace's absolute path in it",
    find: ".replaceAll(config.cwd + path.sep, '')", replace: '',
    case: 'made-up-tool', fails: '… not the workspace\'s place on disk' },
  { chapter: 2, file: 'tools.ts', todo: 'run-tool-errors', shortcut: 'a failure is flagged, but what went wrong is not said',
    find: 'content: `Error: ${message}`, is_error: true', replace: "content: 'Error: the tool failed', is_error: true",
    case: 'demo', fails: 'a missing file comes back as an is_error result, not a crash' },

  // Chapter 4 · CLI and sessions
  { chapter: 4, file: 'cli.ts', todo: 'parse-flags', shortcut: 'an unknown flag is let through',
    find: "      if (arg.startsWith('-')) throw new Error(`unknown flag ${arg} (see --help)`);\n", replace: '',
    case: 'unknown-flag', fails: 'no model call is made with a flag nobody understood' },
  { chapter: 4, file: 'cli.ts', todo: 'parse-flags', shortcut: 'only the first word is taken as the prompt',
    find: "prompt: args._.join(' '),", replace: "prompt: String(args._[0] ?? ''),",
    case: 'words', fails: 'the words, joined, are sent as the first prompt, without the flags' },
  { chapter: 4, file: 'cli.ts', todo: 'parse-flags', shortcut: 'the words on the command line are dropped',
    find: "prompt: args._.join(' '),", replace: "prompt: '',",
    case: 'words', fails: 'the words, joined, are sent as the first prompt, without the flags' },
  { chapter: 4, file: 'cli.ts', todo: 'parse-flags', shortcut: 'an empty value is taken as no value',
    find: "    if (v === '') throw new Error(`--${name} needs a value`);\n", replace: '',
    case: 'empty-value', fails: 'an empty value is refused with a line that names the flag' },
  { chapter: 4, file: 'cli.ts', todo: 'parse-flags', shortcut: 'the output style is not checked',
    find: 'if (flags.outputStyle !== undefined && !(flags.outputStyle in OUTPUT_STYLES)) {', replace: 'if (false) {',
    case: 'bad-style', fails: 'an unknown output style is refused with a line that names it' },
  { chapter: 4, file: 'cli.ts', todo: 'parse-flags', shortcut: 'the permission mode is not checked',
    find: 'if (!PERMISSION_MODES.includes(flags.permissionMode)) {', replace: 'if (false) {',
    case: 'bad-mode', fails: 'no session is saved with a mode nobody knows' },
  { chapter: 4, file: 'cli.ts', todo: 'parse-flags', shortcut: 'the session id is not checked',
    find: "  if (flags.sessionId !== undefined && !/^[\\w.-]+$/.test(flags.sessionId)) throw new Error('--session-id may use letters, digits, _ . - only');\n", replace: '',
    case: 'bad-session-id', fails: 'the file the id pointed at is left as it was' },
  { chapter: 4, file: 'cli.ts', todo: 'load-session', shortcut: 'any JSON file is taken for a session',
    find: "if (!roles || typeof data.id !== 'string') throw", replace: 'if (false) throw',
    case: 'not-session', fails: 'a clear one-line error names the file' },
  { chapter: 4, file: 'cli.ts', todo: 'load-session', shortcut: "JSON.parse's own error is passed on, without the file's name",
    find: "    throw new Error(`cannot resume: ${shown} is not valid JSON (${(err as Error).message}); the file was left as it is`);", replace: '    throw err;',
    case: 'corrupt', fails: 'a clear one-line error names the file and the problem' },

  // Chapter 5 · streaming
  { chapter: 5, file: 'stream.ts', todo: 'stream-message', shortcut: 'the text is printed once the message is complete, not as it streams',
    find: "  stream.on('text', (delta) => terminal.write(delta));",
    replace: "  const m = await stream.finalMessage(); for (const b of m.content) if (b.type === 'text') terminal.write(`${b.text}\\n`); return m;",
    case: 'interrupted', fails: 'the words that arrived before the break were printed as they came' },
  { chapter: 5, file: 'stream.ts', todo: 'stream-message', shortcut: 'a text block does not end its line',
    find: "    if (block.type === 'text') terminal.write('\\n');", replace: '',
    case: 'demo', fails: 'a text block ends its line: the tool call after it starts a line of its own, with no blank line between' },
  { chapter: 5, file: 'stream.ts', todo: 'stream-message', shortcut: 'every block, tool calls too, ends with a newline',
    find: "    if (block.type === 'text') terminal.write('\\n');", replace: "    terminal.write('\\n');",
    case: 'demo', fails: 'a text block ends its line: the tool call after it starts a line of its own, with no blank line between' },
];
