// Reading a command line: minimist, told to stop at an option it does not know. The
// runner's, the mock's and the x-ray's command lines each refuse such an option in one
// line (naming the --help to read) rather than drop it; this finds it for them.
//
// Not here: what each command line means, or how it says what is wrong.

import minimist from 'minimist';

/** The parsed arguments, and the first option `argv` holds that `opts` does not name (undefined: none). */
export function parseCommandLine(argv: string[], opts: Omit<minimist.Opts, 'unknown'>): { args: minimist.ParsedArgs; unknown?: string } {
  let unknown: string | undefined;
  const args = minimist(argv, {
    ...opts,
    unknown: (arg) => {
      if (arg.startsWith('-') && unknown === undefined) unknown = arg;
      return !arg.startsWith('-');   // a word (a chapter, a file) is kept
    },
  });
  return { args, unknown };
}
