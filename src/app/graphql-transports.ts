import type { Server } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Router } from '@open-finance-gateway/common/http/router';
import type { PhoneBankConnection } from '../auth/phone-bank-connection.js';
import type { RequestAuthenticator } from '../auth/request-authentication.js';
import { createOperationRules } from '../graphql/operation-rules.js';
import { buildGatewaySchema } from '../graphql/schema.js';
import { loadTrustedDocuments, type TrustedDocuments } from '../graphql/trusted-documents.js';
import { createCreationOnce } from '../idempotency/creation-once.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import { createUserCallLimiter } from '../loaders/user-call-limiter.js';
import { createRequestContextFactory } from '../operation-core/context/request-context.js';
import { createSubscriptionContextFactory } from '../operation-core/context/session-access.js';
import { createLiveOperations, type LiveOperations } from '../operation-core/live-operations.js';
import { createOperationCore, type LiveTransport, type OperationCore } from '../operation-core/operation-core.js';
import { createApolloAdapter, type ApolloAdapter } from '../server/graphql-http/apollo.js';
import { createGraphQLHttpHandler } from '../server/graphql-http/graphql-http-handler.js';
import {
  acceptsMultipartSubscription,
  createMultipartSubscriptions,
} from '../server/http-subscriptions/multipart-subscriptions.js';
import { createSseSubscriptionHandler, SSE_PATH } from '../server/http-subscriptions/sse-subscriptions.js';
import { createSubscriptionStreams } from '../server/http-subscriptions/subscription-streams.js';
import { attachGraphQLWebSocket } from '../server/websocket/websocket-server.js';
import type { RouteDependencies } from './routes.js';

const MAX_GRAPHQL_BODY_BYTES = 512 * 1024;

/** What the core and the transports are built from (and, with more, the HTTP layer: http-layer.ts). */
export interface TransportDependencies extends RouteDependencies {
  /** Longest wait between two checks of a live operation's session (tests move the clock). */
  sessionRecheckMs?: number;
  heartbeatIntervalMs?: number;
}

/** What every transport runs on: the schema, the operation core, Apollo, and the live operations' registry. */
export interface GraphQLCore {
  schema: GraphQLSchema;
  core: OperationCore;
  apollo: ApolloAdapter;
  live: LiveOperations;
  trustedDocuments: TrustedDocuments | undefined;
}

/**
 * The schema, the operation rules, the trusted documents, the one operation core every transport
 * goes through, Apollo (started) as the HTTP adapter, and the registry of live operations that
 * sockets and HTTP subscription streams share.
 */
export async function createGraphQLCore(
  deps: TransportDependencies,
  phoneBankConnection: PhoneBankConnection,
  undo: Array<() => unknown>,
): Promise<GraphQLCore> {
  const { config, metrics, logger, state, clock } = deps;
  const schema = await buildGatewaySchema({
    enrichment: { maxQueriesPerRequest: config.enrichment.maxQueriesPerRequest },
  });
  const rules = createOperationRules({
    graphql: config.graphql,
    maxListLength: config.enrichment.maxQueriesPerRequest,
  });
  const trustedDocuments = config.trustedDocuments && loadTrustedDocuments(config.trustedDocuments.path);
  const subscriptionContexts = subscriptionContextsByTransport(deps);
  const core = createOperationCore({
    schema,
    rules,
    trustedDocuments,
    sessions: state.sessions,
    createContext: createRequestContext(deps, phoneBankConnection),
    createSubscriptionContext: (session, transport) => subscriptionContexts[transport](session),
    onOperation: (transport, type, outcome) => metrics.operation(type, outcome, transport),
    logger,
  });
  const apollo = createApolloAdapter(schema, rules, core, logger);
  await apollo.apollo.start();
  undo.push(() => apollo.apollo.stop());
  const live = createLiveOperations({
    sessions: state.sessions,
    clock,
    limits: config.websocket,
    recheckMs: deps.sessionRecheckMs ?? 60_000,
    logger,
  });
  undo.push(() => live.close());
  return { schema, core, apollo, live, trustedDocuments };
}

/** One factory for every operation's context, whichever transport carries it. */
function createRequestContext(
  { config, upstreams, state, clock, logger, ...deps }: TransportDependencies,
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

/** What a subscription keeps for its life, the same for every transport but the label its metrics carry. */
function subscriptionContextsByTransport(deps: TransportDependencies) {
  const { config, state, metrics, clock, logger } = deps;
  const forTransport = (transport: LiveTransport) =>
    createSubscriptionContextFactory({
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
  return { websocket: forTransport('websocket'), multipart: forTransport('multipart'), sse: forTransport('sse') };
}

/**
 * The transports, each a thin adapter over the core: GraphQL over HTTP on /graphql (Apollo for
 * queries and mutations, Apollo's multipart protocol for subscriptions), graphql-sse at
 * /graphql/stream, and graphql-ws on the server's upgrades. Returns how to end them all at shutdown.
 */
export function attachTransports(
  deps: TransportDependencies,
  graphql: GraphQLCore,
  authenticator: RequestAuthenticator,
  router: Router<ScopedRouteRequest>,
) {
  const { config, metrics, logger } = deps;
  const { core, live } = graphql;
  const streamsFor = (transport: 'multipart' | 'sse') =>
    createSubscriptionStreams({ transport, core, live, onEventSent: () => metrics.eventDelivered() });
  const multipart = streamsFor('multipart');
  const sse = streamsFor('sse');
  const maxBufferedBytes = config.websocket.maxBufferedBytes;
  const sseHandler = createSseSubscriptionHandler({
    streams: sse,
    core,
    authenticator,
    maxBodyBytes: MAX_GRAPHQL_BODY_BYTES,
    maxBufferedBytes,
    logger,
  });
  router.on('GET', SSE_PATH, ({ req, res }) => sseHandler(req, res));
  router.on('POST', SSE_PATH, ({ req, res }) => sseHandler(req, res));
  metrics.watchStreams(() => ({ multipart: multipart.openStreams, sse: sse.openStreams }));
  const graphqlHandler = createGraphQLHttpHandler({
    core,
    apollo: graphql.apollo,
    sessions: deps.state.sessions,
    authenticator,
    maxBodyBytes: MAX_GRAPHQL_BODY_BYTES,
    trusted: graphql.trustedDocuments !== undefined,
    acceptsMultipart: acceptsMultipartSubscription,
    multipart: createMultipartSubscriptions({ streams: multipart, maxBufferedBytes, logger }),
  });
  return {
    graphqlHandler,
    /** graphql-ws on the server's upgrades, once the server exists. */
    attachSockets(server: Server) {
      const sockets = attachGraphQLWebSocket({
        server,
        core,
        live,
        authenticator,
        allowedOrigins: deps.allowedOrigins,
        logger,
        handshakeTimeoutMs: config.wsHandshakeTimeoutMs,
        heartbeatIntervalMs: deps.heartbeatIntervalMs,
        onFrameSent: () => metrics.eventDelivered(),
        onSlowReaderCut: () => deps.events.emit('socket-cut', { reason: 'slow-reader' }),
      });
      metrics.watch('gateway_websocket_open_sockets', 'Open GraphQL WebSockets.', () => sockets.openSockets);
      return {
        /** Shutdown: every socket and stream ends (going away: a coded last frame, or 1001), then the socket server closes. */
        async close() {
          live.endAll();
          await sockets.close();
        },
      };
    },
  };
}
