// A scenario's named pipes ("pipes"): made with mkfifo where the scenario says, and answered.
// A program that opens one as a file (a plain readFile, where chapter 4's resume should use
// readPlainFile) waits for a writer for ever, and its check would sit there until the run's
// time limit, a minute later. So while the pipe is there the run looks, every 20 ms, whether a
// reader waits on it; when one does, it opens the pipe to write and closes it at once: the
// reader gets an empty file, and the check fails in a moment, on what the agent made of that.
//
// What it is not: a writer of anything. A reader that does not wait (readPlainFile opens
// without waiting, and refuses a pipe) never sees it.

import { execFileSync } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync } from 'node:fs';

/** Make a named pipe at `file` (mkfifo: Linux, macOS), and answer a reader that waits on it with an empty file. */
export function makePipe(file: string): void {
  try {
    execFileSync('mkfifo', [file], { stdio: 'ignore' });
  } catch (err) {
    throw new Error(`cannot make the named pipe ${file} the scenario asks for (mkfifo: ${(err as Error).message.split('\n')[0]})`);
  }
  const look = setInterval(() => {
    let fd: number;
    try {
      // Without waiting: ENXIO says nobody reads yet. Never through a link the agent put there.
      fd = openSync(file, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO') clearInterval(look);   // gone, with its folder: done
      return;
    }
    const pipe = fstatSync(fd).isFIFO();
    closeSync(fd);
    if (!pipe) clearInterval(look);   // replaced by a file: nothing of the scenario's to answer for
  }, 20);
  look.unref();
}
