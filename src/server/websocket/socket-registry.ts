import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import { CloseCode } from './close-codes.js';

export interface WebSocketLimits {
  maxSubscriptionsPerSocket: number;
  maxSocketsPerSession: number;
  maxSocketsPerUser: number;
  /** A socket whose unsent data passes this is cut: its client is not reading. */
  maxBufferedBytes: number;
}

/**
 * What the registry holds: a socket, or an HTTP subscription stream (multipart or SSE), which
 * counts against the same caps and ends with its session the same way.
 */
export interface RegisteredSocket {
  close(code: number, reason: string): void;
  once(event: 'close', listener: () => void): unknown;
  on(event: 'close', listener: () => void): unknown;
}

export interface SocketRegistryOptions {
  sessions: SessionManager;
  clock: Clock;
  /** Longest wait between two checks of a session, whatever its deadline says. */
  recheckMs: number;
  logger: Logger;
}

/** A moment's grace so an `accessRevoked` event already published can reach the client. */
const CLOSE_GRACE_MS = 100;

/**
 * Open sockets by session and by user, for the caps and for ending them with their session. Each
 * session with sockets has one timer, set for its deadline (the earlier of absolute and idle
 * expiry) and at most `recheckMs` away: when it fires, the session is read again, and if it is
 * gone its sockets close with 4401. Sessions ended explicitly (sign-out, revocation, TOKEN
 * DELETE) close their sockets at once through the session manager's `onEnded`.
 */
export function createSocketRegistry(options: SocketRegistryOptions) {
  const bySession = new Map<string, Set<RegisteredSocket>>();
  const byUser = new Map<string, Set<RegisteredSocket>>();
  const timers = new Map<string, NodeJS.Timeout>();
  /** Each socket's session, so one close listener serves every socket (no closure per socket). */
  const sessionOf = new WeakMap<RegisteredSocket, Session>();
  function removeOnClose(this: RegisteredSocket): void {
    const session = sessionOf.get(this);
    if (session) remove(session, this);
  }

  function closeSession(key: string): void {
    clearTimeout(timers.get(key));
    timers.delete(key);
    for (const socket of bySession.get(key) ?? []) {
      setTimeout(() => socket.close(CloseCode.SESSION_ENDED, 'Session ended'), CLOSE_GRACE_MS).unref();
    }
  }

  function watch(key: string, deadline: number): void {
    clearTimeout(timers.get(key));
    const wait = Math.min(Math.max(0, deadline - options.clock()), options.recheckMs);
    const timer = setTimeout(() => {
      void options.sessions.lookup(key).then(
        (session) => {
          if (!bySession.has(key)) return;
          if (!session) {
            options.logger.info({ reason: 'expired' }, 'session ended: closing its sockets');
            return closeSession(key);
          }
          watch(key, options.sessions.deadlineOf(session));
        },
        (error: unknown) => {
          // The store is unreachable: keep the sockets, look again at the next interval.
          options.logger.warn({ err: error }, 'could not check a socket session; will retry');
          if (bySession.has(key)) watch(key, options.clock() + options.recheckMs);
        },
      );
    }, wait);
    timer.unref();
    timers.set(key, timer);
  }

  const stopListening = options.sessions.onEnded((_userId, keys) => {
    for (const key of keys) closeSession(key);
  });

  function remove(session: Session, socket: RegisteredSocket): void {
    const sockets = bySession.get(session.key);
    sockets?.delete(socket);
    if (sockets?.size === 0) {
      bySession.delete(session.key);
      clearTimeout(timers.get(session.key));
      timers.delete(session.key);
    }
    const ofUser = byUser.get(session.userId);
    ofUser?.delete(socket);
    if (ofUser?.size === 0) byUser.delete(session.userId);
  }

  return {
    /** Which cap a new socket of this session would pass, if any. */
    fullFor(session: Session, limits: WebSocketLimits): 'session' | 'user' | undefined {
      if ((bySession.get(session.key)?.size ?? 0) >= limits.maxSocketsPerSession) return 'session';
      if ((byUser.get(session.userId)?.size ?? 0) >= limits.maxSocketsPerUser) return 'user';
      return undefined;
    },
    /** `closeAt`: when the socket's access token expires (a bearer socket), it closes with 4401 then. */
    add(session: Session, socket: RegisteredSocket, closeAt?: number): void {
      if (closeAt !== undefined) {
        const expiry = setTimeout(
          () => socket.close(CloseCode.SESSION_ENDED, 'Access token expired'),
          Math.max(0, closeAt - options.clock()),
        );
        expiry.unref();
        socket.once('close', () => clearTimeout(expiry));
      }
      let sockets = bySession.get(session.key);
      if (!sockets) {
        bySession.set(session.key, (sockets = new Set()));
        watch(session.key, options.sessions.deadlineOf(session));
      }
      sockets.add(socket);
      let ofUser = byUser.get(session.userId);
      if (!ofUser) byUser.set(session.userId, (ofUser = new Set()));
      ofUser.add(socket);
      sessionOf.set(socket, session);
      // `on`, not `once`: a close comes once, and `once` wraps the listener in two objects per socket.
      socket.on('close', removeOnClose);
    },
    close(): void {
      stopListening();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}

export type SocketRegistry = ReturnType<typeof createSocketRegistry>;
