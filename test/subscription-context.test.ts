import { describe, expect, it } from 'vitest';
import { RefreshDocument } from './__generated__/graphql.js';
import { execute, startGateway } from './support/gateway.js';
import { socketClient, subscribe } from './support/sockets.js';
import { signedInUser } from './support/webhooks.js';

type Event = { transactionEvents: { code: string; newTransactions: Array<{ id: string; enrichment: { id: string } | null }> } };

describe('each subscription event is its own unit of work', () => {
  it('gives every event fresh loaders and budgets: with a budget of one lookup per request, each event still enriches', async () => {
    const gateway = await startGateway({ ENRICHMENT_MAX_QUERIES_PER_REQUEST: '1' });
    const { browser, userId } = await signedInUser(gateway);
    const events = await subscribe<Event>(gateway, socketClient(gateway, browser).client, 'subscription { transactionEvents { code newTransactions { id enrichment { id } } } }', 'TRANSACTION');

    const seen: Event['transactionEvents'][] = [];
    for (let refresh = 0; refresh < 2; refresh += 1) {
      gateway.sandbox.clearRefreshLimit(userId);
      expect((await execute(gateway, browser, RefreshDocument, {})).errors).toBeUndefined();
      // A refresh emits one DEFAULT_UPDATE (one new transaction) per transaction account.
      const result = await events.next();
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      seen.push(result.data!.transactionEvents);
    }
    const next = await events.next();
    expect(next.errors, JSON.stringify(next.errors)).toBeUndefined();
    seen.push(next.data!.transactionEvents);
    expect(seen.every((event) => event.newTransactions.length === 1 && event.newTransactions[0]!.enrichment !== null)).toBe(true);
  });
});
