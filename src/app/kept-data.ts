import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { GatewayConfig } from '../config/config.js';
import type { GatewayEvents } from '../lib/gateway-events.js';
import { bindUserClient } from '../loaders/user-client.js';
import type { GatewayMetrics } from '../server/observability/metrics.js';
import type { CoreClient } from '../upstream/core-client.js';
import type { PlatformReads } from '../user-data/kept-platform.js';
import { createKeptReads, type KeptReads } from '../user-data/kept-reads.js';
import { WebhookChanges } from '../user-data/webhook-changes.js';
import { createReconciledEvents } from '../webhooks/reconciled-events.js';
import type { GatewayStores } from './stores.js';

/**
 * The deadline of a webhook's own platform read: the platform waits 5 s for its answer, and the
 * signing key's fetch may have taken 1.5 s of them. Past it the change is dropped instead (read by
 * the next read) and the webhook is still answered in time.
 */
const WEBHOOK_READ_MS = 2_500;

export interface KeptData {
  /** Reads of me, accounts and settled transactions through the user-data store; none when it is off. */
  keptReads: KeptReads | undefined;
  /** What each webhook changes in the store (and re-reads, to judge it by content), store or not. */
  webhookChanges: WebhookChanges;
  /** The user's platform reads, bound to their bank connection's token; undefined without one. */
  platformFor(userId: string): Promise<PlatformReads | undefined>;
}

/**
 * The kept user data's parts, wired: the reads the loaders go through (their reconciliations
 * published to the event log as the changes they found), what each webhook changes, and the
 * platform access a webhook's re-read uses (the user's token, and a 403 ending it as for requests).
 */
export function createKeptData(deps: {
  config: GatewayConfig;
  stores: GatewayStores;
  core: CoreClient;
  clock: Clock;
  logger: Logger;
  events: GatewayEvents;
  metrics: GatewayMetrics | undefined;
  tokenDied: (userId: string, token: string) => Promise<number>;
}): KeptData {
  const { stores, clock, logger, metrics } = deps;
  const reconciled = createReconciledEvents({
    eventLog: stores.eventLog,
    clock,
    logger,
    onPublished: (userId, type, code) => deps.events.emit('change-reconciled', { userId, type, code }),
  });
  const keptReads =
    stores.userData &&
    createKeptReads({
      store: stores.userData,
      clock,
      maxAgeMs: deps.config.userData.maxAgeMs,
      onLookup: (result) => metrics?.userDataLookup(result),
      onStoreFailure: (error) => {
        metrics?.userDataFailure();
        logger.warn(
          { err: { message: error instanceof Error ? error.message : String(error) } },
          'user-data store failed: reads go to the platform for a few seconds',
        );
      },
      onAccountsReconciled: reconciled.accounts,
      onTransactionsReconciled: reconciled.transactions,
    });
  return {
    keptReads,
    webhookChanges: new WebhookChanges(stores.userData, clock),
    async platformFor(userId) {
      const token = (await stores.bankConnections.get(userId))?.platformToken;
      if (token === undefined) return undefined;
      return bindUserClient(deps.core.withDeadline(WEBHOOK_READ_MS), token, async () => {
        const remaining = await deps.tokenDied(userId, token);
        logger.warn({ userId, remainingSessions: remaining }, 'platform refused the user token (403) during a webhook');
      });
    },
  };
}
