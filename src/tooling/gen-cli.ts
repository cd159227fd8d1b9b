// `npm run gen` (via `node steps/run.mjs --gen`, or alone: `npx tsx src/tooling/gen-cli.ts`):
// regenerate the chapter snapshots and the generated regions of the docs, or with
// `--check` only report what is out of date. Transcript regions are left as they
// are here (they need the runner). This file is the command line, nothing more:
// the work happens in generate.ts and docs.ts.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommandLine } from '../command-line.ts';
import { defaultResolvers, fillAllDocs, type CaseVerdict, type RunOptions } from './docs.ts';
import { checkSnapshots, writeSnapshots } from './generate.ts';
import { checkReadmes, writeReadmes } from './outline.ts';
import { ROOT as REPO_ROOT } from '../runner/scenarios.ts';
import { checkScratchRoot } from '../runner/cleanup.ts';

type Transcript = (n: number, caseName: string, options?: RunOptions) => Promise<string>;
type Verdicts = (n: number) => Promise<Array<{ caseName: string } & CaseVerdict>>;

/**
 * `transcript` fills `<!-- run: N CASE -->` regions and `verdicts` the `<!-- cases: N -->`
 * tables; without them those regions are left as they are.
 */
export async function runGen(
  args: string[],
  print: (line: string) => void = (line) => console.log(line),
  transcript?: Transcript,
  verdicts?: Verdicts,
): Promise<number> {
  // Refused, not dropped: run alone (npx tsx src/tooling/gen-cli.ts), a typo such as --chek
  // was ignored and the files were rewritten instead of checked.
  const { args: flags, problem } = parseCommandLine(args, { boolean: ['check'], string: ['root'] });
  if (problem !== undefined) {
    print(`${problem} (gen takes --check and --root DIR)`);
    return 2;
  }
  const root = resolve(typeof flags.root === 'string' && flags.root !== '' ? flags.root : REPO_ROOT);
  if (transcript) {
    // The transcripts are chapter runs, which need a TMPDIR the runner accepts. Refused here
    // it is the runner's one line (a SetupError: stderr, exit 2), not the first transcript's
    // failure named as if the doc were at fault ("docs/01-agent-loop.md:37: TMPDIR=…", exit 1).
    await checkScratchRoot('subagents-gen-');
  }
  try {
    return flags.check ? await check(root, print, transcript, verdicts) : await generate(root, print, transcript, verdicts);
  } catch (err) {
    print(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

async function check(root: string, print: (line: string) => void, transcript?: Transcript, verdicts?: Verdicts): Promise<number> {
  const problems = [...await checkSnapshots(root), ...await checkReadmes(root)];
  const staleDocs = await fillAllDocs(root, defaultResolvers(root, transcript, verdicts), { write: false });
  for (const p of problems) print(`${p.problem}: ${p.path}`);
  for (const doc of staleDocs) print(`stale: ${doc.path} (${doc.firstDifference})`);
  if (problems.length === 0 && staleDocs.length === 0) {
    print('snapshots and docs are up to date');
    return 0;
  }
  print('generated files are out of date: run npm run gen');
  return 1;
}

async function generate(root: string, print: (line: string) => void, transcript?: Transcript, verdicts?: Verdicts): Promise<number> {
  const changes = [...await writeSnapshots(root), ...await writeReadmes(root)];
  const docs = await fillAllDocs(root, defaultResolvers(root, transcript, verdicts), { write: true });
  for (const c of changes) print(`${c.change} ${c.path}`);
  for (const doc of docs) print(`filled ${doc.path}`);
  if (changes.length === 0 && docs.length === 0) print('snapshots and docs are up to date');
  return 0;
}

// Run directly (not imported by steps/run.mjs or a test).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  void runGen(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
