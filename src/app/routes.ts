import type { Clock } from '@open-finance-gateway/common/clock';
import type { Router } from '@open-finance-gateway/common/http/router';
import type { Logger } from '@open-finance-gateway/common/logger';
import { WEBHOOK_TYPES } from '@open-finance-gateway/common/webhook-events';
import { registerAppSignInRoutes } from '../auth/app-sign-in-routes.js';
import { createAppSignIn } from '../auth/app-sign-in.js';
import { createAuthRouteSupport } from '../auth/auth-route-support.js';
import { registerBankConnectionRoutes, type BankConnectionRoutesOptions } from '../auth/bank-connection-routes.js';
import { loadConsumerInfoTemplate } from '../auth/consumer-info.js';
import { registerPhoneBankConnectionRoute } from '../auth/phone-bank-connection-routes.js';
import type { PhoneBankConnection } from '../auth/phone-bank-connection.js';
import type { GatewayConfig } from '../config/config.js';
import type { GatewayEvents } from '../lib/gateway-events.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import { registerGraphiqlRoutes } from '../server/graphiql/graphiql-routes.js';
import { registerAdminRoutes } from '../server/http/admin-routes.js';
import type { GatewayMetrics } from '../server/observability/metrics.js';
import { createWebhookRegistrar } from '../webhooks/webhook-registrar.js';
import type { GatewayState } from './state.js';
import type { UpstreamEndpoints } from './upstream-choice.js';
import type { Upstreams } from './upstreams.js';
import { registerWebhookReceiver } from './webhook-receiver.js';

/** What the routes are built from (and, with more, the HTTP layer: http-layer.ts). */
export interface RouteDependencies {
  config: GatewayConfig;
  endpoints: UpstreamEndpoints;
  upstreams: Upstreams;
  state: GatewayState;
  metrics: GatewayMetrics;
  logger: Logger;
  clock: Clock;
  /** Known once the server listens (the port may be chosen then). */
  publicUrl: () => string;
  allowedOrigins: () => ReadonlySet<string>;
  /** Whether webhooks are received (full apps). */
  accepting: () => boolean;
  events: GatewayEvents;
}

/** The Prometheus text of every metric, for `/admin/metrics` and the METRICS_PORT listener. */
export async function scrapeOf(metrics: GatewayMetrics) {
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}

/**
 * Every route but GraphQL's own: the webhook receiver (full apps), sign-in and the bank
 * connection, the operator routes, and GraphiQL; answers GraphiQL's routes when it is on.
 */
export function registerRoutes(
  router: Router<ScopedRouteRequest>,
  deps: RouteDependencies,
  phoneBankConnection: PhoneBankConnection,
) {
  const { config, state, endpoints } = deps;
  if (config.appKind === 'FULL') {
    registerWebhookReceiver(router, {
      events: deps.events,
      config,
      endpoints,
      keysHttp: deps.upstreams.keysHttp,
      state,
      metrics: deps.metrics,
      logger: deps.logger,
      clock: deps.clock,
      accepting: deps.accepting,
    });
  }
  registerSignInRoutes(router, deps, phoneBankConnection);
  if (config.adminToken)
    registerAdminRoutes(router, {
      token: config.adminToken,
      deadLetters: state.stores.deadLetters,
      metrics: () => scrapeOf(deps.metrics),
      endAccess: (userId) => state.sessions.endAllForUser(userId),
    });
  // With TRUSTED_DOCUMENTS, GraphiQL could run only the manifest's texts: off unless asked for.
  return config.graphql.graphiql && (config.trustedDocuments?.graphiql ?? true)
    ? registerGraphiqlRoutes(router, state.sessions, () => endpoints.sandbox?.consoleUrl)
    : undefined;
}

/** App sign-in (OIDC) and the bank connection; a new connection subscribes its webhooks (full apps). */
function registerSignInRoutes(
  router: Router<ScopedRouteRequest>,
  deps: RouteDependencies,
  phoneBankConnection: PhoneBankConnection,
): void {
  const { config, endpoints, upstreams, state, clock } = deps;
  const registerWebhooks = createWebhookRegistrar({
    core: upstreams.coreClient,
    handles: state.stores.handles,
    types: WEBHOOK_TYPES,
    logger: deps.logger,
  });
  const support = createAuthRouteSupport({
    publicUrl: deps.publicUrl,
    secureCookies: config.publicUrl?.startsWith('https:') ?? false,
    allowedOrigins: deps.allowedOrigins,
  });
  registerAppSignInRoutes(router, {
    support,
    signIn: createAppSignIn({
      issuer: endpoints.identity.issuer,
      clientId: endpoints.identity.clientId,
      clientSecret: endpoints.identity.clientSecret,
      scopes: endpoints.identity.scopes,
      allowInsecureIssuer: endpoints.identity.issuer.startsWith('http:'),
    }),
    sessions: state.sessions,
    states: state.stores.oauthStates,
    bankConnections: state.stores.bankConnections,
    mfa: config.mfa,
    publicUrl: deps.publicUrl,
    clock,
  });
  const bankConnection: BankConnectionRoutesOptions = {
    support,
    consumerInfo: {
      appName: config.consumerInfo.appName,
      platformName: config.consumerInfo.platformName,
      privacyNoticeUrl: config.compliance.privacyNoticeUrl,
      template: loadConsumerInfoTemplate(config.consumerInfo.templatePath),
      payments: config.appKind === 'FULL',
    },
    sessions: state.sessions,
    states: state.stores.oauthStates,
    bankConnections: state.stores.bankConnections,
    core: upstreams.coreClient,
    mfa: config.mfa,
    appToken: endpoints.core.appToken,
    authorizeUrl: endpoints.core.authorizeUrl,
    publicUrl: deps.publicUrl,
    clock,
    revokeReplacedToken: (userId, token) => state.revoker.revokeUnlessHeld(userId, token),
    onConsentStored: async (userId) => {
      await state.keptReads?.forget(userId);
      if (state.keptReads) deps.metrics.userDataInvalidation('reconnection');
    },
    onConnected:
      config.appKind === 'FULL'
        ? async (userId, token) => {
            const outcome = await registerWebhooks(userId, token);
            deps.events.emit('webhooks-registered', { userId, ...outcome });
          }
        : undefined,
  };
  registerBankConnectionRoutes(router, bankConnection);
  registerPhoneBankConnectionRoute(router, { ...bankConnection, phone: phoneBankConnection });
}
