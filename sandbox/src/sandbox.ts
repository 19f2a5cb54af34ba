import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { Router } from '@open-finance-gateway/common/http/router';
import { registerOAuthRoutes } from './core/oauth-routes.js';
import { registerUserRoutes } from './core/user-routes.js';
import { buildCategories } from './data/categories.js';
import { buildConnections } from './data/connections.js';
import { addLoadTestUsers, buildDemoWorld, compareTransactions } from './data/demo-world.js';
import { registerAccessRoutes } from './core/access-routes.js';
import { registerAccountRoutes } from './core/account-routes.js';
import { registerControlRoutes } from './core/control-routes.js';
import { registerTransactionRoutes } from './core/transaction-routes.js';
import { registerVerifyNameRoutes } from './core/verify-name-routes.js';
import { createMerchantMatcher } from './enrichment/merchant-matcher.js';
import { registerSearchRoutes } from './enrichment/search-routes.js';
import { createSandboxServer, type SandboxRequest } from './sandbox-http.js';
import { registerKeyRoutes } from './webhooks/key-routes.js';
import { registerSubscriptionRoutes, type WebhookSubscription } from './webhooks/subscription-routes.js';
import { DeliveryEngine } from './webhooks/delivery-engine.js';
import { registerWebhookEventRoutes } from './webhooks/events-routes.js';
import { PaymentControls } from './webhooks/payment-controls.js';
import { registerPaymentRoutes } from './core/payment-routes.js';
import { registerCatalogRoutes } from './core/catalog-routes.js';
import { registerIdentityRoutes } from './core/identity-routes.js';
import { registerDemoControlRoutes } from './webhooks/demo-control-routes.js';
import { registerEventControls } from './webhooks/event-controls.js';
import { WorldChanges } from './webhooks/world-changes.js';
import { registerConsoleRoutes } from './console/console-routes.js';
import { createSandboxIdentity } from './identity/identity-provider.js';
import { MERCHANTS } from './data/merchants.js';
import { SigningKeys } from './webhooks/signing-keys.js';
import type { SandboxAccount } from './core/core-model.js';
import { sandboxId } from './data/sandbox-ids.js';
import { base32Encode } from './identity/totp.js';
import { LOAD_USER_PASSWORD, type Sandbox, type SandboxOptions } from './sandbox-api.js';
import { SandboxState, type RecordedRequest, type SandboxCredentials } from './sandbox-state.js';

export { LOAD_USER_PASSWORD, type Sandbox, type SandboxOptions };

/**
 * A faithful local implementation of the platform's HTTP contract: two origins (core and
 * enrichment), the platform's auth modes, envelopes and errors. The gateway talks to it over HTTP
 * exactly as it talks to the live platform.
 */
export function createSandbox(options: SandboxOptions): Sandbox {
  const credentials: SandboxCredentials = {
    appToken: options.credentials?.appToken ?? `app_token_${randomToken(18)}`,
    appSecret: options.credentials?.appSecret ?? randomToken(32),
    enrichmentKey: options.credentials?.enrichmentKey ?? `genie_token_${randomToken(24)}`,
  };
  const state = new SandboxState(credentials, options.clock ?? systemClock);
  state.recordRequests = options.recordRequests ?? false;
  for (const uri of options.redirectUris ?? []) state.redirectUris.add(uri);

  const signingKeys = new SigningKeys();
  const webhookSubscriptions: WebhookSubscription[] = [];
  let webhookUrl = options.webhookUrl;
  const deliveries = new DeliveryEngine({
    keys: signingKeys,
    headerPrefix: options.headerPrefix,
    subscriptions: webhookSubscriptions,
    clock: state.clock,
    logger: options.logger,
    url: () => webhookUrl,
    timeScale: options.webhookTimeScale,
  });
  const payments = new PaymentControls(state, deliveries, options.paymentSettleMs);
  const changes = new WorldChanges(state, deliveries);
  const identitySeed = options.identitySeed ?? randomToken(16);
  const identity = createSandboxIdentity({
    logger: options.logger,
    clock: state.clock,
    host: options.host ?? '127.0.0.1',
    port: options.identityPort ?? 0,
    publicIssuer: options.identityIssuer,
    seed: identitySeed,
    clientId: 'open-finance-gateway',
    clientSecret: sandboxId('oidc_secret', identitySeed),
  });

  /** What a finished refresh produces on the platform: a new transaction and balance updates. */
  function emitRefreshResults(userId: string, accounts: SandboxAccount[]): void {
    for (const account of accounts) {
      if (account.type === 'CHECKING' || account.type === 'CREDITCARD') {
        const merchant = MERCHANTS[state.transactions.length % MERCHANTS.length]!;
        const now = new Date(state.clock()).toISOString();
        const transaction = {
          _id: sandboxId('trans', `refresh:${account._id}:${state.transactions.length}:${now}`),
          _account: account._id,
          _connection: account.connection._id,
          _user: userId,
          created_at: now,
          updated_at: now,
          date: now,
          hash: sandboxId('hash', `refresh:${account._id}:${state.transactions.length}:${now}`),
          description: merchant.sample,
          amount: -12.5,
          type: 'EFTPOS',
          meta: {},
        };
        state.transactions.push(transaction);
        state.transactions.sort(compareTransactions);
        deliveries.emit(userId, 'TRANSACTION', 'DEFAULT_UPDATE', {
          item_id: account._id,
          new_transactions: 1,
          new_transaction_ids: [transaction._id],
        });
      }
      deliveries.emit(userId, 'ACCOUNT', 'UPDATE', { item_id: account._id, updated_fields: ['balance', 'refreshed'] });
    }
  }
  const host = options.host ?? '127.0.0.1';
  let closeConsole: () => void = () => undefined;
  const stopping = new AbortController();
  // Every request held by a delay fault listens for the stop, so more than ten at once is normal.
  setMaxListeners(0, stopping.signal);
  let coreServer: Server | undefined;
  let enrichmentServer: Server | undefined;
  let coreUrl = '';
  let enrichmentUrl = '';

  async function listen(server: Server, port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  const sandbox: Sandbox = {
    credentials,
    signingKeys,
    deliveries,
    payments,
    changes,
    identity,
    get coreUrl() {
      return coreUrl;
    },
    get enrichmentUrl() {
      return enrichmentUrl;
    },
    get authorizeUrl() {
      return `${coreUrl}/oauth/authorize`;
    },
    get consoleUrl() {
      return `${coreUrl}/console`;
    },

    async start() {
      const enrichmentRouter = new Router<SandboxRequest>();
      enrichmentServer = createSandboxServer('enrichment', enrichmentRouter, state, options.logger, stopping.signal);
      enrichmentUrl = await listen(enrichmentServer, options.enrichmentPort ?? 0);

      const categories = buildCategories();
      const connections = buildConnections(enrichmentUrl);
      const world = buildDemoWorld(state.clock(), connections);
      addLoadTestUsers(world, options.loadTestUsers ?? 0, connections, state.clock());
      identity.users.addLoadUsers(
        options.loadTestUsers ?? 0,
        LOAD_USER_PASSWORD,
        base32Encode(Buffer.from(sandboxId('totp', `load:${identitySeed}`).slice(-20))),
      );
      for (const user of world.users) state.users.set(user._id, user);
      for (const account of world.accounts) state.accounts.set(account._id, account);
      state.transactions = world.transactions;
      state.pending = world.pending;
      state.parties = world.parties;
      const matcher = createMerchantMatcher(categories, enrichmentUrl, new Set(connections.map((c) => c._id)));
      registerSearchRoutes(enrichmentRouter, state, matcher);

      const coreRouter = new Router<SandboxRequest>();
      registerOAuthRoutes(coreRouter, state, { codeTtlMs: options.codeTtlMs ?? 60_000 });
      registerUserRoutes(coreRouter, state);
      registerAccountRoutes(coreRouter, state);
      registerTransactionRoutes(coreRouter, state);
      registerCatalogRoutes(coreRouter, state, connections, categories);
      registerIdentityRoutes(coreRouter, state);
      registerAccessRoutes(coreRouter, state, emitRefreshResults);
      registerVerifyNameRoutes(coreRouter, state);
      registerControlRoutes(coreRouter, state, sandbox);
      registerKeyRoutes(coreRouter, state, signingKeys);
      registerSubscriptionRoutes(coreRouter, state, webhookSubscriptions, () => webhookUrl);
      registerWebhookEventRoutes(coreRouter, state, deliveries);
      registerPaymentRoutes(coreRouter, state, payments);
      registerDemoControlRoutes(coreRouter, sandbox);
      registerEventControls(coreRouter, state, deliveries, changes);
      closeConsole = registerConsoleRoutes(coreRouter, state, sandbox);
      coreServer = createSandboxServer('core', coreRouter, state, options.logger, stopping.signal);
      coreUrl = await listen(coreServer, options.corePort ?? 0);
      await identity.start();
      options.logger.info({ coreUrl, enrichmentUrl, identityIssuer: identity.issuer }, 'platform sandbox listening');
    },

    async stop() {
      stopping.abort();
      deliveries.stop();
      payments.stop();
      closeConsole();
      await identity.stop();
      await Promise.all(
        [coreServer, enrichmentServer].map(
          (server) =>
            new Promise<void>((resolve) => {
              if (!server?.listening) return resolve();
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },

    registerRedirectUri(uri) {
      state.redirectUris.add(uri);
    },
    setEnrichmentFault(fault) {
      state.enrichmentFault = { ...fault };
    },
    setCoreFault(fault) {
      state.coreFault = { ...fault };
    },
    setAccountStatus(accountId, status) {
      const account = state.accounts.get(accountId);
      if (!account) return false;
      const changed = account.status !== status;
      account.status = status;
      if (changed)
        deliveries.emit(account.sandboxUserId, 'ACCOUNT', 'UPDATE', {
          item_id: account._id,
          updated_fields: ['status'],
        });
      return true;
    },
    revokeUserTokens(userId) {
      let revoked = 0;
      for (const [token, record] of state.tokens) {
        if (record.userId === userId && !record.revoked) {
          record.revoked = true;
          revoked += 1;
          deliveries.emit(userId, 'TOKEN', 'DELETE', { item_id: token });
        }
      }
      // The app lost the user, so the platform cancels the user's other webhooks.
      if (revoked > 0) {
        for (const hook of webhookSubscriptions.filter(
          (h) => h.userId === userId && h.type !== 'TOKEN' && !h.cancelled,
        )) {
          deliveries.emit(userId, hook.type, 'WEBHOOK_CANCELLED');
          hook.cancelled = true;
        }
      }
      return revoked;
    },
    setWebhookUrl(url) {
      webhookUrl = url;
    },
    clearRefreshLimit(userId) {
      state.lastRefreshAt.delete(userId);
    },
    webhookSubscriptions() {
      return webhookSubscriptions;
    },
    world() {
      return {
        users: [...state.users.values()],
        accounts: [...state.accounts.values()],
        transactions: state.transactions,
        pending: state.pending,
        parties: state.parties,
      };
    },
    nextRequest(match) {
      const seen = state.requests.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const listener = (request: RecordedRequest) => {
          if (!match(request)) return;
          state.requestListeners.delete(listener);
          resolve(request);
        };
        state.requestListeners.add(listener);
      });
    },
    onRequest(listener) {
      state.requestListeners.add(listener);
      return () => state.requestListeners.delete(listener);
    },
    requests(filter = {}) {
      // An empty answer would make "no call was made" assertions pass vacuously.
      if (!state.recordRequests)
        throw new Error('this sandbox keeps no request log: create it with recordRequests: true');
      return state.requests.filter(
        (r) =>
          (filter.service === undefined || r.service === filter.service) &&
          (filter.method === undefined || r.method === filter.method) &&
          (filter.path === undefined || r.path === filter.path),
      );
    },
    issuedTokens() {
      return [...state.tokens.keys()];
    },
  };
  return sandbox;
}
