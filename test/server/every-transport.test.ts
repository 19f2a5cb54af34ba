import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgeJwt } from '@open-finance-gateway/sandbox/testing';
import { appUserId, signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { track } from '../support/leftovers.js';
import { accessTokenClaims, nowSeconds } from '../support/native-app.js';
import { sessionCookie, sessionCookieName } from '../support/session-cookie.js';
import { signInOnly } from '../support/sign-in-steps.js';
import {
  nextResult,
  open,
  outcomeOf,
  TRANSPORT_NAMES,
  type Credential,
  type OperationRequest,
  type Seen,
  type TransportName,
} from '../support/transport-wires.js';
import { signedInUser } from '../support/webhooks.js';

/**
 * One suite through every transport, as graphql-ws runs its cases over every adapter: the same
 * cases over plain HTTP, graphql-ws, Apollo's multipart protocol and graphql-sse, with a session
 * cookie and with an access token. Each transport shows a refusal or an ending on its own wire
 * (an HTTP status with its headers, a coded last frame, a close code), and the expectations below
 * say once, per case, what each wire must show: a transport that drifts fails here.
 *
 * What a transport does not carry is said here too: plain HTTP carries queries and mutations (a
 * subscription is refused with BAD_REQUEST), multipart and graphql-sse carry subscriptions (SSE
 * refuses a query; multipart hands it to plain HTTP), and graphql-sse's request format has no
 * `documentId` (it names a trusted document by Apollo's extension only).
 */

type Kind = 'query' | 'mutation' | 'subscription';
const CARRIES: Record<TransportName, Kind[]> = {
  http: ['query', 'mutation'],
  'graphql-ws': ['query', 'mutation', 'subscription'],
  multipart: ['subscription'],
  sse: ['subscription'],
};
const carrying = (kind: Kind) => TRANSPORT_NAMES.filter((transport) => CARRIES[transport].includes(kind));
const LIVE = carrying('subscription');

const ME: OperationRequest = { query: '{ me { id } }' };
const PAYMENTS = 'subscription ($after: String) { paymentUpdated(after: $after) { paymentId cursor } }';
const ACCOUNTS = 'subscription { accountEvents { code } }';

type CredentialKind = 'cookie' | 'bearer';

/**
 * A signed-in, connected user, their session cookie, and access tokens for them (token family
 * `suite`). Under TRUSTED_DOCUMENTS only the sign-in runs (the platform's id of the user is not read).
 */
async function world(env: Record<string, string> = {}, options: Parameters<typeof startGateway>[1] = {}) {
  const gateway = await startGateway(env, options);
  const { browser, userId, appUser } = env.TRUSTED_DOCUMENTS
    ? { browser: await signIn(gateway), userId: '', appUser: appUserId(gateway, 0) }
    : await signedInUser(gateway);
  const cookie = sessionCookie(browser, gateway.url);
  const token = (extra: Record<string, unknown> = {}, family = 'suite') =>
    forgeJwt(accessTokenClaims(gateway, appUser, family, extra));
  const as = (kind: CredentialKind, extra: Record<string, unknown> = {}): Credential =>
    kind === 'cookie' ? { cookie } : { authorization: `Bearer ${token(extra)}` };
  return { gateway, userId, cookie, token, as };
}

/** The request a transport carries for `kind`: the given subscription on the live transports, `{ me }` elsewhere. */
const requestFor = (transport: TransportName, subscription: string, variables?: Record<string, unknown>) =>
  CARRIES[transport].includes('subscription') ? { query: subscription, variables } : ME;

/**
 * What the refusal table promises for one refusal before anything ran: on HTTP (plain, multipart
 * and SSE) a status, a code, a reason and the challenge; on a socket its close code and reason.
 */
interface Refusal {
  status: number;
  code: string;
  reason?: string;
  challenge: string | null;
  close: [number, string];
}

function expectRefused(transport: TransportName, seen: Seen, refusal: Refusal): void {
  if (transport === 'graphql-ws') {
    expect(seen).toEqual({ kind: 'closed', code: refusal.close[0], reason: refusal.close[1] });
    return;
  }
  expect(seen).toMatchObject({ kind: 'refused', status: refusal.status, challenge: refusal.challenge });
  const [error] = (seen as { errors: Array<{ extensions?: Record<string, unknown> }> }).errors;
  expect(error?.extensions).toMatchObject({
    code: refusal.code,
    ...(refusal.reason ? { reason: refusal.reason } : {}),
  });
}

/** What the refusal table promises when a live operation ends: a coded last frame on a stream, a close code on a socket. */
function expectEnded(
  transport: TransportName,
  seen: Seen,
  ending: { code: string; reason?: string; close: [number, string] },
) {
  if (transport === 'graphql-ws')
    return expect(seen).toEqual({ kind: 'closed', code: ending.close[0], reason: ending.close[1] });
  expect(seen.kind).toBe('ended');
  const [error] = (seen as { errors: Array<{ extensions?: Record<string, unknown> }> }).errors;
  expect(error?.extensions).toMatchObject({ code: ending.code, ...(ending.reason ? { reason: ending.reason } : {}) });
}

/** Opens a subscription and waits until the gateway delivers to it. */
async function subscribed(
  gateway: TestGateway,
  transport: TransportName,
  credential: Credential,
  query: string,
  type: string,
  variables?: Record<string, unknown>,
) {
  const started = gateway.subscriptionsStarted(1, type);
  const opened = open(transport, gateway, credential, { query, variables });
  await started;
  return opened;
}

const firstCode = (seen: { errors?: Array<{ extensions?: { code?: string } }> }) => seen.errors?.[0]?.extensions?.code;

describe.each(['cookie', 'bearer'] as const)('every transport, with a %s', (credential) => {
  it.each(carrying('query'))('answers a query with data over %s', async (transport) => {
    const { gateway, as } = await world();
    const answer = await nextResult(open(transport, gateway, as(credential), ME));
    expect(answer).toEqual({ kind: 'result', data: { me: { id: expect.any(String) } } });
  });

  it.each(LIVE)('delivers a subscription event over %s', async (transport) => {
    const { gateway, userId, as } = await world();
    const live = await subscribed(gateway, transport, as(credential), PAYMENTS, 'PAYMENT');
    const payment = gateway.sandbox.payments.createPayment(userId, { amount: 9 });
    const event = await nextResult(live);
    expect(event.data).toEqual({ paymentUpdated: { paymentId: payment._id, cursor: expect.any(String) } });
  });

  it.each(carrying('mutation'))('answers a coded error in the result over %s', async (transport) => {
    const { gateway, as } = await world();
    const answer = await nextResult(
      open(transport, gateway, as(credential), { query: 'mutation { cancelPayment(id: "payment_unknown") { id } }' }),
    );
    expect(firstCode(answer)).toBe('NOT_FOUND');
  });

  it.each(TRANSPORT_NAMES)('refuses an invalid document with GRAPHQL_VALIDATION_FAILED over %s', async (transport) => {
    const { gateway, as } = await world();
    const query = CARRIES[transport].includes('subscription') ? 'subscription { nope }' : '{ nope }';
    const seen = await open(transport, gateway, as(credential), { query }).next();
    expect(seen).toMatchObject({ kind: 'refused', ...(transport === 'graphql-ws' ? {} : { status: 400 }) });
    expect(firstCode(seen as { errors?: [] })).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it.each(LIVE.flatMap((holder) => LIVE.map((transport) => ({ holder, transport }))))(
    'refuses $transport past the session cap while $holder holds the one allowed',
    async ({ holder, transport }) => {
      const { gateway, as } = await world({ WS_MAX_SOCKETS_PER_SESSION: '1' });
      const who = as(credential);
      await subscribed(gateway, holder, who, ACCOUNTS, 'ACCOUNT');
      expectRefused(transport, await outcomeOf(open(transport, gateway, who, { query: ACCOUNTS })), {
        status: 429,
        code: 'LIMIT_EXCEEDED',
        challenge: null,
        close: [4429, 'Too many sockets for this session'],
      });
    },
  );

  it.each(TRANSPORT_NAMES)('ends what %s holds when the session ends, and refuses it afterwards', async (transport) => {
    const { gateway, cookie, as } = await world();
    const who = as(credential);
    const live = CARRIES[transport].includes('subscription')
      ? await subscribed(gateway, transport, who, ACCOUNTS, 'ACCOUNT')
      : undefined;
    const signedOut = await nextResult(open('http', gateway, { cookie }, { query: 'mutation { signOutEverywhere }' }));
    expect(signedOut.data).toEqual({ signOutEverywhere: true });
    if (live)
      expectEnded(transport, await outcomeOf(live), {
        code: 'UNAUTHENTICATED',
        reason: 'SESSION_ENDED',
        close: [4401, 'Session ended'],
      });
    const again = await outcomeOf(open(transport, gateway, who, requestFor(transport, ACCOUNTS)));
    if (credential === 'cookie')
      expectRefused(transport, again, {
        status: 401,
        code: 'UNAUTHENTICATED',
        challenge: null,
        close: [4403, 'Forbidden'],
      });
    else
      expectRefused(transport, again, {
        status: 401,
        code: 'UNAUTHENTICATED',
        reason: 'ACCESS_ENDED',
        challenge: 'Bearer error="invalid_token"',
        close: [4401, 'ACCESS_ENDED'],
      });
  });

  it.each(LIVE)('replays by cursor over %s: resumed after an event, the next one comes first', async (transport) => {
    const { gateway, userId, as } = await world();
    const who = as(credential);
    const live = await subscribed(gateway, transport, who, PAYMENTS, 'PAYMENT');
    const payment = gateway.sandbox.payments.createPayment(userId, { amount: 9 });
    const first = (await nextResult(live)).data as { paymentUpdated: { cursor: string } };
    gateway.sandbox.payments.advancePayment(payment._id, { status: 'SENT' });
    const second = (await nextResult(live)).data as { paymentUpdated: { cursor: string } };
    live.close();
    const resumed = open(transport, gateway, who, {
      query: PAYMENTS,
      variables: { after: first.paymentUpdated.cursor },
    });
    expect((await nextResult(resumed)).data).toEqual(second);
  });
});

describe('every transport: what a token alone can meet', () => {
  // Plain HTTP holds nothing open for an expiry to end: a request with an expired token is
  // refused like any other bad credential (the table below).
  it.each(LIVE)('ends what %s opened with a token when the token expires', async (transport) => {
    const { gateway, as } = await world();
    const live = await subscribed(gateway, transport, as('bearer', { exp: nowSeconds() + 2 }), ACCOUNTS, 'ACCOUNT');
    expectEnded(transport, await outcomeOf(live), {
      code: 'UNAUTHENTICATED',
      reason: 'TOKEN_EXPIRED',
      close: [4401, 'Access token expired'],
    });
  });
});

/** Every way credentials are refused, and what each wire must show for it. */
const CREDENTIAL_REFUSALS: Array<{
  name: string;
  credential: (w: Awaited<ReturnType<typeof world>>) => Credential;
  refusal: Refusal;
}> = [
  {
    name: 'no credentials',
    credential: () => ({}),
    refusal: { status: 401, code: 'UNAUTHENTICATED', challenge: null, close: [4403, 'Forbidden'] },
  },
  {
    name: 'a cookie of no session',
    credential: (w) => ({ cookie: `${sessionCookieName(w.gateway.url)}=forged` }),
    refusal: { status: 401, code: 'UNAUTHENTICATED', challenge: null, close: [4403, 'Forbidden'] },
  },
  {
    name: 'an expired token',
    credential: (w) => ({ authorization: `Bearer ${w.token({ iat: nowSeconds() - 900, exp: nowSeconds() - 300 })}` }),
    refusal: {
      status: 401,
      code: 'UNAUTHENTICATED',
      reason: 'TOKEN_EXPIRED',
      challenge: 'Bearer error="invalid_token"',
      close: [4401, 'TOKEN_EXPIRED'],
    },
  },
  {
    name: 'a token that is not a JWT',
    credential: () => ({ authorization: 'Bearer garbage' }),
    refusal: {
      status: 401,
      code: 'UNAUTHENTICATED',
      reason: 'TOKEN_MALFORMED',
      challenge: 'Bearer error="invalid_token"',
      close: [4401, 'TOKEN_MALFORMED'],
    },
  },
  {
    name: 'an Authorization that is not a bearer token',
    credential: () => ({ authorization: 'Basic dXNlcjpwYXNz' }),
    refusal: {
      status: 401,
      code: 'UNAUTHENTICATED',
      reason: 'MALFORMED_AUTHORIZATION',
      challenge: 'Bearer error="invalid_request"',
      close: [4401, 'MALFORMED_AUTHORIZATION'],
    },
  },
  {
    name: 'a cookie and a token together',
    credential: (w) => ({ cookie: w.cookie, authorization: `Bearer ${w.token()}` }),
    refusal: {
      status: 400,
      code: 'UNAUTHENTICATED',
      reason: 'AMBIGUOUS_CREDENTIALS',
      challenge: null,
      close: [4400, 'AMBIGUOUS_CREDENTIALS'],
    },
  },
  {
    name: 'a token from a browser origin not allowed (the socket refuses the origin at the upgrade)',
    credential: (w) => ({ authorization: `Bearer ${w.token()}`, origin: 'https://evil.example' }),
    refusal: {
      status: 403,
      code: 'FORBIDDEN',
      reason: 'ORIGIN_NOT_ALLOWED',
      challenge: null,
      close: [403, 'upgrade refused'],
    },
  },
];

describe.each(TRANSPORT_NAMES)('every authentication refusal over %s', (transport) => {
  it.each(CREDENTIAL_REFUSALS)('refuses $name alike, and calls nothing upstream', async ({ credential, refusal }) => {
    const w = await world();
    const before = w.gateway.sandbox.requests().length;
    const seen = await outcomeOf(open(transport, w.gateway, credential(w), requestFor(transport, ACCOUNTS)));
    expectRefused(transport, seen, refusal);
    expect(w.gateway.sandbox.requests().length).toBe(before);
    expect(w.gateway.events('subscription-started')).toHaveLength(0);
  });
});

/** The first error's code, whatever carried it (a result, a refusal, a stream's ending). */
const codeOf = (seen: Seen) => ('errors' in seen ? seen.errors?.[0]?.extensions?.code : undefined);

/** A manifest of two documents (a query and a subscription) in a folder removed after the test. */
async function manifest(): Promise<{ path: string; query: string; subscription: string }> {
  const query = 'query Me { me { id } }';
  const subscription = 'subscription Accounts { accountEvents { code } }';
  const key = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'every-transport-'));
  track(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'persisted-documents.json');
  await writeFile(path, JSON.stringify({ [key(query)]: query, [key(subscription)]: subscription }));
  return { path, query: key(query), subscription: key(subscription) };
}

describe.each(['cookie', 'bearer'] as const)('trusted documents over every transport, with a %s', (credential) => {
  /** A gateway running only the manifest's documents; `id` names the one each transport carries. */
  async function trusted() {
    const documents = await manifest();
    const w = await world({ TRUSTED_DOCUMENTS: documents.path });
    // The sign-in's own platform calls are over before anything is counted.
    await w.gateway.waitForEvent('webhooks-registered');
    const id = (transport: TransportName) =>
      CARRIES[transport].includes('subscription') ? documents.subscription : documents.query;
    return { ...w, id };
  }

  /** What shows an admitted operation ran: a query's data, or the gateway starting a subscription. */
  async function ran(w: Awaited<ReturnType<typeof trusted>>, transport: TransportName, request: OperationRequest) {
    if (!CARRIES[transport].includes('subscription'))
      return (await nextResult(open(transport, w.gateway, w.as(credential), request))).data;
    const started = w.gateway.waitForEvent('subscription-started');
    open(transport, w.gateway, w.as(credential), request);
    return started;
  }
  const ranAs = (transport: TransportName) =>
    CARRIES[transport].includes('subscription')
      ? { type: 'ACCOUNT', userId: expect.any(String) }
      : { me: { id: expect.any(String) } };

  it.each(TRANSPORT_NAMES)("runs a manifest document named by Apollo's extension over %s", async (transport) => {
    const w = await trusted();
    const sha256Hash = w.id(transport).slice('sha256:'.length);
    expect(await ran(w, transport, { query: '', extensions: { persistedQuery: { version: 1, sha256Hash } } })).toEqual(
      ranAs(transport),
    );
  });

  it.each(carrying('query').concat('multipart'))(
    'runs a manifest document named by documentId over %s',
    async (transport) => {
      const w = await trusted();
      expect(await ran(w, transport, { documentId: w.id(transport) })).toEqual(ranAs(transport));
    },
  );

  it('says graphql-sse has no documentId: its request format carries only query, variables, operationName and extensions', async () => {
    const w = await trusted();
    const seen = await outcomeOf(open('sse', w.gateway, w.as(credential), { query: '', documentId: w.id('sse') }));
    expect(seen).toMatchObject({ kind: 'refused', status: 400 });
    expect(codeOf(seen)).toBe('TRUSTED_DOCUMENT_REQUIRED');
  });

  it.each(TRANSPORT_NAMES)(
    'refuses a document of the client’s own over %s, before anything reaches the platform',
    async (transport) => {
      const w = await trusted();
      const before = w.gateway.sandbox.requests().length;
      const query = CARRIES[transport].includes('subscription') ? ACCOUNTS : ME.query;
      const seen = await outcomeOf(open(transport, w.gateway, w.as(credential), { query }));
      expect(seen).toMatchObject({ kind: 'refused', ...(transport === 'graphql-ws' ? {} : { status: 400 }) });
      expect(codeOf(seen)).toBe('TRUSTED_DOCUMENT_REQUIRED');
      expect(w.gateway.sandbox.requests().length).toBe(before);
    },
  );
});

describe('multi-factor over every transport', () => {
  it.each(
    TRANSPORT_NAMES.flatMap((transport) =>
      (['cookie', 'bearer'] as const).map((credential) => ({ transport, credential })),
    ),
  )(
    'refuses a sign-in without a second factor with MFA_REQUIRED over $transport, with a $credential',
    async ({ transport, credential }) => {
      const w = await world();
      // A password-only demo user's cookie session; a token whose sign-in had no second factor.
      const who =
        credential === 'cookie'
          ? {
              cookie: sessionCookie((await signInOnly(w.gateway, 'reader@demo.example')).browser, w.gateway.url),
            }
          : w.as('bearer', { amr: ['pwd'] });
      const before = w.gateway.sandbox.requests({ service: 'core' }).length;
      const seen = await open(transport, w.gateway, who, requestFor(transport, ACCOUNTS)).next();
      expect(codeOf(seen), JSON.stringify(seen)).toBe('MFA_REQUIRED');
      expect(w.gateway.sandbox.requests({ service: 'core' }).length).toBe(before);
    },
  );

  it.each(
    carrying('mutation').flatMap((transport) =>
      (['cookie', 'bearer'] as const).map((credential) => ({ transport, credential })),
    ),
  )(
    'asks for a step-up before money moves once multi-factor is stale, over $transport with a $credential',
    async ({ transport, credential }) => {
      let offset = 0;
      const w = await world({ SESSION_IDLE_TIMEOUT_SECONDS: '86400' }, { clock: () => Date.now() + offset });
      const from = w.gateway.sandbox
        .world()
        .accounts.find((account) => account.sandboxUserId === w.userId && account.attributes.includes('PAYMENT_FROM'))!;
      // Past MFA_MAX_AGE_SECONDS (2 h): the cookie session's sign-in, or the token's own `auth_time`.
      const who = credential === 'cookie' ? w.as('cookie') : w.as('bearer', { auth_time: nowSeconds() - 3 * 3_600 });
      if (credential === 'cookie') offset = 2 * 3_600_000 + 60_000;
      const input = {
        from: from._id,
        to: { name: 'Kiwi Plumbing Ltd', accountNumber: '12-3140-0412345-00' },
        amount: 12.5,
      };
      const query = 'mutation ($input: CreatePaymentInput!) { createPayment(input: $input) { payment { id } } }';
      const answer = await nextResult(open(transport, w.gateway, who, { query, variables: { input } }));
      expect(answer.errors?.[0]?.extensions).toEqual(
        credential === 'cookie'
          ? { code: 'STEP_UP_REQUIRED', stepUpUrl: `${w.gateway.url}/auth/step-up?returnTo=%2Fgraphql` }
          : { code: 'STEP_UP_REQUIRED', authorize: { max_age: 0, prompt: 'login' } },
      );
      expect(w.gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' })).toEqual([]);
    },
  );
});

describe('what a transport does not carry', () => {
  it('plain HTTP refuses a subscription with BAD_REQUEST, naming the transports that carry one', async () => {
    const { gateway, as } = await world();
    const seen = await outcomeOf(open('http', gateway, as('cookie'), { query: ACCOUNTS }));
    expect(seen).toMatchObject({ kind: 'refused', status: 400 });
    expect(codeOf(seen)).toBe('BAD_REQUEST');
    expect(JSON.stringify(seen)).toMatch(/graphql-transport-ws.*multipart.*graphql-sse/);
  });

  it('graphql-sse refuses a query with BAD_REQUEST; multipart hands it to plain HTTP', async () => {
    const { gateway, as } = await world();
    const overSse = await outcomeOf(open('sse', gateway, as('cookie'), ME));
    expect(overSse).toMatchObject({ kind: 'refused', status: 400 });
    expect(codeOf(overSse)).toBe('BAD_REQUEST');
    expect((await nextResult(open('multipart', gateway, as('cookie'), ME))).data).toEqual({
      me: { id: expect.any(String) },
    });
  });
});
