import { sha256Hex } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { BodyTooLargeError, readRawBody } from '../lib/http/read-body.js';
import { sendJson } from '../lib/http/respond.js';
import type { Router } from '../lib/http/router.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import type { SigningKeyCache } from './signing-key-cache.js';
import type { DispatchOutcome } from './webhook-dispatcher.js';
import { checkSignature } from './webhook-signature.js';

export interface WebhookRouteOptions {
  headerPrefix: string;
  keys: SigningKeyCache;
  ledger: DeliveryLedger;
  dispatch(body: Record<string, unknown>): Promise<DispatchOutcome>;
  logger: Logger;
  maxBodyBytes?: number;
}

/**
 * `POST /webhooks`: verify over the raw bytes, then deduplicate, then parse and dispatch. Answers
 * 200 only once the event is handled (published in-process), so a failure is retried by the
 * platform rather than lost.
 */
export function registerWebhookRoute(router: Router, options: WebhookRouteOptions): void {
  const inflight = new Map<string, Promise<DispatchOutcome>>();

  router.on('POST', '/webhooks', async ({ req, res }) => {
    let raw: Buffer;
    try {
      raw = await readRawBody(req, options.maxBodyBytes ?? 64 * 1024);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return sendJson(res, 413, { error: 'payload too large' });
      throw error;
    }
    const check = await checkSignature(req.headersDistinct as Record<string, string[] | undefined>, raw, options.headerPrefix, options.keys);
    if (!check.ok) {
      options.logger.warn({ reason: check.reason }, 'webhook refused: signature not verified');
      return sendJson(res, 401, { error: 'invalid signature' });
    }

    const hash = sha256Hex(raw);
    if (await options.ledger.has(hash)) return sendJson(res, 200, { status: 'duplicate' });
    const running = inflight.get(hash);
    if (running) {
      await running.catch(() => undefined);
      return sendJson(res, 200, { status: 'duplicate' });
    }

    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendJson(res, 400, { error: 'body is not JSON' });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return sendJson(res, 400, { error: 'body is not a JSON object' });

    const handling = options.dispatch(body as Record<string, unknown>);
    inflight.set(hash, handling);
    try {
      const outcome = await handling;
      await options.ledger.remember(hash);
      sendJson(res, 200, { status: outcome });
    } finally {
      inflight.delete(hash);
    }
  });
}
