// A setup file for `npm run bench -- --by-file` (bench/by-file.config.mjs), not for the
// suite itself: for each test file, the CPU seconds its worker spent on it, those of the
// processes it started and waited for (a spawned runner, git, the compiler), and its wall
// time, appended as one JSON line to BENCH_CPU_FILE. Linux only (read from /proc/self/stat).

import { afterAll, beforeAll, expect } from 'vitest';
import { appendFileSync } from 'node:fs';
import { processCpu } from './process-cpu.mjs';

let start;
beforeAll(() => { start = { ...processCpu(), wall: performance.now() }; });
afterAll(() => {
  const end = processCpu();
  const file = expect.getState().testPath ?? '?';
  appendFileSync(process.env.BENCH_CPU_FILE, `${JSON.stringify({ file, self: end.self - start.self, children: end.children - start.children, wall: (performance.now() - start.wall) / 1000 })}\n`);
});
