import type { Clock } from '../lib/clock.js';
import { sha256Hex } from '../lib/ids.js';
import { BodyTooLargeError, BodyTimeoutError, mediaType, readRawBody } from '../lib/http/read-body.js';
import { sendError, sendJson } from '../lib/http/respond.js';
import type { Router } from '../lib/http/router.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import { DEAD_LETTER_PREVIEW_BYTES, type DeadLetterStore } from './dead-letters.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import type { SigningKeyCache } from './signing-key-cache.js';
import type { DispatchOutcome, WebhookDispatcher } from './webhook-dispatcher.js';
import { checkSignature } from './webhook-signature.js';

export interface WebhookRouteOptions {
  headerPrefix: string;
  keys: SigningKeyCache;
  ledger: DeliveryLedger;
  deadLetters: DeadLetterStore;
  dispatcher: WebhookDispatcher;
  /** Told of each webhook's outcome (for metrics): published, duplicate, ignored, dead-lettered, refused_<reason>, unavailable. */
  onOutcome?: (outcome: string) => void;
  clock: Clock;
  /** False once shutdown began: nothing is acknowledged that could then be lost. */
  accepting(): boolean;
  /** @default 64 KiB */
  maxBodyBytes?: number;
  /** The whole body must arrive within this; the platform gives up after 5 s anyway. @default 3000 */
  bodyTimeoutMs?: number;
}

/** Asked to retry in a minute: long enough for a key budget to refill or a restart to finish. */
const RETRY_AFTER_SECONDS = '60';

/**
 * `POST /webhooks`: verify over the raw bytes, then deduplicate (claiming the body in the delivery
 * ledger while its user is looked up), then publish. Answers 200 only once the event is stored
 * (the log, in memory or on Redis), so a failure is retried by the
 * platform rather than lost. A verified body that cannot be understood is acknowledged and kept
 * as a dead letter: redelivering the same bytes for three days would not make it understandable.
 */
export function registerWebhookRoute(router: Router<ScopedRouteRequest>, options: WebhookRouteOptions): void {
  const unavailable = (res: Parameters<typeof sendJson>[0], message: string) =>
    sendError(res, 503, 'SERVICE_UNAVAILABLE', message, { 'retry-after': RETRY_AFTER_SECONDS });

  router.on('POST', '/webhooks', async ({ req, res, scope }) => {
    const counted = (outcome: string) => options.onOutcome?.(outcome);
    if (mediaType(req) !== 'application/json') {
      counted('refused_media_type');
      return sendError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'The content type must be application/json.', {
        connection: 'close',
      });
    }
    if (!options.accepting()) {
      counted('unavailable');
      return unavailable(res, 'shutting down');
    }
    let raw: Buffer;
    try {
      raw = await readRawBody(req, options.maxBodyBytes ?? 64 * 1024, options.bodyTimeoutMs ?? 3_000);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        counted('refused_too_large');
        return sendError(res, 413, 'PAYLOAD_TOO_LARGE', 'The body is too large.', { connection: 'close' });
      }
      if (error instanceof BodyTimeoutError) {
        counted('refused_body_timeout');
        return sendError(res, 408, 'REQUEST_TIMEOUT', 'The body was not received in time.', { connection: 'close' });
      }
      throw error;
    }
    const check = await checkSignature(
      req.headersDistinct as Record<string, string[] | undefined>,
      raw,
      options.headerPrefix,
      options.keys,
    );
    if (!check.ok) {
      const log = check.reason === 'key-weak' ? scope.log.error.bind(scope.log) : scope.log.warn.bind(scope.log);
      log({ reason: check.reason }, 'webhook refused: signature not verified');
      counted(check.retryable ? 'unavailable' : `refused_${check.reason}`);
      return check.retryable
        ? unavailable(res, 'signing key unavailable, retry later')
        : sendError(res, 401, 'INVALID_SIGNATURE', 'The signature could not be verified.');
    }

    const hash = sha256Hex(raw);
    const body = parseObject(raw);
    const claiming = options.ledger.claim(hash);
    // The claim and the routing lookup are independent reads: sent together, one round trip.
    const routing = typeof body === 'string' ? undefined : options.dispatcher.route(body);
    routing?.catch(() => undefined); // awaited below; a duplicate never looks at it
    if (!(await claiming)) {
      counted('duplicate');
      return sendJson(res, 200, { status: 'duplicate' });
    }

    if (typeof body === 'string') {
      const letter = {
        receivedAt: new Date(options.clock()).toISOString(),
        bodyHash: hash,
        reason: body,
        bodyBytes: raw.length,
        bodyPreview: raw.subarray(0, DEAD_LETTER_PREVIEW_BYTES).toString('utf8'),
      };
      await options.deadLetters.add(letter).catch(async (error: unknown) => {
        await options.ledger.release(hash).catch(() => undefined);
        throw error;
      });
      scope.log.error(
        { bodyHash: hash, reason: body, bytes: raw.length },
        'verified webhook is not a JSON object: acknowledged and kept as a dead letter',
      );
      counted('dead-lettered');
      return sendJson(res, 200, { status: 'dead-lettered' });
    }

    let outcome: DispatchOutcome;
    try {
      const routed = await routing!;
      if ('ignored' in routed) {
        scope.log.info(routed.fields, routed.ignored);
        outcome = 'ignored';
      } else outcome = await options.dispatcher.deliver(routed);
    } catch (error) {
      // Not handled: give the claim back so the platform's retry is processed, then fail (5xx).
      await options.ledger.release(hash).catch(() => undefined);
      throw error;
    }
    counted(outcome);
    sendJson(res, 200, { status: outcome });
  });
}

/** The body as a JSON object, or why it is not one. */
function parseObject(raw: Buffer): Record<string, unknown> | string {
  let body: unknown;
  try {
    // fatal: invalid UTF-8 is refused rather than silently replaced.
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw));
  } catch {
    return 'not valid JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'not a JSON object';
  return body as Record<string, unknown>;
}
