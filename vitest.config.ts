// Test discovery: only test/. Scratch folders (.tmp/, learners' exercises/) can hold
// copies of the project and must never be picked up as tests.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '.tmp/**', 'exercises/**', 'test/fixtures/**'],
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
