// A fetch that takes a request to the mock straight to the mock's request handler, in
// this process, without a socket: the same handler the HTTP server calls, so the same
// checks, the same answers and the same event log. Only the transport is left out
// (connections, HTTP framing, the fetch machinery's own headers), which is most of a
// scripted run's CPU time besides the SDK itself.
//
// What it is not: a second mock. There is one request handler (server.ts); this file
// only carries a request to it and its answer back, as the wire would.

import type { IncomingHttpHeaders } from 'node:http';

/** The part of node:http's IncomingMessage the handler reads. */
export interface MockRequest {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  /** Bytes from a socket; in process, a string body as it was given to fetch. */
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** The part of node:http's ServerResponse the handler writes. */
export interface MockResponse {
  readonly headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string): unknown;
  end(chunk?: string): unknown;
}

export type MockHandler = (req: MockRequest, res: MockResponse) => void;

/** Headers Node's fetch adds of its own on the wire, whoever calls it. In process there is no
 *  such layer, so the event log has none of them: the one difference between the two ways. */
export const FETCH_OWN_HEADERS = ['connection', 'accept-encoding', 'accept-language', 'sec-fetch-mode'];

/** String.prototype.isWellFormed (Node 20 has it; the project's TypeScript lib is older). */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed?(): boolean }).isWellFormed?.() === true;

/**
 * The request body, whatever form fetch was given it in: bytes, or a string (the SDK's JSON)
 * as it is. On the wire a string goes as its UTF-8 bytes, which the handler decodes back to
 * the same string, so encoding and decoding a large body would only cost time. Not so for a
 * string with a lone surrogate (the wire carries U+FFFD instead): that one goes as bytes.
 */
async function bodyOf(body: RequestInit['body']): Promise<Buffer | string> {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return wellFormed(body) ? body : Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** A fetch answered by `handle`: what a request to the mock's URL would get over HTTP. */
export function inProcessFetch(handle: MockHandler): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : String(input));
    const signal = init?.signal ?? request?.signal ?? undefined;
    if (signal?.aborted) throw abortError(signal);
    const body = await bodyOf(init?.body ?? (request ? await request.arrayBuffer() : undefined));
    const headers: Record<string, string> = { host: url.host };
    new Headers(init?.headers ?? request?.headers).forEach((value, name) => { headers[name] = value; });
    headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);

    return new Promise<Response>((resolve, reject) => {
      // The request: its body arrives as one chunk, on a later turn, as from a socket.
      const listeners: { data: ((c: Buffer | string) => void)[]; end: (() => void)[] } = { data: [], end: [] };
      let arriving = false;
      const req: MockRequest = {
        method: init?.method ?? request?.method ?? 'GET',
        url: url.pathname + url.search,
        headers,
        on(event: 'data' | 'end' | 'error', listener: never) {
          if (event === 'error') return req;   // a body already in memory cannot fail to arrive
          (listeners[event] as unknown[]).push(listener);
          if (event === 'end' && !arriving) {
            arriving = true;
            setImmediate(() => {
              if (body.length > 0) for (const l of listeners.data) l(body);
              for (const l of listeners.end) l();
            });
          }
          return req;
        },
      };

      // The answer: a Response as soon as the status line is written, its body a stream
      // the handler writes into. A reader that stops reading (or an abort) closes it; the
      // handler's later writes then go nowhere, as into a closed socket.
      let stream!: ReadableStreamDefaultController<Uint8Array>;
      let open = true;
      const encoder = new TextEncoder();
      const bodyStream = new ReadableStream<Uint8Array>({
        start(controller) { stream = controller; },
        cancel() { open = false; },
      });
      let headersSent = false;
      const res: MockResponse = {
        get headersSent() { return headersSent; },
        writeHead(status, responseHeaders) {
          headersSent = true;
          resolve(new Response(bodyStream, { status, headers: responseHeaders }));
          return res;
        },
        write(chunk) {
          if (open) stream.enqueue(encoder.encode(chunk));
          return true;
        },
        end(chunk) {
          if (!open) return res;
          if (chunk) stream.enqueue(encoder.encode(chunk));
          open = false;
          stream.close();
          return res;
        },
      };
      // An abort fails the answer as fetch's would: before the status line, the fetch itself;
      // after it, the body, even one fully written but not yet read.
      signal?.addEventListener('abort', () => {
        open = false;
        if (!headersSent) reject(abortError(signal));
        else stream.error(abortError(signal));   // a no-op once the reader has read it all
      }, { once: true });
      handle(req, res);
    });
  };
}
