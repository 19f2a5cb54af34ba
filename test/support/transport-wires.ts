import WebSocket from 'ws';
import { recordTraffic } from './audit.js';
import type { TestGateway } from './gateway.js';
import { track } from './leftovers.js';

/**
 * The four transports a GraphQL operation reaches the gateway by, each driven at the wire (plain
 * fetch, and `ws`), so a test sees what a client library would hide: the status, the
 * `WWW-Authenticate` header, the close code and reason, each frame.
 */
export type TransportName = 'http' | 'graphql-ws' | 'multipart' | 'sse';
export const TRANSPORT_NAMES: TransportName[] = ['http', 'graphql-ws', 'multipart', 'sse'];

/** How a client says who it is: a session cookie, an access token, both, neither, or headers of its own. */
export interface Credential {
  /** The session cookie (`gw_session_<port>=…`): sent on every HTTP request and the socket's upgrade. */
  cookie?: string;
  /** `Bearer …` (or anything else, for malformed ones): the header, or the socket's `connection_init`. */
  authorization?: string;
  /** A browser's Origin header. */
  origin?: string;
}

export interface OperationRequest {
  query?: string;
  variables?: Record<string, unknown>;
  documentId?: string;
  extensions?: Record<string, unknown>;
}

export interface CodedError {
  message: string;
  extensions?: { code?: string; reason?: string; [key: string]: unknown };
}

/** One thing a client saw, in the order it saw them. */
export type Seen =
  /** A result: an HTTP 200 body, a `next` frame, a multipart part, an SSE `next` event. */
  | { kind: 'result'; data?: unknown; errors?: CodedError[] }
  /** Refused before anything ran: an HTTP answer with its status and challenge, or a socket's `error` frame. */
  | { kind: 'refused'; status?: number; challenge: string | null; errors: CodedError[] }
  /** A stream ended by the gateway with coded errors (multipart's last part; graphql-sse's last result). */
  | { kind: 'ended'; errors: CodedError[] }
  /** The socket closed (or its upgrade was refused, `code` then being the HTTP status). */
  | { kind: 'closed'; code: number; reason: string }
  | { kind: 'complete' };

/** What a transport saw of one operation, read in order; `close()` lets it go. */
export interface Opened {
  next(): Promise<Seen>;
  close(): void;
}

/** A queue read in order: each read waits for the next item. */
class Queue implements Opened {
  private readonly items: Seen[] = [];
  private waiting: ((item: Seen) => void) | undefined;
  constructor(readonly close: () => void) {
    track(close);
  }
  push(item: Seen): void {
    recordTraffic({ url: 'transport-wire', status: 200, headers: {}, body: JSON.stringify(item) });
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(item);
    else this.items.push(item);
  }
  next(): Promise<Seen> {
    const item = this.items.shift();
    return item ? Promise.resolve(item) : new Promise((resolve) => (this.waiting = resolve));
  }
}

const headersOf = (credential: Credential): Record<string, string> => ({
  ...(credential.cookie ? { cookie: credential.cookie } : {}),
  ...(credential.authorization ? { authorization: credential.authorization } : {}),
  ...(credential.origin ? { origin: credential.origin } : {}),
});

/** An HTTP answer that is not the stream asked for: its status, challenge and coded errors. */
async function refusalOf(response: Response): Promise<Seen> {
  const body = (await response.json()) as { errors?: CodedError[]; data?: unknown };
  if (response.status === 200 && (body.data !== undefined || !body.errors))
    return { kind: 'result', data: body.data, errors: body.errors };
  return {
    kind: 'refused',
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    errors: body.errors ?? [],
  };
}

/**
 * Hands the answer to `handle`; an answer the test let go of (aborted when it closed the operation,
 * before or while it was read) is nothing more to read.
 */
function whenAnswered(response: Promise<Response>, handle: (answer: Response) => Promise<unknown>): void {
  response.then(handle).catch(() => undefined);
}

function post(gateway: TestGateway, path: string, credential: Credential, accept: string, body: unknown) {
  const controller = new AbortController();
  const response = fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...headersOf(credential) },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  return { response, abort: () => controller.abort() };
}

/** POST /graphql: one answer. */
function overHttp(gateway: TestGateway, credential: Credential, request: OperationRequest): Opened {
  const { response, abort } = post(gateway, '/graphql', credential, 'application/graphql-response+json', request);
  const queue = new Queue(abort);
  whenAnswered(response, async (answer) => {
    const seen = await refusalOf(answer);
    queue.push(seen);
    if (seen.kind === 'result') queue.push({ kind: 'complete' });
  });
  return queue;
}

/** Reads a streamed body, handing each complete chunk (split by `separator`) to `onChunk`. */
async function readChunks(body: ReadableStream<Uint8Array>, separator: string, onChunk: (chunk: string) => void) {
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const bytes of body) {
      buffered += decoder.decode(bytes, { stream: true });
      for (let at = buffered.indexOf(separator); at >= 0; at = buffered.indexOf(separator)) {
        onChunk(buffered.slice(0, at));
        buffered = buffered.slice(at + separator.length);
      }
    }
  } catch {
    // aborted by the test
  }
  onChunk(buffered);
}

/** Apollo's multipart protocol on POST /graphql: each part a `{ payload }`, `{}` a heartbeat. */
function overMultipart(gateway: TestGateway, credential: Credential, request: OperationRequest): Opened {
  const accept = 'multipart/mixed;subscriptionSpec="1.0", application/json';
  const { response, abort } = post(gateway, '/graphql', credential, accept, request);
  const queue = new Queue(abort);
  whenAnswered(response, async (answer) => {
    if (!answer.headers.get('content-type')?.startsWith('multipart/mixed')) {
      const seen = await refusalOf(answer);
      queue.push(seen);
      if (seen.kind === 'result') queue.push({ kind: 'complete' });
      return;
    }
    await readChunks(answer.body!, '\r\n--graphql', (chunk) => {
      if (chunk.startsWith('--')) return queue.push({ kind: 'complete' });
      const json = chunk.slice(chunk.indexOf('\r\n\r\n') + 4).trim();
      if (!json.startsWith('{') || json === '{}') return;
      const part = JSON.parse(json) as {
        payload: { data?: unknown; errors?: CodedError[] } | null;
        errors?: CodedError[];
      };
      queue.push(part.payload ? { kind: 'result', ...part.payload } : { kind: 'ended', errors: part.errors ?? [] });
    });
  });
  return queue;
}

/** graphql-sse's distinct connections at /graphql/stream: `next` and `complete` events. */
function overSse(gateway: TestGateway, credential: Credential, request: OperationRequest): Opened {
  const { response, abort } = post(gateway, '/graphql/stream', credential, 'text/event-stream', request);
  const queue = new Queue(abort);
  whenAnswered(response, async (answer) => {
    if (!answer.headers.get('content-type')?.startsWith('text/event-stream'))
      return queue.push(await refusalOf(answer));
    await readChunks(answer.body!, '\n\n', (event) => {
      const name = /^event: (\w+)/m.exec(event)?.[1];
      if (name === 'complete') return queue.push({ kind: 'complete' });
      if (name !== 'next') return;
      const result = JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as { data?: unknown; errors?: CodedError[] };
      // The gateway's ending of a stream is a last result of coded errors and no data.
      queue.push(
        result.data === undefined && result.errors
          ? { kind: 'ended', errors: result.errors }
          : { kind: 'result', ...result },
      );
    });
  });
  return queue;
}

/** graphql-transport-ws over `ws`: `connection_init` (with the token, if any), then one `subscribe`. */
function overSocket(gateway: TestGateway, credential: Credential, request: OperationRequest): Opened {
  const { authorization, ...upgrade } = credential;
  const socket = new WebSocket(`${gateway.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', {
    headers: headersOf(upgrade),
  });
  const queue = new Queue(() => socket.terminate());
  socket.on('open', () =>
    socket.send(JSON.stringify({ type: 'connection_init', payload: authorization ? { authorization } : {} })),
  );
  socket.on('unexpected-response', (_req, res) =>
    queue.push({ kind: 'closed', code: res.statusCode ?? 0, reason: 'upgrade refused' }),
  );
  socket.on('error', () => undefined);
  socket.on('close', (code, reason) => queue.push({ kind: 'closed', code, reason: String(reason) }));
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; payload?: unknown };
    recordTraffic({ url: 'transport-wire', status: 101, headers: {}, body: String(data) });
    if (message.type === 'connection_ack')
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '', ...request } }));
    else if (message.type === 'next') queue.push({ kind: 'result', ...(message.payload as object) });
    else if (message.type === 'error')
      queue.push({ kind: 'refused', challenge: null, errors: message.payload as CodedError[] });
    else if (message.type === 'complete') queue.push({ kind: 'complete' });
  });
  return queue;
}

/** Opens one operation over the named transport. */
export function open(
  transport: TransportName,
  gateway: TestGateway,
  credential: Credential,
  request: OperationRequest,
): Opened {
  switch (transport) {
    case 'http':
      return overHttp(gateway, credential, request);
    case 'graphql-ws':
      return overSocket(gateway, credential, request);
    case 'multipart':
      return overMultipart(gateway, credential, request);
    case 'sse':
      return overSse(gateway, credential, request);
  }
}

/** The next result, skipping nothing: anything else fails the test with what was seen. */
export async function nextResult(opened: Opened): Promise<{ data?: unknown; errors?: CodedError[] }> {
  const seen = await opened.next();
  if (seen.kind !== 'result') throw new Error(`expected a result, saw ${JSON.stringify(seen)}`);
  return seen;
}

/** What ends or refuses an operation, past any results: the first thing that is not a result. */
export async function outcomeOf(opened: Opened): Promise<Exclude<Seen, { kind: 'result' }>> {
  for (;;) {
    const seen = await opened.next();
    if (seen.kind !== 'result') return seen;
  }
}
