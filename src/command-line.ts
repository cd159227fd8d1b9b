// Reading a command line: minimist, told to stop at an option it does not know. The
// runner's, the mock's and the x-ray's command lines each refuse a command line minimist
// would read in a way the user did not mean, in one line (naming the --help to read),
// rather than drop or guess: this finds what is wrong for them.
//
// - an option it does not know (`--frobnicate`): minimist would keep it as a value;
// - an option given twice (`--case a --case b`): minimist would make a list of both;
// - a switch given a value (`--keep=no`): minimist would read anything but "false" as on;
// - a value starting with a dash (`--scenario -x.json`): minimist reads it as an option;
// - `--no-` before an option (`--no-exercise`): minimist would set it to false (a folder
//   named "false", a switch quietly off), unless the command line says that option may be
//   turned off that way (`--no-latency`);
// - such an option typed plainly (`--latency`): it is on already, and --help names only the
//   `--no-` form, so a plain one is taken for a typo;
// - a one-letter alias typed with two dashes (`--h`): minimist takes it for `-h`, which no
//   --help lists that way.
// And a word (a chapter, a file) is kept as typed, never read as a number.
//
// Not here: what each command line means, or how it says what is wrong.

import minimist from 'minimist';

/**
 * The parsed arguments, and the first thing wrong with `argv` (undefined: nothing), as the
 * start of a line: "unknown option --x", "--case given twice", "--keep takes no value
 * (got --keep=no)". Only the options before a lone `--` are looked at, as minimist does.
 */
export function parseCommandLine(argv: string[], opts: Omit<minimist.Opts, 'unknown'> & { negatable?: string[] }): { args: minimist.ParsedArgs; problem?: string } {
  let problem: string | undefined;
  const takesValue = new Set([opts.string ?? []].flat());
  const args = minimist(argv, {
    ...opts,
    // Words stay as typed: minimist would turn "1e1" into 10 and "0x10" into 16.
    string: [...[opts.string ?? []].flat(), '_'],
    unknown: (arg) => {
      if (arg.startsWith('-') && problem === undefined) {
        // `--scenario -x.json`: minimist takes a word starting with - for an option, never a value.
        const before = argv[argv.indexOf(arg) - 1];
        problem = before?.startsWith('--') && takesValue.has(before.slice(2))
          ? /^-\d/.test(arg) ? `${before} ${arg}: a value starting with - is read as an option (and a negative number fits no option here)`
            : `${before} ${arg}: a name starting with - is read as an option; write ./${arg}`
          : `unknown option ${arg}`;
      }
      return !arg.startsWith('-');   // a word (a chapter, a file) is kept
    },
  });
  if (problem !== undefined) return { args, problem };

  const aliases = (opts.alias ?? {}) as Record<string, string | string[]>;
  const switches = new Set([opts.boolean ?? []].flat().filter((b): b is string => typeof b === 'string'));
  const seen = new Set<string>();
  const end = argv.indexOf('--');
  for (const arg of end === -1 ? argv : argv.slice(0, end)) {
    const m = /^--?([^=]+)(=.*)?$/.exec(arg);
    if (!m || /^-\d/.test(arg)) continue;   // a word, or a negative number given as a value
    let name = m[1]!;
    if (name.startsWith('no-') && (switches.has(name.slice(3)) || takesValue.has(name.slice(3)))) {
      if (!(opts.negatable ?? []).includes(name.slice(3))) return { args, problem: `unknown option ${arg.split('=')[0]}` };
      name = name.slice(3);   // --no-latency
    } else if ((opts.negatable ?? []).includes(name) && arg.startsWith('--')) {
      return { args, problem: `unknown option ${arg.split('=')[0]} (it is on unless --no-${name})` };
    }
    if (name.length === 1 && arg.startsWith('--')) return { args, problem: `unknown option --${name}` };
    const alias = aliases[name];
    if (typeof alias === 'string') name = alias;   // -h is --help
    const typed = arg.split('=')[0];
    if (switches.has(name) && m[2] !== undefined) return { args, problem: `${typed} takes no value (got ${arg})` };
    if (seen.has(name)) return { args, problem: `${typed} given twice` };
    seen.add(name);
  }
  return { args };
}
