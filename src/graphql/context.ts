import type { Logger } from '@open-finance-gateway/common/logger';
import type { AppKind } from '../config/config.js';
import type { EventLog } from '../event-log/event-log.js';
import type { IdempotencyKeys } from '../idempotency/idempotency-keys.js';
import type { RequestScope } from '../lib/request-scope.js';
import type { RequestLoaders } from '../loaders/request-loaders.js';
import type { UserClient } from '../loaders/user-client.js';

/**
 * What the session may reach, decided once per request from how the user signed in and whether
 * they have connected their bank; enforced by the access gate (root fields) and the auth checker.
 */
export interface AccessState {
  /** `none`: no accepted second factor; `stale`: older than MFA_MAX_AGE_SECONDS; `fresh`. */
  mfa: 'none' | 'stale' | 'fresh';
  /** When a second factor's freshness lapses (ms since the epoch); undefined without one. */
  mfaFreshUntil: number | undefined;
  /** MFA_POLICY: `read-only` lets weaker sign-ins read and lets nobody move money. */
  policy: 'required' | 'read-only';
  /** The app user has a bank connection (a platform token). */
  connected: boolean;
  /**
   * Signed in with an access token (a native or server client): it re-authenticates at its
   * identity provider, not through the gateway's cookie routes.
   */
  viaToken?: boolean;
  links: {
    /** Sign in again (with a second factor). */
    signInUrl: string;
    /** Authenticate again now (fresh MFA), then come back. */
    stepUpUrl: string;
    /** The consumer information page, then the platform's connection flow. */
    connectUrl: string;
  };
}

/** A signed-in device as the context reports it (instants in ms). */
export interface DeviceRecord {
  id: string;
  /** The app's client id; undefined for a browser's cookie session. */
  client: string | undefined;
  signedInAt: number;
  lastUsedAt: number;
  current: boolean;
}

/**
 * Per-request data handed to resolvers; for a subscription, per event (each event executes with a
 * context of its own, so nothing read for an earlier event is reused). Resolvers are singletons: everything request-specific,
 * and every way to reach an upstream, arrives here. The user access token does not: it is bound
 * inside `platform` and the loaders.
 */
export interface GatewayContext {
  user: { id: string };
  access: AccessState;
  /** The app user's bank connection as stored (when consent was given), read on demand. */
  connection(): Promise<{ connectedAt: number } | undefined>;
  loaders: RequestLoaders;
  /** Where webhook events arrive; subscriptions read only their own user's channel. */
  eventLog: EventLog;
  /** Core API calls that are not reads worth batching (mutations, verification, paging). */
  userClient: UserClient;
  session: {
    /** Ends every session of this user and deletes what the gateway holds for them. */
    end(): Promise<void>;
    /**
     * Revokes at the platform the user's tokens held by the gateway's other sessions (each
     * sign-in has its own). Best effort: returns how many were revoked and how many failed.
     */
    revokeOtherTokens(): Promise<{ revoked: number; failed: number }>;
    readonly ended: boolean;
    /** Whether the session still exists and is within its lifetimes (checked before each event). */
    isLive(): Promise<boolean>;
    /** The user's signed-in devices: browsers' sessions and apps' token families. */
    devices(): Promise<DeviceRecord[]>;
    /** Ends one device's sign-in (and its access tokens until now); false when there is no such device. */
    endDevice(id: string): Promise<boolean>;
    /** Ends every sign-in of the user (sessions and access tokens until now); the bank connection stays. */
    endAll(): Promise<void>;
  };
  appKind: AppKind;
  /** Idempotency keys for payments and transfers (client-supplied, or derived per user and input). */
  idempotencyKeys: IdempotencyKeys;
  links: {
    /** Where to send a user whose bank connection needs attention (starts the bank connection flow again). */
    reconnectUrl: string;
  };
  /**
   * A single-use, short-lived URL for a native app to open in the system browser: the consumer
   * information page, the platform's consent, then back to the app's registered `returnUri`.
   */
  startBankConnection(
    returnUri: string,
    appState: string,
  ): Promise<{ url: string; expiresAt: number } | { refused: 'RETURN_URI_NOT_ALLOWED' | 'BAD_STATE' }>;
  /** The request's logger (each line carries its id), or the gateway's for a subscription event. */
  logger: Logger;
  /** The HTTP request being served, when there is one (not for a subscription event). */
  requestScope: RequestScope | undefined;
}

/**
 * What a subscription holds while its socket is idle: enough to subscribe to the user's event log and
 * to check, before each event, that the session is still live. Each event then executes with a
 * full GatewayContext of its own, so an idle subscription costs as little memory as possible.
 */
export type SubscriptionContext = Pick<GatewayContext, 'user' | 'eventLog' | 'logger' | 'access'> & {
  session: Pick<GatewayContext['session'], 'isLive'>;
  /**
   * Told once live delivery is in effect (metrics, and anyone waiting for it). One function for
   * every subscription, given the user: a closure per subscription would live as long as it.
   */
  onStarted?: (userId: string, type: string) => void;
  /** Told once a started subscription has let go of its queue (completed, failed or returned). */
  onEnded?: (userId: string, type: string) => void;
};
