import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { Session } from '../../auth/session-manager.js';
import { ErrorCode } from '../../graphql/errors.js';
import type { PreparedOperation } from '../../operation-core/operation-core.js';
import { answerErrors, STREAM_HEADERS } from '../edge/http-answers.js';
import type { StreamFrame, SubscriptionStreams } from './subscription-streams.js';

export interface MultipartSubscriptionOptions {
  streams: SubscriptionStreams;
  /** A `{}` part this often keeps proxies and clients from timing an idle stream out. @default 5000 */
  heartbeatMs?: number;
  /** A stream whose unsent data passes this (its client stopped reading) is cut, as a socket is. */
  maxBufferedBytes: number;
  logger: Logger;
}

const BOUNDARY = 'graphql';
const DELIMITER = `\r\n--${BOUNDARY}\r\n`;
const CLOSE_DELIMITER = `\r\n--${BOUNDARY}--\r\n`;
const PART_HEADERS = 'content-type: application/json; charset=utf-8\r\n\r\n';

/** Whether the client speaks Apollo's multipart subscription protocol (Apollo Client, Apollo iOS and Kotlin). */
export function acceptsMultipartSubscription(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return /multipart\/mixed/i.test(accept) && /subscriptionSpec\s*=\s*"?1\.0"?/i.test(accept);
}

/**
 * Apollo's multipart HTTP protocol for subscriptions, on POST /graphql: the response is
 * `multipart/mixed; boundary="graphql"`, each part JSON. A `{}` part is a heartbeat; an event is
 * `{"payload": <result>}`; the stream ends with `{"payload": null, "errors": [...]}` (a transport
 * error: access ended, shutdown, a subscriber dropped) or, when it completes, the closing
 * delimiter. Each part is written followed by the next delimiter, so the client can read it at
 * once. The /graphql handler hands it the subscriptions it prepared for a client that accepts it.
 */
export function createMultipartSubscriptions(options: MultipartSubscriptionOptions) {
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    session: Session,
    prepared: PreparedOperation,
    tokenExpiresAt: number | undefined,
  ): Promise<void> => {
    const opening = await options.streams.open(session, prepared, tokenExpiresAt);
    if (opening.kind === 'refused') return answerErrors(req, res, opening.status, opening.errors, opening.headers);
    if (opening.kind === 'result') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...STREAM_HEADERS });
      res.end(JSON.stringify(opening.result));
      return;
    }
    await writeStream(options, res, opening.frames);
  };
}

async function writeStream(
  options: MultipartSubscriptionOptions,
  res: ServerResponse,
  frames: AsyncIterableIterator<StreamFrame>,
): Promise<void> {
  res.writeHead(200, {
    'content-type': `multipart/mixed; boundary="${BOUNDARY}"; subscriptionSpec="1.0"`,
    ...STREAM_HEADERS,
  });
  const open = () => !res.destroyed && !res.writableEnded;
  const writePart = (json: string, last = false) => {
    if (!open()) return;
    res.write(`${PART_HEADERS}${json}${last ? CLOSE_DELIMITER : DELIMITER}`);
    if (res.writableLength > options.maxBufferedBytes) {
      options.logger.warn({ buffered: res.writableLength }, 'multipart stream cut: its client is not reading');
      res.destroy();
    }
  };
  // The client is gone: its subscription and everything it holds are freed at once.
  res.once('close', () => void frames.return?.());
  res.write(DELIMITER);
  writePart('{}');
  const heartbeat = setInterval(() => writePart('{}'), options.heartbeatMs ?? 5_000);
  heartbeat.unref();
  try {
    for await (const frame of frames) {
      if ('result' in frame) {
        writePart(JSON.stringify({ payload: frame.result }));
        continue;
      }
      if (frame.end.length > 0) return writePart(JSON.stringify({ payload: null, errors: frame.end }), true);
      break;
    }
    writePart('{}', true);
  } catch (error) {
    options.logger.error({ err: error }, 'multipart stream failed');
    writePart(
      JSON.stringify({
        payload: null,
        errors: [{ message: 'Internal server error', extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } }],
      }),
      true,
    );
  } finally {
    clearInterval(heartbeat);
    if (open()) res.end();
  }
}
