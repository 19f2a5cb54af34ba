import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AccountsDocument, BankConnectionDocument, ConnectionDocument } from './__generated__/graphql.js';
import { execute, signIn, startGateway } from './support/gateway.js';

/**
 * "Connection" meant both the app user's link to their bank and the bank an account is held at.
 * The fields were renamed (`Query.bankConnection`, `Account.bank`); the old ones stay, deprecated,
 * for one release, and must answer exactly as the new ones do.
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
});
