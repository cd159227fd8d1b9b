// GENERATED from src/agent/scan.ts for chapter 14 (custom-agents). Do not edit: change src/agent/scan.ts and run npm run gen.
// Report scanning: what a sub-agent sends back is text the parent's model will read as
// part of its own conversation, and that text may carry things the sub-agent only
// copied (a file it read, a web page, a tool's output). If one of those imitates the
// harness — a `<system-reminder>` tag, a line starting "Human:" — the parent's model could
// take it for an instruction from the harness or for a turn of the user.
//
// So before the parent sees a report, every such pattern is neutralised, and the report
// is marked as scanned, with the number of patterns it defused. That is all it does: it
// does not judge whether the sub-agent meant harm, it does not drop the report, and the
// words stay readable (the model can still tell the user "the file contained an
// injection"). It changes the shape of the text, not its meaning.
//
// Not here: anything that reads a report for intent. Pattern matching is the whole
// mechanism, which is also its limit: a paraphrase ("ignore your instructions") passes.

/** Tag names the harness itself uses, or that a model is trained to treat as structure. */
export const HARNESS_TAGS = [
  'system-reminder', 'system', 'fork-boilerplate', 'command-name', 'command-message', 'command-args',
  'local-command-stdout', 'user-prompt-submit-hook', 'function_calls', 'function_results',
];

/** The first line of every scanned report. The parent's model is told what was done to it. */
export const SCANNED_MARK = '[sub-agent report · scanned';

// `<system-reminder>`, `</system-reminder>`, `<system-reminder priority="high">`, any case,
// spaces inside the brackets tolerated: all of them are harness tags in the eyes of a model.
const TAG = new RegExp(`<\\s*(/?)\\s*(${HARNESS_TAGS.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b([^<>]*)>`, 'gi');
// A line that starts a conversation turn, as the old text-completion format wrote them.
const TURN = /^([ \t]*)(Human|Assistant)([ \t]*):/gim;

export interface ScanResult {
  text: string;     // the report as the parent's model will read it: marked, patterns defused
  defused: number;  // how many patterns were neutralised
}

/**
 * Neutralise tag and turn imitations and mark the report. The brackets of a tag become
 * ‹ › (the name stays readable, nothing parses it as a tag any more); a turn line gets
 * a visible "[quoted]" in front, so "Human:" no longer starts it.
 */
export function scanReport(report: string): ScanResult {
  let defused = 0;
  const text = report
    .replace(TAG, (_m, slash: string, name: string, rest: string) => {
      defused++;
      return `‹${slash}${name}${rest}›`;
    })
    .replace(TURN, (_m, lead: string, who: string, gap: string) => {
      defused++;
      return `${lead}[quoted] ${who}${gap}:`;
    });
  const mark = `${SCANNED_MARK}: ${defused === 0 ? 'nothing to neutralise' : `${defused} harness-like pattern${defused === 1 ? '' : 's'} neutralised`}]`;
  return { text: `${mark}\n${text}`, defused };
}
