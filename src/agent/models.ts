//> 14 models-file
// Model names an agent file may use besides a full model id: Claude Code's aliases. It is the
// one table of them; agents.ts reads it, nothing else does. It holds no model logic and no
// prices (those are in ledger.ts), and the default model stays in main.ts (DEFAULT_MODEL).
//
// An alias names the newest model of its family, so its id moves with each release. Source:
// Claude Code's model configuration page (code.claude.com/docs/en/model-config, "Model
// aliases": `sonnet`, `opus`, `haiku` follow the newest model of their family) and its
// sub-agents page (code.claude.com/docs/en/sub-agents: an agent's `model` is an alias, a full
// id, or `inherit`). The ids are measured: Claude Code 2.1.328, given agent files with
// `model: haiku`, `opus` and `sonnet`, sent their requests to exactly these ids (the x-ray's
// agents.models; chapter 14's aliases case checks this table against them). A later
// release may move them. `inherit` is not an alias of an id: it means the parent's model,
// and agents.ts handles it.

export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
};
//<
