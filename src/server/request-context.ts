import type { Session, SessionManager } from '../auth/session-manager.js';
import type { UserDataEraser } from '../auth/user-data-eraser.js';
import type { AppKind } from '../config/config.js';
import type { GatewayContext } from '../graphql/context.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createRequestLoaders, type LoaderDependencies, type RequestLoaders } from '../loaders/request-loaders.js';
import { bindUserPlatform } from '../loaders/user-platform.js';
import type { UserCallLimiter } from '../loaders/user-call-limiter.js';
import type { CoreClient } from '../upstream/core-client.js';
import type { PubSub } from '../pubsub/pubsub.js';
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
  clock: Clock;
  logger: Logger;
}

/** Builds each request's GraphQL context: loaders and platform access bound to the session's user. */
export function createRequestContextFactory(deps: RequestContextDependencies) {
  return (session: Session): GatewayContext => {
    let ended = false;
    let loaders: RequestLoaders | undefined;
    let knownDeadline = deps.sessions.deadlineOf(session);
    const end = async () => {
      ended = true;
      await deps.eraser.forget(session.userId);
    };
    const platform = bindUserPlatform(deps.core, session.accessToken, async () => {
      // Only this token is known dead: the user's sessions holding another token carry on.
      ended = true;
      const remaining = await deps.sessions.endSessionsWithToken(session.userId, session.accessToken);
      deps.logger.warn({ userId: session.userId, remainingSessions: remaining }, 'platform refused the user token (403): ended the sessions holding it');
      if (remaining === 0) await deps.eraser.forget(session.userId);
    }, (call) => deps.userCalls.run(session.userId, call));
    return {
      user: { id: session.userId },
      // Built on first use: a subscription's own context only opens the event stream and never
      // needs them, and each socket should cost as little as possible while idle.
      get loaders() {
        return (loaders ??= createRequestLoaders(deps.loaders, platform));
      },
      pubsub: deps.pubsub,
      platform,
      session: {
        end,
        async revokeOtherTokens() {
          const others = (await deps.sessions.tokensOfUser(session.userId)).filter((token) => token !== session.accessToken);
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
                deps.logger.error({ userId: session.userId, kind: error instanceof UpstreamError ? error.kind : 'unexpected', status: error instanceof UpstreamError ? error.status : undefined }, 'could not revoke another session\'s token');
              }
            }
          }
          return { revoked, failed };
        },
        get ended() {
          return ended;
        },
        // Before its known deadline the session is live unless it was ended, and endings reach
        // every instance (pub/sub, and each socket's session re-check): no store read per event.
        // Past that deadline the store is asked, since use elsewhere may have extended it.
        isLive: async () => {
          if (ended || deps.sessions.wasEnded(session.key)) return false;
          if (deps.clock() < knownDeadline) return true;
          const current = await deps.sessions.lookup(session.key);
          if (!current) return false;
          knownDeadline = deps.sessions.deadlineOf(current);
          return deps.clock() < knownDeadline;
        },
      },
      appKind: deps.appKind,
      links: { reconnectUrl: `${deps.publicUrl()}/auth/login?returnTo=%2Fgraphql` },
      logger: deps.logger,
    };
  };
}
