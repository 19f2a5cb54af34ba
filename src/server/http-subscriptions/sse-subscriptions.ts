import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { createHandler, type Response as SseResponse } from 'graphql-sse';
import { BodyTooLargeError, readRawBody } from '@open-finance-gateway/common/http/read-body';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { Session } from '../../auth/session-manager.js';
import { ErrorCode } from '../../graphql/errors.js';
import { answerErrors, CSRF_MESSAGE, csrfRefused, STREAM_HEADERS } from './stream-answers.js';
import type { StreamFrame, SubscriptionStreams } from './subscription-streams.js';

/** Where graphql-sse is served. */
export const SSE_PATH = '/graphql/stream';

/**
 * Who a request is, as the /graphql handler and the socket ask it: a session (and, for an access
 * token, when it expires), credentials refused with a coded answer, or none (undefined).
 */
export type StreamAuthentication =
  | { ok: true; session: Session; tokenExpiresAt?: number }
  | { ok: false; refusal: { status: number; code: string; reason: string; message: string } }
  | undefined;

export interface SseSubscriptionOptions {
  streams: SubscriptionStreams;
  /** The same function the /graphql handler and the socket use. */
  authenticate(req: IncomingMessage): Promise<StreamAuthentication>;
  maxBodyBytes: number;
  /** A stream whose unsent data passes this (its client stopped reading) is cut, as a socket is. */
  maxBufferedBytes: number;
  logger: Logger;
}

/** What one request carries through graphql-sse's handler. */
interface StreamRequestContext {
  session: Session;
  endsAt?: number;
  frames?: AsyncIterableIterator<StreamFrame>;
}

const jsonErrors = (status: number, statusText: string, errors: unknown[]): SseResponse => [
  JSON.stringify({ errors }),
  { status, statusText, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } },
];

/** A stream's frames as graphql-sse's results: the end's coded errors become the last result. */
async function* resultsOf(frames: AsyncIterableIterator<StreamFrame>): AsyncGenerator<ExecutionResult> {
  try {
    for await (const frame of frames) {
      if ('result' in frame) {
        yield frame.result as ExecutionResult;
        continue;
      }
      if (frame.end.length > 0) yield { errors: frame.end } as unknown as ExecutionResult;
      return;
    }
  } finally {
    await frames.return?.();
  }
}

/**
 * graphql-sse (GraphQL over Server-Sent Events) at /graphql/stream, in its "distinct connections"
 * mode only: one operation per request (GET or POST with `Accept: text/event-stream`), each
 * authenticated by itself like a /graphql request. Its single-connection mode (a PUT reserving
 * a stream, operations POSTed beside it) is not served: its stream token would be a second
 * credential. Only subscriptions run here; queries and mutations go to /graphql. Cookie clients
 * meet the same Origin and CSRF rules as on /graphql.
 */
export function createSseSubscriptionHandler(options: SseSubscriptionOptions) {
  const handler = createHandler<IncomingMessage, StreamRequestContext>({
    // No stream token: every request is its own stream (distinct connections).
    authenticate: () => null,
    onSubscribe: async (req, params) => {
      const opening = await options.streams.open(req.context.session, params, req.context.endsAt);
      switch (opening.kind) {
        case 'not-subscription':
          return jsonErrors(400, 'Bad Request', [
            {
              message: `Only subscriptions are served at ${SSE_PATH}; send queries and mutations to POST /graphql.`,
              extensions: { code: 'BAD_REQUEST' },
            },
          ]);
        case 'refused':
          return jsonErrors(
            opening.status,
            opening.status === 429 ? 'Too Many Requests' : 'Bad Request',
            opening.errors,
          );
        case 'result':
          return opening.result as ExecutionResult;
        case 'stream':
          req.context.frames = opening.frames;
          return resultsOf(opening.frames);
      }
    },
  });

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const authentication = await options.authenticate(req);
    if (authentication && !authentication.ok) {
      const { status, code, reason, message } = authentication.refusal;
      return answerErrors(req, res, status, [{ message, extensions: { code, reason } }]);
    }
    if (!authentication)
      return answerErrors(req, res, 401, [
        {
          message: 'Sign in first: GET /auth/login starts the sign-in.',
          extensions: { code: ErrorCode.UNAUTHENTICATED },
        },
      ]);
    const { session, tokenExpiresAt } = authentication;
    if (csrfRefused(req))
      return answerErrors(req, res, 400, [{ message: CSRF_MESSAGE, extensions: { code: 'BAD_REQUEST' } }]);
    if (req.headers.accept !== 'text/event-stream')
      return answerErrors(req, res, 406, [
        { message: 'Send `Accept: text/event-stream` (graphql-sse).', extensions: { code: 'BAD_REQUEST' } },
      ]);
    let body: string | null = null;
    if (req.method === 'POST') {
      try {
        body = (await readRawBody(req, options.maxBodyBytes)).toString('utf8');
      } catch (error) {
        if (!(error instanceof BodyTooLargeError)) throw error;
        return answerErrors(req, res, 413, [
          { message: `Request body exceeds ${error.limitBytes} bytes.`, extensions: { code: 'BAD_REQUEST' } },
        ]);
      }
    }
    const context: StreamRequestContext = { session, endsAt: tokenExpiresAt };
    const [answer, init] = await handler({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: { get: (name) => [req.headers[name] ?? ''].flat().join('\n') || undefined },
      body,
      raw: req,
      context,
    });
    res.writeHead(init.status, init.statusText, {
      ...init.headers,
      ...(typeof answer === 'string' ? {} : STREAM_HEADERS),
    });
    if (answer === null || typeof answer === 'string') return void res.end(answer ?? undefined);
    // The client is gone: its subscription and everything it holds are freed at once.
    res.once('close', () => {
      void context.frames?.return?.();
      void answer.return();
    });
    for await (const message of answer) {
      if (res.destroyed || res.writableEnded) break;
      res.write(message);
      if (res.writableLength > options.maxBufferedBytes) {
        options.logger.warn({ buffered: res.writableLength }, 'event stream cut: its client is not reading');
        res.destroy();
      }
    }
    if (!res.writableEnded) res.end();
  };
}
