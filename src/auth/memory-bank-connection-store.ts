import {
  startSweeper,
  type BankConnectionRecord,
  type BankConnectionStore,
  type BankConnectionStoreOptions,
} from './bank-connection-store.js';

/** In process memory: lost with the process (a graceful stop revokes them first, see `held`). */
export function createMemoryBankConnectionStore(
  options: BankConnectionStoreOptions,
): BankConnectionStore & { held(): Array<{ userId: string; token: string }> } {
  const connections = new Map<string, BankConnectionRecord>();
  const idle = (record: BankConnectionRecord) => record.lastUsedAt + options.idleMs <= options.clock();
  async function sweep(): Promise<void> {
    for (const [userId, record] of connections) {
      if (!idle(record)) continue;
      connections.delete(userId);
      options.onExpired?.(userId, record);
    }
  }
  const stop = startSweeper(sweep, options.sweepIntervalMs ?? 60_000, () => undefined);
  return {
    async get(userId) {
      const record = connections.get(userId);
      return record && !idle(record) ? record : undefined;
    },
    async set(userId, record) {
      const previous = connections.get(userId);
      connections.set(userId, record);
      return previous;
    },
    async touch(userId) {
      const record = connections.get(userId);
      if (record && !idle(record)) record.lastUsedAt = options.clock();
    },
    async delete(userId, onlyToken) {
      const current = connections.get(userId);
      if (!current || (onlyToken !== undefined && current.platformToken !== onlyToken)) return undefined;
      connections.delete(userId);
      return current;
    },
    sweep,
    /** Every token held: what a stopping process would otherwise forget while the platform honours it. */
    held() {
      return [...connections].map(([userId, record]) => ({ userId, token: record.platformToken }));
    },
    async close() {
      stop();
      connections.clear();
    },
  };
}
