// Preloaded into a benchmarked process (node --import): on exit, append this process's
// peak resident memory (KiB) to the file named by BENCH_RSS_FILE.
import { appendFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.BENCH_RSS_FILE) appendFileSync(process.env.BENCH_RSS_FILE, `${process.resourceUsage().maxRSS}\n`);
});
