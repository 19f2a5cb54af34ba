import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import type { ApolloServer } from '@apollo/server';
import { registerAuthRoutes } from './auth/auth-routes.js';

import { SessionManager } from './auth/session-manager.js';
import { createTokenReleaser, type TokenReleaser } from './auth/token-releaser.js';
import type { SessionStore } from './auth/session-store.js';
import { UserDataEraser } from './auth/user-data-eraser.js';
import type { GatewayConfig } from './config/config.js';
import type { GatewayContext } from './graphql/context.js';
import { createOperationRules } from './graphql/operation-rules.js';
import { buildGatewaySchema } from './graphql/schema.js';
import { systemClock, type Clock } from './lib/clock.js';
import { randomToken } from './lib/ids.js';
import { createLogger, type Logger } from './lib/logger.js';
import { Router } from './lib/http/router.js';
import { createEnrichmentCache } from './loaders/enrichment-cache.js';
import { createUserCallLimiter } from './loaders/user-call-limiter.js';
import type { LoaderDependencies } from './loaders/request-loaders.js';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox/sandbox.js';
import { createApolloServer } from './server/apollo.js';
import { registerAdminRoutes } from './server/admin-routes.js';
import { createMetrics } from './server/metrics.js';
import { startMetricsServer } from './server/metrics-server.js';
import { registerGraphiqlRoutes } from './server/graphiql/graphiql-routes.js';
import { createGraphQLHttpHandler } from './server/graphql-http-handler.js';
import { createEventStreamContextFactory, createRequestContextFactory } from './server/request-context.js';
import { createGatewayHttpServer } from './server/http-server.js';
import { CloseCode } from './server/close-codes.js';
import { attachGraphQLWebSocket } from './server/websocket-server.js';
import { createFormatError } from './graphql/format-error.js';
import { createCoreClient } from './upstream/core-client.js';
import { createEnrichmentClient } from './upstream/enrichment-client.js';
import { createEnrichmentBatcher } from './loaders/enrichment-batcher.js';
import { createUpstreamHttp, type UpstreamHttp } from './upstream/upstream-http.js';
import { createSigningKeyClient } from './upstream/signing-key-client.js';
import type { PubSub } from './pubsub/pubsub.js';
import { createStores, type GatewayStores } from './stores/create-stores.js';
import { SigningKeyCache } from './webhooks/signing-key-cache.js';
import { createWebhookDispatcher } from './webhooks/webhook-dispatcher.js';
import { registerWebhookRoute } from './webhooks/webhook-route.js';
import { WEBHOOK_TYPES } from './platform/webhook-events.js';
import { createWebhookSubscriber } from './webhooks/webhook-subscriber.js';

export interface AppOptions {
  logger?: Logger;
  clock?: Clock;
  /** Extra settings for the embedded sandbox (tests shorten code lifetimes, for example). */
  sandbox?: Partial<Omit<SandboxOptions, 'logger' | 'headerPrefix'>>;
  /** Longest wait between two checks of a socket's session (tests move the clock). @default 60000 */
  sessionRecheckMs?: number;
  /** How often WebSocket peers are pinged (tests shorten it). @default 12000 */
  heartbeatIntervalMs?: number;
}

export interface GatewayApp {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The gateway's external URL; known once started. */
  readonly url: string;
  /** Where the server actually listens (differs from `url` behind a proxy); known once started. */
  readonly listenUrl: string;
  /** The embedded sandbox, when an upstream URL was left unset. */
  readonly sandbox: Sandbox | undefined;
  /** Where `GET /metrics` answers without a token (METRICS_PORT); undefined when not set. */
  readonly metricsUrl: string | undefined;
}

interface Running {
  /** Draining: shutdown began; readiness fails, webhooks get 503, in-flight work finishes. */
  phase: 'running' | 'draining';
  url: string;
  listenUrl: string;
  server: Server;
  apollo: ApolloServer<GatewayContext>;
  upstreams: UpstreamHttp[];
  stores: GatewayStores;
  releaser: TokenReleaser;
  pubsub: PubSub;
  websockets: ReturnType<typeof attachGraphQLWebSocket>;
  sandbox: Sandbox | undefined;
}

type Lifecycle = { phase: 'created' } | { phase: 'starting' } | Running | { phase: 'stopped' };

const MAX_GRAPHQL_BODY_BYTES = 512 * 1024;
const MAX_CORE_RESPONSE_BYTES = 4 * 1024 * 1024;
const MAX_ENRICHMENT_RESPONSE_BYTES = 8 * 1024 * 1024;
/** A PEM public key is under 1 KiB; anything much larger is not one. */
const MAX_SIGNING_KEY_BYTES = 16 * 1024;

/** The composition root: the only place that knows how the pieces fit. Does nothing until start(). */
export function createApp(config: GatewayConfig, options: AppOptions = {}): GatewayApp {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const clock = options.clock ?? systemClock;
  let lifecycle: Lifecycle = { phase: 'created' };
  /** The METRICS_PORT listener, when configured; closed last on stop. */
  let metricsListener: Server | undefined;

  async function start(): Promise<void> {
    if (lifecycle.phase !== 'created') throw new Error(`cannot start a gateway that is ${lifecycle.phase}`);
    lifecycle = { phase: 'starting' };
    // What each step built, undone newest first if a later step fails (nothing is left listening).
    const undo: Array<() => unknown> = [];
    try {
      await startSteps(undo);
    } catch (error) {
      for (const step of undo.reverse())
        await Promise.resolve()
          .then(step)
          .catch(() => undefined);
      lifecycle = { phase: 'stopped' };
      throw error;
    }
  }

  async function startSteps(undo: Array<() => unknown>): Promise<void> {
    const needsSandbox = config.core.baseUrl === undefined || config.enrichment.baseUrl === undefined;
    const sandbox = needsSandbox
      ? createSandbox({
          logger: logger.child({ component: 'sandbox' }),
          headerPrefix: config.headerPrefix,
          clock,
          webhookTimeScale: config.sandboxWebhookTimeScale,
          ...options.sandbox,
        })
      : undefined;
    await sandbox?.start();
    if (sandbox) undo.push(() => sandbox.stop());

    const core = config.core.baseUrl
      ? {
          baseUrl: config.core.baseUrl,
          appToken: config.core.appToken!,
          appSecret: config.core.appSecret!,
          authorizeUrl: config.core.oauthAuthorizeUrl!,
        }
      : {
          baseUrl: sandbox!.coreUrl,
          appToken: sandbox!.credentials.appToken,
          appSecret: sandbox!.credentials.appSecret,
          authorizeUrl: config.core.oauthAuthorizeUrl ?? sandbox!.authorizeUrl,
        };
    const enrichment = config.enrichment.baseUrl
      ? { baseUrl: config.enrichment.baseUrl, apiKey: config.enrichment.apiKey! }
      : { baseUrl: sandbox!.enrichmentUrl, apiKey: sandbox!.credentials.enrichmentKey };
    if (sandbox)
      logger.warn(
        { core: !config.core.baseUrl, enrichment: !config.enrichment.baseUrl },
        'using the embedded platform sandbox: no real platform is reached for these upstreams',
      );

    const metrics = createMetrics();
    const scrape = async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() });
    // Every credential the gateway holds for any upstream: none may echo back through another.
    const secrets = [core.appToken, core.appSecret, enrichment.apiKey];
    const breaker = {
      failures: config.resilience.breakerFailures,
      halfOpenAfterMs: config.resilience.breakerHalfOpenAfterMs,
    };
    const coreHttp = createUpstreamHttp({
      name: 'core',
      baseUrl: core.baseUrl,
      timeoutMs: config.core.timeoutMs,
      maxConnections: config.upstreamMaxConnections,
      maxResponseBytes: MAX_CORE_RESPONSE_BYTES,
      breaker,
      secrets,
      logger,
      observe: (path, status, seconds) => metrics.upstream('core', path, status, seconds),
    });
    const enrichmentHttp = createUpstreamHttp({
      name: 'enrichment',
      baseUrl: enrichment.baseUrl,
      timeoutMs: config.enrichment.timeoutMs,
      maxConnections: config.upstreamMaxConnections,
      maxResponseBytes: MAX_ENRICHMENT_RESPONSE_BYTES,
      breaker,
      secrets,
      logger,
      observe: (path, status, seconds) => metrics.upstream('enrichment', path, status, seconds),
    });
    const coreClient = createCoreClient(coreHttp, {
      appToken: core.appToken,
      appSecret: core.appSecret,
      headerPrefix: config.headerPrefix,
    });
    const loaderDeps: LoaderDependencies = {
      enrichment: createEnrichmentBatcher({
        client: createEnrichmentClient(enrichmentHttp, enrichment.apiKey, logger),
        maxBatch: config.enrichment.maxBatch,
        windowMs: config.enrichment.batchWindowMs,
        onCall: (size) => metrics.enrichmentBatch(size),
      }),
      enrichmentCache: createEnrichmentCache({
        ttlMs: config.enrichment.cacheTtlMs,
        maxEntries: config.enrichment.cacheMaxEntries,
        clock,
      }),
      enrichmentMaxBatch: config.enrichment.maxBatch,
      enrichmentMaxLookupsPerRequest: config.enrichment.maxQueriesPerRequest,
      onEnrichmentCacheLookup: (hit) => metrics.enrichmentCache(hit),
    };

    const secureCookies = config.publicUrl?.startsWith('https:') ?? false;
    undo.push(
      () => coreHttp.close(),
      () => enrichmentHttp.close(),
    );
    const stores = await createStores({
      config,
      clock,
      logger,
      onSessionExpired: (key, record) => {
        sessions.expired(key, record);
        void releaser.release(record.userId, record.accessToken);
      },
    });
    undo.push(() => stores.close());
    const sessionStore = stores.sessions;
    // Sandbox-only mode may run without SESSION_SECRET: sessions then die with the process anyway.
    const sessions = new SessionManager({
      store: sessionStore,
      secret: config.session.secret ?? randomToken(48),
      clock,
      maxAgeMs: config.session.maxAgeMs,
      idleTimeoutMs: config.session.idleTimeoutMs,
      secure: secureCookies,
      endings: stores.sessionEndings,
    });
    const releaser = createTokenReleaser({ core: coreClient, sessions, logger });
    const eraser = new UserDataEraser(logger);
    eraser.register('sessions', (userId) => sessions.endAllForUser(userId));

    // Webhooks (full apps only): verified receiver → dispatcher → pubsub ← subscriptions.
    const pubsub = stores.pubsub;
    eraser.register('events', (userId) => pubsub.deleteUser(userId));
    const handles = stores.handles;
    eraser.register('routing-handles', (userId) => handles.deleteUser(userId));
    // 1.5 s: with the key cache's 1 s wait for a near key, a webhook is still answered within 3 s.
    const keysHttp = createUpstreamHttp({
      name: 'core-keys',
      baseUrl: core.baseUrl,
      timeoutMs: 1_500,
      maxConnections: 4,
      maxResponseBytes: MAX_SIGNING_KEY_BYTES,
      breaker,
      secrets,
      logger,
      observe: (path, status, seconds) => metrics.upstream('core-keys', path, status, seconds),
    });
    undo.push(() => keysHttp.close());
    const webhooksEnabled = config.appKind === 'FULL';
    const deadLetters = stores.deadLetters;

    const schema = await buildGatewaySchema({
      enrichment: { maxQueriesPerRequest: config.enrichment.maxQueriesPerRequest },
    });
    const rules = createOperationRules({
      graphql: config.graphql,
      maxListLength: config.enrichment.maxQueriesPerRequest,
    });
    const apollo = createApolloServer(schema, rules, logger, (type, outcome) => metrics.operation(type, outcome));
    await apollo.start();
    undo.push(() => apollo.stop());

    let publicUrl = config.publicUrl ?? '';
    const router = new Router();
    if (webhooksEnabled) {
      const keyClient = createSigningKeyClient(keysHttp, core.appToken, core.appSecret);
      registerWebhookRoute(router, {
        headerPrefix: config.headerPrefix,
        keys: new SigningKeyCache({
          fetchKey: (id) =>
            keyClient.fetchKey(id).then(
              (key) => (metrics.keyFetch('ok'), key),
              (error: unknown) => {
                metrics.keyFetch('failed');
                throw error;
              },
            ),
          clock,
          unknownFetchesPerMinute: config.webhooks.keyFetchesPerMinute,
        }),
        ledger: stores.ledger,
        deadLetters,
        logger,
        clock,
        accepting: () => lifecycle.phase === 'running' && stores.healthy(),
        bodyTimeoutMs: config.http.webhookBodyTimeoutMs,
        onOutcome: (outcome) => metrics.webhook(outcome),
        dispatcher: createWebhookDispatcher({
          pubsub,
          handles,
          logger,
          clock,
          async onTokenRevoked(userId, token) {
            const remaining = await sessions.endSessionsWithToken(userId, token);
            if (remaining === 0) await eraser.forget(userId);
          },
        }),
      });
    }
    const subscribeWebhooks = createWebhookSubscriber({ core: coreClient, handles, types: WEBHOOK_TYPES, logger });
    registerAuthRoutes(router, {
      sessions,
      states: stores.oauthStates,
      core: coreClient,
      logger,
      appToken: core.appToken,
      authorizeUrl: core.authorizeUrl,
      publicUrl: () => publicUrl,
      secureCookies,
      redirectToPublicOrigin: config.publicUrl === undefined,
      releaseToken: (userId, token) => releaser.release(userId, token),
      onSignedIn: webhooksEnabled ? async (userId, token) => void (await subscribeWebhooks(userId, token)) : undefined,
    });
    if (config.adminToken) registerAdminRoutes(router, { token: config.adminToken, deadLetters, metrics: scrape });
    const graphiql = config.graphql.graphiql ? registerGraphiqlRoutes(router, sessions) : undefined;
    const userCalls = createUserCallLimiter({ maxInFlight: config.resilience.maxInFlightPerUser });
    const createContext = createRequestContextFactory({
      core: coreClient,
      sessions,
      loaders: loaderDeps,
      eraser,
      appKind: config.appKind,
      pubsub,
      publicUrl: () => publicUrl,
      userCalls,
      clock,
      logger,
    });
    const graphql = createGraphQLHttpHandler({ apollo, sessions, maxBodyBytes: MAX_GRAPHQL_BODY_BYTES, createContext });
    let allowedOrigins: ReadonlySet<string> = new Set(config.allowedOrigins);
    const server = createGatewayHttpServer({
      router,
      graphql,
      graphiql,
      logger,
      limits: config.http,
      allowedOrigins: () => allowedOrigins,
      trustRequestIdHeader: config.trustRequestIdHeader,
      onRequest: (method, route, status, seconds) => metrics.http(method, route, status, seconds),
      // Ready only once everything is wired and until shutdown begins; a shared store's health joins here.
      readiness: () =>
        lifecycle.phase === 'draining'
          ? 'draining'
          : lifecycle.phase !== 'running'
            ? 'starting'
            : stores.healthy()
              ? 'ready'
              : 'unavailable',
    });
    const websockets = attachGraphQLWebSocket({
      server,
      schema,
      sessions,
      createContext,
      createEventStreamContext: createEventStreamContextFactory({ sessions, clock, pubsub, logger }),
      clock,
      formatError: createFormatError(logger),
      allowedOrigins: () => allowedOrigins,
      rules,
      limits: config.websocket,
      logger,
      connectionInitTimeoutMs: config.wsConnectionInitTimeoutMs,
      sessionRecheckMs: options.sessionRecheckMs,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      onSubscriptionStarted: () => metrics.subscriptionStarted(),
      onFrameSent: () => metrics.eventDelivered(),
    });
    metrics.watch('gateway_websocket_open_sockets', 'Open GraphQL WebSockets.', () => websockets.openSockets);
    if (config.metricsPort !== undefined) {
      const metricsServer = await startMetricsServer(config.host, config.metricsPort, scrape);
      undo.push(() => new Promise((resolve) => metricsServer.close(resolve)));
      metricsListener = metricsServer;
    }

    undo.push(
      () => websockets.close(CloseCode.GOING_AWAY, 'Going away'),
      () => pubsub.close(),
      () => releaser.close(),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    publicUrl ||= `http://localhost:${port}`;
    sandbox?.registerRedirectUri(`${publicUrl}/auth/callback`);
    allowedOrigins = new Set([...config.allowedOrigins, new URL(publicUrl).origin]);
    const address = server.address() as AddressInfo;
    const listenHost =
      address.family === 'IPv6'
        ? `[${address.address === '::' ? '::1' : address.address}]`
        : address.address === '0.0.0.0'
          ? '127.0.0.1'
          : address.address;
    // The sandbox delivers to this process directly (the public URL may be a proxy it cannot reach).
    if (sandbox && !config.core.baseUrl && webhooksEnabled)
      sandbox.setWebhookUrl(`http://${listenHost}:${port}/webhooks`);
    lifecycle = {
      phase: 'running',
      url: publicUrl,
      listenUrl: `http://${listenHost}:${port}`,
      server,
      apollo,
      upstreams: [coreHttp, enrichmentHttp, keysHttp],
      stores,
      releaser,
      pubsub,
      websockets,
      sandbox,
    };
    logger.info({ url: `${publicUrl}/graphql`, port }, 'gateway listening');
  }

  /**
   * Graceful shutdown, in the order a load balancer needs: readiness fails at once (and webhooks
   * get 503, so the platform retries them elsewhere or later), new connections are still served
   * for `SHUTDOWN_DELAY_MS` while the balancer notices, then sockets close with 1001, the listener
   * closes, and in-flight requests get `SHUTDOWN_GRACE_MS` to finish before connections are cut.
   */
  async function stop(): Promise<void> {
    if (lifecycle.phase !== 'running') {
      if (lifecycle.phase !== 'draining') lifecycle = { phase: 'stopped' };
      return;
    }
    const running: Running = { ...lifecycle, phase: 'draining' };
    lifecycle = running;
    logger.info(
      { delayMs: config.shutdown.delayMs, graceMs: config.shutdown.graceMs },
      'draining: readiness now fails',
    );
    await delay(config.shutdown.delayMs);
    await running.websockets.close(CloseCode.GOING_AWAY, 'Going away');
    await new Promise<void>((resolve) => {
      // Connections that finish their response after close() started linger as keep-alive
      // sockets: keep closing idle ones until the server is down, and cut the rest after a grace.
      const sweep = setInterval(() => running.server.closeIdleConnections(), 50);
      const cut = setTimeout(() => running.server.closeAllConnections(), config.shutdown.graceMs);
      running.server.close(() => {
        clearInterval(sweep);
        clearTimeout(cut);
        resolve();
      });
      running.server.closeIdleConnections();
    });
    lifecycle = { phase: 'stopped' };
    if (metricsListener) await new Promise((resolve) => metricsListener!.close(resolve));
    metricsListener = undefined;
    await running.pubsub.close();
    await running.apollo.stop();
    await Promise.all(running.upstreams.map((upstream) => upstream.close()));
    running.releaser.close();
    await running.stores.close();
    await running.sandbox?.stop();
    logger.info('gateway stopped');
  }

  return {
    start,
    stop,
    get url() {
      if (lifecycle.phase !== 'running' && lifecycle.phase !== 'draining')
        throw new Error('the gateway is not running');
      return lifecycle.url;
    },
    get listenUrl() {
      if (lifecycle.phase !== 'running' && lifecycle.phase !== 'draining')
        throw new Error('the gateway is not running');
      return lifecycle.listenUrl;
    },
    get sandbox() {
      return lifecycle.phase === 'running' || lifecycle.phase === 'draining' ? lifecycle.sandbox : undefined;
    },
    get metricsUrl() {
      const address = metricsListener?.address();
      return address && typeof address === 'object' ? `http://127.0.0.1:${address.port}/metrics` : undefined;
    },
  };
}
