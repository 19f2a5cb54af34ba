import type { Clock } from '@open-finance-gateway/common/clock';
import type { Router } from '@open-finance-gateway/common/http/router';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { GatewayConfig } from '../config/config.js';
import type { GatewayEvents } from '../lib/gateway-events.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import type { GatewayMetrics } from '../server/observability/metrics.js';
import { createSigningKeyClient } from '../upstream/signing-key-client.js';
import type { UpstreamHttp } from '../upstream/upstream-http.js';
import { SigningKeyCache } from '../webhooks/signing-key-cache.js';
import { createWebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { registerWebhookRoute } from '../webhooks/webhook-route.js';
import type { GatewayState } from './state.js';
import type { UpstreamEndpoints } from './upstream-choice.js';

/**
 * Step 4 (full apps only): the webhook receiver. Verified → deduplicated → routed to its user →
 * published to the event log, where subscriptions read it.
 */
export function registerWebhookReceiver(
  router: Router<ScopedRouteRequest>,
  deps: {
    config: GatewayConfig;
    endpoints: UpstreamEndpoints;
    keysHttp: UpstreamHttp;
    state: GatewayState;
    metrics: GatewayMetrics;
    logger: Logger;
    clock: Clock;
    /** False while starting, draining, or with the shared store down: webhooks get 503. */
    accepting: () => boolean;
    events: GatewayEvents;
  },
): void {
  const { config, state, metrics, logger, clock } = deps;
  const keyClient = createSigningKeyClient(deps.keysHttp, deps.endpoints.core.appToken, deps.endpoints.core.appSecret);
  registerWebhookRoute(router, {
    headerPrefix: config.headerPrefix,
    keys: new SigningKeyCache({
      fetchKey: (id) =>
        keyClient.fetchKey(id).then(
          (key) => (metrics.keyFetch('ok'), key),
          (error: unknown) => {
            metrics.keyFetch('failed');
            throw error;
          },
        ),
      clock,
      unknownFetchesPerMinute: config.webhooks.keyFetchesPerMinute,
    }),
    accepting: deps.accepting,
    bodyTimeoutMs: config.http.webhookBodyTimeoutMs,
    onOutcome: (outcome) => metrics.webhook(outcome),
    dispatcher: createWebhookDispatcher({
      eventLog: state.stores.eventLog,
      handles: state.stores.handles,
      ledger: state.stores.ledger,
      deadLetters: state.stores.deadLetters,
      logger,
      clock,
      onPublished: (userId, type, code) => deps.events.emit('webhook-published', { userId, type, code }),
      onTokenRevoked: async (userId, token) => void (await state.tokenDied(userId, token)),
      changes: state.webhookChanges,
      platformFor: state.platformFor,
      onUserDataChanged: (cause) => metrics.userDataInvalidation(cause),
    }),
  });
}
