import { describe, expect, it } from 'vitest';
import { AccountDocument, AccountsDocument } from '../../__generated__/graphql.js';
import { execute, signIn, startGateway, type TestGateway } from '../../support/gateway.js';

function arohaAccounts(gateway: TestGateway) {
  const aroha = gateway.sandbox.world().users[0]!;
  return gateway.sandbox.world().accounts.filter((account) => account.sandboxUserId === aroha._id);
}

describe('accounts', () => {
  it('lists every shared account whatever its status, with what a consumer-controls summary needs', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, AccountsDocument);

    expect(response.errors).toBeUndefined();
    const accounts = response.data!.accounts;
    const shared = arohaAccounts(gateway).filter((account) => account.sandboxShared);
    expect(accounts.map((a) => a.id).sort()).toEqual(shared.map((a) => a._id).sort());
    expect(new Set(accounts.map((a) => a.type))).toEqual(new Set(['CHECKING', 'SAVINGS', 'CREDITCARD', 'KIWISAVER']));

    const inactive = accounts.filter((a) => a.status === 'INACTIVE');
    expect(inactive).toHaveLength(1);
    expect(inactive[0]).toMatchObject({
      needsReconnection: true,
      reconnectUrl: `${gateway.url}/auth/consumer-info?returnTo=%2Fgraphql`,
    });
    for (const active of accounts.filter((a) => a.status === 'ACTIVE'))
      expect(active).toMatchObject({ needsReconnection: false, reconnectUrl: null });

    const joint = accounts.find((a) => a.name === 'Joint Bills')!;
    expect(joint).toMatchObject({
      holder: 'A M NGATA & J R WILSON',
      formattedAccount: '38-9012-0345678-01',
      connection: { name: 'Kiwibank', id: expect.stringMatching(/^conn_/) },
    });
    expect(joint.attributes).toContain('PAYMENT_FROM');
    const card = accounts.find((a) => a.type === 'CREDITCARD')!;
    expect(card.balance).toMatchObject({ currency: 'NZD', current: -842.1, limit: 8000 });
    expect(Date.parse(card.refreshed!.balance!)).not.toBeNaN();
  });

  it('does not list an account the user did not share with the app', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const unshared = arohaAccounts(gateway).find((account) => !account.sandboxShared)!;
    const response = await execute(gateway, browser, AccountDocument, { id: unshared._id });
    expect(response.data!.account).toBeNull();
    expect(response.errors).toBeUndefined();
  });

  it('reads one account by id and shows it needing reconnection once its connection breaks', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const everyday = arohaAccounts(gateway).find((account) => account.name === 'Everyday')!;
    expect((await execute(gateway, browser, AccountDocument, { id: everyday._id })).data!.account).toMatchObject({
      status: 'ACTIVE',
      needsReconnection: false,
    });

    gateway.sandbox.setAccountStatus(everyday._id, 'INACTIVE');
    const after = await execute(gateway, browser, AccountDocument, { id: everyday._id });
    expect(after.data!.account).toMatchObject({
      status: 'INACTIVE',
      needsReconnection: true,
      reconnectUrl: expect.stringContaining('/auth/consumer-info'),
    });
  });

  it("lets a demo break a connection through the sandbox's HTTP control", async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const visa = arohaAccounts(gateway).find((account) => account.name === 'Visa Platinum')!;
    const control = await fetch(`${gateway.sandbox.coreUrl}/sandbox/accounts/${visa._id}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'INACTIVE' }),
    });
    expect(control.status).toBe(200);
    expect((await execute(gateway, browser, AccountDocument, { id: visa._id })).data!.account).toMatchObject({
      status: 'INACTIVE',
      needsReconnection: true,
    });
    const bad = await fetch(`${gateway.sandbox.coreUrl}/sandbox/accounts/${visa._id}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'BROKEN' }),
    });
    expect(bad.status).toBe(400);
  });

  it('reads each account once per request however many fields ask', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const id = arohaAccounts(gateway)[0]!._id;
    const response = await browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ a: account(id: "${id}") { id } b: account(id: "${id}") { name } list: accounts { id } again: accounts { name } }`,
      }),
    });
    expect(response.status).toBe(200);
    expect(gateway.sandbox.requests({ method: 'GET', path: `/v1/accounts/${id}` })).toHaveLength(1);
    expect(gateway.sandbox.requests({ method: 'GET', path: '/v1/accounts' })).toHaveLength(1);
  });
});
