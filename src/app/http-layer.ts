import type { Server } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { createAppSignIn } from '../auth/app-sign-in.js';
import { registerAppSignInRoutes } from '../auth/app-sign-in-routes.js';
import { createAuthRouteSupport } from '../auth/auth-route-support.js';
import { registerConnectionRoutes } from '../auth/connection-routes.js';
import type { GatewayConfig } from '../config/config.js';
import type { GatewayContext } from '../graphql/context.js';
import { formatError, reportExecutionErrors } from '../graphql/format-error.js';
import { createOperationRules } from '../graphql/operation-rules.js';
import { loadTrustedDocuments } from '../graphql/trusted-documents.js';
import { buildGatewaySchema } from '../graphql/schema.js';
import type { Clock } from '../lib/clock.js';
import { Router } from '../lib/http/router.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import type { GatewayEvents } from '../lib/gateway-events.js';
import type { Logger } from '../lib/logger.js';
import { createUserCallLimiter } from '../loaders/user-call-limiter.js';
import { WEBHOOK_TYPES } from '../platform/webhook-events.js';
import { registerAdminRoutes } from '../server/http/admin-routes.js';
import { createApolloServer } from '../server/graphql-http/apollo.js';
import { CloseCode } from '../server/websocket/close-codes.js';
import { registerGraphiqlRoutes } from '../server/graphiql/graphiql-routes.js';
import { createGraphQLHttpHandler } from '../server/graphql-http/graphql-http-handler.js';
import { createGatewayHttpServer } from '../server/http/http-server.js';
import type { GatewayMetrics } from '../server/observability/metrics.js';
import { startMetricsServer } from '../server/observability/metrics-server.js';
import { createCreationOnce } from '../payments/creation-once.js';
import { createEventStreamContextFactory, createRequestContextFactory } from '../server/request-context.js';
import { attachGraphQLWebSocket } from '../server/websocket/websocket-server.js';
import { createWebhookSubscriber } from '../webhooks/webhook-subscriber.js';
import type { PlatformEndpoints } from './platform.js';
import { loadConsumerInfoTemplate } from '../auth/consumer-info.js';
import type { GatewayState } from './state.js';
import type { Upstreams } from './upstreams.js';
import { registerWebhookReceiver } from './webhook-receiver.js';

const MAX_GRAPHQL_BODY_BYTES = 512 * 1024;

export interface HttpLayer {
  /** Not yet listening: the caller listens once every step has succeeded. */
  server: Server;
  apollo: ApolloServer<GatewayContext>;
  websockets: ReturnType<typeof attachGraphQLWebSocket>;
  /** The METRICS_PORT listener, when configured (already listening). */
  metricsServer: Server | undefined;
}

export interface HttpLayerDependencies {
  config: GatewayConfig;
  platform: PlatformEndpoints;
  upstreams: Upstreams;
  state: GatewayState;
  metrics: GatewayMetrics;
  logger: Logger;
  clock: Clock;
  /** Known once the server listens (the port may be chosen then). */
  publicUrl: () => string;
  allowedOrigins: () => ReadonlySet<string>;
  /** The lifecycle phase; `/readyz` adds a probe of the shared store when `ready`. */
  readiness: () => 'ready' | 'starting' | 'draining' | 'unavailable';
  /** Whether webhooks are received (full apps). */
  accepting: () => boolean;
  sessionRecheckMs?: number;
  heartbeatIntervalMs?: number;
  events: GatewayEvents;
}

/**
 * Step 5: GraphQL over HTTP and WebSockets, and every route: the schema and the operation rules,
 * Apollo, the webhook receiver (full apps), sign-in, operator routes, GraphiQL, the HTTP server and
 * the socket server on it, and the metrics listener when METRICS_PORT is set.
 */
export async function createHttpLayer(deps: HttpLayerDependencies, undo: Array<() => unknown>): Promise<HttpLayer> {
  const { config, platform, upstreams, state, metrics, logger, clock } = deps;
  const scrape = async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() });
  const webhooksEnabled = config.appKind === 'FULL';

  const schema = await buildGatewaySchema({
    enrichment: { maxQueriesPerRequest: config.enrichment.maxQueriesPerRequest },
  });
  const rules = createOperationRules({
    graphql: config.graphql,
    maxListLength: config.enrichment.maxQueriesPerRequest,
  });
  const trustedDocuments = config.trustedDocuments && loadTrustedDocuments(config.trustedDocuments.path);
  const apollo = createApolloServer(
    schema,
    rules,
    logger,
    (type, outcome) => metrics.operation(type, outcome, 'http'),
    trustedDocuments,
  );
  await apollo.start();
  undo.push(() => apollo.stop());

  const router = new Router<ScopedRouteRequest>();
  if (webhooksEnabled) {
    registerWebhookReceiver(router, {
      events: deps.events,
      config,
      platform,
      keysHttp: upstreams.keysHttp,
      state,
      metrics,
      logger,
      clock,
      accepting: deps.accepting,
    });
  }
  const subscribeWebhooks = createWebhookSubscriber({
    core: upstreams.coreClient,
    handles: state.stores.handles,
    types: WEBHOOK_TYPES,
    logger,
  });
  const support = createAuthRouteSupport({
    publicUrl: deps.publicUrl,
    secureCookies: config.publicUrl?.startsWith('https:') ?? false,
    allowedOrigins: deps.allowedOrigins,
  });
  registerAppSignInRoutes(router, {
    support,
    signIn: createAppSignIn({
      issuer: platform.identity.issuer,
      clientId: platform.identity.clientId,
      clientSecret: platform.identity.clientSecret,
      scopes: platform.identity.scopes,
      allowInsecureIssuer: platform.identity.issuer.startsWith('http:'),
    }),
    sessions: state.sessions,
    states: state.stores.oauthStates,
    connections: state.stores.connections,
    mfa: config.mfa,
    publicUrl: deps.publicUrl,
    clock,
  });
  registerConnectionRoutes(router, {
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
    connections: state.stores.connections,
    core: upstreams.coreClient,
    mfa: config.mfa,
    appToken: platform.core.appToken,
    authorizeUrl: platform.core.authorizeUrl,
    publicUrl: deps.publicUrl,
    clock,
    releaseToken: (userId, token) => state.releaser.release(userId, token),
    onConnected: webhooksEnabled
      ? async (userId, token) => {
          const outcome = await subscribeWebhooks(userId, token);
          deps.events.emit('webhooks-subscribed', { userId, ...outcome });
        }
      : undefined,
  });
  if (config.adminToken)
    registerAdminRoutes(router, { token: config.adminToken, deadLetters: state.stores.deadLetters, metrics: scrape });
  // With TRUSTED_DOCUMENTS, GraphiQL could run only the manifest's texts: off unless asked for.
  const graphiql =
    config.graphql.graphiql && (config.trustedDocuments?.graphiql ?? true)
      ? registerGraphiqlRoutes(router, state.sessions, () => platform.sandbox?.consoleUrl)
      : undefined;

  const createContext = createRequestContextFactory({
    core: upstreams.coreClient,
    sessions: state.sessions,
    connections: state.stores.connections,
    tokenDied: state.tokenDied,
    mfa: config.mfa,
    loaders: upstreams.loaderDeps,
    eraser: state.eraser,
    appKind: config.appKind,
    pubsub: state.stores.pubsub,
    publicUrl: deps.publicUrl,
    allowedOrigins: deps.allowedOrigins,
    userCalls: createUserCallLimiter({ maxInFlight: config.resilience.maxInFlightPerUser }),
    creationKeys: {
      store: state.stores.creationKeys,
      windowMs: config.payments.dedupeWindowMs,
      // The in-progress lease outlives the platform call's deadline, so a live call keeps its key.
      once: createCreationOnce({
        store: state.stores.creationKeys,
        windowMs: config.payments.dedupeWindowMs,
        leaseMs: config.core.timeoutMs + 5_000,
      }),
    },
    clock,
    logger,
  });
  const server = createGatewayHttpServer({
    router,
    graphql: createGraphQLHttpHandler({
      apollo,
      sessions: state.sessions,
      maxBodyBytes: MAX_GRAPHQL_BODY_BYTES,
      createContext,
      trustedDocuments,
      onOperation: (type, outcome) => metrics.operation(type, outcome, 'http'),
    }),
    graphiql,
    logger,
    limits: config.http,
    allowedOrigins: deps.allowedOrigins,
    trustRequestIdHeader: config.trustRequestIdHeader,
    strictTransportSecurity: config.publicUrl?.startsWith('https:') ?? false,
    onRequest: (method, route, status, seconds) => metrics.http(method, route, status, seconds),
    readiness: deps.readiness,
    notReady: async () => {
      const phase = deps.readiness();
      const health = phase === 'ready' ? await state.stores.health() : undefined;
      // A phase is its own reason (`{"status":"draining"}`, as before); a store adds one.
      if (phase !== 'ready') {
        metrics.readinessFailure(phase);
        return { status: phase };
      }
      if (health?.ok !== false) return undefined;
      metrics.readinessFailure(health.reason);
      return { status: 'unavailable', reason: health.reason };
    },
  });
  const websockets = attachGraphQLWebSocket({
    server,
    schema,
    sessions: state.sessions,
    createContext,
    createEventStreamContext: createEventStreamContextFactory({
      sessions: state.sessions,
      mfa: config.mfa,
      publicUrl: deps.publicUrl,
      clock,
      pubsub: state.stores.pubsub,
      logger,
      onStarted: (userId, type) => {
        metrics.subscriptionStarted();
        deps.events.emit('subscription-started', { userId, type });
      },
    }),
    clock,
    formatError,
    reportErrors: reportExecutionErrors,
    allowedOrigins: deps.allowedOrigins,
    rules,
    trustedDocuments,
    onOperation: (type, outcome) => metrics.operation(type, outcome, 'websocket'),
    limits: config.websocket,
    logger,
    connectionInitTimeoutMs: config.wsConnectionInitTimeoutMs,
    sessionRecheckMs: deps.sessionRecheckMs,
    heartbeatIntervalMs: deps.heartbeatIntervalMs,
    onFrameSent: () => metrics.eventDelivered(),
    onSlowReaderCut: () => deps.events.emit('socket-cut', { reason: 'slow-reader' }),
  });
  undo.push(() => websockets.close(CloseCode.GOING_AWAY, 'Going away'));
  metrics.watch('gateway_websocket_open_sockets', 'Open GraphQL WebSockets.', () => websockets.openSockets);

  let metricsServer: Server | undefined;
  if (config.metricsPort !== undefined) {
    const listening = await startMetricsServer(config.metricsHost, config.metricsPort, scrape);
    undo.push(() => new Promise((resolve) => listening.close(resolve)));
    metricsServer = listening;
  }
  return { server, apollo, websockets, metricsServer };
}
