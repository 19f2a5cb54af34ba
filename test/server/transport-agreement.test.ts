import { describe, expect, it } from 'vitest';
import type { Browser } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { socketClient } from '../support/sockets.js';
import { operationsOnFile, overHttp, overSocket, type Answer } from '../support/transports.js';
import { signedInUser } from '../support/webhooks.js';

/**
 * Every query and mutation in test/operations runs over HTTP (POST with the session cookie) and
 * over graphql-ws (a socket opened with the same cookie), and the two answers must agree: the
 * same data and the same error codes at the same paths. A new operation file without an entry
 * below fails the first test, so no operation can escape the comparison.
 *
 * Queries do not change state: both transports run them for one signed-in user on one gateway,
 * and the answers must be identical. Mutations do change state (a payment exists, an account is
 * revoked, the session ends), so each transport runs them against an equal fresh user: the same
 * demo user signed in to a gateway of its own (the sandbox's demo world is seeded, so both users
 * have the same accounts), in the same order. Values that differ by nature between two gateways
 * (new ids, idempotency keys derived per app user, timestamps, the gateway's own address) are
 * replaced by a marker before comparing; every other field, and every error code, must agree.
 */

const ENRICH = [
  { id: 'a', description: 'COUNTDOWN PONSONBY' },
  { id: 'b', description: 'Z ENERGY WELLINGTON', amount: -80 },
];

interface World {
  gateway: TestGateway;
  browser: Browser;
  userId: string;
  /** The signed-in user's accounts in the sandbox's world. */
  accounts: Array<{ _id: string; attributes: string[]; connection: { _id: string } }>;
  cursor: string;
}

type Variables = (world: World) => Record<string, unknown>;

/** The queries, with variables that work on the sandbox's demo world. */
const QUERIES: Record<string, Variables> = {
  Me: () => ({}),
  BankConnection: () => ({}),
  Connection: () => ({}),
  Accounts: () => ({}),
  Account: (world) => ({ id: world.accounts[0]!._id }),
  Transactions: (world) => ({ accountId: world.accounts[0]!._id, first: 5 }),
  TransactionsWithEnrichment: () => ({ first: 5 }),
  PendingTransactions: () => ({}),
  VerifyName: () => ({ input: { familyName: 'ngata', givenName: 'Aroha', middleName: 'Mere' } }),
  BankIds: () => ({ nameInput: { familyName: 'NGATA' } }),
  Enrich: () => ({ queries: ENRICH }),
  TwoEnrichFields: () => ({ first: ENRICH.slice(0, 1), second: ENRICH.slice(1) }),
  MeAndEnrich: () => ({ queries: ENRICH }),
  EnrichAndTransactions: () => ({ queries: ENRICH, first: 3 }),
  TwoTransactionPages: (world) => ({ first: 3, after: world.cursor }),
  ThreeTransactionPages: (world) => ({ first: 2, second: world.cursor, third: world.cursor }),
  Payments: () => ({}),
  // No payment exists yet: both must refuse an unknown id with the same code.
  PaymentById: () => ({ id: 'payment_unknown' }),
  Transfers: () => ({}),
  RefreshStatus: () => ({}),
  TransactionsSync: () => ({ count: 5 }),
};

const from = (world: World, attribute: string) => world.accounts.find((a) => a.attributes.includes(attribute))!;

/**
 * The mutations, in the order both users receive them. Those that end the session come last;
 * RevokeAllAccess and DeleteMyAccount each get a demo user of their own (index), since either
 * ends the user's sessions.
 */
const MUTATIONS: Array<{ name: string; user?: number; variables: Variables }> = [
  { name: 'CancelPayment', variables: () => ({ id: 'payment_unknown' }) },
  {
    name: 'CreatePayment',
    variables: (world) => ({
      input: {
        from: from(world, 'PAYMENT_FROM')._id,
        to: { name: 'Kiwi Plumbing Ltd', accountNumber: '12-3140-0412345-00' },
        amount: 12.5,
        payeeStatement: { particulars: 'invoice', code: 'INV-42', reference: 'flat 3' },
      },
    }),
  },
  {
    name: 'CreateTransfer',
    variables: (world) => {
      const source = from(world, 'TRANSFER_FROM');
      const target = world.accounts.find(
        (a) => a !== source && a.attributes.includes('TRANSFER_TO') && a.connection._id === source.connection._id,
      )!;
      return { input: { from: source._id, to: target._id, amount: 25 } };
    },
  },
  { name: 'Refresh', variables: (world) => ({ accountId: world.accounts[0]!._id }) },
  { name: 'ConnectBank', variables: () => ({}) },
  { name: 'RevokeAccount', variables: (world) => ({ id: world.accounts[0]!._id }) },
  { name: 'RevokeAllAccess', user: 1, variables: () => ({}) },
  { name: 'DeleteMyAccount', user: 2, variables: () => ({}) },
];

/** Keys whose values differ by nature between two gateways (see the file's comment). */
const VOLATILE = new Set(['id', 'idempotencyKey', 'at', 'requestedAt']);

function normalised(value: unknown, gateway: TestGateway, key?: string): unknown {
  if (key !== undefined && VOLATILE.has(key) && typeof value === 'string') return '<volatile>';
  if (typeof value === 'string') return value.replaceAll(gateway.url, '<gateway>');
  if (Array.isArray(value)) return value.map((item) => normalised(item, gateway));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalised(v, gateway, k)]));
}

async function worldOf(gateway: TestGateway, userIndex = 0): Promise<World> {
  const { browser, userId } = await signedInUser(gateway, userIndex);
  const accounts = gateway.sandbox.world().accounts.filter((account) => account.sandboxUserId === userId);
  const page = await overHttp(gateway, browser, '{ transactions(first: 3) { pageInfo { endCursor } } }');
  const cursor = (page.data as { transactions: { pageInfo: { endCursor: string } } }).transactions.pageInfo.endCursor;
  return { gateway, browser, userId, accounts, cursor };
}

const operations = operationsOnFile();
const textOf = (name: string) => operations.find((operation) => operation.name === name)!.text;

describe('HTTP and graphql-ws answer every operation alike', () => {
  it('every query and mutation on file has variables here', () => {
    const onFile = operations.filter((operation) => operation.kind !== 'subscription').map((o) => o.name);
    expect(onFile.sort()).toEqual([...Object.keys(QUERIES), ...MUTATIONS.map((m) => m.name)].sort());
  });

  it('every query answers the same data and error codes over both transports', async () => {
    // The user-data store on, so that transaction sync answers (with it off, both refuse alike).
    const world = await worldOf(await startGateway({ USER_DATA_STORE: 'memory' }));
    const { client } = socketClient(world.gateway, world.browser);
    for (const [name, variables] of Object.entries(QUERIES)) {
      const http = await overHttp(world.gateway, world.browser, textOf(name), variables(world));
      const socket = await overSocket(client, textOf(name), variables(world));
      expect(socket, name).toEqual(http);
      // The comparison means something only if the query did run.
      if (name !== 'PaymentById') expect(http.errors, name).toBeUndefined();
    }
  });

  it('every mutation answers alike over both transports for two equal fresh users', async () => {
    const [viaHttp, viaSocket] = await Promise.all([startGateway(), startGateway()]);
    const answers = { http: [] as Answer[], socket: [] as Answer[] };
    const worlds = new Map<string, World>();
    const worldFor = async (gateway: TestGateway, user: number) => {
      const key = `${gateway.url}|${user}`;
      if (!worlds.has(key)) worlds.set(key, await worldOf(gateway, user));
      return worlds.get(key)!;
    };
    for (const mutation of MUTATIONS) {
      const http = await worldFor(viaHttp, mutation.user ?? 0);
      answers.http.push(await overHttp(viaHttp, http.browser, textOf(mutation.name), mutation.variables(http)));
      const socket = await worldFor(viaSocket, mutation.user ?? 0);
      const { client } = socketClient(viaSocket, socket.browser);
      answers.socket.push(await overSocket(client, textOf(mutation.name), mutation.variables(socket)));
      const index = answers.http.length - 1;
      expect(normalised(answers.socket[index], viaSocket), mutation.name).toEqual(
        normalised(answers.http[index], viaHttp),
      );
    }
    // Every mutation but the unknown payment's cancellation did its work.
    expect(answers.http.map((answer) => answer.errors?.[0]?.code ?? 'OK')).toEqual([
      'NOT_FOUND',
      ...MUTATIONS.slice(1).map(() => 'OK'),
    ]);
  });
});
