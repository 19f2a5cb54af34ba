import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { Session, SessionManager } from '../auth/session-manager.js';
import { GOING_AWAY, SESSION_ENDED, TOKEN_EXPIRED, type Ending } from './endings.js';

/** The caps every live operation counts against, whatever carries it (`WS_*` settings). */
export interface LiveLimits {
  maxSubscriptionsPerSocket: number;
  maxSocketsPerSession: number;
  maxSocketsPerUser: number;
  /** A socket or stream whose unsent data passes this is cut: its client is not reading. */
  maxBufferedBytes: number;
}

/**
 * What stays open for a client: a socket, or an HTTP subscription stream. The transport ends it
 * in its own wire (`end`), and tells the registry when it is gone (`remove`).
 */
export interface LiveOperation {
  /** The session it was opened with (its key and user do not change; the rest may be refreshed). */
  readonly session: Session | undefined;
  end(ending: Ending): void;
}

export interface LiveOperationsOptions {
  sessions: SessionManager;
  clock: Clock;
  limits: LiveLimits;
  /** Longest wait between two checks of a session, whatever its deadline says. */
  recheckMs: number;
  logger: Logger;
}

/** A moment's grace so an `accessRevoked` event already published can reach the client. */
const END_GRACE_MS = 100;

/**
 * Every open socket and HTTP subscription stream, by session and by user: they count against the
 * same caps, and they end alike with their session (sign-out, revocation, TOKEN DELETE, expiry),
 * with the access token they were opened with, or at shutdown. Each session with live operations
 * has one timer, set for its deadline (the earlier of absolute and idle expiry) and at most
 * `recheckMs` away: when it fires the session is read again, and if it is gone its operations
 * end. Sessions ended explicitly end theirs at once, through the session manager's `onEnded`.
 */
export function createLiveOperations(options: LiveOperationsOptions) {
  const bySession = new Map<string, Set<LiveOperation>>();
  const byUser = new Map<string, Set<LiveOperation>>();
  const timers = new Map<string, NodeJS.Timeout>();
  const expiries = new Map<LiveOperation, NodeJS.Timeout>();
  let closing = false;

  function endSession(key: string): void {
    clearTimeout(timers.get(key));
    timers.delete(key);
    for (const live of bySession.get(key) ?? []) setTimeout(() => live.end(SESSION_ENDED), END_GRACE_MS).unref();
  }

  function watch(key: string, deadline: number): void {
    clearTimeout(timers.get(key));
    const wait = Math.min(Math.max(0, deadline - options.clock()), options.recheckMs);
    const timer = setTimeout(() => recheck(key), wait);
    timer.unref();
    timers.set(key, timer);
  }

  function recheck(key: string): void {
    options.sessions.lookup(key).then(
      (session) => {
        if (!bySession.has(key)) return;
        if (!session) {
          options.logger.info({ reason: 'expired' }, 'session ended: ending its live operations');
          return endSession(key);
        }
        watch(key, options.sessions.deadlineOf(session));
      },
      (error: unknown) => {
        // The store is unreachable: keep them, look again at the next interval.
        options.logger.warn({ err: error }, 'could not check a live session; will retry');
        if (bySession.has(key)) watch(key, options.clock() + options.recheckMs);
      },
    );
  }

  const stopListening = options.sessions.onEnded((_userId, keys) => {
    for (const key of keys) endSession(key);
  });

  /** Which ending refuses one more live operation of this session now, if any. */
  function refusalFor(session: Session): Ending | undefined {
    if (closing) return GOING_AWAY;
    const { maxSocketsPerSession, maxSocketsPerUser } = options.limits;
    if ((bySession.get(session.sessionKey)?.size ?? 0) >= maxSocketsPerSession)
      return { kind: 'too-many', cap: 'session', limit: maxSocketsPerSession };
    if ((byUser.get(session.userId)?.size ?? 0) >= maxSocketsPerUser)
      return { kind: 'too-many', cap: 'user', limit: maxSocketsPerUser };
    return undefined;
  }

  return {
    limits: options.limits,

    /**
     * Counts `live` for its session, unless a cap (or shutdown) refuses it: then the ending that
     * refuses it. Checked and counted with nothing awaited between, so concurrent opens cannot
     * pass a cap together. `tokenExpiresAt`: when the access token it was opened with expires; it
     * ends then.
     */
    admit(session: Session, live: LiveOperation, tokenExpiresAt?: number): Ending | undefined {
      const refusal = refusalFor(session);
      if (refusal) {
        options.logger.warn({ userId: session.userId, ending: refusal.kind }, 'live operation refused');
        return refusal;
      }
      let ofSession = bySession.get(session.sessionKey);
      if (!ofSession) {
        bySession.set(session.sessionKey, (ofSession = new Set()));
        watch(session.sessionKey, options.sessions.deadlineOf(session));
      }
      ofSession.add(live);
      let ofUser = byUser.get(session.userId);
      if (!ofUser) byUser.set(session.userId, (ofUser = new Set()));
      ofUser.add(live);
      if (tokenExpiresAt !== undefined) {
        const expiry = setTimeout(() => live.end(TOKEN_EXPIRED), Math.max(0, tokenExpiresAt - options.clock()));
        expiry.unref();
        expiries.set(live, expiry);
      }
      return undefined;
    },

    /** It is gone (closed by either side): it no longer counts. */
    remove(live: LiveOperation): void {
      const session = live.session;
      if (!session) return;
      clearTimeout(expiries.get(live));
      expiries.delete(live);
      const ofSession = bySession.get(session.sessionKey);
      ofSession?.delete(live);
      if (ofSession?.size === 0) {
        bySession.delete(session.sessionKey);
        clearTimeout(timers.get(session.sessionKey));
        timers.delete(session.sessionKey);
      }
      const ofUser = byUser.get(session.userId);
      ofUser?.delete(live);
      if (ofUser?.size === 0) byUser.delete(session.userId);
    },

    /** Shutdown: every live operation ends (going away), and none is admitted from now on. */
    endAll(): void {
      closing = true;
      for (const ofSession of bySession.values()) for (const live of ofSession) live.end(GOING_AWAY);
    },

    close(): void {
      closing = true;
      stopListening();
      for (const timer of [...timers.values(), ...expiries.values()]) clearTimeout(timer);
      timers.clear();
      expiries.clear();
    },
  };
}

export type LiveOperations = ReturnType<typeof createLiveOperations>;
