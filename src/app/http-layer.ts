import type { Server } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { explainListenError } from '@open-finance-gateway/common/http/listen';
import { Router } from '@open-finance-gateway/common/http/router';
import { createPhoneBankConnection } from '../auth/phone-bank-connection.js';
import type { GatewayContext } from '../graphql/context.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import { createGatewayHttpServer } from '../server/http/http-server.js';
import { startMetricsServer } from '../server/observability/metrics-server.js';
import { createAuthenticator } from './access-tokens.js';
import { attachTransports, createGraphQLCore, type TransportDependencies } from './graphql-transports.js';
import { registerRoutes, scrapeOf } from './routes.js';

export interface HttpLayer {
  /** Not yet listening: the caller listens once every step has succeeded. */
  server: Server;
  apollo: ApolloServer<GatewayContext>;
  /** Every socket and HTTP subscription stream: ended at shutdown. */
  liveTransports: { close(): Promise<void> };
  /** The METRICS_PORT listener, when configured (already listening). */
  metricsServer: Server | undefined;
}

export interface HttpLayerDependencies extends TransportDependencies {
  /** The lifecycle phase; `/readyz` adds a probe of the shared store when `ready`. */
  readiness: () => 'ready' | 'starting' | 'draining' | 'unavailable';
}

/**
 * Step 5: GraphQL over HTTP and WebSockets, and every route: the operation core and the
 * transports over it (graphql-transports.ts), the webhook receiver (full apps), sign-in, operator
 * routes, GraphiQL, the HTTP server and the socket server on it, and the metrics listener when
 * METRICS_PORT is set.
 */
export async function createHttpLayer(deps: HttpLayerDependencies, undo: Array<() => unknown>): Promise<HttpLayer> {
  const router = new Router<ScopedRouteRequest>();
  const phoneBankConnection = createPhoneBankConnection({
    states: deps.state.stores.oauthStates,
    returnUris: deps.config.appReturnUris,
    publicUrl: deps.publicUrl,
    clock: deps.clock,
  });
  const graphql = await createGraphQLCore(deps, phoneBankConnection, undo);
  const graphiql = registerRoutes(router, deps, phoneBankConnection);
  const transports = attachTransports(deps, graphql, createAuthenticator(deps), router);
  const server = createGatewayHttpServer({
    router,
    graphql: transports.graphqlHandler,
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
  const liveTransports = transports.attachSockets(server);
  undo.push(() => liveTransports.close());
  const metricsServer = await startMetricsListener(deps, undo);
  return { server, apollo: graphql.apollo.apollo, liveTransports, metricsServer };
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
