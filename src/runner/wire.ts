// The runner's one hook on the global fetch. The chapters' agents build their SDK client
// themselves, and the SDK takes the global fetch when it is built, so the global fetch is
// the one place the runner can stand between an agent and the wire without a test hook in
// the teaching code. Two uses:
//
// - A scripted run's requests go to a mock this very process serves. They are handed to
//   the mock's request handler in process (MockServer.fetch, src/mock/in-process.ts):
//   the same checks, answers and event log as over the socket, without the HTTP round
//   trip, which costs about a third of a scripted run's CPU time. A request to any other
//   address goes to the network as before.
// - A live run watches what its requests got back (live.ts), to name a failure in one line.
//
// What it is not: a mock, a retry layer or a proxy. With no mock routed and no watch on,
// a fetch is the network's own, unchanged.

import type { MockServer } from '../mock/index.ts';

/** A watch on requests to the network: given the next fetch, the fetch to use instead. */
export type FetchWatch = (next: typeof fetch) => typeof fetch;

const network = globalThis.fetch;
const routes = new Map<string, typeof fetch>();   // a mock's origin → its in-process fetch
const watches: FetchWatch[] = [];

/** The origin (scheme, host, port) a fetch goes to; undefined when `input` is not a URL. */
export function originOf(input: string | URL | Request): string | undefined {
  try {
    return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).origin;
  } catch {
    return undefined;   // not a URL: fetch itself says so
  }
}

const dispatch: typeof fetch = (input, init) => {
  const origin = originOf(input);
  const route = origin === undefined ? undefined : routes.get(origin);
  if (route) return route(input, init);
  let next = network;
  for (const watch of watches) next = watch(next);
  return next(input, init);
};

function install(): void {
  if (globalThis.fetch !== dispatch) globalThis.fetch = dispatch;
}

/** Until the returned function is called, requests to `mock.url` are answered in this process. */
export function answerInProcess(mock: MockServer): () => void {
  const origin = new URL(mock.url).origin;
  install();
  routes.set(origin, mock.fetch);
  return () => { routes.delete(origin); };
}

/** Until the returned function is called, every request to the network passes `watch`. */
export function watchNetwork(watch: FetchWatch): () => void {
  install();
  watches.push(watch);
  return () => {
    const i = watches.indexOf(watch);
    if (i >= 0) watches.splice(i, 1);
  };
}
