// The bench's command line, read and checked before anything is measured: what it cannot
// take is refused in one line (bench.mjs prints it and exits 2), never guessed. Plain
// JavaScript like the rest of bench/. Not here: the help text, or running anything.

import { accessSync, constants, statSync } from 'node:fs';
import minimist from 'minimist';

/** A command line the bench cannot take; the message is the one line to print. */
export class CommandLineError extends Error {}

const refuse = (line) => { throw new CommandLineError(line); };

// What is switched on and off, with or without "no-": anything else starting with -- is unknown.
const SWITCHES = ['help', 'by-file', 'no-suite', 'no-xray', 'no-markers'];

/**
 * The bench's options from its arguments (process.argv.slice(2)), or a CommandLineError.
 * `writtenChapters()` lists the chapters written, asked only once the chapters given are
 * checked (the bench asks `run.mjs --list`, a process of its own); `canReadProc()` says
 * whether --by-file can read what each process spent.
 */
export function readCommandLine(argv, { writtenChapters, canReadProc }) {
  // minimist alone dropped an option it did not know (a typo such as --no-suit ran the whole
  // suite), read a bare --runs as 1, and took any word for a chapter, which then failed with a
  // stack trace once the speed markers had taken their seconds.
  let unknown;
  const args = minimist(argv, {
    boolean: ['suite', 'help', 'xray', 'by-file', 'markers'], string: ['claude', 'runs', 'suite-runs', '_'], alias: { h: 'help' },
    default: { suite: true, xray: true, markers: true, runs: '7', 'suite-runs': '1' },
    unknown: (arg) => {
      // `--runs -1`: minimist takes a word starting with - for an option, never a value.
      const before = argv[argv.indexOf(arg) - 1];
      if (arg.startsWith('-')) unknown ??= before === '--runs' || before === '--suite-runs' ? `${before} ${arg}` : arg;
      return !arg.startsWith('-');
    },
  });
  // What minimist takes but would read otherwise, refused as the runner refuses it
  // (src/command-line.ts): --no- before an option that cannot be turned off (--no-help ran the
  // whole bench), the plain form of one that is on already (--suite), a switch given a value
  // (--by-file=no was read as on) and a one-letter alias with two dashes (--h).
  for (const arg of argv.slice(0, argv.includes('--') ? argv.indexOf('--') : undefined)) {
    const [, name, value] = /^--([^=]+)(=.*)?$/.exec(arg) ?? [];
    if (name === undefined || name === 'runs' || name === 'suite-runs' || name === 'claude') continue;
    if (!SWITCHES.includes(name)) unknown ??= `--${name}`;
    else if (value !== undefined) refuse(`--${name} takes no value (got ${arg})`);
  }
  for (const o of ['--runs', '--suite-runs']) if (unknown?.startsWith(`${o} `)) refuse(`${o} needs a positive whole number (got "${unknown.slice(o.length + 1)}")`);
  if (unknown !== undefined) refuse(`unknown option ${unknown}`);
  if (args.help) return { help: true };
  for (const o of ['runs', 'suite-runs', 'claude']) if (Array.isArray(args[o])) refuse(`--${o} given twice`);
  for (const o of ['runs', 'suite-runs']) {
    if (!/^\d+$/.test(String(args[o])) || Number(args[o]) < 1) refuse(`--${o} needs a positive whole number (got ${args[o] === '' ? 'none' : `"${args[o]}"`})`);
  }
  // A median of more than a thousand runs would take hours: a typo, not a wish. So would more
  // than twenty suites (each takes about 20 s here).
  if (Number(args.runs) > 1000) refuse(`--runs ${args.runs}: at most 1000 runs of each demo`);
  if (Number(args['suite-runs']) > 20) refuse(`--suite-runs ${args['suite-runs']}: at most 20 runs of the suite`);
  // Said rather than ignored: the suite is not run at all.
  if (argv.some((a) => a === '--suite-runs' || a.startsWith('--suite-runs=')) && !args.suite) refuse('--suite-runs and --no-suite do not go together');
  if ('claude' in args && (typeof args.claude !== 'string' || args.claude === '')) refuse('--claude needs a path');
  if (args.claude && !args.xray) refuse('--claude and --no-xray do not go together');
  // Said now, not when the x-ray's turn comes at the very end.
  if (args.claude) {
    const file = statSync(args.claude, { throwIfNoEntry: false });
    if (!file?.isFile()) refuse(`--claude ${args.claude}: ${file ? 'not a file' : 'no such file'}`);
    try { accessSync(args.claude, constants.X_OK); } catch { refuse(`--claude ${args.claude}: not an executable file`); }
  }
  const byFile = args['by-file'];
  if (byFile && argv.some((a) => a !== '--by-file' && a !== '--no-markers')) refuse('--by-file runs the suite alone: it takes no chapter or other option but --no-markers');
  if (byFile && !canReadProc()) refuse('--by-file reads what each process spent from /proc, which this system does not have (Linux only)');
  let chapters;
  if (!byFile) {
    const written = writtenChapters();
    const unwritten = args._.find((c) => !/^\d+$/.test(c) || !written.includes(Number(c)));
    if (unwritten !== undefined) refuse(`unknown chapter "${unwritten}": the chapters written are ${written.join(', ')}`);
    const twice = args._.find((c, i) => args._.findIndex((d) => Number(d) === Number(c)) !== i);
    if (twice !== undefined) refuse(`chapter ${Number(twice)} given twice`);
    chapters = args._.length ? args._.map(Number) : written;
  }
  return { help: false, byFile, chapters, runs: Number(args.runs), suiteRuns: Number(args['suite-runs']), suite: args.suite, xray: args.xray, markers: args.markers, claude: args.claude || undefined };
}
