import { describe, expect, it } from 'vitest';
import { VerifyNameDocument, type VerifyNameQuery } from '../../__generated__/graphql.js';
import { execute, signIn, startGateway, type TestGateway } from '../../support/gateway.js';

type Source = VerifyNameQuery['verifyName']['sources'][number];

function accountId(gateway: TestGateway, name: string): string {
  return gateway.sandbox.world().accounts.find((account) => account.name === name)!._id;
}

function holder(sources: Source[], id: string) {
  return sources.find((source) => source.__typename === 'HolderNameSource' && source.accountId === id);
}

function party(sources: Source[], value: string) {
  return sources.find((source) => source.__typename === 'PartyNameSource' && source.value === value);
}

const FLAGS_OFF = { familyName: true, givenName: false, givenInitial: false, middleName: false, middleInitial: false };

describe('name verification', () => {
  it('judges every source: case and titles ignored, initials partial, full names a match', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, VerifyNameDocument, {
      input: { familyName: 'ngata', givenName: 'Aroha', middleName: 'Mere' },
    });
    expect(response.errors).toBeUndefined();
    const { sources, name } = response.data!.verifyName;
    expect(name).toEqual({ familyName: 'ngata', givenName: 'Aroha', middleName: 'Mere' });

    // "MS A M NGATA": initials only, so partial.
    expect(holder(sources, accountId(gateway, 'Everyday'))).toMatchObject({
      type: 'HOLDER_NAME',
      matchResult: 'PARTIAL_MATCH',
      holder: 'MS A M NGATA',
      verification: { ...FLAGS_OFF, givenInitial: true, middleInitial: true },
    });
    // "AROHA MERE NGATA": every part in full.
    expect(holder(sources, accountId(gateway, 'KiwiSaver Growth Fund'))).toMatchObject({
      matchResult: 'MATCH',
      verification: { ...FLAGS_OFF, givenName: true, middleName: true },
    });
    // Joint "A M NGATA & J R WILSON": judged per holder.
    expect(holder(sources, accountId(gateway, 'Joint Bills'))).toMatchObject({
      matchResult: 'PARTIAL_MATCH',
      holder: 'A M NGATA & J R WILSON',
    });
    // "MS AROHA NGATA": no middle name held, so the supplied middle name does not match.
    expect(holder(sources, accountId(gateway, 'Savings Plus'))).toMatchObject({
      matchResult: 'PARTIAL_MATCH',
      verification: { ...FLAGS_OFF, givenName: true },
    });
    // Party "Ms Aroha Mere Ngata": title ignored.
    expect(party(sources, 'Ms Aroha Mere Ngata')).toMatchObject({
      type: 'PARTY_NAME',
      matchResult: 'MATCH',
      bankIds: [expect.stringMatching(/^conn_/)],
    });
    expect(party(sources, 'AROHA M NGATA')).toMatchObject({
      matchResult: 'PARTIAL_MATCH',
      verification: { ...FLAGS_OFF, givenName: true, middleInitial: true },
    });
    // The account not shared with the app gives no holder name.
    expect(holder(sources, accountId(gateway, 'Streamline'))).toBeUndefined();
  });

  it('judges only the parts supplied', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const { sources } = (await execute(gateway, browser, VerifyNameDocument, { input: { familyName: 'NGATA' } })).data!
      .verifyName;
    expect(sources.length).toBeGreaterThanOrEqual(6);
    for (const source of sources) expect(source).toMatchObject({ matchResult: 'MATCH', verification: FLAGS_OFF });
  });

  it('leaves out sources whose family name differs, and answers no match with an empty list', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const none = await execute(gateway, browser, VerifyNameDocument, {
      input: { familyName: 'Smith', givenName: 'Aroha' },
    });
    expect(none.errors).toBeUndefined();
    expect(none.data!.verifyName.sources).toEqual([]);

    const wilson = await execute(gateway, browser, VerifyNameDocument, {
      input: { familyName: 'Wilson', givenName: 'James' },
    });
    expect(wilson.data!.verifyName.sources.map((s) => s.__typename === 'HolderNameSource' && s.accountName)).toEqual([
      'Joint Bills',
    ]);
    expect(wilson.data!.verifyName.sources[0]).toMatchObject({
      matchResult: 'PARTIAL_MATCH',
      verification: { ...FLAGS_OFF, givenInitial: true },
    });
  });

  it('per account, compares only that account\u2019s holder and the party of its connection', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const joint = accountId(gateway, 'Joint Bills');
    const response = await execute(gateway, browser, VerifyNameDocument, {
      input: { familyName: 'Ngata', givenName: 'Aroha' },
      accountId: joint,
    });
    const { sources } = response.data!.verifyName;
    expect(sources.map((s) => s.type).sort()).toEqual(['HOLDER_NAME', 'PARTY_NAME']);
    expect(holder(sources, joint)).toBeDefined();
    expect(party(sources, 'Aroha Ngata')).toMatchObject({ matchResult: 'MATCH' });
    expect(gateway.sandbox.requests({ method: 'POST', path: `/v1/verify/name/${joint}` })).toHaveLength(1);
    expect(gateway.sandbox.requests({ method: 'POST', path: `/v1/verify/name/${joint}` })[0]!.body).toEqual({
      family_name: 'Ngata',
      given_name: 'Aroha',
    });

    const unknown = await execute(gateway, browser, VerifyNameDocument, {
      input: { familyName: 'Ngata' },
      accountId: accountId(gateway, 'Streamline'),
    });
    expect(unknown.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('never caches a verification: two identical calls make two upstream requests, and names stay out of the logs', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    await execute(gateway, browser, VerifyNameDocument, { input: { familyName: 'Ngata', givenName: 'Aroha' } });
    await execute(gateway, browser, VerifyNameDocument, { input: { familyName: 'Ngata', givenName: 'Aroha' } });
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/verify/name' })).toHaveLength(2);
    expect(JSON.stringify(gateway.logs)).not.toMatch(/ngata/i);
  });

  it('refuses personal apps with FORBIDDEN before any upstream call', async () => {
    const gateway = await startGateway({ APP_KIND: 'PERSONAL' });
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, VerifyNameDocument, { input: { familyName: 'Ngata' } });
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'PERSONAL_APP' });
    expect(gateway.sandbox.requests({ path: '/v1/verify/name' })).toHaveLength(0);
  });

  it('refuses an empty family name as bad input', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, VerifyNameDocument, { input: { familyName: '  ' } });
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'input' });
    expect(gateway.sandbox.requests({ path: '/v1/verify/name' })).toHaveLength(0);
  });
});
