import type { Clock } from '../lib/clock.js';
import type { SessionRecord, SessionStore } from './session-store.js';

/** Sessions in process memory: lost on restart, not shared between instances. */
export interface MemorySessionStoreOptions {
  clock: Clock;
  idleTimeoutMs: number;
  sweepIntervalMs?: number;
  /** Told of each session that lapsed (absolute or idle), once, when the store notices. */
  onExpired?: (sessionId: string, record: SessionRecord) => void;
}

export function createMemorySessionStore(options: MemorySessionStoreOptions): SessionStore {
  const sessions = new Map<string, SessionRecord>();
  const byUser = new Map<string, Set<string>>();
  /**
   * Ended sessions, until their absolute deadline: a write that was started before the session
   * ended (a touch racing a sign-out) must not bring it back. Session ids are never reused.
   */
  const ended = new Map<string, number>();

  function end(sessionId: string): void {
    const record = sessions.get(sessionId);
    if (record) ended.set(sessionId, record.expiresAt);
    remove(sessionId);
  }

  function isLive(record: SessionRecord): boolean {
    const now = options.clock();
    return record.expiresAt > now && record.lastSeenAt + options.idleTimeoutMs > now;
  }

  function remove(sessionId: string): void {
    const record = sessions.get(sessionId);
    if (!record) return;
    sessions.delete(sessionId);
    const ids = byUser.get(record.userId);
    ids?.delete(sessionId);
    if (ids?.size === 0) byUser.delete(record.userId);
  }

  function expire(sessionId: string, record: SessionRecord): void {
    remove(sessionId);
    options.onExpired?.(sessionId, record);
  }

  // Expired sessions hold tokens the user no longer uses: drop them rather than wait for a read.
  const sweep = () => {
    for (const [id, record] of sessions) if (!isLive(record)) expire(id, record);
    const now = options.clock();
    for (const [id, until] of ended) if (until <= now) ended.delete(id);
  };
  const sweeper = setInterval(sweep, options.sweepIntervalMs ?? 60_000);
  sweeper.unref();

  return {
    async sweep() {
      sweep();
    },
    async get(sessionId) {
      const record = sessions.get(sessionId);
      if (record && !isLive(record)) {
        expire(sessionId, record);
        return undefined;
      }
      return record;
    },
    async set(sessionId, record) {
      if (ended.has(sessionId)) return;
      remove(sessionId);
      sessions.set(sessionId, record);
      let ids = byUser.get(record.userId);
      if (!ids) byUser.set(record.userId, (ids = new Set()));
      ids.add(sessionId);
    },
    async delete(sessionId) {
      end(sessionId);
    },
    async listByUser(userId) {
      return [...(byUser.get(userId) ?? [])]
        .map((sessionId) => ({ sessionId, record: sessions.get(sessionId)! }))
        .filter(({ record }) => isLive(record));
    },
    async deleteByUser(userId) {
      const ids = [...(byUser.get(userId) ?? [])];
      for (const id of ids) end(id);
      return ids;
    },
    async close() {
      clearInterval(sweeper);
      sessions.clear();
      byUser.clear();
      ended.clear();
    },
  };
}
