import type { Clock } from '@open-finance-gateway/common/clock';
import type { SessionRecord, SessionStore } from './session-store.js';

/** Sessions in process memory: lost on restart, not shared between instances. */
export interface MemorySessionStoreOptions {
  clock: Clock;
  idleTimeoutMs: number;
  sweepIntervalMs?: number;
  /** Told of each session that lapsed (absolute or idle), once, when the store notices. */
  onExpired?: (sessionKey: string, record: SessionRecord) => void;
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

  async get(sessionKey: string): Promise<SessionRecord | undefined> {
    const record = this.sessions.get(sessionKey);
    if (record && !this.isLive(record)) {
      this.expire(sessionKey, record);
      return undefined;
    }
    return record;
  }

  async set(sessionKey: string, record: SessionRecord): Promise<void> {
    if (this.ended.has(sessionKey)) return;
    this.remove(sessionKey);
    this.sessions.set(sessionKey, record);
    let ids = this.byUser.get(record.userId);
    if (!ids) this.byUser.set(record.userId, (ids = new Set()));
    ids.add(sessionKey);
  }

  async delete(sessionKey: string): Promise<void> {
    this.end(sessionKey);
  }

  async listByUser(userId: string): Promise<Array<{ sessionKey: string; record: SessionRecord }>> {
    return [...(this.byUser.get(userId) ?? [])]
      .map((sessionKey) => ({ sessionKey, record: this.sessions.get(sessionKey)! }))
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

  private end(sessionKey: string): void {
    const record = this.sessions.get(sessionKey);
    if (record) this.ended.set(sessionKey, record.expiresAt);
    this.remove(sessionKey);
  }

  private isLive(record: SessionRecord): boolean {
    const now = this.options.clock();
    return record.expiresAt > now && record.lastSeenAt + this.options.idleTimeoutMs > now;
  }

  private remove(sessionKey: string): void {
    const record = this.sessions.get(sessionKey);
    if (!record) return;
    this.sessions.delete(sessionKey);
    const ids = this.byUser.get(record.userId);
    ids?.delete(sessionKey);
    if (ids?.size === 0) this.byUser.delete(record.userId);
  }

  private expire(sessionKey: string, record: SessionRecord): void {
    this.remove(sessionKey);
    this.options.onExpired?.(sessionKey, record);
  }
}
