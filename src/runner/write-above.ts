// Text printed while readline holds a line waiting for the user (a permission question, the
// REPL's prompt) goes above that line, for --repl and --live: from chapter 12 on agents work
// side by side, and one prints while another's question waits. Without this its text would run
// on after "[y/N] ", leaving the question above it, out of sight. The chapters' own bin.ts
// does the same from chapter 12 (src/agent/bin.ts, bin-write-above); the runner cannot load
// that file, which is a program of its own, not a module.
//
// What it is not: a screen manager. It redraws only the one waiting line, as readline drew it.

import { clearScreenDown, cursorTo, moveCursor, type Interface } from 'node:readline';

/**
 * A write function for `out` that holds text while `waiting()` names a prompt on screen,
 * until a line of it ends; then clears the waiting line (readline must know that prompt:
 * its cursor position counts from it), writes the text, and draws the prompt again below with
 * what was typed so far, the cursor where it was. What is still held when the line is answered
 * or the input ends comes out then.
 */
export function writerAbove(rl: Interface, waiting: () => string | undefined, out: NodeJS.WriteStream = process.stdout): (text: string) => void {
  let held = '';
  const flush = () => { out.write(held); held = ''; };
  rl.prependListener('line', flush);
  rl.prependListener('close', flush);
  return (text) => {
    const prompt = waiting();
    if (prompt === undefined) {
      out.write(held + text);
      held = '';
      return;
    }
    held += text;
    const end = held.lastIndexOf('\n');
    if (end < 0) return;
    moveCursor(out, 0, -rl.getCursorPos().rows);   // to the waiting line's first row
    cursorTo(out, 0);
    clearScreenDown(out);
    out.write(held.slice(0, end + 1) + prompt + rl.line);
    held = held.slice(end + 1);
    moveCursor(out, rl.cursor - rl.line.length, 0);
  };
}
