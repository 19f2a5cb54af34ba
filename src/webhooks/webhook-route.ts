import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '@open-finance-gateway/common/clock';
import {
  BodyTimeoutError,
  BodyTooLargeError,
  mediaType,
  readRawBody,
} from '@open-finance-gateway/common/http/read-body';
import { sendError, sendJson } from '@open-finance-gateway/common/http/respond';
import type { Router } from '@open-finance-gateway/common/http/router';
import { sha256Hex } from '@open-finance-gateway/common/ids';
import type { DeliveryScope } from '../event-log/delivery-marks.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import { DEAD_LETTER_PREVIEW_BYTES, type DeadLetterStore } from './dead-letter-store.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import type { SigningKeyCache } from './signing-key-cache.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import { checkSignature } from './webhook-signature.js';

export interface WebhookRouteOptions {
  headerPrefix: string;
  keys: SigningKeyCache;
  ledger: DeliveryLedger;
  deadLetters: DeadLetterStore;
  dispatcher: WebhookDispatcher;
  /** Told of each webhook's outcome (for metrics): published, duplicate, ignored, dead-lettered, in-progress, refused_<reason>, unavailable. */
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
 * `POST /webhooks`: verify over the raw bytes, look its user up, claim the body in the delivery
 * ledger (in progress), then publish, which stores the event and marks the body done in one step.
 * Answers 200 only once the event is stored (the log, in memory or on Redis), or was stored before;
 * a body another request is processing gets 503 with Retry-After. So a failure is retried by the
 * platform rather than lost. A verified body that cannot be understood is acknowledged and kept
 * as a dead letter: redelivering the same bytes for three days would not make it understandable.
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
    const outcome = await this.store(raw, scope);
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

  /** Stores a verified body: its event for its user, or a dead letter when it cannot be understood. */
  private async store(raw: Buffer, scope: Scope): Promise<string | InProgress> {
    const { dispatcher } = this.options;
    const hash = sha256Hex(raw);
    const body = parseObject(raw);
    if (typeof body === 'string') return this.deadLetter(raw, hash, body, scope);
    // The user first: the claim lives in their key space, next to the event log it ends in.
    const routed = await dispatcher.route(body);
    if ('ignored' in routed) {
      // Nothing is stored or changed, so a redelivery is harmless: no claim needed.
      scope.log.info(routed.fields, routed.ignored);
      return 'ignored';
    }
    return this.claimed(
      { userId: routed.userId },
      hash,
      () => dispatcher.deliver(routed, hash),
      () => dispatcher.redo(routed),
    );
  }

  private deadLetter(raw: Buffer, hash: string, reason: string, scope: Scope): Promise<string | InProgress> {
    const letter = {
      receivedAt: new Date(this.options.clock()).toISOString(),
      bodyHash: hash,
      reason,
      bodyBytes: raw.length,
      bodyPreview: raw.subarray(0, DEAD_LETTER_PREVIEW_BYTES).toString('utf8'),
    };
    return this.claimed('dead-letters', hash, async () => {
      if (!(await this.options.deadLetters.add(letter))) return 'duplicate';
      scope.log.error(
        { bodyHash: hash, reason, bytes: raw.length },
        'verified webhook is not a JSON object: acknowledged and kept as a dead letter',
      );
      return 'dead-lettered';
    });
  }

  /**
   * Runs `store` under a claim of the body (see DeliveryLedger). A body stored before is a
   * duplicate (its idempotent side effects redone); a failure gives the claim back, so the
   * platform's retry is processed (and were the claim not given back, its lease runs out).
   */
  private async claimed(
    scope: DeliveryScope,
    hash: string,
    store: () => Promise<string>,
    redo?: () => Promise<void>,
  ): Promise<string | InProgress> {
    const { ledger } = this.options;
    const claim = await ledger.claim(scope, hash);
    if (claim.state === 'in-progress') return { retryAfterMs: claim.retryAfterMs };
    if (claim.state === 'done') {
      await redo?.();
      return 'duplicate';
    }
    try {
      return await store();
    } catch (error) {
      await ledger.release(scope, hash, claim.token).catch(() => undefined);
      throw error;
    }
  }
}

interface InProgress {
  retryAfterMs: number;
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
