import type {
  PlatformAccount,
  PlatformNameInput,
  PlatformNameVerification,
  PlatformCreation,
  PlatformPayment,
  PlatformPaymentRequest,
  PlatformTransfer,
  PlatformTransferRequest,
  PlatformPendingTransaction,
  PlatformTokenGrant,
  PlatformTransaction,
  PlatformTransactionPage,
  PlatformUser,
} from './platform-types.js';
import { UpstreamError } from './upstream-error.js';
import { httpStatusError, type UpstreamHttp, type UpstreamResponse } from './upstream-http.js';

export interface CoreClientOptions {
  appToken: string;
  appSecret: string;
  /** `X-Service` per the specification, `X-Akahu` on the live platform. */
  headerPrefix: string;
}

export interface CoreClient {
  /** The same client, its calls tagged with a gateway request's id (sent as `x-request-id`). */
  forRequest(requestId: string): CoreClient;
  /** `POST /v1/token`: trades a single-use authorization code for a user access token. */
  exchangeCode(code: string, redirectUri: string): Promise<PlatformTokenGrant>;
  /** `GET /v1/me` for the user behind `userToken`. */
  getMe(userToken: string): Promise<PlatformUser>;
  listAccounts(userToken: string): Promise<PlatformAccount[]>;
  /** One account; undefined when the platform answers 404. */
  getAccount(userToken: string, accountId: string): Promise<PlatformAccount | undefined>;
  /** One upstream page of settled transactions (`start` exclusive, `end` inclusive). */
  listTransactions(
    userToken: string,
    filter: TransactionFilter,
    cursor: string | null,
  ): Promise<PlatformTransactionPage>;
  listPendingTransactions(userToken: string, accountId?: string): Promise<PlatformPendingTransaction[]>;
  verifyName(userToken: string, name: PlatformNameInput, accountId?: string): Promise<PlatformNameVerification>;
  /** `DELETE /v1/accounts/{id}`: the app loses access to one account. */
  revokeAccount(userToken: string, accountId: string): Promise<void>;
  /** `DELETE /v1/token`: the token, and all access, ends. */
  revokeToken(userToken: string): Promise<void>;
  /** `POST /v1/refresh` or `/v1/refresh/{id}` (an account or connection id). */
  refresh(userToken: string, id?: string): Promise<void>;
  /** Current payment or transfer by id (webhooks are signals: the object is re-read); undefined on 404. */
  getPayment(userToken: string, paymentId: string): Promise<PlatformPayment | undefined>;
  getTransfer(userToken: string, transferId: string): Promise<PlatformTransfer | undefined>;
  /** `GET /v1/payments` created in [start, end] (the platform's default: the last 30 days). */
  listPayments(userToken: string, range: DateRange): Promise<PlatformPayment[]>;
  listTransfers(userToken: string, range: DateRange): Promise<PlatformTransfer[]>;
  /**
   * `POST /v1/payments` with an `Idempotency-Key`. Never retried here: a lost answer is the
   * caller's to resolve by sending the same key again.
   */
  createPayment(
    userToken: string,
    payment: PlatformPaymentRequest,
    idempotencyKey: string,
  ): Promise<PlatformCreation<PlatformPayment>>;
  /** `PUT /v1/payments/{id}/cancel`. */
  cancelPayment(userToken: string, paymentId: string): Promise<void>;
  createTransfer(
    userToken: string,
    transfer: PlatformTransferRequest,
    idempotencyKey: string,
  ): Promise<PlatformCreation<PlatformTransfer>>;
  /** `POST /v1/transactions/ids`: the rows a TRANSACTION webhook names. */
  getTransactionsByIds(userToken: string, ids: string[]): Promise<PlatformTransaction[]>;
  /** `GET /v1/webhooks`: the user's subscriptions (the type is absent in some platform versions). */
  listWebhooks(userToken: string): Promise<Array<{ _id: string; type?: string; state?: string }>>;
  /** `DELETE /v1/webhooks/{id}`: ends one subscription; an unknown id (404) is already gone. */
  deleteWebhook(userToken: string, webhookId: string): Promise<void>;
  /** `POST /v1/webhooks`: subscribes the user to one webhook type; returns the subscription id. */
  subscribeWebhook(userToken: string, webhookType: string, state: string): Promise<string>;
}

export interface DateRange {
  start?: string;
  end?: string;
}

export interface TransactionFilter {
  accountId?: string;
  start?: string;
  end?: string;
}

/**
 * The platform's core API. Knows the platform's auth modes (user-scoped: bearer user token plus
 * the app id header; token exchange: credentials in the body) and its envelopes; knows nothing of
 * GraphQL or sessions.
 */
export function createCoreClient(http: UpstreamHttp, options: CoreClientOptions): CoreClient {
  const appIdHeader = `${options.headerPrefix}-Id`.toLowerCase();

  function userHeaders(userToken: string): Record<string, string> {
    return { authorization: `Bearer ${userToken}`, [appIdHeader]: options.appToken };
  }

  function ensureOk(response: UpstreamResponse, what: string): void {
    if (response.status < 200 || response.status >= 300) throw httpStatusError(http.name, what, response);
    const body = response.body as { success?: unknown } | undefined;
    if (body?.success === false) throw httpStatusError(http.name, what, { ...response, status: 502 });
  }

  async function getItem(userToken: string, path: string): Promise<unknown> {
    const response = await http.send({ method: 'GET', path, headers: userHeaders(userToken) });
    ensureOk(response, `GET ${path}`);
    return (response.body as { item?: unknown } | undefined)?.item;
  }

  async function getOptionalItem(userToken: string, path: string, what: string): Promise<unknown> {
    const response = await http.send({ method: 'GET', path, headers: userHeaders(userToken) });
    if (response.status === 404) return undefined;
    ensureOk(response, what);
    const item = (response.body as { item?: { _id?: unknown; status?: unknown } } | undefined)?.item;
    if (typeof item?._id !== 'string' || typeof item.status !== 'string')
      throw new UpstreamError(http.name, 'bad_response', `${what} response has no valid item`);
    return item;
  }

  async function getItems(userToken: string, path: string): Promise<unknown[]> {
    const response = await http.send({ method: 'GET', path, headers: userHeaders(userToken) });
    ensureOk(response, `GET ${path}`);
    const items = (response.body as { items?: unknown } | undefined)?.items;
    if (!Array.isArray(items)) throw new UpstreamError(http.name, 'bad_response', `${path} response has no items`);
    return items;
  }

  async function getItemsWithQuery(userToken: string, path: string, query: DateRange): Promise<unknown[]> {
    const response = await http.send({ method: 'GET', path, query: { ...query }, headers: userHeaders(userToken) });
    ensureOk(response, `GET ${path}`);
    const items = (response.body as { items?: unknown } | undefined)?.items;
    if (!Array.isArray(items)) throw new UpstreamError(http.name, 'bad_response', `${path} response has no items`);
    return items;
  }

  async function create<T extends { _id: string; status: string }>(
    userToken: string,
    path: string,
    json: unknown,
    idempotencyKey: string,
  ): Promise<PlatformCreation<T>> {
    const response = await http.send({
      method: 'POST',
      path,
      headers: { ...userHeaders(userToken), 'idempotency-key': idempotencyKey },
      json,
      retry: false,
    });
    ensureOk(response, `POST ${path}`);
    const item = (response.body as { item?: unknown } | undefined)?.item;
    if (!isPaymentLike(item)) throw new UpstreamError(http.name, 'bad_response', `POST ${path} response has no item`);
    return { item: item as unknown as T, replayed: response.headers['idempotent-replayed'] === 'true' };
  }

  return {
    forRequest: (requestId) => createCoreClient(taggedWith(http, requestId), options),

    async exchangeCode(code, redirectUri) {
      const response = await http.send({
        method: 'POST',
        path: '/v1/token',
        json: {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: options.appToken,
          client_secret: options.appSecret,
        },
      });
      ensureOk(response, 'POST /v1/token');
      const grant = response.body as Partial<PlatformTokenGrant> | undefined;
      if (typeof grant?.access_token !== 'string' || grant.access_token.length === 0) {
        throw new UpstreamError(http.name, 'bad_response', 'token response has no access_token');
      }
      return { access_token: grant.access_token, token_type: String(grant.token_type ?? 'bearer'), scope: grant.scope };
    },

    async getMe(userToken) {
      const item = await getItem(userToken, '/v1/me');
      if (typeof (item as Partial<PlatformUser> | undefined)?._id !== 'string')
        throw new UpstreamError(http.name, 'bad_response', '/v1/me response has no item._id');
      return item as PlatformUser;
    },

    async listAccounts(userToken) {
      return (await getItems(userToken, '/v1/accounts')).filter(isAccount);
    },

    async getAccount(userToken, accountId) {
      const response = await http.send({
        method: 'GET',
        path: `/v1/accounts/${encodeURIComponent(accountId)}`,
        headers: userHeaders(userToken),
      });
      if (response.status === 404) return undefined;
      ensureOk(response, 'GET /v1/accounts/{id}');
      const item = (response.body as { item?: unknown } | undefined)?.item;
      if (!isAccount(item)) throw new UpstreamError(http.name, 'bad_response', 'account response has no valid item');
      return item;
    },

    async listTransactions(userToken, filter, cursor) {
      const path = filter.accountId
        ? `/v1/accounts/${encodeURIComponent(filter.accountId)}/transactions`
        : '/v1/transactions';
      const response = await http.send({
        method: 'GET',
        path,
        headers: userHeaders(userToken),
        query: { start: filter.start, end: filter.end, ...(cursor !== null ? { cursor } : {}) },
      });
      ensureOk(response, `GET ${filter.accountId ? '/v1/accounts/{id}/transactions' : '/v1/transactions'}`);
      const body = response.body as { items?: unknown; cursor?: { next?: unknown } } | undefined;
      if (!Array.isArray(body?.items))
        throw new UpstreamError(http.name, 'bad_response', 'transactions response has no items');
      const next = body.cursor?.next;
      return {
        items: body.items.filter(isTransaction),
        next: typeof next === 'string' && next.length > 0 ? next : null,
      };
    },

    async listPendingTransactions(userToken, accountId) {
      const path = accountId
        ? `/v1/accounts/${encodeURIComponent(accountId)}/transactions/pending`
        : '/v1/transactions/pending';
      return (await getItems(userToken, path)).filter(isPending);
    },

    async verifyName(userToken, name, accountId) {
      const path = accountId ? `/v1/verify/name/${encodeURIComponent(accountId)}` : '/v1/verify/name';
      const response = await http.send({
        method: 'POST',
        path,
        headers: userHeaders(userToken),
        json: name,
        retry: false,
      });
      ensureOk(response, `POST ${accountId ? '/v1/verify/name/{id}' : '/v1/verify/name'}`);
      const item = (response.body as { item?: Partial<PlatformNameVerification> } | undefined)?.item;
      if (!item || !Array.isArray(item.sources))
        throw new UpstreamError(http.name, 'bad_response', 'verify name response has no sources');
      return {
        sources: item.sources.filter((source) => typeof source === 'object' && source !== null),
        name: item.name ?? name,
      };
    },

    async revokeAccount(userToken, accountId) {
      const response = await http.send({
        method: 'DELETE',
        path: `/v1/accounts/${encodeURIComponent(accountId)}`,
        headers: userHeaders(userToken),
      });
      ensureOk(response, 'DELETE /v1/accounts/{id}');
    },

    async revokeToken(userToken) {
      const response = await http.send({ method: 'DELETE', path: '/v1/token', headers: userHeaders(userToken) });
      ensureOk(response, 'DELETE /v1/token');
    },

    async getPayment(userToken, paymentId) {
      return getOptionalItem(
        userToken,
        `/v1/payments/${encodeURIComponent(paymentId)}`,
        'GET /v1/payments/{id}',
      ) as Promise<PlatformPayment | undefined>;
    },

    async getTransfer(userToken, transferId) {
      return getOptionalItem(
        userToken,
        `/v1/transfers/${encodeURIComponent(transferId)}`,
        'GET /v1/transfers/{id}',
      ) as Promise<PlatformTransfer | undefined>;
    },

    async listPayments(userToken, range) {
      return (await getItemsWithQuery(userToken, '/v1/payments', range)).filter(isPaymentLike) as PlatformPayment[];
    },

    async listTransfers(userToken, range) {
      return (await getItemsWithQuery(userToken, '/v1/transfers', range)).filter(isPaymentLike) as PlatformTransfer[];
    },

    async createPayment(userToken, payment, idempotencyKey) {
      return create<PlatformPayment>(userToken, '/v1/payments', payment, idempotencyKey);
    },

    async cancelPayment(userToken, paymentId) {
      const response = await http.send({
        method: 'PUT',
        path: `/v1/payments/${encodeURIComponent(paymentId)}/cancel`,
        headers: userHeaders(userToken),
        retry: false,
      });
      ensureOk(response, 'PUT /v1/payments/{id}/cancel');
    },

    async createTransfer(userToken, transfer, idempotencyKey) {
      return create<PlatformTransfer>(userToken, '/v1/transfers', transfer, idempotencyKey);
    },

    async getTransactionsByIds(userToken, ids) {
      if (ids.length === 0) return [];
      // A read, though sent as POST: safe to retry.
      const response = await http.send({
        method: 'POST',
        path: '/v1/transactions/ids',
        headers: userHeaders(userToken),
        json: ids,
        retry: true,
      });
      ensureOk(response, 'POST /v1/transactions/ids');
      const items = (response.body as { items?: unknown } | undefined)?.items;
      if (!Array.isArray(items))
        throw new UpstreamError(http.name, 'bad_response', '/v1/transactions/ids response has no items');
      return items.filter(isTransaction);
    },

    async listWebhooks(userToken) {
      return (await getItems(userToken, '/v1/webhooks')).filter(
        (item): item is { _id: string; type?: string; state?: string } =>
          typeof (item as { _id?: unknown })?._id === 'string',
      );
    },

    async deleteWebhook(userToken, webhookId) {
      const response = await http.send({
        method: 'DELETE',
        path: `/v1/webhooks/${encodeURIComponent(webhookId)}`,
        headers: userHeaders(userToken),
      });
      if (response.status === 404) return;
      ensureOk(response, 'DELETE /v1/webhooks/{id}');
    },

    async subscribeWebhook(userToken, webhookType, state) {
      const response = await http.send({
        method: 'POST',
        path: '/v1/webhooks',
        headers: userHeaders(userToken),
        json: { webhook_type: webhookType, state },
      });
      ensureOk(response, 'POST /v1/webhooks');
      const body = response.body as { item_id?: unknown; item?: { _id?: unknown } } | undefined;
      const id = body?.item_id ?? body?.item?._id;
      if (typeof id !== 'string')
        throw new UpstreamError(http.name, 'bad_response', 'webhook subscription response has no id');
      return id;
    },

    async refresh(userToken, id) {
      const path = id ? `/v1/refresh/${encodeURIComponent(id)}` : '/v1/refresh';
      const response = await http.send({
        method: 'POST',
        path,
        headers: { ...userHeaders(userToken), accept: 'application/json' },
      });
      ensureOk(response, `POST ${id ? '/v1/refresh/{id}' : '/v1/refresh'}`);
    },
  };
}

// The platform's typings have drifted before: check what the gateway relies on, tolerate the rest.
function isAccount(value: unknown): value is PlatformAccount {
  const account = value as Partial<PlatformAccount> | undefined;
  return (
    typeof account?._id === 'string' && typeof account.name === 'string' && typeof account.connection?._id === 'string'
  );
}

function isTransaction(value: unknown): value is PlatformTransaction {
  const row = value as Partial<PlatformTransaction> | undefined;
  return (
    typeof row?._id === 'string' &&
    typeof row.date === 'string' &&
    typeof row.amount === 'number' &&
    typeof row.description === 'string'
  );
}

function isPaymentLike(value: unknown): value is { _id: string; status: string; amount: number } {
  const item = value as { _id?: unknown; status?: unknown; amount?: unknown } | undefined;
  return typeof item?._id === 'string' && typeof item.status === 'string' && typeof item.amount === 'number';
}

function isPending(value: unknown): value is PlatformPendingTransaction {
  const row = value as Partial<PlatformPendingTransaction> | undefined;
  return (
    typeof row?._account === 'string' &&
    typeof row.date === 'string' &&
    typeof row.amount === 'number' &&
    typeof row.description === 'string'
  );
}

/** `http` with every request it sends carrying `requestId`; its pool stays the shared one's to close. */
function taggedWith(http: UpstreamHttp, requestId: string): UpstreamHttp {
  return { name: http.name, send: (request) => http.send({ ...request, requestId }), close: async () => undefined };
}
