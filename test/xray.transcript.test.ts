// The x-ray transcript shows the case's own words and only a fingerprint of Claude Code's
// (first line, bytes, hash), in full only when asked; sub-agents sit under the call that
// started them, a sub-agent's sub-agent one step deeper; temp paths do not change sizes.

import { describe, expect, it } from 'vitest';
import { Chalk } from 'chalk';
import type { MockEvent, RequestEvent, ResponseEvent } from '../src/mock/types.ts';
import { depths, renderXrayTranscript, shortHash, stripPaths, unmodelledSummary } from '../src/xray/transcript.ts';

const plain = new Chalk({ level: 0 });
const SECRET_PROMPT = 'You are a helpful agent.\nSECOND LINE OF THE VENDOR PROMPT that must not be reprinted.';

let seq = 0;
function req(track: string, messages: unknown[], extra: Partial<RequestEvent> = {}): RequestEvent {
  return {
    type: 'request', seq: ++seq, time: seq, path: '/v1/messages', track, turn: 0, stream: true, model: 'claude-x',
    body: { system: [{ type: 'text', text: SECRET_PROMPT }], messages }, system_text: SECRET_PROMPT, tool_names: ['Agent', 'Read'], breakpoints: [],
    ...extra,
  };
}
function resp(of: RequestEvent, content: ResponseEvent['content']): ResponseEvent {
  return {
    type: 'response', seq: of.seq, time: of.seq, track: of.track, turn: 0, content, stop_reason: 'end_turn', deltas: 0,
    usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } },
  };
}

function run(): MockEvent[] {
  seq = 0;
  const reminder = '<system-reminder>\nVendor reminder text, line one.\nline two, secret.\n</system-reminder>';
  const m1 = req('main', [{ role: 'user', content: [{ type: 'text', text: reminder }, { type: 'text', text: '[xray:t] do it' }] }], { unmodelled: ['thinking'] });
  const r1 = resp(m1, [{ type: 'tool_use', id: 'toolu_1', name: 'Agent', input: { prompt: '[xray:child] look' } }]);
  const c1 = req('child', [{ role: 'user', content: '[xray:child] look' }], { unmodelled: ['metadata', 'thinking'] });
  const rc1 = resp(c1, [{ type: 'tool_use', id: 'toolu_2', name: 'Agent', input: { prompt: '[xray:grandchild] deeper' } }]);
  const g1 = req('grandchild', [{ role: 'user', content: '[xray:grandchild] deeper' }]);
  const rg1 = resp(g1, [{ type: 'text', text: 'grandchild done' }]);
  return [m1, r1, c1, rc1, g1, rg1];
}

describe('the x-ray transcript', () => {
  it("shows the case's words and a fingerprint of Claude Code's, never its text", () => {
    const lines = renderXrayTranscript(run(), { color: plain }).join('\n');
    expect(lines).toContain('you ▸ [xray:t] do it');
    expect(lines).toContain(`#${shortHash(SECRET_PROMPT)}`);
    expect(lines).toContain(`<system-reminder> Vendor reminder text, line one. (${Buffer.byteLength('<system-reminder>\nVendor reminder text, line one.\nline two, secret.\n</system-reminder>')} bytes`);
    expect(lines).not.toContain('SECOND LINE OF THE VENDOR PROMPT');
    expect(lines).not.toContain('You are a helpful agent');
    expect(lines).not.toContain('line two, secret');
  });

  it('--full shows Claude Code\'s text', () => {
    const lines = renderXrayTranscript(run(), { color: plain, full: true }).join('\n');
    expect(lines).toContain('line two, secret');
  });

  it('indents a sub-agent under its caller, and its own sub-agent one step deeper', () => {
    const events = run();
    expect(Object.fromEntries(depths(events))).toEqual({ main: 0, child: 1, grandchild: 2 });
    const lines = renderXrayTranscript(events, { color: plain });
    expect(lines).toContain('        grandchild ▸ grandchild done');
  });

  it('temp paths are written as names, so sizes and hashes stay put', () => {
    const paths = { cwd: '/tmp/subagents-xray-abc/work', home: '/tmp/subagents-xray-abc/home' };
    expect(stripPaths('cwd /tmp/subagents-xray-abc/work, out /tmp/subagents-xray-abc/tmp/x, dashed -tmp-subagents-xray-abc-work', paths))
      .toBe('cwd $WORK, out $TEMP/tmp/x, dashed $WORK');
  });

  it('counts the unmodelled fields over the run', () => {
    expect(unmodelledSummary(run())).toEqual([{ field: 'metadata', requests: 1 }, { field: 'thinking', requests: 2 }]);
  });
});
