import type { Session, SessionManager } from '../auth/session-manager.js';
import type { UserDataEraser } from '../auth/user-data-eraser.js';
import type { AppKind, GatewayConfig } from '../config/config.js';
import { mfaStatus } from '../auth/app-sign-in.js';
import type { ConnectionStore } from '../auth/connection-store.js';
import type { AccessState, EventStreamContext, GatewayContext } from '../graphql/context.js';
import { ErrorCode, gatewayError } from '../graphql/errors.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { RequestScope } from '../lib/request-scope.js';
import { createRequestLoaders, type LoaderDependencies, type RequestLoaders } from '../loaders/request-loaders.js';
import { RequestActivity } from '../loaders/request-activity.js';
import { bindUserPlatform, type UserPlatform } from '../loaders/user-platform.js';
import type { UserCallLimiter } from '../loaders/user-call-limiter.js';
import type { CoreClient } from '../upstream/core-client.js';
import type { PubSub } from '../pubsub/pubsub.js';
import type { CreationKeyStore } from '../payments/creation-keys.js';
import { creationKeysFor } from '../payments/idempotency-keys.js';
import type { CreationOnce } from '../payments/creation-once.js';
import { UpstreamError } from '../upstream/upstream-error.js';

export interface RequestContextDependencies {
  core: CoreClient;
  sessions: SessionManager;
  /** Each app user's bank connection (`Query.connection` reads it). */
  connections: ConnectionStore;
  /** A token the platform refused (403): its connection, the sessions holding it, then the user's data. */
  tokenDied(userId: string, token: string): Promise<number>;
  /** The multi-factor policy, acceptable methods and freshness. */
  mfa: GatewayConfig['mfa'];
  loaders: LoaderDependencies;
  eraser: UserDataEraser;
  appKind: AppKind;
  pubsub: PubSub;
  publicUrl: () => string;
  /** Frontends' origins (ALLOWED_ORIGINS): links handed to one of them return the browser to it. */
  allowedOrigins?: () => ReadonlySet<string>;
  /** Each user's share of upstream concurrency. */
  userCalls: UserCallLimiter;
  /** Where derived idempotency keys are claimed, and for how long the same input reuses one. */
  creationKeys: { store: CreationKeyStore; windowMs: number; once: CreationOnce };
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

/**
 * What a session may reach: its MFA status now (from the sign-in's `amr` and `auth_time`), the
 * policy, whether the user is connected, and where to send them when something is missing. The
 * links return the browser to the requesting frontend's root when its `Origin` is another allowed
 * origin (after sign-in on the gateway's pages), otherwise to `/graphql`. They are made once per
 * public URL and origin (ALLOWED_ORIGINS bounds how many) and shared by every context and idle
 * subscription.
 */
function accessStates(deps: Pick<RequestContextDependencies, 'mfa' | 'clock' | 'publicUrl' | 'allowedOrigins'>) {
  let shared: { base: string; origin: string; links: Map<string, AccessState['links']> } | undefined;
  const linksFor = (base: string, origin: string | undefined): AccessState['links'] => {
    if (shared?.base !== base) shared = { base, origin: new URL(base).origin, links: new Map() };
    const returnTo =
      origin !== undefined && origin !== shared.origin && deps.allowedOrigins?.().has(origin)
        ? `${origin}/`
        : '/graphql';
    let links = shared.links.get(returnTo);
    if (!links) {
      const query = new URLSearchParams({ returnTo });
      links = Object.freeze({
        signInUrl: `${base}/auth/login?${query}`,
        stepUpUrl: `${base}/auth/step-up?${query}`,
        connectUrl: `${base}/auth/consumer-info?${query}`,
      });
      shared.links.set(returnTo, links);
    }
    return links;
  };
  return (session: Session, origin?: string): AccessState => {
    const mfa = mfaStatus(session, deps.mfa, deps.clock());
    return {
      mfa,
      mfaFreshUntil: mfa === 'none' ? undefined : session.authTime + deps.mfa.maxAgeMs,
      policy: deps.mfa.policy,
      connected: session.accessToken !== undefined,
      links: linksFor(deps.publicUrl(), origin),
    };
  };
}

/** The lean context a subscription keeps for its life (see EventStreamContext). */
export function createEventStreamContextFactory(
  deps: Pick<RequestContextDependencies, 'sessions' | 'clock' | 'pubsub' | 'logger' | 'mfa' | 'publicUrl'> & {
    /** A subscription's live delivery began. */
    onStarted?: (userId: string, type: string) => void;
  },
) {
  const accessState = accessStates(deps);
  return (session: Session): EventStreamContext => ({
    user: { id: session.userId },
    access: accessState(session),
    pubsub: deps.pubsub,
    logger: deps.logger,
    session: { isLive: livenessCheck(deps, session, () => false) },
    onStarted: deps.onStarted && ((type) => deps.onStarted!(session.userId, type)),
  });
}

/** What a request's context builds only when first asked for. */
interface LazyParts {
  loaders(): RequestLoaders;
  platform(): UserPlatform;
  creationKeys(): GatewayContext['creationKeys'];
  logger(): Logger;
}

const LAZY = Symbol('lazy context parts');

/**
 * The prototype every request's context shares, with the lazy parts behind its getters.
 * - Not own getters: Apollo clones each context with `Object.assign`, which would call them
 *   (building every loader, binding the platform) for every request. The clone copies the
 *   (enumerable) `LAZY` slot, so it builds and caches the same parts as the original.
 * - Not accessors defined on each request's object either: V8 keeps those in the old generation,
 *   and everything their getters reach (the request's loaders and upstream answers) then
 *   outlived every young collection until the next full one.
 * - Not a prototype object per request: V8 gives objects made from a new prototype new hidden
 *   classes, which live in the old generation and reach the request's closures until the next
 *   full collection, so each request's context left the young generation. Measured with
 *   `--trace-gc-nvp` on `{ __typename }`: 860 KB promoted per scavenge with a prototype per
 *   request, 360 KB with this one, 113 KB once no per-request object defined an accessor either.
 */
class LazyContext {
  [LAZY]: LazyParts;
  constructor(parts: LazyParts) {
    this[LAZY] = parts;
  }
  get loaders(): RequestLoaders {
    return this[LAZY].loaders();
  }
  get platform(): UserPlatform {
    return this[LAZY].platform();
  }
  get creationKeys(): GatewayContext['creationKeys'] {
    return this[LAZY].creationKeys();
  }
  get logger(): Logger {
    return this[LAZY].logger();
  }
}

/**
 * `context` with other loaders in front; everything else (the user's platform access, built on
 * first use) is the same, and shared with `context`, not copied. A copy as Apollo makes one (same
 * prototype), for the reasons given on LazyContext.
 */
export function withLoaders(context: GatewayContext, loaders: RequestLoaders): GatewayContext {
  const original = (context as unknown as LazyContext)[LAZY];
  const copy = Object.assign(Object.create(Object.getPrototypeOf(context) as object) as LazyContext, context);
  copy[LAZY] = { ...original, loaders: () => loaders };
  return copy;
}

type SessionPart = GatewayContext['session'];

/** A request's session controls; `ended` is a class getter for the reason given on LazyContext. */
class SessionControls implements SessionPart {
  constructor(
    private readonly state: { readonly ended: boolean },
    readonly end: () => Promise<void>,
    readonly revokeOtherTokens: () => Promise<{ revoked: number; failed: number }>,
    readonly isLive: () => Promise<boolean>,
  ) {}

  get ended(): boolean {
    return this.state.ended;
  }
}

/** What a request's platform access reports to: its session state, upstream client, activity and logger. */
interface RequestParts {
  state: { ended: boolean };
  requestCore: () => CoreClient;
  activity: RequestActivity;
  logger: () => Logger;
}

/** The user's platform access through this request's core client, within the user's share of calls. */
function bindPlatform(
  deps: RequestContextDependencies,
  session: Session,
  token: string,
  { state, requestCore, activity, logger }: RequestParts,
): UserPlatform {
  return bindUserPlatform(
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
  const others = (await deps.sessions.tokensOfUser(session.userId)).filter((token) => token !== session.accessToken);
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
 * Builds each request's GraphQL context: loaders and platform access bound to the session's user.
 * `scope` is the HTTP request being served (none for a subscription event): its id goes on the
 * context's log lines and upstream calls.
 */
export function createRequestContextFactory(deps: RequestContextDependencies) {
  const accessState = accessStates(deps);
  /** `origin`: the request's `Origin` header, which decides where the handed-out links return to. */
  return (session: Session, scope?: RequestScope, origin?: string): GatewayContext => {
    const state = { ended: false };
    let loaders: RequestLoaders | undefined;
    // What this request has in flight upstream: enrichment lookups go out when nothing is.
    const activity = new RequestActivity();
    const end = async () => {
      state.ended = true;
      await deps.eraser.forget(session.userId);
    };
    let platform: UserPlatform | undefined;
    const access = accessState(session, origin);
    const logger = () => scope?.log ?? deps.logger;
    // Every core call this request makes carries its id; tagged on first use only.
    let core: CoreClient | undefined;
    const requestCore = () => (core ??= scope ? deps.core.forRequest(scope.requestId) : deps.core);
    // Built on first use: a request that enriches never needs the user's platform access, and a
    // subscription's own context only opens the event stream.
    const lazyParts: LazyParts = {
      loaders: () =>
        (loaders ??= createRequestLoaders(deps.loaders, () => context.platform, activity, scope?.requestId)),
      platform: () => {
        // The access gate refuses platform-connected fields first; this guards any other path.
        if (session.accessToken === undefined)
          throw gatewayError(ErrorCode.NOT_CONNECTED, 'Connect your bank first.', {
            connectUrl: access.links.connectUrl,
          });
        return (platform ??= bindPlatform(deps, session, session.accessToken, {
          state,
          requestCore,
          activity,
          logger,
        }));
      },
      creationKeys: () =>
        creationKeysFor(session.userId, deps.creationKeys.store, deps.creationKeys.windowMs, deps.creationKeys.once),
      logger,
    };
    const context: GatewayContext = Object.assign(new LazyContext(lazyParts), {
      user: { id: session.userId },
      access,
      connection: () => deps.connections.get(session.userId),
      pubsub: deps.pubsub,
      session: new SessionControls(
        state,
        end,
        () => revokeOtherTokens(deps, session, requestCore(), logger()),
        livenessCheck(deps, session, () => state.ended),
      ),
      appKind: deps.appKind,
      links: { reconnectUrl: access.links.connectUrl },
      requestScope: scope,
    });
    return context;
  };
}
