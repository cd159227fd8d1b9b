// The exercise maker: chapter n's snapshot with the chapter's own hinted blocks
// replaced by TODO stubs, and the list of those blocks with their hints (so the
// checker can point a failing behaviour at the right hint).
// It returns files in memory; where they are written and how they are checked is
// the runner's business.

import { chapterDir, findChapter } from '../chapters.ts';
import type { Chapter } from '../chapters.ts';
import { isEmptyBody, loadAgentSources } from './generate.ts';
import type { GeneratedFile } from './generate.ts';
import { exerciseBlocks, renderChapter, renderExercise } from './markers.ts';

export interface ExerciseHint {
  file: string;      // file name inside src/agent/ (and inside the exercise folder)
  name: string;      // block name, as in TODO(name)
  hints: string[];
  line: number;      // the block's opening line in src/agent/FILE
}

function chapterOrThrow(n: number): Chapter {
  const ch = findChapter(n);
  if (!ch) throw new Error(`chapter ${n} is not in the chapter table`);
  return ch;
}

/** One word of a command as a POSIX shell reads it back: a command shown to a learner can be pasted as it is. */
export function shellWord(word: string): string {
  return /^[\w./:@+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

export function exerciseHeader(ch: Chapter, file: string, dir: string): string {
  return `// EXERCISE for chapter ${ch.n} (${ch.slug}), generated from src/agent/${file}. Fill in the TODOs; check with: node steps/run.mjs ${ch.n} --check ${shellWord(dir)}`;
}

/**
 * The exercise for chapter n: the same files as its snapshot (paths are bare file
 * names, relative to the exercise folder `dir`), TODO stubs where the chapter's
 * hinted blocks were.
 */
export async function exerciseFiles(root: string, n: number, dir = `exercises/${chapterDir(chapterOrThrow(n))}`): Promise<GeneratedFile[]> {
  const ch = chapterOrThrow(n);
  const files: GeneratedFile[] = [];
  for (const source of await loadAgentSources(root)) {
    // Same file set as the snapshot, so the exercise imports resolve the same way.
    if (isEmptyBody(renderChapter(source.marked, n))) continue;
    const body = renderExercise(source.marked, n);
    files.push({ path: source.name, content: `${exerciseHeader(ch, source.name, dir)}\n${body}` });
  }
  return files;
}

/** The blocks chapter n's exercise stubs out, in file then source order. */
export async function hintsFor(root: string, n: number): Promise<ExerciseHint[]> {
  chapterOrThrow(n);
  const hints: ExerciseHint[] = [];
  for (const source of await loadAgentSources(root)) {
    for (const block of exerciseBlocks(source.marked, n)) {
      hints.push({ file: source.name, name: block.name, hints: [...block.hints], line: block.openLine });
    }
  }
  return hints;
}
