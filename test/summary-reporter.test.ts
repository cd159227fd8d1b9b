// The suite's closing line (test/summary-reporter.ts), from test files as vitest reports
// them: here made by hand, with the two methods the line reads (a file's state, and each
// test's result).

import { it, expect } from 'vitest';
import type { TestModule } from 'vitest/node';
import { summaryLine } from './summary-reporter.ts';

type State = 'passed' | 'failed' | 'skipped';
const file = (state: State, tests: State[]) => ({
  state: () => state,
  children: { *allTests() { for (const t of tests) yield { result: () => ({ state: t }) }; } },
}) as unknown as TestModule;

it('counts each test once, by its result', () => {
  expect(summaryLine([file('passed', ['passed', 'passed']), file('failed', ['passed', 'failed', 'skipped'])])).toBe('3 passed, 1 failed, 1 skipped');
  expect(summaryLine([file('passed', ['passed'])])).toBe('1 passed, 0 failed');
});

it('a file that failed outside its tests is a failure: one that did not load, one whose beforeAll threw', () => {
  expect(summaryLine([file('failed', [])])).toBe('0 passed, 1 failed');
  expect(summaryLine([file('failed', ['skipped', 'skipped']), file('passed', ['passed'])])).toBe('1 passed, 1 failed, 2 skipped');
});

it('a failed file whose tests failed is not counted again', () => {
  expect(summaryLine([file('failed', ['failed', 'failed'])])).toBe('0 passed, 2 failed');
});
