import type { Clock } from '@open-finance-gateway/common/clock';
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
  return new MemorySessionStore(options);
}

class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly byUser = new Map<string, Set<string>>();
  /**
   * Ended sessions, until their absolute deadline: a write that was started before the session
   * ended (a touch racing a sign-out) must not bring it back. Session ids are never reused.
   */
  private readonly ended = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: MemorySessionStoreOptions) {
    this.sweeper = setInterval(() => this.sweepNow(), options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  async sweep(): Promise<void> {
    this.sweepNow();
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const record = this.sessions.get(sessionId);
    if (record && !this.isLive(record)) {
      this.expire(sessionId, record);
      return undefined;
    }
    return record;
  }

  async set(sessionId: string, record: SessionRecord): Promise<void> {
    if (this.ended.has(sessionId)) return;
    this.remove(sessionId);
    this.sessions.set(sessionId, record);
    let ids = this.byUser.get(record.userId);
    if (!ids) this.byUser.set(record.userId, (ids = new Set()));
    ids.add(sessionId);
  }

  async delete(sessionId: string): Promise<void> {
    this.end(sessionId);
  }

  async listByUser(userId: string): Promise<Array<{ sessionId: string; record: SessionRecord }>> {
    return [...(this.byUser.get(userId) ?? [])]
      .map((sessionId) => ({ sessionId, record: this.sessions.get(sessionId)! }))
      .filter(({ record }) => this.isLive(record));
  }

  async deleteByUser(userId: string): Promise<string[]> {
    const ids = [...(this.byUser.get(userId) ?? [])];
    for (const id of ids) this.end(id);
    return ids;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sessions.clear();
    this.byUser.clear();
    this.ended.clear();
  }

  // Expired sessions hold tokens the user no longer uses: drop them rather than wait for a read.
  private sweepNow(): void {
    for (const [id, record] of this.sessions) if (!this.isLive(record)) this.expire(id, record);
    const now = this.options.clock();
    for (const [id, until] of this.ended) if (until <= now) this.ended.delete(id);
  }

  private end(sessionId: string): void {
    const record = this.sessions.get(sessionId);
    if (record) this.ended.set(sessionId, record.expiresAt);
    this.remove(sessionId);
  }

  private isLive(record: SessionRecord): boolean {
    const now = this.options.clock();
    return record.expiresAt > now && record.lastSeenAt + this.options.idleTimeoutMs > now;
  }

  private remove(sessionId: string): void {
    const record = this.sessions.get(sessionId);
    if (!record) return;
    this.sessions.delete(sessionId);
    const ids = this.byUser.get(record.userId);
    ids?.delete(sessionId);
    if (ids?.size === 0) this.byUser.delete(record.userId);
  }

  private expire(sessionId: string, record: SessionRecord): void {
    this.remove(sessionId);
    this.options.onExpired?.(sessionId, record);
  }
}
