// Routing: which scenario track answers a request, decided only by the request's
// content (system prompt and user text), never by arrival order, so parallel
// sub-agents are routed the same way every run. This is NOT where turns are
// counted or failures recorded; the server does that with the answer given here.

import type { Match, Scenario } from './types.ts';
import { systemText } from './tokens.ts';

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Text pieces the user side wrote: string contents and text blocks of user
 *  messages (never tool_result content, never assistant text). */
export function userTexts(body: Json): string[] {
  const out: string[] = [];
  if (!Array.isArray(body.messages)) return out;
  for (const m of body.messages) {
    if (!isObj(m) || m.role !== 'user') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content)) {
      for (const b of m.content) if (isObj(b) && b.type === 'text' && typeof b.text === 'string') out.push(b.text);
    }
  }
  return out;
}

/** The text of one message: its string content or its text blocks joined with "\n". */
function messageText(m: Json): string {
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return '';
  return m.content
    .filter((b): b is Json => isObj(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

export function firstUserText(body: Json): string {
  if (!Array.isArray(body.messages)) return '';
  const m = body.messages.find((x) => isObj(x) && x.role === 'user');
  return isObj(m) ? messageText(m) : '';
}

export function lastUserText(body: Json): string {
  if (!Array.isArray(body.messages)) return '';
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i];
    if (isObj(m) && m.role === 'user') {
      const t = messageText(m);
      if (t !== '') return t;
    }
  }
  return '';
}

export function matches(match: Match, body: Json): boolean {
  const users = userTexts(body);
  if (match.system !== undefined && !systemText(body.system).includes(match.system)) return false;
  if (match.user !== undefined && !users.some((t) => t.includes(match.user!))) return false;
  if (match.first_user !== undefined && !firstUserText(body).includes(match.first_user)) return false;
  if (match.not_user !== undefined && users.some((t) => t.includes(match.not_user!))) return false;
  return true;
}

export type RouteResult = { track: string } | { problem: string };

/** One line describing a request for failure messages. */
export function describeRequest(body: Json): string {
  const cut = (s: string): string => {
    const one = s.replace(/\s+/g, ' ').trim();
    return one.length > 80 ? one.slice(0, 80) + '…' : one;
  };
  return `last user text "${cut(lastUserText(body))}", system "${cut(systemText(body.system))}"`;
}

/** Exactly one matching track; else `main` when it has no match; else a problem. */
export function route(scenario: Scenario, body: Json): RouteResult {
  const hits = Object.entries(scenario.tracks)
    .filter(([, t]) => t.match !== undefined && matches(t.match, body))
    .map(([name]) => name);
  if (hits.length === 1) return { track: hits[0]! };
  if (hits.length > 1) {
    return { problem: `ambiguous: tracks ${hits.map((h) => `"${h}"`).join(', ')} all match the request (${describeRequest(body)}); make their match rules exclusive (not_user helps)` };
  }
  const main = scenario.tracks.main;
  if (main && main.match === undefined) return { track: 'main' };
  return { problem: `no track matches the request (${describeRequest(body)})` };
}
