import type { Server } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import { Router } from '@open-finance-gateway/common/http/router';
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
import { createGatewayHttpServer } from '../server/http/http-server.js';
import { startMetricsServer } from '../server/observability/metrics-server.js';
import { createRequestContextFactory } from '../server/request-context/request-context.js';
import { createEventStreamContextFactory } from '../server/request-context/session-access.js';
import { CloseCode } from '../server/websocket/close-codes.js';
import { attachGraphQLWebSocket } from '../server/websocket/websocket-server.js';
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
  const graphiql = registerRoutes(router, deps);
  const createContext = createRequestContext(deps);
  const server = createGatewayHttpServer({
    router,
    graphql: createGraphQLHttpHandler({
      apollo: graphql.apollo,
      sessions: deps.state.sessions,
      maxBodyBytes: MAX_GRAPHQL_BODY_BYTES,
      createContext,
      trustedDocuments: graphql.trustedDocuments,
      onOperation: (type, outcome) => deps.metrics.operation(type, outcome, 'http'),
    }),
    graphiql,
    logger: deps.logger,
    limits: deps.config.http,
    allowedOrigins: deps.allowedOrigins,
    trustRequestIdHeader: deps.config.trustRequestIdHeader,
    strictTransportSecurity: deps.config.publicUrl?.startsWith('https:') ?? false,
    onRequest: (method, route, status, seconds) => deps.metrics.http(method, route, status, seconds),
    readiness: deps.readiness,
    notReady: () => whyNotReady(deps),
  });
  const websockets = attachWebSockets(deps, server, graphql, createContext, undo);
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
function createRequestContext({ config, upstreams, state, clock, logger, ...deps }: HttpLayerDependencies) {
  return createRequestContextFactory({
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

function attachWebSockets(
  deps: HttpLayerDependencies,
  server: Server,
  { schema, rules, trustedDocuments }: GraphQLParts,
  createContext: ReturnType<typeof createRequestContextFactory>,
  undo: Array<() => unknown>,
) {
  const { config, state, metrics, clock, logger } = deps;
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
      eventLog: state.stores.eventLog,
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
  const listening = await startMetricsServer(config.metricsHost, config.metricsPort, () => scrapeOf(metrics));
  undo.push(() => new Promise((resolve) => listening.close(resolve)));
  return listening;
}
