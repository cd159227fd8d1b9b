// Reading the mock's event log: the requests a track sent, the responses it got, and the
// blocks of a message. What both kinds of checks build on (expectations.ts, and chapter 12's
// longer ones in fork-checks.ts); nothing here judges anything.

import type { MockEvent, RequestEvent, ResponseEvent } from '../mock/types.ts';

export type Block = Record<string, unknown>;

/** The Messages API requests a track sent, in order (token counts and other paths left out). */
export function requestsOf(events: MockEvent[], track: string): RequestEvent[] {
  return events.filter((e): e is RequestEvent => e.type === 'request' && e.track === track && e.path === '/v1/messages');
}

/** The responses a track was given, in order. */
export function responsesOf(events: MockEvent[], track: string): ResponseEvent[] {
  return events.filter((e): e is ResponseEvent => e.type === 'response' && e.track === track);
}

/** The model the request answered by response `r` asked for (same seq). */
export function modelOf(events: MockEvent[], r: ResponseEvent): string {
  const request = events.find((e): e is RequestEvent => e.type === 'request' && e.seq === r.seq);
  if (!request) throw new Error(`no request event for response #${r.seq}`);
  return request.model;
}

/** A message's content as blocks: a plain string is one text block. */
export function blocksOf(message: unknown): Block[] {
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content) ? (content as Block[]) : [{ type: 'text', text: String(content ?? '') }];
}
