// The fork checks compare a child's request with its parent's "byte for byte", the way
// the prompt cache keys them: JSON bytes, cache_control markers left out. sameBytes does
// that without serialising; it must agree with JSON.stringify on what counts as equal.

import { it, expect } from 'vitest';
import { sameBytes } from '../src/runner/fork-checks.ts';

const bytes = (v: unknown) => JSON.stringify(v, (k, val: unknown) => (k === 'cache_control' ? undefined : val));

it('agrees with JSON bytes (cache_control left out) on equal and unequal values', () => {
  const cases: [unknown, unknown][] = [
    [{ role: 'user', content: [{ type: 'text', text: 'a' }] }, { role: 'user', content: [{ type: 'text', text: 'a' }] }],
    [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'a' }],          // a marker is not bytes
    [{ a: [1, { b: { cache_control: { type: 'ephemeral', ttl: '1h' } } }] }, { a: [1, { b: {} }] }],            // nor nested
    [{ type: 'text', text: 'a' }, { text: 'a', type: 'text' }],                                                // key order is bytes
    [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }],
    [[1, 2], [1, 2, 3]],
    [{ a: 1 }, [1]],
    [{ a: undefined, b: 1 }, { b: 1 }],                                                                        // undefined is not written
    ['x', 'x'],
    [null, {}],
  ];
  for (const [a, b] of cases) expect(sameBytes(a, b), `${bytes(a)} vs ${bytes(b)}`).toBe(bytes(a) === bytes(b));
});
