import type { Server } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import { explainListenError } from '@open-finance-gateway/common/http/listen';
import { Router } from '@open-finance-gateway/common/http/router';
import { createPhoneBankConnection, type PhoneBankConnection } from '../auth/phone-bank-connection.js';
import type { GatewayContext } from '../graphql/context.js';
import { formatError, reportExecutionErrors } from '../graphql/format-error.js';
import { createOperationRules, type OperationRules } from '../graphql/operation-rules.js';
import { buildGatewaySchema } from '../graphql/schema.js';
import { loadTrustedDocuments, type TrustedDocuments } from '../graphql/trusted-documents.js';
import { createCreationOnce } from '../idempotency/creation-once.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import { createUserCallLimiter } from '../loaders/user-call-limiter.js';
import { createApolloServer } from '../server/graphql-http/apollo.js';
import { createGraphQLHttpHandler } from '../server/graphql-http/graphql-http-handler.js';
import { createMultipartSubscriptionHandler } from '../server/http-subscriptions/multipart-subscriptions.js';
import { createSseSubscriptionHandler, SSE_PATH } from '../server/http-subscriptions/sse-subscriptions.js';
import {
  createSubscriptionStreams,
  type StreamTransport,
  type SubscriptionStreams,
} from '../server/http-subscriptions/subscription-streams.js';
import { createGatewayHttpServer } from '../server/http/http-server.js';
import { startMetricsServer } from '../server/observability/metrics-server.js';
import { createRequestContextFactory } from '../server/request-context/request-context.js';
import { createEventStreamContextFactory } from '../server/request-context/session-access.js';
import { CloseCode } from '../server/websocket/close-codes.js';
import { createSocketRegistry, type SocketRegistry } from '../server/websocket/socket-registry.js';
import { attachGraphQLWebSocket } from '../server/websocket/websocket-server.js';
import { createAuthenticator } from './access-tokens.js';
import { registerRoutes, scrapeOf, type RouteDependencies } from './routes.js';

const MAX_GRAPHQL_BODY_BYTES = 512 * 1024;

export interface HttpLayer {
  /** Not yet listening: the caller listens once every step has succeeded. */
  server: Server;
  apollo: ApolloServer<GatewayContext>;
  websockets: ReturnType<typeof attachGraphQLWebSocket>;
  /** The METRICS_PORT listener, when configured (already listening). */
  metricsServer: Server | undefined;
}

export interface HttpLayerDependencies extends RouteDependencies {
  /** The lifecycle phase; `/readyz` adds a probe of the shared store when `ready`. */
  readiness: () => 'ready' | 'starting' | 'draining' | 'unavailable';
  sessionRecheckMs?: number;
  heartbeatIntervalMs?: number;
}

/**
 * Step 5: GraphQL over HTTP and WebSockets, and every route: the schema and the operation rules,
 * Apollo, the webhook receiver (full apps), sign-in, operator routes, GraphiQL, the HTTP server and
 * the socket server on it, and the metrics listener when METRICS_PORT is set.
 */
export async function createHttpLayer(deps: HttpLayerDependencies, undo: Array<() => unknown>): Promise<HttpLayer> {
  const graphql = await startGraphQL(deps, undo);
  const router = new Router<ScopedRouteRequest>();
  const phoneBankConnection = createPhoneBankConnection({
    states: deps.state.stores.oauthStates,
    returnUris: deps.config.appReturnUris,
    publicUrl: deps.publicUrl,
    clock: deps.clock,
  });
  const graphiql = registerRoutes(router, deps, phoneBankConnection);
  const createContext = createRequestContext(deps, phoneBankConnection);
  // Sockets and HTTP subscription streams count against the same caps and end with their session.
  const registry = createSocketRegistry({
    sessions: deps.state.sessions,
    clock: deps.clock,
    recheckMs: deps.sessionRecheckMs ?? 60_000,
    logger: deps.logger,
  });
  const authenticator = createAuthenticator(deps);
  const streams = httpSubscriptions(deps, graphql, createContext, registry, authenticator, router);
  const server = createGatewayHttpServer({
    router,
    graphql: createGraphQLHttpHandler({
      apollo: graphql.apollo,
      sessions: deps.state.sessions,
      authenticator,
      maxBodyBytes: MAX_GRAPHQL_BODY_BYTES,
      createContext,
      trustedDocuments: graphql.trustedDocuments,
      onOperation: (type, outcome) => deps.metrics.operation(type, outcome, 'http'),
      streamSubscription: streams.multipart,
    }),
    graphiql,
    logger: deps.logger,
    joinable: deps.upstreams.loaderDeps.joinable,
    limits: deps.config.http,
    allowedOrigins: deps.allowedOrigins,
    trustRequestIdHeader: deps.config.trustRequestIdHeader,
    strictTransportSecurity: deps.config.publicUrl?.startsWith('https:') ?? false,
    onRequest: (method, route, status, seconds) => deps.metrics.http(method, route, status, seconds),
    readiness: deps.readiness,
    notReady: () => whyNotReady(deps),
  });
  const sockets = attachWebSockets(deps, server, graphql, createContext, registry, authenticator, undo);
  // Shutdown ends the HTTP streams with the sockets (each gets a coded last part, then the listener closes).
  const websockets: typeof sockets = {
    async close(code, reason) {
      streams.close(code, reason);
      await sockets.close(code, reason);
    },
    get openSockets() {
      return sockets.openSockets;
    },
  };
  const metricsServer = await startMetricsListener(deps, undo);
  return { server, apollo: graphql.apollo, websockets, metricsServer };
}

/** What GraphQL runs on, over both transports: the schema, the operation rules, the trusted documents, Apollo started. */
interface GraphQLParts {
  schema: GraphQLSchema;
  rules: OperationRules;
  trustedDocuments: TrustedDocuments | undefined;
  apollo: ApolloServer<GatewayContext>;
}

async function startGraphQL(deps: HttpLayerDependencies, undo: Array<() => unknown>): Promise<GraphQLParts> {
  const { config, metrics, logger } = deps;
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
  return { schema, rules, trustedDocuments, apollo };
}

/** One factory for every operation's context, whichever transport carries it. */
function createRequestContext(
  { config, upstreams, state, clock, logger, ...deps }: HttpLayerDependencies,
  phoneBankConnection: PhoneBankConnection,
) {
  return createRequestContextFactory({
    phoneBankConnection,
    core: upstreams.coreClient,
    sessions: state.sessions,
    bankConnections: state.stores.bankConnections,
    tokenDied: state.tokenDied,
    mfa: config.mfa,
    loaders: { ...upstreams.loaderDeps, keptReads: state.keptReads },
    eraser: state.eraser,
    appKind: config.appKind,
    eventLog: state.stores.eventLog,
    publicUrl: deps.publicUrl,
    allowedOrigins: deps.allowedOrigins,
    userCalls: createUserCallLimiter({ maxInFlight: config.resilience.maxInFlightPerUser }),
    idempotencyKeys: {
      store: state.stores.idempotencyKeys,
      windowMs: config.payments.dedupeWindowMs,
      // The in-progress lease outlives the platform call's deadline, so a live call keeps its key.
      once: createCreationOnce({
        store: state.stores.idempotencyKeys,
        windowMs: config.payments.dedupeWindowMs,
        leaseMs: config.core.timeoutMs + 5_000,
      }),
    },
    clock,
    logger,
  });
}

/** `/readyz`: undefined when ready, else why not. A phase is its own reason (`{"status":"draining"}`); a store adds one. */
async function whyNotReady({ readiness, state, metrics }: HttpLayerDependencies) {
  const phase = readiness();
  const health = phase === 'ready' ? await state.stores.health() : undefined;
  if (phase !== 'ready') {
    metrics.readinessFailure(phase);
    return { status: phase };
  }
  if (health?.ok !== false) return undefined;
  metrics.readinessFailure(health.reason);
  return { status: 'unavailable', reason: health.reason };
}

/** What a subscription keeps for its life, the same for every transport but the label its metrics carry. */
function eventStreamContexts(deps: HttpLayerDependencies, transport: 'websocket' | StreamTransport) {
  const { config, state, metrics, clock, logger } = deps;
  return createEventStreamContextFactory({
    sessions: state.sessions,
    mfa: config.mfa,
    publicUrl: deps.publicUrl,
    clock,
    eventLog: state.stores.eventLog,
    logger,
    onStarted: (userId, type) => {
      metrics.subscriptionStarted(transport);
      deps.events.emit('subscription-started', { userId, type });
    },
    onEnded: (userId, type) => deps.events.emit('subscription-ended', { userId, type }),
  });
}

/**
 * Subscriptions over HTTP: Apollo's multipart protocol on POST /graphql (handed the requests
 * Apollo would refuse), and graphql-sse at /graphql/stream; each a thin adapter over the socket's
 * operation pipeline, with the socket's caps and registry.
 */
function httpSubscriptions(
  deps: HttpLayerDependencies,
  { schema, rules, trustedDocuments }: GraphQLParts,
  createContext: ReturnType<typeof createRequestContextFactory>,
  registry: SocketRegistry,
  authenticator: ReturnType<typeof createAuthenticator>,
  router: Router<ScopedRouteRequest>,
) {
  const { config, state, metrics, logger } = deps;
  const streamsFor = (transport: StreamTransport): SubscriptionStreams =>
    createSubscriptionStreams({
      transport,
      schema,
      sessions: state.sessions,
      rules,
      trustedDocuments,
      limits: config.websocket,
      registry,
      clock: deps.clock,
      createContext,
      createEventStreamContext: eventStreamContexts(deps, transport),
      formatError,
      reportErrors: reportExecutionErrors,
      logger,
      onOperation: (type, outcome) => metrics.operation(type, outcome, transport),
      onEventSent: () => metrics.eventDelivered(),
    });
  const multipart = streamsFor('multipart');
  const sse = streamsFor('sse');
  const sseHandler = createSseSubscriptionHandler({
    streams: sse,
    // The same question the /graphql handler and the socket ask of a request.
    authenticate: (req) => authenticator.authenticate(req.headers),
    maxBodyBytes: MAX_GRAPHQL_BODY_BYTES,
    maxBufferedBytes: config.websocket.maxBufferedBytes,
    logger,
  });
  router.on('GET', SSE_PATH, ({ req, res }) => sseHandler(req, res));
  router.on('POST', SSE_PATH, ({ req, res }) => sseHandler(req, res));
  metrics.watchStreams(() => ({ multipart: multipart.openStreams, sse: sse.openStreams }));
  return {
    multipart: createMultipartSubscriptionHandler({
      streams: multipart,
      maxBufferedBytes: config.websocket.maxBufferedBytes,
      logger,
    }),
    close(code: number, reason: string) {
      multipart.close(code, reason);
      sse.close(code, reason);
    },
  };
}

function attachWebSockets(
  deps: HttpLayerDependencies,
  server: Server,
  { schema, rules, trustedDocuments }: GraphQLParts,
  createContext: ReturnType<typeof createRequestContextFactory>,
  registry: SocketRegistry,
  authenticator: ReturnType<typeof createAuthenticator>,
  undo: Array<() => unknown>,
) {
  const { config, state, metrics, clock, logger } = deps;
  const websockets = attachGraphQLWebSocket({
    server,
    schema,
    sessions: state.sessions,
    authenticator,
    createContext,
    createEventStreamContext: eventStreamContexts(deps, 'websocket'),
    registry,
    clock,
    formatError,
    reportErrors: reportExecutionErrors,
    allowedOrigins: deps.allowedOrigins,
    rules,
    trustedDocuments,
    onOperation: (type, outcome) => metrics.operation(type, outcome, 'websocket'),
    limits: config.websocket,
    logger,
    handshakeTimeoutMs: config.wsHandshakeTimeoutMs,
    sessionRecheckMs: deps.sessionRecheckMs,
    heartbeatIntervalMs: deps.heartbeatIntervalMs,
    onFrameSent: () => metrics.eventDelivered(),
    onSlowReaderCut: () => deps.events.emit('socket-cut', { reason: 'slow-reader' }),
  });
  undo.push(() => websockets.close(CloseCode.GOING_AWAY, 'Going away'));
  metrics.watch('gateway_websocket_open_sockets', 'Open GraphQL WebSockets.', () => websockets.openSockets);
  return websockets;
}

/** The METRICS_PORT listener, when set: `/metrics` without a token, on its own port. */
async function startMetricsListener(
  { config, metrics }: HttpLayerDependencies,
  undo: Array<() => unknown>,
): Promise<Server | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const port = config.metricsPort;
  const listening = await startMetricsServer(config.metricsHost, port, () => scrapeOf(metrics)).catch(
    (error: unknown) => {
      throw explainListenError(error, port, 'METRICS_PORT');
    },
  );
  undo.push(() => new Promise((resolve) => listening.close(resolve)));
  return listening;
}
