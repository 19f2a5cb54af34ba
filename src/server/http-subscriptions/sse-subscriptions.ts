import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { createHandler, type Response as SseResponse } from 'graphql-sse';
import { BodyTooLargeError, readRawBody } from '@open-finance-gateway/common/http/read-body';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { RequestAuthenticator } from '../../auth/request-authentication.js';
import type { OperationCore } from '../../operation-core/operation-core.js';
import { answerErrors, answerRefusal, csrfRefused, STREAM_HEADERS } from '../edge/http-answers.js';
import { credentialsOf, type Credentials } from '../edge/http-credentials.js';
import type { StreamFrame, SubscriptionStreams } from './subscription-streams.js';

/** Where graphql-sse is served. */
export const SSE_PATH = '/graphql/stream';

export interface SseSubscriptionOptions {
  streams: SubscriptionStreams;
  core: OperationCore;
  /** The same question the /graphql handler and the socket ask of a request. */
  authenticator: RequestAuthenticator;
  maxBodyBytes: number;
  /** A stream whose unsent data passes this (its client stopped reading) is cut, as a socket is. */
  maxBufferedBytes: number;
  logger: Logger;
}

/** What one request carries through graphql-sse's handler. */
interface StreamRequestContext {
  credentials: Credentials;
  frames?: AsyncIterableIterator<StreamFrame>;
}

const jsonErrors = (status: number, headers: Record<string, string>, errors: unknown[]): SseResponse => [
  JSON.stringify({ errors }),
  {
    status,
    statusText: status === 429 ? 'Too Many Requests' : status === 503 ? 'Service Unavailable' : 'Bad Request',
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  },
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

async function* oneResult(result: ExecutionResult): AsyncGenerator<ExecutionResult> {
  yield result;
}

/**
 * graphql-sse's own request handling, with the operation core behind its `onSubscribe`: only
 * subscriptions are served here, admitted, prepared and opened as a live operation like over any
 * other transport.
 */
function sseHandlerOver({ core, streams }: SseSubscriptionOptions) {
  return createHandler<IncomingMessage, StreamRequestContext>({
    // No stream token: every request is its own stream (distinct connections).
    authenticate: () => null,
    onSubscribe: async (req, params) => {
      const prepared = core.prepare(params);
      if ('refused' in prepared) return jsonErrors(prepared.httpStatus, {}, core.refuse('sse', prepared.refused));
      if (prepared.type !== 'subscription' && prepared.type !== undefined) {
        const message = `Only subscriptions are served at ${SSE_PATH}; send queries and mutations to POST /graphql.`;
        return jsonErrors(400, {}, [{ message, extensions: { code: 'BAD_REQUEST' } }]);
      }
      const { session, tokenExpiresAt } = req.context.credentials;
      const opening = await streams.open(session, prepared, tokenExpiresAt);
      if (opening.kind === 'refused') return jsonErrors(opening.status, opening.headers, opening.errors);
      // One result as a stream of one: graphql-sse takes an object for a result only if it has `data`,
      // and a subscription refused at its start (MFA_REQUIRED, say) has errors alone.
      if (opening.kind === 'result') return oneResult(opening.result as ExecutionResult);
      req.context.frames = opening.frames;
      return resultsOf(opening.frames);
    },
  });
}

/** The request body of a POST, or undefined once a 413 has been answered. */
async function bodyOf(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<string | null | undefined> {
  if (req.method !== 'POST') return null;
  try {
    return (await readRawBody(req, maxBytes)).toString('utf8');
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    answerRefusal(req, res, { kind: 'body-too-large', limitBytes: error.limitBytes });
    return undefined;
  }
}

/**
 * graphql-sse (GraphQL over Server-Sent Events) at /graphql/stream, in its "distinct connections"
 * mode only: one operation per request (GET or POST with `Accept: text/event-stream`), each
 * authenticated by itself like a /graphql request. Its single-connection mode (a PUT reserving
 * a stream, operations POSTed beside it) is not served: its stream token would be a second
 * credential. Cookie clients meet the same Origin and CSRF rules as on /graphql.
 */
export function createSseSubscriptionHandler(options: SseSubscriptionOptions) {
  const handler = sseHandlerOver(options);
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const credentials = await credentialsOf(options.authenticator, req);
    if ('refusal' in credentials) return answerRefusal(req, res, credentials.refusal);
    if (csrfRefused(req)) return answerRefusal(req, res, { kind: 'cross-site' });
    if (req.headers.accept !== 'text/event-stream')
      return answerErrors(req, res, 406, [
        { message: 'Send `Accept: text/event-stream` (graphql-sse).', extensions: { code: 'BAD_REQUEST' } },
      ]);
    const body = await bodyOf(req, res, options.maxBodyBytes);
    if (body === undefined) return;
    const context: StreamRequestContext = { credentials };
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
