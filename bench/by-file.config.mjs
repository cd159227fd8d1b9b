// The suite's own configuration (vitest.config.ts) with one setup file more, which times each
// test file (bench/cpu-by-file.mjs): for `npm run bench -- --by-file`.
import { mergeConfig } from 'vitest/config';
import suite from '../vitest.config.ts';

export default mergeConfig(suite, { test: { setupFiles: ['./bench/cpu-by-file.mjs'] } });
