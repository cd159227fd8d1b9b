// Preloaded into a benchmarked process (node --import): on exit, append this process's
// peak resident memory (KiB) to the file named by BENCH_RSS_FILE.
import { appendFileSync } from 'node:fs';

process.on('exit', () => {
  // Never thrown from here: an exit listener that throws stops process.exit half-way, and a
  // runner leaving on a signal (the bench interrupted, its scratch folder gone) stayed alive
  // for ever. A figure that cannot be written is only a figure missing.
  try {
    if (process.env.BENCH_RSS_FILE) appendFileSync(process.env.BENCH_RSS_FILE, `${process.resourceUsage().maxRSS}\n`);
  } catch { /* the bench is gone, or its folder is */ }
});
