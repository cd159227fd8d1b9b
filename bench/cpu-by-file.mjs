// A setup file for `npm run bench -- --by-file` (bench/by-file.config.mjs), not for the
// suite itself: for each test file, the CPU seconds its worker spent on it, those of the
// processes it started and waited for (a spawned runner, git, the compiler), and its wall
// time, appended as one JSON line to BENCH_CPU_FILE. Linux only (read from /proc/self/stat).

import { afterAll, beforeAll, expect } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';

const ticks = Number(process.env.BENCH_CLK_TCK) || 100;

/** This process's CPU seconds, and its waited-for children's: utime+stime, cutime+cstime. */
function cpu() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { self: (Number(f[11]) + Number(f[12])) / ticks, children: (Number(f[13]) + Number(f[14])) / ticks };
}

let start;
beforeAll(() => { start = { ...cpu(), wall: performance.now() }; });
afterAll(() => {
  const end = cpu();
  const file = expect.getState().testPath ?? '?';
  appendFileSync(process.env.BENCH_CPU_FILE, `${JSON.stringify({ file, self: end.self - start.self, children: end.children - start.children, wall: (performance.now() - start.wall) / 1000 })}\n`);
});
