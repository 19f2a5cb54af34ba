import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Browser } from './browser.js';
import type { TestGateway } from './gateway.js';
import { deliver, signedHeaders } from './webhooks.js';

export const SYNC = `query Sync($cursor: String, $count: Int) {
  transactionsSync(cursor: $cursor, count: $count) {
    added { id amount description } modified { id amount description } removed { id accountId } nextCursor hasMore
  }
}`;

export const SYNC_EVENTS = `subscription SyncEvents($cursor: String!) {
  transactionsSync(cursor: $cursor) { added { id amount } modified { id amount } removed { id } nextCursor hasMore }
}`;

export interface Delta {
  added: Array<{ id: string; amount: number; description?: string }>;
  modified: Array<{ id: string; amount: number; description?: string }>;
  removed: Array<{ id: string; accountId?: string }>;
  nextCursor: string;
  hasMore: boolean;
}

export async function sync(gateway: TestGateway, browser: Browser, cursor?: string, count = 100) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: SYNC, variables: { cursor, count } }),
  });
  return JSON.parse(response.text) as {
    data: { transactionsSync: Delta } | null;
    errors?: Array<{ extensions: { code: string; reason?: string } }>;
  };
}

/** Syncs from the start (or `cursor`) until `hasMore` is false; returns every answer's rows together and the last cursor. */
export async function syncAll(gateway: TestGateway, browser: Browser, cursor?: string, count = 100) {
  const all: Omit<Delta, 'nextCursor' | 'hasMore'> = { added: [], modified: [], removed: [] };
  let next = cursor;
  for (;;) {
    const answer = await sync(gateway, browser, next, count);
    expect(answer.errors).toBeUndefined();
    const delta = answer.data!.transactionsSync;
    all.added.push(...delta.added);
    all.modified.push(...delta.modified);
    all.removed.push(...delta.removed);
    next = delta.nextCursor;
    if (!delta.hasMore) return { ...all, cursor: next };
  }
}

/** The signed-in user's world at the platform, and how to announce its changes. */
export function syncPlatform(gateway: TestGateway, userId: string, state: string) {
  const world = gateway.sandbox.world();
  const accounts = world.accounts.filter((row) => row.sandboxUserId === userId && row.sandboxShared);
  const post = async (fields: Record<string, unknown>) => {
    const body = JSON.stringify({ state, ...fields });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
  };
  return {
    world,
    accounts,
    rows: () => world.transactions.filter((row) => accounts.some((account) => account._id === row._account)),
    async add(accountIndex: number) {
      const account = accounts[accountIndex]!;
      const template = world.transactions.find((row) => row._account === account._id)!;
      const row = { ...template, _id: `trans_${randomBytes(8).toString('hex')}`, date: new Date().toISOString() };
      row.amount = -Number((Math.random() * 100).toFixed(2));
      world.transactions.unshift(row);
      await post({
        webhook_type: 'TRANSACTION',
        webhook_code: 'DEFAULT_UPDATE',
        item_id: account._id,
        new_transactions: 1,
        new_transaction_ids: [row._id],
      });
      return row;
    },
    /** The bank changes a row it had settled (a merchant name arrives): announced with its id. */
    async modify(id: string) {
      const row = world.transactions.find((candidate) => candidate._id === id)!;
      row.description = `${row.description} (updated ${randomBytes(2).toString('hex')})`;
      await post({
        webhook_type: 'TRANSACTION',
        webhook_code: 'DEFAULT_UPDATE',
        item_id: row._account,
        new_transactions: 1,
        new_transaction_ids: [id],
      });
      return row;
    },
    async remove(id: string) {
      const index = world.transactions.findIndex((candidate) => candidate._id === id);
      const [row] = world.transactions.splice(index, 1);
      await post({
        webhook_type: 'TRANSACTION',
        webhook_code: 'DELETE',
        item_id: row!._account,
        removed_transactions: [id],
      });
      return row!;
    },
    async balance(accountIndex: number) {
      const account = accounts[accountIndex]!;
      account.balance.current += 10;
      await post({
        webhook_type: 'ACCOUNT',
        webhook_code: 'UPDATE',
        item_id: account._id,
        updated_fields: ['balance'],
      });
    },
    /** The account is deleted at the platform (it leaves every listing), and announced. */
    async accountGone(accountIndex: number) {
      const account = accounts[accountIndex]!;
      account.sandboxShared = false;
      await post({ webhook_type: 'ACCOUNT', webhook_code: 'DELETE', item_id: account._id });
      return account;
    },
  };
}
