import type { Clock } from '@open-finance-gateway/common/clock';
import type { UserDataChange, UserDataEntry, UserDataStore } from './user-data-store.js';

/** How one read went: answered by the store, read from the platform and kept, or the store skipped. */
export type LookupResult = 'hit' | 'miss' | 'bypass';

export interface KeptReads {
  /**
   * The entry from the store, or `fetch` from the platform (then written back under the stamp
   * taken before the call, so an invalidation in between wins). A store that fails or stalls is
   * skipped: the platform answers, never an older copy.
   */
  read<T>(userId: string, entry: UserDataEntry, fetch: () => Promise<T>): Promise<T>;
  /** Drops what the gateway itself changed (a revoked account); a failure is thrown, not skipped. */
  change(userId: string, changes: readonly UserDataChange[]): Promise<void>;
  /** Drops everything kept for the user (a new consent). */
  forget(userId: string): Promise<void>;
  /** Notes a refresh the platform accepted; the first ACCOUNT or TRANSACTION webhook after it ends it. */
  noteRefresh(userId: string, refresh: RefreshNote): Promise<void>;
  /** The refresh noted and not yet answered by a webhook (nor older than the maximum age), if any. */
  openRefresh(userId: string): Promise<RefreshNote | undefined>;
}

export interface RefreshNote {
  /** Milliseconds since the epoch. */
  requestedAt: number;
  accountId?: string;
}

export interface KeptReadsOptions {
  store: UserDataStore;
  clock: Clock;
  onLookup?: (result: LookupResult) => void;
  /** A store failure (its message only: never an entry). */
  onStoreFailure?: (error: unknown) => void;
  /** After a failure, the store is skipped this long, so a stalled Redis costs one timeout, not one per read. @default 5000 */
  bypassMs?: number;
}

export function createKeptReads(options: KeptReadsOptions): KeptReads {
  const { store, clock } = options;
  const bypassMs = options.bypassMs ?? 5_000;
  let skipUntil = 0;
  const failed = (error: unknown) => {
    skipUntil = clock() + bypassMs;
    options.onStoreFailure?.(error);
  };
  const bypass = <T>(fetch: () => Promise<T>) => {
    options.onLookup?.('bypass');
    return fetch();
  };

  return {
    async read(userId, entry, fetch) {
      if (clock() < skipUntil) return bypass(fetch);
      let lookup;
      try {
        lookup = await store.read(userId, entry);
      } catch (error) {
        failed(error);
        return bypass(fetch);
      }
      if (lookup.value !== undefined) {
        options.onLookup?.('hit');
        return JSON.parse(lookup.value) as Awaited<ReturnType<typeof fetch>>;
      }
      options.onLookup?.('miss');
      const value = await fetch();
      // Not kept: an absent answer (a 404), which the platform is asked again each time.
      if (value !== undefined) {
        try {
          await store.write(userId, entry, JSON.stringify(value), lookup);
        } catch (error) {
          failed(error); // the answer is the platform's and right; only keeping it failed
        }
      }
      return value;
    },
    change: (userId, changes) => store.change(userId, changes),
    forget: (userId) => store.deleteUser(userId),
    async noteRefresh(userId, refresh) {
      const lookup = await store.read(userId, { kind: 'refresh' });
      await store.write(userId, { kind: 'refresh' }, JSON.stringify(refresh), lookup);
    },
    async openRefresh(userId) {
      const { value } = await store.read(userId, { kind: 'refresh' });
      return value === undefined ? undefined : (JSON.parse(value) as RefreshNote);
    },
  };
}
