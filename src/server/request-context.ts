import type { Session, SessionManager } from '../auth/session-manager.js';
import type { UserDataEraser } from '../auth/user-data-eraser.js';
import type { AppKind } from '../config/config.js';
import type { EventStreamContext, GatewayContext } from '../graphql/context.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createRequestLoaders, type LoaderDependencies, type RequestLoaders } from '../loaders/request-loaders.js';
import { RequestActivity } from '../loaders/request-activity.js';
import { bindUserPlatform, type UserPlatform } from '../loaders/user-platform.js';
import type { UserCallLimiter } from '../loaders/user-call-limiter.js';
import type { CoreClient } from '../upstream/core-client.js';
import type { PubSub } from '../pubsub/pubsub.js';
import type { CreationKeyStore } from '../payments/creation-keys.js';
import { creationKeysFor } from '../payments/idempotency-keys.js';
import { UpstreamError } from '../upstream/upstream-error.js';

export interface RequestContextDependencies {
  core: CoreClient;
  sessions: SessionManager;
  loaders: LoaderDependencies;
  eraser: UserDataEraser;
  appKind: AppKind;
  pubsub: PubSub;
  publicUrl: () => string;
  /** Each user's share of upstream concurrency. */
  userCalls: UserCallLimiter;
  /** Where derived idempotency keys are claimed, and for how long the same input reuses one. */
  creationKeys: { store: CreationKeyStore; windowMs: number };
  clock: Clock;
  logger: Logger;
}

/**
 * Whether the session is still live. Before its known deadline it is, unless it was ended (here,
 * or anywhere: endings reach every instance through pub/sub and each socket's session re-check),
 * with no store read per event. Past that deadline the store is asked, since use elsewhere may
 * have extended it.
 */
function livenessCheck(
  deps: Pick<RequestContextDependencies, 'sessions' | 'clock'>,
  session: Session,
  endedHere: () => boolean,
): () => Promise<boolean> {
  let knownDeadline = deps.sessions.deadlineOf(session);
  return async () => {
    if (endedHere() || deps.sessions.wasEnded(session.key)) return false;
    if (deps.clock() < knownDeadline) return true;
    const current = await deps.sessions.lookup(session.key);
    if (!current) return false;
    knownDeadline = deps.sessions.deadlineOf(current);
    return deps.clock() < knownDeadline;
  };
}

/** The lean context a subscription keeps for its life (see EventStreamContext). */
export function createEventStreamContextFactory(
  deps: Pick<RequestContextDependencies, 'sessions' | 'clock' | 'pubsub' | 'logger'> & {
    /** A subscription's live delivery began. */
    onStarted?: (userId: string, type: string) => void;
  },
) {
  return (session: Session): EventStreamContext => ({
    user: { id: session.userId },
    pubsub: deps.pubsub,
    logger: deps.logger,
    session: { isLive: livenessCheck(deps, session, () => false) },
    onStarted: deps.onStarted && ((type) => deps.onStarted!(session.userId, type)),
  });
}

/** Builds each request's GraphQL context: loaders and platform access bound to the session's user. */
export function createRequestContextFactory(deps: RequestContextDependencies) {
  return (session: Session): GatewayContext => {
    let ended = false;
    let loaders: RequestLoaders | undefined;
    // What this request has in flight upstream: enrichment lookups go out when nothing is.
    const activity = new RequestActivity();
    const end = async () => {
      ended = true;
      await deps.eraser.forget(session.userId);
    };
    let platform: UserPlatform | undefined;
    const bindPlatform = () =>
      bindUserPlatform(
        deps.core,
        session.accessToken,
        async () => {
          // Only this token is known dead: the user's sessions holding another token carry on.
          ended = true;
          const remaining = await deps.sessions.endSessionsWithToken(session.userId, session.accessToken);
          deps.logger.warn(
            { userId: session.userId, remainingSessions: remaining },
            'platform refused the user token (403): ended the sessions holding it',
          );
          if (remaining === 0) await deps.eraser.forget(session.userId);
        },
        (call) => activity.track(() => deps.userCalls.run(session.userId, call)),
      );
    return {
      user: { id: session.userId },
      // Built on first use: a subscription's own context only opens the event stream and never
      // needs them, and each socket should cost as little as possible while idle.
      get loaders() {
        return (loaders ??= createRequestLoaders(deps.loaders, this.platform, activity));
      },
      pubsub: deps.pubsub,
      // Also built on first use, for the same reason (a dozen closures per context).
      get platform() {
        return (platform ??= bindPlatform());
      },
      session: {
        end,
        async revokeOtherTokens() {
          const others = (await deps.sessions.tokensOfUser(session.userId)).filter(
            (token) => token !== session.accessToken,
          );
          let revoked = 0;
          let failed = 0;
          for (const token of others) {
            try {
              await deps.core.revokeToken(token);
              revoked += 1;
            } catch (error) {
              // 403: already dead at the platform, which is the outcome wanted.
              if (error instanceof UpstreamError && error.status === 403) revoked += 1;
              else {
                failed += 1;
                deps.logger.error(
                  {
                    userId: session.userId,
                    kind: error instanceof UpstreamError ? error.kind : 'unexpected',
                    status: error instanceof UpstreamError ? error.status : undefined,
                  },
                  "could not revoke another session's token",
                );
              }
            }
          }
          return { revoked, failed };
        },
        get ended() {
          return ended;
        },
        isLive: livenessCheck(deps, session, () => ended),
      },
      appKind: deps.appKind,
      get creationKeys() {
        return creationKeysFor(session.userId, deps.creationKeys.store, deps.creationKeys.windowMs);
      },
      links: {
        get reconnectUrl() {
          return `${deps.publicUrl()}/auth/login?returnTo=%2Fgraphql`;
        },
      },
      logger: deps.logger,
    };
  };
}
