// `node steps/run.mjs xray [CASE] [--claude PATH] [--json] [--keep] [--check] [--full] [--write-facts]`:
// finds a Claude Code binary, says which version it drives, runs each case against the
// mock (drive.ts), prints each case's transcript (transcript.ts) and the fields the mock
// accepted without modelling them. `--write-facts` runs every case and writes
// xray/facts-VERSION.json from them (facts-file.ts) instead of printing them. Exit codes:
// 0 all clean, 1 a case went wrong (a request the mock refused that the case did not
// script, a timeout, a scenario failure), 2 bad input, no binary, or facts not written.
// It does NOT extract facts itself.

import { parseCommandLine } from '../command-line.ts';
import { Chalk, type ChalkInstance } from 'chalk';
import path from 'node:path';
import { CASE_SCENARIOS, XRAY_CASES, claudeVersion, driveCase, findClaude, installHint, pinnedVersion, type DriveResult } from './drive.ts';
import { betasSeen, renderXrayTranscript, unmodelledSummary } from './transcript.ts';
import { SERIES_RUNS, checkFacts, extractFacts, factRows, factsFilePath, readFactsFile, renderFactTable, type CaseRunner, type FactRow } from './facts.ts';
import { writeFactsFile, type FactsChange } from './facts-file.ts';
import { ROOT } from '../runner/scenarios.ts';
import type { XrayCase } from './trace.ts';

/**
 * The options that never go together (anything else does): the one table the x-ray checks
 * a command line against and --help prints. CASE stands for a case named on the line.
 */
export const XRAY_CONFLICTS: readonly [string, string, string][] = [
  ['write-facts', 'check', '--check compares a run with the file --write-facts replaces'],
  ['write-facts', 'CASE', 'the facts file is written from every case'],
  ['write-facts', 'json', '--write-facts prints one line, not a report'],
  ['write-facts', 'full', '--write-facts prints no transcript'],
  ['json', 'full', '--json prints no transcript'],
];
const typed = (o: string) => (o === 'CASE' ? 'a CASE' : `--${o}`);

export const XRAY_HELP = `Usage: node steps/run.mjs xray [CASE] [options]

Drive a real Claude Code (print mode) against the local mock, in a temp git
workspace and a temp HOME, talking to 127.0.0.1 only, and show what it sent.
Exit 0 when every case ran clean, 1 when one did not, 2 for bad input (and
for --write-facts that wrote nothing).

  CASE             one of ${XRAY_CASES.join(', ')} (default: all)
  --claude PATH    the binary to drive (default: \`claude\` on PATH)
  --json           print a machine-readable report instead of the transcript
  --keep           keep each case's temp workspace and home, and print where
  --check          also compare the facts measured with the pinned file
                   (xray/facts-VERSION.json): exit 1 where one differs
  --full           show Claude Code's own prompts in full (default: first line,
                   size and hash; they are not this project's text)
  --write-facts    run every case and write xray/facts-VERSION.json for the
                   binary's version (derived facts only), then say which facts
                   changed; nothing is written if a case fails
  -h, --help       this help

Options that never go together (anything else does):
${XRAY_CONFLICTS.map(([a, b, why]) => `  ${`${typed(a)} ${typed(b)}`.padEnd(27)}${why}`).join('\n')}`;

class UsageError extends Error {}

export interface XrayIo {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  color?: ChalkInstance;
  width?: number;
  /** The project whose xray/ folder --write-facts writes into (default the project's own; tests pass a copy). */
  root?: string;
  /** How the chapters' own runs are made for the table (default runChapter; tests pass a cache of runs already made). */
  run?: CaseRunner;
}

const defaultIo = (): XrayIo => ({
  out: (l) => console.log(l),
  err: (l) => console.error(l),
  env: process.env,
  color: new Chalk({ level: 'NO_COLOR' in process.env || !process.stdout.isTTY ? 0 : 1 }),
  width: process.stdout.columns || 100,
});

export async function runXray(argv: string[], io: XrayIo = defaultIo()): Promise<number> {
  try {
    return await xray(argv, io);
  } catch (err) {
    io.err(err instanceof Error ? err.message.split('\n')[0]! : String(err));
    return 2;
  }
}

async function xray(argv: string[], io: XrayIo): Promise<number> {
  const { args, problem } = parseCommandLine(argv, {
    boolean: ['json', 'keep', 'check', 'full', 'help', 'write-facts'],
    string: ['claude'],
    alias: { h: 'help' },
  });
  if (problem !== undefined) throw new UsageError(`${problem} (see xray --help)`);
  if (args.help) { io.out(XRAY_HELP); return 0; }
  if ('claude' in args && (typeof args.claude !== 'string' || args.claude === '')) throw new UsageError('--claude needs a path');
  const positional = args._.map(String);
  if (positional.length > 1) throw new UsageError(`one case at a time (got ${positional.join(' ')}); without a case, all of them run`);
  const cases: XrayCase[] = positional.length === 0 ? [...XRAY_CASES] : [parseCase(positional[0]!)];
  const given = (o: string) => (o === 'CASE' ? positional.length > 0 : args[o] === true);
  for (const [a, b, why] of XRAY_CONFLICTS) {
    if (given(a) && given(b)) throw new UsageError(`${typed(a)} and ${typed(b)} do not go together: ${why}`);
  }

  const bin = findClaude(args.claude, io.env);
  if (!bin) {
    io.err(args.claude ? `--claude ${args.claude}: not an executable file; ${installHint().replace(/^no Claude Code found: /, '')}` : installHint());
    return 2;
  }
  const c = io.color ?? new Chalk({ level: 0 });
  const version = await claudeVersion(bin, io.env);
  const pinned = pinnedVersion();
  // The file is named after the version, and xray/PINNED can only name one like 2.1.328.
  if (args['write-facts'] && !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new UsageError(`--write-facts: ${bin} --version says "${version}", not a release like ${pinned}; nothing written`);
  }
  if (!args.json) {
    io.out(c.bold(`X-ray · Claude Code ${version}`) + c.dim(`  (${bin})`));
    if (version !== pinned) io.out(c.yellow(`note: the project's facts are measured on ${pinned}; this is ${version}, so differences are expected`));
  }

  if (args['write-facts']) return writeFacts(bin, version, cases, io, c, args.keep);

  const results: DriveResult[] = [];
  for (const name of cases) {
    for (const scenario of CASE_SCENARIOS[name]) {
      const r = await driveCase({ bin, version, name, scenario, keep: args.keep, parentEnv: io.env });
      results.push(r);
      if (!args.json) printCase(r, c, io, { full: args.full, keep: args.keep });
    }
  }

  const allEvents = results.flatMap((r) => r.trace.events);
  const unmodelled = unmodelledSummary(allEvents);
  const problems = results.flatMap((r) => r.problems);

  // The facts: Claude Code's from these runs, the series' from the chapters' own runs of
  // the same moves, through the same analysis. A run with a problem measured nothing to
  // trust (a client that never asked, a request refused): its facts read "not measured".
  const chapters = [...new Set(SERIES_RUNS.filter((s) => s.cases.some((c) => cases.includes(c))).map((s) => s.chapter))];
  const rows: FactRow[] = await factRows(results.filter((r) => r.problems.length === 0).map((r) => r.trace), { chapters, run: io.run });
  const factProblems = args.check ? factsDisagreeing(rows, cases) : [];

  if (args.json) {
    io.out(JSON.stringify({
      claude: { version, pinned, binary: bin },
      cases: results.map((r) => ({
        case: r.trace.case, scenario: r.scenario, ok: r.problems.length === 0, problems: r.problems, exit_code: r.exitCode, timed_out: r.timedOut,
        ms: Math.round(r.ms), requests: r.trace.events.filter((e) => e.type === 'request').length,
        ...(args.keep && { kept: r.tempDir }),
      })),
      unmodelled, betas: betasSeen(allEvents),
      facts: rows,
      ...(args.check && { check: { facts_file: path.relative(ROOT, factsFilePath(ROOT)), problems: factProblems } }),
    }, null, 2));
  } else {
    io.out('');
    for (const l of renderFactTable(rows, c, Math.max(100, Math.min(io.width ?? 118, 160)), version)) io.out(l);
    io.out('');
    io.out(c.bold('Accepted without being modelled') + c.dim(' (fields the mock took on trust; requests carrying each):'));
    io.out(unmodelled.length === 0 ? '  (none)' : `  ${unmodelled.map((u) => `${u.field} ×${u.requests}`).join(', ')}`);
    io.out(c.dim(`  anthropic-beta: ${betasSeen(allEvents).join(', ') || '(none)'}`));
    io.out('');
    for (const p of problems) io.out(c.red(`✖ ${p}`));
    if (args.check) {
      for (const p of factProblems) io.out(c.red(`✖ fact ${p}`));
      if (factProblems.length === 0) io.out(c.green(`✔ every fact measured agrees with ${path.relative(ROOT, factsFilePath(ROOT))}`));
    }
    const ms = results.reduce((n, r) => n + r.ms, 0);
    const requests = allEvents.filter((e) => e.type === 'request').length;
    const bad = problems.length + factProblems.length;
    io.out(`${bad === 0 ? c.green.bold(args.check ? 'PASS' : 'CLEAN') : c.red.bold(args.check ? 'FAIL' : 'PROBLEMS')} ${results.length} case${results.length === 1 ? '' : 's'} · ` +
      `${requests === 1 ? '1 request' : `${requests} requests`} · ${(ms / 1000).toFixed(1)} s`);
  }
  return problems.length === 0 && factProblems.length === 0 ? 0 : 1;
}

/**
 * --write-facts: every case, stopping at the first that fails (then nothing is written),
 * and the file written from Claude Code's facts alone (the series' side is not stored).
 */
async function writeFacts(bin: string, version: string, cases: XrayCase[], io: XrayIo, c: ChalkInstance, keep: boolean): Promise<number> {
  const root = io.root ?? ROOT;
  const results: DriveResult[] = [];
  for (const name of cases) {
    for (const scenario of CASE_SCENARIOS[name]) {
      const r = await driveCase({ bin, version, name, scenario, keep, parentEnv: io.env });
      if (keep) io.out(c.dim(`kept: ${r.tempDir} (work/, home/)`));
      if (r.problems.length > 0) {
        const more = r.problems.length > 1 ? ` (and ${r.problems.length - 1} more; run xray ${name} to see them)` : '';
        io.err(`--write-facts: nothing written: case ${name} failed: ${r.problems[0]}${more}`);
        return 2;
      }
      results.push(r);
    }
  }
  const { file, change } = writeFactsFile(root, version, extractFacts(results.map((r) => r.trace)));
  const pinned = pinnedVersion(root);
  const note = version === pinned ? '' : c.yellow(` (xray/PINNED names ${pinned}: the docs quote that file until it names ${version})`);
  io.out(`${c.green('✔')} wrote ${path.relative(root, file)}: ${change.count} facts, ${describeChange(change)}${note}`);
  return 0;
}

function describeChange(ch: FactsChange): string {
  if (ch.created) return 'a new file';
  const parts = [
    ch.changed.length > 0 && `changed: ${ch.changed.join(', ')}`,
    ch.added.length > 0 && `new: ${ch.added.join(', ')}`,
    ch.removed.length > 0 && `gone: ${ch.removed.join(', ')}`,
  ].filter((p): p is string => typeof p === 'string');
  return parts.length === 0 ? 'none changed' : parts.join('; ');
}

/**
 * --check: the facts that disagree with the pinned file. A run of some cases only is
 * held to the facts those cases measure: a fact the file took from another case is not
 * "missing" from it.
 */
function factsDisagreeing(rows: FactRow[], cases: readonly XrayCase[]): string[] {
  const file = factsFilePath(ROOT);
  const lines = checkFacts(rows, file);
  if (cases.length === XRAY_CASES.length) return lines;
  const pinned = readFactsFile(file);
  const elsewhere = Object.entries(pinned.facts).filter(([, f]) => f.case !== undefined && !cases.includes(f.case as XrayCase)).map(([id]) => id);
  return lines.filter((l) => !elsewhere.some((id) => l.startsWith(`${id}: `)));
}

function parseCase(text: string): XrayCase {
  if ((XRAY_CASES as readonly string[]).includes(text)) return text as XrayCase;
  throw new UsageError(`unknown x-ray case "${text}": the cases are ${XRAY_CASES.join(', ')}`);
}

function printCase(r: DriveResult, c: ChalkInstance, io: XrayIo, o: { full?: boolean; keep?: boolean }): void {
  io.out('');
  io.out(c.bold(`Case ${r.trace.case}${r.scenario !== r.trace.case ? ` (${r.scenario})` : ''}`) + c.dim(`  —  scenarios/xray/${r.scenario}.json, ${(r.ms / 1000).toFixed(1)} s, exit ${r.timedOut ? 'timeout' : r.exitCode}`));
  io.out('');
  for (const l of renderXrayTranscript(r.trace.events, { color: c, full: o.full, width: io.width, paths: r.trace })) io.out(l);
  if (o.keep) io.out(c.dim(`kept: ${r.tempDir} (work/, home/)`));
  else io.out(c.dim(`(temp workspace and home removed: ${path.basename(r.tempDir)})`));
}
