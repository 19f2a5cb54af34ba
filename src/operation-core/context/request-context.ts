import type { Logger } from '@open-finance-gateway/common/logger';
import type { BankConnectionStore } from '../../auth/bank-connection-store.js';
import type { PhoneBankConnection } from '../../auth/phone-bank-connection.js';
import type { Session } from '../../auth/session-manager.js';
import type { UserDataEraser } from '../../auth/user-data-eraser.js';
import type { AppKind } from '../../config/config.js';
import type { GatewayContext } from '../../graphql/context.js';
import { ErrorCode, gatewayError } from '../../graphql/errors.js';
import type { CreationOnce } from '../../idempotency/creation-once.js';
import type { IdempotencyKeyStore } from '../../idempotency/idempotency-key-store.js';
import { idempotencyKeysFor } from '../../idempotency/idempotency-keys.js';
import type { RequestScope } from '../../lib/request-scope.js';
import { RequestActivity } from '../../loaders/request-activity.js';
import { createRequestLoaders, type LoaderDependencies, type RequestLoaders } from '../../loaders/request-loaders.js';
import type { UserCallLimiter } from '../../loaders/user-call-limiter.js';
import { bindUserClient, type UserClient } from '../../loaders/user-client.js';
import type { CoreClient } from '../../upstream/core-client.js';
import { UpstreamError } from '../../upstream/upstream-error.js';
import { deviceControls } from './device-controls.js';
import { LazyContext, SessionControls, type LazyParts } from './lazy-context.js';
import { accessStates, livenessCheck, type SessionAccessDependencies } from './session-access.js';

export interface RequestContextDependencies extends SessionAccessDependencies {
  core: CoreClient;
  /** Each app user's bank connection (`Query.bankConnection` reads it). */
  bankConnections: BankConnectionStore;
  /** A token the platform refused (403): its connection, the sessions holding it, then the user's data. */
  tokenDied(userId: string, token: string): Promise<number>;
  loaders: LoaderDependencies;
  eraser: UserDataEraser;
  appKind: AppKind;
  /** Each user's share of upstream concurrency. */
  userCalls: UserCallLimiter;
  /** Where derived idempotency keys are claimed, and for how long the same input reuses one. */
  idempotencyKeys: { store: IdempotencyKeyStore; windowMs: number; once: CreationOnce };
  /** Connection URLs for native apps (`startBankConnection`). */
  phoneBankConnection: PhoneBankConnection;
}

/** What a request's user client reports to: its session state, upstream client, activity and logger. */
interface RequestParts {
  state: { ended: boolean };
  requestCore: () => CoreClient;
  activity: RequestActivity;
  logger: () => Logger;
}

/** The user's platform access through this request's core client, within the user's share of calls. */
function bindClient(
  deps: RequestContextDependencies,
  session: Session,
  token: string,
  { state, requestCore, activity, logger }: RequestParts,
): UserClient {
  return bindUserClient(
    requestCore(),
    token,
    async () => {
      // Only this token is known dead: the connection goes if it still holds it, and the
      // sessions holding it end (the user signs in again and reconnects).
      state.ended = true;
      const remaining = await deps.tokenDied(session.userId, token);
      logger().warn(
        { userId: session.userId, remainingSessions: remaining },
        'platform refused the user token (403): ended the sessions holding it',
      );
    },
    (call) => activity.track(() => deps.userCalls.run(session.userId, call)),
  );
}

/** Revokes the user's tokens other than this session's; one already dead at the platform (403) counts as revoked. */
async function revokeOtherTokens(
  deps: RequestContextDependencies,
  session: Session,
  core: CoreClient,
  logger: Logger,
): Promise<{ revoked: number; failed: number }> {
  const others = (await deps.sessions.tokensOfUser(session.userId)).filter((token) => token !== session.platformToken);
  let revoked = 0;
  let failed = 0;
  for (const token of others) {
    try {
      await core.revokeToken(token);
      revoked += 1;
    } catch (error) {
      // 403: already dead at the platform, which is the outcome wanted.
      if (error instanceof UpstreamError && error.status === 403) revoked += 1;
      else {
        failed += 1;
        logger.error(
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
}

/**
 * Builds each request's GraphQL context: loaders and the user client bound to the session's user.
 * `scope` is the HTTP request being served (none for a subscription event): its id goes on the
 * context's log lines and upstream calls.
 */
export function createRequestContextFactory(deps: RequestContextDependencies) {
  const accessState = accessStates(deps);
  /** `origin`: the request's `Origin` header, which decides where the handed-out links return to. */
  return (session: Session, scope?: RequestScope, origin?: string): GatewayContext => {
    const state = { ended: false };
    let loaders: RequestLoaders | undefined;
    // What this request has in flight upstream: enrichment lookups go out when nothing is. An HTTP
    // request stops counting among those a shared enrichment call waits for once its lookups are
    // queued (the HTTP edge counted it from its arrival, and stops at its response's end).
    const joinable = deps.loaders.joinable;
    const activity = new RequestActivity(scope && joinable ? () => joinable.uncount(scope) : undefined);
    const end = async () => {
      state.ended = true;
      await deps.eraser.forget(session.userId);
    };
    let userClient: UserClient | undefined;
    const access = accessState(session, origin);
    const logger = () => scope?.log ?? deps.logger;
    // Every core call this request makes carries its id; tagged on first use only.
    let core: CoreClient | undefined;
    const requestCore = () => (core ??= scope ? deps.core.forRequest(scope.requestId) : deps.core);
    // Built on first use: a request that enriches never needs the user client, and a
    // subscription's own context only subscribes to the event log.
    const lazyParts: LazyParts = {
      loaders: () =>
        (loaders ??= createRequestLoaders(
          deps.loaders,
          () => context.userClient,
          activity,
          scope?.requestId,
          session.userId,
        )),
      userClient: () => {
        // The access gate refuses platform-connected fields first; this guards any other path.
        if (session.platformToken === undefined)
          throw gatewayError(ErrorCode.NOT_CONNECTED, 'Connect your bank first.', {
            connectUrl: access.links.connectUrl,
          });
        return (userClient ??= bindClient(deps, session, session.platformToken, {
          state,
          requestCore,
          activity,
          logger,
        }));
      },
      idempotencyKeys: () =>
        idempotencyKeysFor(
          session.userId,
          deps.idempotencyKeys.store,
          deps.idempotencyKeys.windowMs,
          deps.idempotencyKeys.once,
        ),
      logger,
    };
    const context: GatewayContext = Object.assign(new LazyContext(lazyParts), {
      user: { id: session.userId },
      access,
      connection: () => deps.bankConnections.get(session.userId),
      eventLog: deps.eventLog,
      session: new SessionControls(
        state,
        end,
        () => revokeOtherTokens(deps, session, requestCore(), logger()),
        livenessCheck(deps, session, () => state.ended),
        deviceControls(deps.sessions, session, state),
      ),
      appKind: deps.appKind,
      links: { reconnectUrl: access.links.connectUrl },
      startBankConnection: (returnUri: string, appState: string) =>
        deps.phoneBankConnection.start(session.userId, returnUri, appState),
      requestScope: scope,
    });
    return context;
  };
}
