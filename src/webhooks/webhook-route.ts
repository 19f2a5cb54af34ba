import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BodyTimeoutError,
  BodyTooLargeError,
  mediaType,
  readRawBody,
} from '@open-finance-gateway/common/http/read-body';
import { sendError, sendJson } from '@open-finance-gateway/common/http/respond';
import type { Router } from '@open-finance-gateway/common/http/router';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import type { SigningKeyCache } from './signing-key-cache.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import { checkSignature } from './webhook-signature.js';

export interface WebhookRouteOptions {
  headerPrefix: string;
  keys: SigningKeyCache;
  /** What a verified body goes to: it claims, stores and dead-letters (see createWebhookDispatcher). */
  dispatcher: WebhookDispatcher;
  /** Told of each webhook's outcome (for metrics): published, duplicate, ignored, dead-lettered, in-progress, refused_<reason>, unavailable. */
  onOutcome?: (outcome: string) => void;
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
 * `POST /webhooks`, the HTTP edge only: the media type, draining, the body's size and time
 * limits, and the signature over the raw bytes; then the dispatcher stores the verified body.
 * Answers 200 only once its event is stored (the log, in memory or on Redis), or was stored
 * before, or the body was kept as a dead letter or ignored; a body another request is processing
 * gets 503 with Retry-After. So a failure is retried by the platform rather than lost.
 */
export function registerWebhookRoute(router: Router<ScopedRouteRequest>, options: WebhookRouteOptions): void {
  const route = new WebhookRoute(options);
  router.on('POST', '/webhooks', (request) => route.receive(request));
}

type Scope = ScopedRouteRequest['scope'];

class WebhookRoute {
  constructor(private readonly options: WebhookRouteOptions) {}

  async receive({ req, res, scope }: ScopedRouteRequest): Promise<void> {
    const raw = await this.verifiedBody(req, res, scope);
    if (!raw) return;
    const outcome = await this.options.dispatcher.dispatch(raw, scope.log);
    if (typeof outcome !== 'string') {
      // Another request holds the body: answering 200 now could acknowledge an event never stored.
      this.counted('in-progress');
      return sendError(res, 503, 'SERVICE_UNAVAILABLE', 'this delivery is being processed, retry later', {
        'retry-after': String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))),
      });
    }
    this.counted(outcome);
    sendJson(res, 200, { status: outcome });
  }

  private counted(outcome: string): void {
    this.options.onOutcome?.(outcome);
  }

  private unavailable(res: ServerResponse, message: string): void {
    sendError(res, 503, 'SERVICE_UNAVAILABLE', message, { 'retry-after': RETRY_AFTER_SECONDS });
  }

  /** The raw body once it is JSON, arrived whole and in time, and signed; otherwise refused (undefined). */
  private async verifiedBody(req: IncomingMessage, res: ServerResponse, scope: Scope): Promise<Buffer | undefined> {
    const { options } = this;
    if (mediaType(req) !== 'application/json') {
      this.counted('refused_media_type');
      sendError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'The content type must be application/json.', {
        connection: 'close',
      });
      return undefined;
    }
    if (!options.accepting()) {
      this.counted('unavailable');
      this.unavailable(res, 'shutting down');
      return undefined;
    }
    const raw = await this.readBody(req, res);
    if (!raw) return undefined;
    const check = await checkSignature(req.headersDistinct, raw, options.headerPrefix, options.keys);
    if (check.ok) return raw;
    const log = check.reason === 'key-weak' ? scope.log.error.bind(scope.log) : scope.log.warn.bind(scope.log);
    log({ reason: check.reason }, 'webhook refused: signature not verified');
    this.counted(check.retryable ? 'unavailable' : `refused_${check.reason}`);
    if (check.retryable) this.unavailable(res, 'signing key unavailable, retry later');
    else sendError(res, 401, 'INVALID_SIGNATURE', 'The signature could not be verified.');
    return undefined;
  }

  private async readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
    try {
      return await readRawBody(req, this.options.maxBodyBytes ?? 64 * 1024, this.options.bodyTimeoutMs ?? 3_000);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        this.counted('refused_too_large');
        sendError(res, 413, 'PAYLOAD_TOO_LARGE', 'The body is too large.', { connection: 'close' });
        return undefined;
      }
      if (error instanceof BodyTimeoutError) {
        this.counted('refused_body_timeout');
        sendError(res, 408, 'REQUEST_TIMEOUT', 'The body was not received in time.', { connection: 'close' });
        return undefined;
      }
      throw error;
    }
  }
}
