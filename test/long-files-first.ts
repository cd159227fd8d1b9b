// The order the test files start in (vitest.config.ts): the few that take longest, from the
// start, in a fixed order, then the rest as vitest orders them (longest first by its record
// of the last run; by size in a fresh clone, which has no record).
//
// Why: the suite keeps both cores busy only while its last files are short. vitest's own
// order comes from the last run's times, so it changes from run to run, and in a fresh clone
// it is by size, which put chapters 15-16's scenarios (the longest file, about a tenth of the
// suite's CPU) among the last to start. Three whole suites each way with no record of a run
// before: 21.3-22.0 s in vitest's order, 19.6-21.2 s with the long ones named here first.
//
// What it is not: a list every file must be in. A file not named here runs after these, where
// vitest puts it; a file named here that no longer exists is simply not there to start.

import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that take longest (here, about 3-10 s each in a whole suite), longest first. */
export const LONG_FILES = [
  'scenarios.15-16.test.ts',
  'classroom.test.ts',
  'bin.test.ts',
  'cleanup.test.ts',
  'xray.analyse.test.ts',
  'xray.drive.test.ts',
  'commands.test.ts',
  'scenarios.1-11.test.ts',
  'scenarios.12-14.test.ts',
  'permission-question.test.ts',
  'exercises.test.ts',
];

export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const i = LONG_FILES.indexOf(spec.moduleId.slice(spec.moduleId.lastIndexOf('/') + 1));
      return i === -1 ? LONG_FILES.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order among themselves.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
