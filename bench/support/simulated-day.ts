import type { KeptAccount, PlatformReads } from '../../src/user-data/kept-platform.js';
import { createKeptReads } from '../../src/user-data/kept-reads.js';
import { compareKeys, keyOf, type KeptRow } from '../../src/user-data/ledger-rows.js';
import { createMemoryUserDataStore } from '../../src/user-data/memory-user-data-store.js';
import { WebhookChanges } from '../../src/user-data/webhook-changes.js';

/**
 * `bench:user-data`'s simulated days: users opening the app and the platform's webhooks, on a
 * virtual clock, through the real kept reads and webhook changes (the memory store: the same
 * rules the contract suite holds Redis to), against a platform in process that counts its calls.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ACCOUNTS = 4;
const ROWS_PER_ACCOUNT = 40;
const PAGE_SIZE = 100;
/** What an app's screen asks for: a first page of 20 (as the example app does). */
const SCREEN_ROWS = 20;

/** A deterministic PRNG (mulberry32), so the simulated days are the same on every run. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type DayEvent =
  | { at: number; user: number; kind: 'open'; account: number | undefined }
  | { at: number; user: number; kind: 'webhook'; type: 'ACCOUNT' | 'TRANSACTION'; account: number };

/**
 * `days` days from midnight: each user opens the app 10 times a day between 07:00 and 23:00 (one
 * open in three also looks at one account's page); two refreshes a day (the nightly one, one in
 * the day) each send an ACCOUNT UPDATE per account and a DEFAULT_UPDATE (one new row) for half of
 * them, and three card spends a day are announced on their own.
 */
export function simulatedDays(users: number, days: number): DayEvent[] {
  const random = prng(2026);
  const events: DayEvent[] = [];
  for (let day = 0; day < days; day += 1)
    for (let user = 0; user < users; user += 1) {
      const base = day * DAY;
      for (let open = 0; open < 10; open += 1) {
        const account = random() < 1 / 3 ? Math.floor(random() * ACCOUNTS) : undefined;
        events.push({ at: base + 7 * HOUR + random() * 16 * HOUR, user, kind: 'open', account });
      }
      for (const at of [base + HOUR + random() * HOUR, base + 9 * HOUR + random() * 10 * HOUR])
        for (let account = 0; account < ACCOUNTS; account += 1) {
          events.push({ at, user, kind: 'webhook', type: 'ACCOUNT', account });
          if (account % 2 === 0) events.push({ at, user, kind: 'webhook', type: 'TRANSACTION', account });
        }
      for (let spend = 0; spend < 3; spend += 1)
        events.push({
          at: base + 8 * HOUR + random() * 14 * HOUR,
          user,
          kind: 'webhook',
          type: 'TRANSACTION',
          account: 0,
        });
    }
  return events.sort((a, b) => a.at - b.at);
}

/** One user's accounts and settled rows: 40 a month-and-a-half deep per account, interleaved. */
function userWorld(user: number) {
  const accounts: Array<KeptAccount & { balance: number }> = Array.from({ length: ACCOUNTS }, (_, n) => ({
    _id: `acc_${user}_${n}`,
    balance: 100,
  }));
  const rows: KeptRow[] = [];
  for (let index = 0; index < ROWS_PER_ACCOUNT * ACCOUNTS; index += 1)
    rows.push({
      _id: `trans_${user}_${index}`,
      _account: accounts[index % ACCOUNTS]!._id,
      date: new Date(-(index + 1) * 7 * HOUR).toISOString(),
    });
  return { accounts, rows, added: 0 };
}

/** The platform in process: pages of 100 with keyset cursors, as the sandbox and the live platform list them. */
function simulatedPlatform(count: () => void) {
  const worlds = new Map<number, ReturnType<typeof userWorld>>();
  const worldOf = (user: number) => worlds.get(user) ?? worlds.set(user, userWorld(user)).get(user)!;
  const reads = (user: number): PlatformReads => {
    const world = worldOf(user);
    const call = async <T>(answer: () => T) => {
      count();
      return structuredClone(answer());
    };
    return {
      getMe: () => call(() => ({ _id: `user_${user}` })),
      listAccounts: () => call(() => world.accounts),
      getAccount: (id) => call(() => world.accounts.find((account) => account._id === id)),
      getTransactionsByIds: (ids) => call(() => world.rows.filter((row) => ids.includes(row._id))),
      listTransactions: (filter, cursor) =>
        call(() => {
          const after = cursor === null ? undefined : (JSON.parse(cursor) as { at: number; id: string });
          const end = filter.end === undefined ? undefined : Date.parse(filter.end);
          const matching = world.rows.filter(
            (row) =>
              (filter.accountId === undefined || row._account === filter.accountId) &&
              (end === undefined || keyOf(row).at <= end) &&
              (after === undefined || compareKeys(keyOf(row), after) > 0),
          );
          const items = matching.slice(0, PAGE_SIZE);
          return { items, next: items.length === PAGE_SIZE ? JSON.stringify(keyOf(items.at(-1)!)) : null };
        }),
    };
  };
  return {
    reads,
    /** What a webhook announces happened: a balance changed, or a row settled (newest). */
    change(user: number, type: 'ACCOUNT' | 'TRANSACTION', account: number, now: number) {
      const world = worldOf(user);
      const target = world.accounts[account]!;
      if (type === 'ACCOUNT') {
        target.balance += 1;
        return { item_id: target._id, updated_fields: ['balance'] };
      }
      const row = {
        _id: `trans_${user}_new_${(world.added += 1)}`,
        _account: target._id,
        date: new Date(now).toISOString(),
      };
      world.rows.unshift(row);
      return { item_id: target._id, new_transactions: 1, new_transaction_ids: [row._id] };
    },
  };
}

export interface DayCosts {
  /** Platform calls on each day. */
  calls: number[];
  webhooks: number[];
  /** The fewest calls possible each day: a cold open per user (its three reads), one per ACCOUNT or TRANSACTION webhook. */
  floor: number[];
}

/**
 * Platform calls over the days with the store at `maxAgeMs`, or with it off (`undefined`: every
 * read is a platform call; each webhook still re-reads what it names, to judge it by content).
 */
export async function daysWithStore(events: readonly DayEvent[], maxAgeMs: number | undefined): Promise<DayCosts> {
  let now = 0;
  let calls = 0;
  const platform = simulatedPlatform(() => (calls += 1));
  const store = createMemoryUserDataStore({
    maxAgeMs: maxAgeMs ?? DAY,
    retentionMs: 2 * (maxAgeMs ?? DAY),
    userMaxBytes: 1 << 20,
    budgetBytes: 1 << 30,
    clock: () => now,
  });
  const kept = maxAgeMs === undefined ? undefined : createKeptReads({ store, clock: () => now, maxAgeMs });
  const changes = new WebhookChanges(maxAgeMs === undefined ? undefined : store);
  const days = Math.ceil((events.at(-1)?.at ?? 0) / DAY);
  const costs: DayCosts = { calls: Array(days).fill(0), webhooks: Array(days).fill(0), floor: Array(days).fill(0) };
  const opened = new Set<number>();
  for (const event of events) {
    now = event.at;
    const day = Math.floor(now / DAY);
    const before = calls;
    const reads = platform.reads(event.user);
    if (event.kind === 'webhook') {
      costs.webhooks[day]! += 1;
      costs.floor[day]! += 1;
      const code = event.type === 'ACCOUNT' ? 'UPDATE' : 'DEFAULT_UPDATE';
      const payload = platform.change(event.user, event.type, event.account, now);
      await changes.apply(`user_${event.user}`, event.type, code, payload, reads);
    } else {
      if (!opened.has(event.user)) costs.floor[day]! += 3;
      opened.add(event.user);
      await openApp(
        kept?.forUser(`user_${event.user}`, () => reads),
        reads,
        event,
      );
    }
    costs.calls[day]! += calls - before;
  }
  return costs;
}

/** An open: the user, the account list, the first page of all accounts, and one in three an account's. */
async function openApp(
  data: ReturnType<NonNullable<ReturnType<typeof createKeptReads>>['forUser']> | undefined,
  reads: PlatformReads,
  event: Extract<DayEvent, { kind: 'open' }>,
): Promise<void> {
  const accountId = event.account === undefined ? undefined : `acc_${event.user}_${event.account}`;
  const queries = [{ first: SCREEN_ROWS }, ...(accountId ? [{ accountId, first: SCREEN_ROWS }] : [])];
  if (!data) {
    await reads.getMe();
    await reads.listAccounts();
    for (const query of queries) await reads.listTransactions({ accountId: query.accountId }, null);
    return;
  }
  await data.me();
  await data.accounts();
  for (const query of queries) await data.transactions(query);
}
