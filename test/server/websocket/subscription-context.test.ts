import { describe, expect, it } from 'vitest';
import { RefreshDocument } from '../../__generated__/graphql.js';
import { execute, startGateway } from '../../support/gateway.js';
import { socketClient, subscribe } from '../../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../../support/webhooks.js';

type Event = {
  transactionEvents: { code: string; newTransactions: Array<{ id: string; enrichment: { id: string } | null }> };
};

describe('each subscription event is its own unit of work', () => {
  it('gives every event fresh loaders and budgets: with a budget of one lookup per request, each event still enriches', async () => {
    const gateway = await startGateway({ ENRICHMENT_MAX_QUERIES_PER_REQUEST: '1' });
    const { browser, userId } = await signedInUser(gateway);
    const events = await subscribe<Event>(
      gateway,
      socketClient(gateway, browser).client,
      'subscription { transactionEvents { code newTransactions { id enrichment { id } } } }',
      'TRANSACTION',
    );

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
    expect(
      seen.every((event) => event.newTransactions.length === 1 && event.newTransactions[0]!.enrichment !== null),
    ).toBe(true);
  });
});

describe('resuming a subscription', () => {
  it('refuses an unusable cursor with CURSOR_EXPIRED, and resumes from a good one', async () => {
    const gateway = await startGateway();
    const { browser, state } = await signedInUser(gateway);
    const { client } = socketClient(gateway, browser);
    const run = (after: string) =>
      new Promise<unknown>((resolve) => {
        const results: unknown[] = [];
        client.subscribe(
          {
            query: 'subscription ($after: String) { incomeEvents(after: $after) { incomeId cursor } }',
            variables: { after },
          },
          { next: (value) => results.push(value), error: resolve, complete: () => resolve(results) },
        );
      });
    for (const after of ['not-a-cursor', `${Date.now() + 3_600_000}-0`, '1-0']) {
      expect(await run(after), after).toEqual([
        expect.objectContaining({ extensions: expect.objectContaining({ code: 'CURSOR_EXPIRED' }) }),
      ]);
    }

    const events = await subscribe<{ incomeEvents: { incomeId: string; cursor: string } }>(
      gateway,
      client,
      'subscription { incomeEvents { incomeId cursor } }',
      'INCOME',
    );
    const first = JSON.stringify({ webhook_type: 'INCOME', webhook_code: 'UPDATE', state, item_id: 'income_1' });
    expect((await deliver(gateway, first, signedHeaders(gateway, first))).status).toBe(200);
    const cursor = (await events.next()).data!.incomeEvents.cursor;
    const second = JSON.stringify({ webhook_type: 'INCOME', webhook_code: 'UPDATE', state, item_id: 'income_2' });
    expect((await deliver(gateway, second, signedHeaders(gateway, second))).status).toBe(200);
    const resumed = await subscribe<{ incomeEvents: { incomeId: string } }>(
      gateway,
      client,
      `subscription { incomeEvents(after: "${cursor}") { incomeId } }`,
      'INCOME',
    );
    expect((await resumed.next()).data!.incomeEvents.incomeId).toBe('income_2');
  });
});
