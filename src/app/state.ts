import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import type { Logger } from '@open-finance-gateway/common/logger';
import { SessionManager } from '../auth/session-manager.js';
import { createTokenRevoker, type TokenRevoker } from '../auth/token-revoker.js';
import { UserDataEraser } from '../auth/user-data-eraser.js';
import type { GatewayConfig } from '../config/config.js';
import type { GatewayEvents } from '../lib/gateway-events.js';
import type { GatewayMetrics } from '../server/observability/metrics.js';
import type { CoreClient } from '../upstream/core-client.js';
import type { KeptReads } from '../user-data/kept-reads.js';
import { createKeptData, type KeptData } from './kept-data.js';
import { createStores, type GatewayStores } from './stores.js';

export interface GatewayState {
  stores: GatewayStores;
  sessions: SessionManager;
  /** Revokes the platform tokens the gateway no longer holds (a connection replaced by a new consent). */
  revoker: TokenRevoker;
  /** Deletes everything the gateway holds for a user, store by store. */
  eraser: UserDataEraser;
  /** Reads of me, accounts and settled transactions through the user-data store; none when it is off. */
  keptReads: KeptReads | undefined;
  /** What each webhook changes in the user-data store (and re-reads to judge it by content). */
  webhookChanges: KeptData['webhookChanges'];
  /** A user's platform reads for a webhook's re-read; undefined without a bank connection. */
  platformFor: KeptData['platformFor'];
  /**
   * A user's platform token is dead (a 403, or the platform's TOKEN DELETE webhook): the
   * connection goes if it still holds it, the sessions holding it end, and once none of the user's
   * sessions remain, everything held for them. Returns how many of their sessions remain.
   */
  tokenDied(userId: string, token: string): Promise<number>;
}

/**
 * Step 3: what the gateway keeps between requests (memory or Redis), the session manager over
 * it, and the user-data eraser that knows every store holding a user's data.
 */
export async function createState(
  config: GatewayConfig,
  coreClient: CoreClient,
  logger: Logger,
  clock: Clock,
  events: GatewayEvents,
  undo: Array<() => unknown>,
  options: {
    /** The gateway's public URL, known once it listens (the session cookie's name depends on it). */
    publicUrl: () => string;
    bankConnectionSweepIntervalMs?: number;
    metrics?: GatewayMetrics;
  },
): Promise<GatewayState> {
  const { metrics } = options;
  const stores = await createStores({
    config,
    clock,
    logger,
    // A lapsed session only closes its sockets: the bank connection belongs to the app user and
    // outlives sessions (revoked explicitly, on a dead token, or with the app account).
    onSessionExpired: (key, record) => sessions.expired(key, record),
    // No longer needed (the user has not signed in for BANK_CONNECTION_IDLE_DAYS): the consent ends at
    // the platform and what the gateway holds for the user goes.
    onBankConnectionExpired: (userId, record) => {
      logger.info(
        { userId, connectedAt: new Date(record.connectedAt).toISOString() },
        'bank connection idle past BANK_CONNECTION_IDLE_DAYS: revoking it',
      );
      // The revocation first (retried in the background if it fails), then the user's records.
      void revoker
        .revokeUnlessHeld(userId, record.platformToken)
        .then(() => eraser.forget(userId))
        .catch(() => undefined);
    },
    bankConnectionSweepIntervalMs: options.bankConnectionSweepIntervalMs,
    onRedisClientChange: (role, state) => events.emit('redis-client', { role, state }),
    userDataEvents: {
      onEviction: (reason, users) => metrics?.userDataEviction(reason, users),
      onUserBytes: (bytes) => metrics?.userDataBytes(bytes),
      // A user's record started again: an instance of an earlier version acknowledged a webhook for them.
      onForeignAcknowledgement: () => metrics?.userDataInvalidation('earlier_version'),
    },
  });
  undo.push(() => stores.close());
  // Sandbox-only mode may run without SESSION_SECRET: sessions then die with the process anyway.
  const sessions = new SessionManager({
    store: stores.sessions,
    secret: config.session.secret ?? randomToken(48),
    clock,
    maxAgeMs: config.session.maxAgeMs,
    idleTimeoutMs: config.session.idleTimeoutMs,
    publicUrl: options.publicUrl,
    endings: stores.sessionEndings,
  });
  const revoker = createTokenRevoker({
    core: coreClient,
    inUse: async (userId, token) => (await stores.bankConnections.get(userId))?.platformToken === token,
    logger,
  });
  undo.push(() => revoker.close());
  const eraser = new UserDataEraser(logger, (userId, failures) =>
    events.emit('user-data-deleted', { userId, failures }),
  );
  eraser.register('sessions', (userId) => sessions.endAllForUser(userId));
  eraser.register('connection', async (userId) => void (await stores.bankConnections.delete(userId)));
  eraser.register('events', (userId) => stores.eventLog.deleteUser(userId));
  eraser.register('routing-handles', (userId) => stores.handles.deleteUser(userId));
  const { userData } = stores;
  if (userData) eraser.register('user-data', (userId) => userData.deleteUser(userId));
  async function tokenDied(userId: string, token: string): Promise<number> {
    // The bank connection ended: the user's access tokens until now stop counting too, or a device
    // would sign its session back in with one.
    await stores.sessionEndings.endAccessBefore(userId, clock());
    await stores.bankConnections.delete(userId, token);
    const remaining = await sessions.endSessionsWithToken(userId, token);
    if (remaining === 0) await eraser.forget(userId);
    return remaining;
  }
  const kept = createKeptData({ config, stores, core: coreClient, clock, logger, events, metrics, tokenDied });
  return { stores, sessions, revoker, eraser, ...kept, tokenDied };
}
