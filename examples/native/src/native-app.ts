import { randomBytes, randomUUID } from 'node:crypto';
import { createGatewayClients, followPayments } from './gateway-clients.js';
import { listenOnLoopback } from './loopback.js';
import { CREATE_PAYMENT, ME_AND_ACCOUNTS, SESSION, START_BANK_CONNECTION, type Account } from './operations.js';
import { signIn, type OpenUrl } from './sign-in.js';

export type { OpenUrl };

export interface NativeAppOptions {
  gatewayUrl: string;
  /** The identity provider the gateway trusts (its OIDC_ISSUER). */
  issuer: string;
  /** The app's public native client at that provider. */
  clientId: string;
  openUrl: OpenUrl;
  /** Who is paid, and how much (the sandbox settles by the cents: `.42` waits, `.13` is declined). */
  payee?: { name: string; accountNumber: string };
  amount?: number;
  /** Called once both payment subscriptions are asked for, before paying (a test waits here for the gateway). */
  beforePaying?: () => Promise<void>;
  log?: (line: string) => void;
}

export interface NativeAppRun {
  accessToken: string;
  /** The sign-in's strength as the gateway sees it (`bankConnection.mfa`). */
  mfa: string;
  bankConnection: { outcome: string | null; state: string | null; sentState: string };
  me: { id: string; preferredName: string | null };
  accounts: Account[];
  payment: { id: string; idempotencyKey: string; statuses: { socket: string[]; multipart: string[] } };
}

const DEFAULT_PAYEE = { name: 'Kiwi Plumbing Ltd', accountNumber: '12-3140-0412345-00' };

/**
 * The whole native flow, as a phone app runs it: sign-in in the system browser with PKCE, the
 * bank connection through a single-use URL returning to the app, accounts over HTTP with the
 * access token, then a payment followed over graphql-ws and over multipart HTTP to its end.
 */
export async function runNativeApp(options: NativeAppOptions): Promise<NativeAppRun> {
  const log = options.log ?? (() => undefined);
  const { accessToken } = await signIn(options);
  log('Signed in: the gateway gets the access token as `Authorization: Bearer`.');
  const clients = createGatewayClients(options.gatewayUrl, accessToken);
  try {
    const session = (await clients.http.query({ query: SESSION, fetchPolicy: 'network-only' })).data!;
    log(`Second factor: ${session.bankConnection.mfa}. Bank connected: ${session.bankConnection.connected}.`);
    const bankConnection = await connectBank(clients.http, options.openUrl);
    log(`Bank connection: ${bankConnection.outcome ?? 'no outcome'}.`);
    if (bankConnection.outcome !== 'connected')
      throw new Error(`the bank was not connected (${bankConnection.outcome})`);
    const { me, accounts } = (await clients.http.query({ query: ME_AND_ACCOUNTS, fetchPolicy: 'network-only' })).data!;
    log(`Hello ${me.preferredName ?? me.id}: ${accounts.map((account) => account.name).join(', ')}.`);
    const payment = await payAndFollow(clients, accounts, options, log);
    return { accessToken, mfa: session.bankConnection.mfa, bankConnection, me, accounts, payment };
  } finally {
    clients.stop();
  }
}

/**
 * Asks the gateway for a connection URL that returns to this app's loopback listener, opens it in
 * the system browser, and checks that the `state` that comes back is the one sent.
 */
async function connectBank(http: ReturnType<typeof createGatewayClients>['http'], openUrl: OpenUrl) {
  const sentState = randomBytes(16).toString('base64url');
  const loopback = await listenOnLoopback('/connected');
  try {
    const started = await http.mutate({
      mutation: START_BANK_CONNECTION,
      variables: { returnUri: loopback.uri, state: sentState },
    });
    await openUrl(started.data!.startBankConnection.url, 'bank-connection');
    const returned = await loopback.received;
    const state = returned.searchParams.get('state');
    if (state !== sentState) throw new Error('the bank connection came back with another state: ignored');
    return { outcome: returned.searchParams.get('outcome'), state, sentState };
  } finally {
    loopback.close();
  }
}

/**
 * Subscribes over both transports, then pays once (one idempotency key for this intent: a retry
 * after a lost answer sends the same key) and waits for the payment's final status on each.
 */
async function payAndFollow(
  clients: ReturnType<typeof createGatewayClients>,
  accounts: Account[],
  options: NativeAppOptions,
  log: (line: string) => void,
): Promise<NativeAppRun['payment']> {
  const from = accounts.find((account) => account.attributes.includes('PAYMENT_FROM'));
  if (!from) throw new Error('no account can make payments');
  await clients.socketConnected;
  const overSocket = followPayments(clients.socket);
  const overMultipart = followPayments(clients.http);
  try {
    await options.beforePaying?.();
    const idempotencyKey = randomUUID();
    const created = await clients.http.mutate({
      mutation: CREATE_PAYMENT,
      variables: {
        input: { from: from.id, to: options.payee ?? DEFAULT_PAYEE, amount: options.amount ?? 12.5 },
        idempotencyKey,
      },
    });
    const { payment } = created.data!.createPayment;
    log(`Payment ${payment.id}: ${payment.status}. Following it over graphql-ws and multipart HTTP…`);
    const [socket, multipart] = await Promise.all([
      overSocket.finalFor(payment.id),
      overMultipart.finalFor(payment.id),
    ]);
    log(`Over graphql-ws: ${socket.join(' → ')}. Over multipart HTTP: ${multipart.join(' → ')}.`);
    return { id: payment.id, idempotencyKey, statuses: { socket, multipart } };
  } finally {
    overSocket.stop();
    overMultipart.stop();
  }
}
