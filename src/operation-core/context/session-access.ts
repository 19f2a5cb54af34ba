import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import { mfaStatus } from '../../auth/app-sign-in.js';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { GatewayConfig } from '../../config/config.js';
import type { EventLog } from '../../event-log/event-log.js';
import type { AccessState, SubscriptionContext } from '../../graphql/context.js';

/** What a session's access and liveness are read from. */
export interface SessionAccessDependencies {
  sessions: SessionManager;
  /** The multi-factor policy, acceptable methods and freshness. */
  mfa: GatewayConfig['mfa'];
  eventLog: EventLog;
  publicUrl: () => string;
  /** Frontends' origins (ALLOWED_ORIGINS): links handed to one of them return the browser to it. */
  allowedOrigins?: () => ReadonlySet<string>;
  clock: Clock;
  logger: Logger;
}

/**
 * Whether the session is still live. Before its known deadline it is, unless it was ended (here,
 * or anywhere: endings reach every instance through pub/sub and each socket's session re-check),
 * with no store read per event. Past that deadline the store is asked, since use elsewhere may
 * have extended it.
 */
export function livenessCheck(
  deps: Pick<SessionAccessDependencies, 'sessions' | 'clock'>,
  session: Session,
  endedHere: () => boolean,
): () => Promise<boolean> {
  let knownDeadline = deps.sessions.deadlineOf(session);
  return async () => {
    if (endedHere() || deps.sessions.wasEnded(session.sessionKey)) return false;
    if (deps.clock() < knownDeadline) return true;
    const current = await deps.sessions.lookup(session.sessionKey);
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
export function accessStates(deps: Pick<SessionAccessDependencies, 'mfa' | 'clock' | 'publicUrl' | 'allowedOrigins'>) {
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
      connected: session.platformToken !== undefined,
      viaToken: session.client !== undefined,
      links: linksFor(deps.publicUrl(), origin),
    };
  };
}

/** The lean context a subscription keeps for its life (see SubscriptionContext). */
export function createSubscriptionContextFactory(
  deps: Pick<SessionAccessDependencies, 'sessions' | 'clock' | 'eventLog' | 'logger' | 'mfa' | 'publicUrl'> & {
    /** A subscription's live delivery began. */
    onStarted?: (userId: string, type: string) => void;
    /** A started subscription let go of its queue. */
    onEnded?: (userId: string, type: string) => void;
  },
) {
  const accessState = accessStates(deps);
  return (session: Session): SubscriptionContext => ({
    user: { id: session.userId },
    access: accessState(session),
    eventLog: deps.eventLog,
    logger: deps.logger,
    session: { isLive: livenessCheck(deps, session, () => false) },
    onStarted: deps.onStarted,
    onEnded: deps.onEnded,
  });
}
