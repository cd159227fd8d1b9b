// CPU seconds of this process, and of the children it has waited for, read from
// /proc/self/stat (Linux): what bench.mjs and its per-file setup (cpu-by-file.mjs) measure.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticks;   // clock ticks per second, asked once

/**
 * { self, children }: utime+stime and cutime+cstime, in seconds; and of the children alone,
 * childrenSystem (cstime: the kernel's share) and childrenFaults (cminflt: minor page faults,
 * each a page of memory the kernel mapped at its first use). undefined where there is no /proc.
 */
export function processCpu() {
  try {
    // Asked before the reading: getconf is a child too, and its CPU belongs before it.
    ticks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      self: (Number(f[11]) + Number(f[12])) / ticks,
      children: (Number(f[13]) + Number(f[14])) / ticks,
      childrenSystem: Number(f[14]) / ticks,
      childrenFaults: Number(f[8]),
    };
  } catch { return undefined; }
}
