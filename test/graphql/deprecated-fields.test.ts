import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  AccountsDocument,
  BankConnectionDocument,
  BankIdsDocument,
  ConnectionDocument,
  EnrichDocument,
} from '../__generated__/graphql.js';
import { execute, signIn, startGateway } from '../support/gateway.js';

/**
 * "Connection" meant both the app user's link to their bank and the bank an account is held at.
 * The fields were renamed (`Query.bankConnection`, `Account.bank`, `bankId`, `bankIds`); the old
 * ones stay, deprecated, until the next version, and must answer exactly as the new ones do.
 */
describe('fields renamed for one meaning of "connection"', () => {
  it('keeps the old fields, deprecated with the new name in the reason', () => {
    const schema = buildSchema(readFileSync('schema.graphql', 'utf8'));
    const query = schema.getQueryType()!.getFields();
    expect(query.connection!.deprecationReason).toMatch(/bankConnection/);
    expect(query.bankConnection!.deprecationReason).toBeUndefined();
    const account = schema.getTypeMap().Account as import('graphql').GraphQLObjectType;
    expect(account.getFields().connection!.deprecationReason).toMatch(/bank/);
    expect(account.getFields().bank!.deprecationReason).toBeUndefined();
  });

  it('answers the old fields exactly as the new ones', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway, 0);
    const status = (await execute(gateway, browser, BankConnectionDocument)).data!.bankConnection;
    expect(status.connected).toBe(true);
    expect((await execute(gateway, browser, ConnectionDocument)).data!.connection).toEqual(status);
    const accounts = (await execute(gateway, browser, AccountsDocument)).data!.accounts;
    expect(accounts.length).toBeGreaterThan(0);
    for (const account of accounts) {
      expect(account.bank.id).toMatch(/^conn_/);
      expect(account.connection).toEqual(account.bank);
    }
  });

  it('keeps connectionId and connectionIds, deprecated for bankId and bankIds, in output and input', () => {
    const schema = buildSchema(readFileSync('schema.graphql', 'utf8'));
    const fieldsOf = (name: string) => (schema.getTypeMap()[name] as import('graphql').GraphQLObjectType).getFields();
    for (const type of ['Transaction', 'PendingTransaction']) {
      expect(fieldsOf(type).connectionId!.deprecationReason).toMatch(/bankId/);
      expect(fieldsOf(type).bankId!.deprecationReason).toBeUndefined();
    }
    expect(fieldsOf('PartyNameSource').connectionIds!.deprecationReason).toMatch(/bankIds/);
    expect(fieldsOf('EnrichmentQueryInput').connectionId!.deprecationReason).toMatch(/bankId/);
    expect(fieldsOf('EnrichmentQueryInput').bankId!.deprecationReason).toBeUndefined();
  });

  it('answers bankId and bankIds as connectionId and connectionIds, and enriches by either name alike', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway, 0);
    const { data } = await execute(gateway, browser, BankIdsDocument, { nameInput: { familyName: 'NGATA' } });
    const rows = [...data!.transactions.nodes, ...data!.pendingTransactions];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.bankId).toMatch(/^conn_/);
      expect(row.connectionId).toBe(row.bankId);
    }
    const parties = data!.verifyName.sources.filter((source) => 'bankIds' in source);
    expect(parties.length).toBeGreaterThan(0);
    for (const party of parties) expect(party).toEqual({ bankIds: party.bankIds, connectionIds: party.bankIds });

    const bankId = rows[0]!.bankId;
    const query = { id: 'q', description: 'COUNTDOWN AUCKLAND', amount: -20 };
    const byNewName = await execute(gateway, browser, EnrichDocument, { queries: [{ ...query, bankId }] });
    const byOldName = await execute(gateway, browser, EnrichDocument, {
      queries: [{ ...query, connectionId: bankId }],
    });
    expect(byNewName.errors).toBeUndefined();
    expect(byOldName.data).toEqual(byNewName.data);
    const searches = gateway.sandbox.requests({ path: '/v1/search' });
    expect(searches.length).toBeGreaterThan(0);
    // One search: the second lookup is the same lookup, answered from the cache.
    const sent = searches.flatMap((search) => search.body as Array<{ description: string; _connection?: string }>);
    expect(sent.filter((row) => row.description === query.description)).toEqual([
      expect.objectContaining({ _connection: bankId }),
    ]);
  });
});
