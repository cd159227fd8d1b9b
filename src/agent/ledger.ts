//> 8 ledger-file
// The token ledger: what this agent has spent, read from the usage block of every
// response. It only adds numbers the API reported; it never estimates.

import type Anthropic from '@anthropic-ai/sdk';

export class Ledger {
  input = 0;        // uncached input tokens
  output = 0;
  cacheWrite = 0;   // cache_creation_input_tokens
  cacheRead = 0;    // cache_read_input_tokens
  calls = 0;

  add(usage: Anthropic.Usage): void {
    this.input += usage.input_tokens ?? 0;
    this.output += usage.output_tokens;
    this.cacheWrite += usage.cache_creation_input_tokens ?? 0;
    this.cacheRead += usage.cache_read_input_tokens ?? 0;
    this.calls += 1;
  }

  //> 11 ledger-absorb
  /** Roll another ledger (a finished sub-agent's) into this one. */
  absorb(other: Ledger): void {
    this.input += other.input;
    this.output += other.output;
    this.cacheWrite += other.cacheWrite;
    this.cacheRead += other.cacheRead;
    this.calls += other.calls;
  }
  //<

  /** One line, in a fixed format that the tests read back. */
  report(): string {
    return `ledger: calls=${this.calls} input=${this.input} output=${this.output} cache_write=${this.cacheWrite} cache_read=${this.cacheRead}`;
  }
}
//<
