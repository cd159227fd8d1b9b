// The mutation catalogue: small, deliberate breakages of src/agent/ that the scenario
// suite must catch. Each one names the behaviour it breaks; if the suite stays green
// with a mutation applied, the tests do not really test that behaviour.
//
// `find` must occur exactly once in the file (the self-check fails loudly when the
// source moves on and a mutation goes stale). `chapter` is the chapter whose
// scenarios must go red.

export interface Mutation {
  id: string;
  chapter: number;
  file: string;
  find: string;
  replace: string;
  breaks: string;
}

export const MUTATIONS: readonly Mutation[] = [
  // Chapter 1 · the loop
  { id: 'tool-returns-garbage', chapter: 1, file: 'tools.ts',
    find: "run: async (input, config) => readFile(inWorkspace(config, input.path), 'utf8'),",
    replace: "run: async () => 'garbage',",
    breaks: 'read_file returns the real file content' },
  { id: 'results-not-fed-back', chapter: 1, file: 'agent.ts',
    find: "messages.push({ role: 'user', content: results });",
    replace: '',
    breaks: 'tool results go back to the model' },
  { id: 'loop-stops-after-one-call', chapter: 1, file: 'agent.ts',
    find: 'if (calls.length === 0) return finalText(response.content);',
    replace: 'return finalText(response.content);',
    breaks: 'the loop continues while the model asks for tools' },

  // Chapter 2 · tools
  { id: 'tool-error-thrown', chapter: 2, file: 'tools.ts',
    find: "return { type: 'tool_result', tool_use_id: call.id, content: `Error: ${message}`, is_error: true };",
    replace: 'throw new Error(message);',
    breaks: 'tool failures go back as is_error results' },
  { id: 'is-error-flag-dropped', chapter: 2, file: 'tools.ts',
    find: 'content: `Error: ${message}`, is_error: true };',
    replace: 'content: `Error: ${message}` };',
    breaks: 'failures are flagged is_error' },
  { id: 'shell-output-dropped', chapter: 2, file: 'tools.ts',
    find: 'if (code !== 0) reject(new Error(text)); else resolve(text);',
    replace: "if (code !== 0) reject(new Error(text)); else resolve('exit code 0');",
    breaks: "run_shell returns the command's output" },
  { id: 'edit-writes-nothing', chapter: 2, file: 'tools.ts',
    find: 'await writeFile(file, text.replace(oldText, () => newText));',
    replace: '',
    breaks: 'edit_file changes the file on disk' },

  // Chapter 8 · prompt caching
  { id: 'message-breakpoint-removed', chapter: 8, file: 'cache.ts',
    find: 'messages: messages.map((m, i) => (i === messages.length - 1 ? markLastBlock(m) : m)),',
    replace: 'messages,',
    breaks: 'the latest message carries a breakpoint, so the conversation is cached' },
  { id: 'markers-stored-in-history', chapter: 8, file: 'cache.ts',
    find: 'messages: messages.map((m, i) => (i === messages.length - 1 ? markLastBlock(m) : m)),',
    replace: 'messages: messages.map((m, i) => (i === messages.length - 1 ? Object.assign(m, markLastBlock(m)) : m)),',
    breaks: 'breakpoints go on copies, so they never pile up past four' },
  { id: 'system-timestamp-per-call', chapter: 8, file: 'agent.ts',
    find: '...withBreakpoints(config.system, config.tools.map((t) => t.spec), messages),',
    replace: '...withBreakpoints(`${config.system}\nCurrent time: ${performance.now()}`, config.tools.map((t) => t.spec), messages),',
    breaks: 'the system prompt keeps the same bytes on every call' },
  { id: 'tools-reordered-per-call', chapter: 8, file: 'agent.ts',
    find: '...withBreakpoints(config.system, config.tools.map((t) => t.spec), messages),',
    replace: '...withBreakpoints(config.system, config.tools.map((t) => t.spec).map((_, i, all) => all[(i + messages.length) % all.length]!), messages),',
    breaks: 'the tools are sent in the same order on every call' },
  { id: 'ledger-reads-wrong-field', chapter: 8, file: 'ledger.ts',
    find: 'this.cacheRead += usage.cache_read_input_tokens ?? 0;',
    replace: 'this.cacheRead += usage.cache_creation_input_tokens ?? 0;',
    breaks: 'the ledger adds each usage field to its own counter' },
  { id: 'reads-billed-full-price', chapter: 8, file: 'ledger.ts',
    find: 'this.cacheRead * 10) / 100',
    replace: 'this.cacheRead * 100) / 100',
    breaks: 'cache reads cost a tenth of an input token' },

  // Chapter 11 · sub-agents
  { id: 'subagent-returns-empty', chapter: 11, file: 'subagent.ts',
    find: "return report.trim() === '' ? '(the sub-agent finished without a report)' : report;",
    replace: "return '';",
    breaks: "the sub-agent's report is returned" },
  { id: 'parent-gets-fixed-string', chapter: 11, file: 'subagent.ts',
    find: "return report.trim() === '' ? '(the sub-agent finished without a report)' : report;",
    replace: "return 'The sub-agent has finished its task.';",
    breaks: "the parent receives the sub-agent's own report" },
  { id: 'agent-tool-left-in-subagent', chapter: 11, file: 'subagent.ts',
    find: 'return allowed.filter((t) => t.spec.name !== AGENT_TOOL_NAME);',
    replace: 'return allowed;',
    breaks: 'sub-agents are never offered the agent tool' },
  { id: 'runtime-refusal-removed', chapter: 11, file: 'tools.ts',
    find: 'if (call.name === AGENT_TOOL_NAME && config.depth > 0) {',
    replace: 'if (false) {',
    breaks: 'an agent call inside a sub-agent is refused at execution time' },
  { id: 'explore-gets-shell-and-writes', chapter: 11, file: 'subagent.ts',
    find: "tools: READ_ONLY,\n    model: 'claude-haiku-4-5',",
    replace: "tools: [...READ_ONLY, 'run_shell', 'write_file'],\n    model: 'claude-haiku-4-5',",
    breaks: 'explore is read-only by construction' },
  { id: 'subagent-shares-parent-messages', chapter: 11, file: 'subagent.ts',
    find: "messages: [{ role: 'user', content: input.prompt }],   // a fresh context: only the task",
    replace: "messages: [...parent.messages, { role: 'user', content: input.prompt }],",
    breaks: 'a sub-agent starts in a fresh context' },
  { id: 'usage-not-rolled-up', chapter: 11, file: 'subagent.ts',
    find: 'parent.ledger.absorb(config.ledger);',
    replace: '',
    breaks: "a sub-agent's usage is added to the parent's ledger" },
  { id: 'subagent-error-thrown', chapter: 11, file: 'subagent.ts',
    find: 'return `Sub-agent failed: ${describeError(err)}`;',
    replace: 'throw err;',
    breaks: 'a failing sub-agent comes back as text, not a throw' },
  { id: 'subagent-text-printed', chapter: 11, file: 'subagent.ts',
    find: 'terminal: { write: (text) => { transcript.push(text); } },',
    replace: 'terminal: parent.terminal,',
    breaks: "a sub-agent's text is buffered, not printed as the parent's" },
];
