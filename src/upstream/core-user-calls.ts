import { badResponse, create, ensureOk, getItem, getItems, getOptionalItem, type UserScope } from './core-envelopes.js';
import { isAccount, isPaymentLike, isPending, isTransaction, isWebhook } from './platform-type-guards.js';
import type {
  PlatformNameInput,
  PlatformNameVerification,
  PlatformPayment,
  PlatformPaymentRequest,
  PlatformTransactionPage,
  PlatformTransfer,
  PlatformTransferRequest,
  PlatformUser,
} from './platform-types.js';

export interface DateRange {
  start?: string;
  end?: string;
}

export interface TransactionFilter {
  accountId?: string;
  start?: string;
  end?: string;
}

const id = encodeURIComponent;

/**
 * Every user-scoped call of the core API, declared once. The client offers each with the user's
 * token as its first argument; a request binds them to its user's token (and its 403 rule) once.
 */
export const userCalls = {
  /** `GET /v1/me` for the user behind the token. */
  getMe: async (scope: UserScope): Promise<PlatformUser> => {
    const item = await getItem(scope, '/v1/me');
    if (typeof (item as Partial<PlatformUser> | undefined)?._id !== 'string')
      throw badResponse(scope, '/v1/me response has no item._id');
    return item as PlatformUser;
  },

  listAccounts: async (scope: UserScope) => (await getItems(scope, '/v1/accounts')).filter(isAccount),

  /** One account; undefined when the platform answers 404. */
  getAccount: async (scope: UserScope, accountId: string) => {
    const response = await scope.send({ method: 'GET', path: `/v1/accounts/${id(accountId)}` });
    if (response.status === 404) return undefined;
    ensureOk(scope, response, 'GET /v1/accounts/{id}');
    const item = (response.body as { item?: unknown } | undefined)?.item;
    if (!isAccount(item)) throw badResponse(scope, 'account response has no valid item');
    return item;
  },

  /** One upstream page of settled transactions (`start` exclusive, `end` inclusive). */
  listTransactions: async (
    scope: UserScope,
    filter: TransactionFilter,
    cursor: string | null,
  ): Promise<PlatformTransactionPage> => {
    const path = filter.accountId ? `/v1/accounts/${id(filter.accountId)}/transactions` : '/v1/transactions';
    const response = await scope.send({
      method: 'GET',
      path,
      query: { start: filter.start, end: filter.end, ...(cursor !== null ? { cursor } : {}) },
    });
    ensureOk(scope, response, `GET ${filter.accountId ? '/v1/accounts/{id}/transactions' : '/v1/transactions'}`);
    const body = response.body as { items?: unknown; cursor?: { next?: unknown } } | undefined;
    if (!Array.isArray(body?.items)) throw badResponse(scope, 'transactions response has no items');
    const next = body.cursor?.next;
    return { items: body.items.filter(isTransaction), next: typeof next === 'string' && next.length > 0 ? next : null };
  },

  listPendingTransactions: async (scope: UserScope, accountId?: string) => {
    const path = accountId ? `/v1/accounts/${id(accountId)}/transactions/pending` : '/v1/transactions/pending';
    return (await getItems(scope, path)).filter(isPending);
  },

  verifyName: async (
    scope: UserScope,
    name: PlatformNameInput,
    accountId?: string,
  ): Promise<PlatformNameVerification> => {
    const path = accountId ? `/v1/verify/name/${id(accountId)}` : '/v1/verify/name';
    const response = await scope.send({ method: 'POST', path, json: name, retry: false });
    ensureOk(scope, response, `POST ${accountId ? '/v1/verify/name/{id}' : '/v1/verify/name'}`);
    const item = (response.body as { item?: Partial<PlatformNameVerification> } | undefined)?.item;
    if (!item || !Array.isArray(item.sources)) throw badResponse(scope, 'verify name response has no sources');
    return {
      sources: item.sources.filter((source) => typeof source === 'object' && source !== null),
      name: item.name ?? name,
    };
  },

  /** `DELETE /v1/accounts/{id}`: the app loses access to one account. */
  revokeAccount: async (scope: UserScope, accountId: string): Promise<void> => {
    const response = await scope.send({ method: 'DELETE', path: `/v1/accounts/${id(accountId)}` });
    ensureOk(scope, response, 'DELETE /v1/accounts/{id}');
  },

  /** `DELETE /v1/token`: the token, and all access, ends. */
  revokeToken: async (scope: UserScope): Promise<void> => {
    const response = await scope.send({ method: 'DELETE', path: '/v1/token' });
    ensureOk(scope, response, 'DELETE /v1/token');
  },

  /** `POST /v1/refresh` or `/v1/refresh/{id}` (an account or connection id). */
  refresh: async (scope: UserScope, connectionOrAccountId?: string): Promise<void> => {
    const path = connectionOrAccountId ? `/v1/refresh/${id(connectionOrAccountId)}` : '/v1/refresh';
    const response = await scope.send({ method: 'POST', path, headers: { accept: 'application/json' } });
    ensureOk(scope, response, `POST ${connectionOrAccountId ? '/v1/refresh/{id}' : '/v1/refresh'}`);
  },

  /** Current payment by id (webhooks are signals: the object is re-read); undefined on 404. */
  getPayment: async (scope: UserScope, paymentId: string) =>
    (await getOptionalItem(scope, `/v1/payments/${id(paymentId)}`, 'GET /v1/payments/{id}')) as
      PlatformPayment | undefined,

  getTransfer: async (scope: UserScope, transferId: string) =>
    (await getOptionalItem(scope, `/v1/transfers/${id(transferId)}`, 'GET /v1/transfers/{id}')) as
      PlatformTransfer | undefined,

  /** `GET /v1/payments` created in [start, end] (the platform's default: the last 30 days). */
  listPayments: async (scope: UserScope, range: DateRange) =>
    (await getItems(scope, '/v1/payments', range)).filter(isPaymentLike) as PlatformPayment[],

  listTransfers: async (scope: UserScope, range: DateRange) =>
    (await getItems(scope, '/v1/transfers', range)).filter(isPaymentLike) as PlatformTransfer[],

  /**
   * `POST /v1/payments` with an `Idempotency-Key`. Never retried here: a lost answer is the
   * caller's to resolve by sending the same key again.
   */
  createPayment: (scope: UserScope, payment: PlatformPaymentRequest, idempotencyKey: string) =>
    create<PlatformPayment>(scope, '/v1/payments', payment, idempotencyKey),

  /** `PUT /v1/payments/{id}/cancel`. */
  cancelPayment: async (scope: UserScope, paymentId: string): Promise<void> => {
    const response = await scope.send({ method: 'PUT', path: `/v1/payments/${id(paymentId)}/cancel`, retry: false });
    ensureOk(scope, response, 'PUT /v1/payments/{id}/cancel');
  },

  createTransfer: (scope: UserScope, transfer: PlatformTransferRequest, idempotencyKey: string) =>
    create<PlatformTransfer>(scope, '/v1/transfers', transfer, idempotencyKey),

  /** `POST /v1/transactions/ids`: the rows a TRANSACTION webhook names. */
  getTransactionsByIds: async (scope: UserScope, ids: string[]) => {
    if (ids.length === 0) return [];
    // A read, though sent as POST: safe to retry.
    const response = await scope.send({ method: 'POST', path: '/v1/transactions/ids', json: ids, retry: true });
    ensureOk(scope, response, 'POST /v1/transactions/ids');
    const items = (response.body as { items?: unknown } | undefined)?.items;
    if (!Array.isArray(items)) throw badResponse(scope, '/v1/transactions/ids response has no items');
    return items.filter(isTransaction);
  },

  /** `GET /v1/webhooks`: the user's subscriptions (the type is absent in some platform versions). */
  listWebhooks: async (scope: UserScope) => (await getItems(scope, '/v1/webhooks')).filter(isWebhook),

  /** `DELETE /v1/webhooks/{id}`: ends one subscription; an unknown id (404) is already gone. */
  deleteWebhook: async (scope: UserScope, webhookId: string): Promise<void> => {
    const response = await scope.send({ method: 'DELETE', path: `/v1/webhooks/${id(webhookId)}` });
    if (response.status === 404) return;
    ensureOk(scope, response, 'DELETE /v1/webhooks/{id}');
  },

  /** `POST /v1/webhooks`: subscribes the user to one webhook type; returns the subscription id. */
  registerWebhook: async (scope: UserScope, webhookType: string, state: string): Promise<string> => {
    const response = await scope.send({
      method: 'POST',
      path: '/v1/webhooks',
      json: { webhook_type: webhookType, state },
    });
    ensureOk(scope, response, 'POST /v1/webhooks');
    const body = response.body as { item_id?: unknown; item?: { _id?: unknown } } | undefined;
    const subscriptionId = body?.item_id ?? body?.item?._id;
    if (typeof subscriptionId !== 'string') throw badResponse(scope, 'webhook subscription response has no id');
    return subscriptionId;
  },
};

type UserCalls = typeof userCalls;
export type UserCallName = keyof UserCalls;

/** The user-scoped calls with the user's token as the first argument. */
export type TokenFirstCalls = {
  [K in UserCallName]: UserCalls[K] extends (scope: UserScope, ...args: infer A) => infer R
    ? (userToken: string, ...args: A) => R
    : never;
};

/** The user-scoped calls with a user's token already bound. */
export type BoundUserCalls = {
  [K in UserCallName]: UserCalls[K] extends (scope: UserScope, ...args: infer A) => infer R ? (...args: A) => R : never;
};
