import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { ApolloServer } from '@apollo/server';
import type { TokenReleaser } from './auth/token-releaser.js';
import type { GatewayConfig } from './config/config.js';
import type { GatewayContext } from './graphql/context.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createLogger, type Logger } from './lib/logger.js';
import { GatewayEvents } from './lib/gateway-events.js';
import { startTracing } from './lib/tracing.js';
import { readinessReport } from './readiness/readiness-checks.js';
import type { PubSub } from './pubsub/pubsub.js';
import type { Sandbox, SandboxOptions } from './app/platform.js';
import { CloseCode } from './server/websocket/close-codes.js';
import { createMetrics } from './server/observability/metrics.js';
import type { attachGraphQLWebSocket } from './server/websocket/websocket-server.js';
import type { GatewayStores } from './stores/create-stores.js';
import type { UpstreamHttp } from './upstream/upstream-http.js';
import { createHttpLayer } from './app/http-layer.js';
import { startPlatform } from './app/platform.js';
import { createState } from './app/state.js';
import { createUpstreams } from './app/upstreams.js';

export interface AppOptions {
  logger?: Logger;
  clock?: Clock;
  /** Extra settings for the embedded sandbox (tests shorten code lifetimes, for example). */
  sandbox?: Partial<Omit<SandboxOptions, 'logger' | 'headerPrefix'>>;
  /** Longest wait between two checks of a socket's session (tests move the clock). @default 60000 */
  sessionRecheckMs?: number;
  /** How often WebSocket peers are pinged (tests shorten it). @default 12000 */
  heartbeatIntervalMs?: number;
  /** How often idle bank connections are looked for (tests shorten it). @default 60000 */
  connectionSweepIntervalMs?: number;
}

export interface StopOptions {
  /**
   * Wait SHUTDOWN_DELAY_MS with readiness failing before closing, so a load balancer stops routing
   * here first (SIGTERM from an orchestrator). false: close as soon as in-flight work is done (SIGINT
   * from a terminal, where no balancer is watching). @default true
   */
  delay?: boolean;
}

export interface GatewayApp {
  start(): Promise<void>;
  stop(options?: StopOptions): Promise<void>;
  /** The gateway's external URL; known once started. */
  readonly url: string;
  /** Where the server actually listens (differs from `url` behind a proxy); known once started. */
  readonly listenUrl: string;
  /** The embedded sandbox, when an upstream URL was left unset. */
  readonly sandbox: Sandbox | undefined;
  /** Where `GET /metrics` answers without a token (METRICS_PORT); undefined when not set. */
  readonly metricsUrl: string | undefined;
  /** The METRICS_PORT listener's bound address (METRICS_HOST); undefined when not set. */
  readonly metricsAddress: AddressInfo | undefined;
  /** What happens inside, as events to wait for (subscription started, webhook published). */
  readonly events: GatewayEvents;
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

/** The accreditation readiness report (`npm run readiness`), once at start-up: what an operator must still do. */
function logReadiness(config: GatewayConfig, logger: Logger): void {
  const checks = readinessReport(config, { now: Date.now(), leakAuditPresent: existsSync('test/audit') });
  const count = (verdict: string) => checks.filter((check) => check.verdict === verdict).length;
  logger.info(
    {
      pass: count('pass'),
      warn: count('warn'),
      fail: count('fail'),
      checks: checks.map(({ id, verdict, fix }) => ({ id, verdict, ...(fix ? { fix } : {}) })),
    },
    'accreditation readiness (npm run readiness for the full report)',
  );
}

/** The composition root: the only place that knows how the pieces fit. Does nothing until start(). */
export function createApp(config: GatewayConfig, options: AppOptions = {}): GatewayApp {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const clock = options.clock ?? systemClock;
  let lifecycle: Lifecycle = { phase: 'created' };
  /** The METRICS_PORT listener, when configured; closed last on stop. */
  let metricsListener: Server | undefined;
  const events = new GatewayEvents();
  /** The tracer provider, when OTEL_EXPORTER_OTLP_ENDPOINT is set; flushed last on stop. */
  let tracing: { shutdown(): Promise<void> } | undefined;

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

  /**
   * The composition, in named steps; each registers how to undo what it built, so a start that
   * fails part-way stops everything already running (see start()).
   */
  async function startSteps(undo: Array<() => unknown>): Promise<void> {
    if (config.tracing) {
      const started = startTracing(config.tracing);
      undo.push(() => started.shutdown());
      tracing = started;
    }
    const platform = await startPlatform(config, options.sandbox, logger, clock, undo);
    const metrics = createMetrics();
    const upstreams = createUpstreams(config, platform, metrics, logger, clock, undo);
    const state = await createState(config, upstreams.coreClient, logger, clock, events, undo, {
      connectionSweepIntervalMs: options.connectionSweepIntervalMs,
    });
    undo.push(() => state.stores.pubsub.close());

    let publicUrl = config.publicUrl ?? '';
    let allowedOrigins: ReadonlySet<string> = new Set(config.allowedOrigins);
    const http = await createHttpLayer(
      {
        config,
        platform,
        upstreams,
        state,
        metrics,
        logger,
        clock,
        publicUrl: () => publicUrl,
        allowedOrigins: () => allowedOrigins,
        // Ready only once everything is wired and until shutdown begins; /readyz then probes the shared store.
        readiness: () =>
          lifecycle.phase === 'draining' ? 'draining' : lifecycle.phase !== 'running' ? 'starting' : 'ready',
        // A store that is down or slow fails the webhook's own writes with 503 (never acknowledged).
        accepting: () => lifecycle.phase === 'running',
        sessionRecheckMs: options.sessionRecheckMs,
        heartbeatIntervalMs: options.heartbeatIntervalMs,
        events,
      },
      undo,
    );
    metricsListener = http.metricsServer;

    const { server } = http;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    publicUrl ||= `http://localhost:${port}`;
    const { sandbox } = platform;
    sandbox?.registerRedirectUri(`${publicUrl}/auth/callback`);
    if (platform.identity.sandbox) sandbox?.identity.registerRedirectUri(`${publicUrl}/auth/oidc/callback`);
    allowedOrigins = new Set([...config.allowedOrigins, new URL(publicUrl).origin]);
    const address = server.address() as AddressInfo;
    const listenHost =
      address.family === 'IPv6'
        ? `[${address.address === '::' ? '::1' : address.address}]`
        : address.address === '0.0.0.0'
          ? '127.0.0.1'
          : address.address;
    // The sandbox delivers to this process directly (the public URL may be a proxy it cannot reach).
    if (sandbox && !config.core.baseUrl && config.appKind === 'FULL')
      sandbox.setWebhookUrl(`http://${listenHost}:${port}/webhooks`);
    lifecycle = {
      phase: 'running',
      url: publicUrl,
      listenUrl: `http://${listenHost}:${port}`,
      server,
      apollo: http.apollo,
      upstreams: upstreams.pools,
      stores: state.stores,
      releaser: state.releaser,
      pubsub: state.stores.pubsub,
      websockets: http.websockets,
      sandbox,
    };
    logger.info({ url: `${publicUrl}/graphql`, port }, 'gateway listening');
    events.emit('listening', { url: publicUrl, listenUrl: `http://${listenHost}:${port}` });
    logReadiness(config, logger);
  }

  /**
   * With state in memory, the bank connections die with the process while the platform would go
   * on honouring their tokens: consent nobody can use or end. A graceful stop revokes them (their
   * users connect again after the restart, as they would have to anyway), within the shutdown
   * grace. A crash cannot; Redis (REDIS_URL) keeps connections across restarts instead.
   */
  async function revokeForgottenTokens(running: Running): Promise<void> {
    const tokens = running.stores.tokensLostOnStop();
    if (tokens.length === 0) return;
    let failed = 0;
    const revocations = Promise.all(
      tokens.map(async ({ userId, token }) => {
        if (!(await running.releaser.revokeNow(userId, token))) failed += 1;
      }),
    );
    const outcome = await Promise.race([
      revocations.then(() => 'done' as const),
      delay(config.shutdown.graceMs, 'timeout' as const, { ref: false }),
    ]);
    const log = outcome === 'timeout' || failed > 0 ? logger.warn.bind(logger) : logger.info.bind(logger);
    log(
      { tokens: tokens.length, failed, timedOut: outcome === 'timeout' },
      'bank connections held only in memory: revoked at shutdown (their users connect again)',
    );
  }

  /**
   * Graceful shutdown, in the order a load balancer needs: readiness fails at once (and webhooks
   * get 503, so the platform retries them elsewhere or later), new connections are still served
   * for `SHUTDOWN_DELAY_MS` while the balancer notices, then sockets close with 1001, the listener
   * closes, and in-flight requests get `SHUTDOWN_GRACE_MS` to finish before connections are cut.
   * Without the delay (`{ delay: false }`) the same order runs at once: in-flight work still
   * finishes and webhooks arriving while draining still get 503.
   */
  async function stop(options: StopOptions = {}): Promise<void> {
    const delayMs = options.delay === false ? 0 : config.shutdown.delayMs;
    if (lifecycle.phase !== 'running') {
      if (lifecycle.phase !== 'draining') lifecycle = { phase: 'stopped' };
      return;
    }
    const running: Running = { ...lifecycle, phase: 'draining' };
    lifecycle = running;
    logger.info({ delayMs, graceMs: config.shutdown.graceMs }, 'draining: readiness now fails');
    if (delayMs > 0) await delay(delayMs);
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
    await revokeForgottenTokens(running);
    await Promise.all(running.upstreams.map((upstream) => upstream.close()));
    running.releaser.close();
    await running.stores.close();
    await running.sandbox?.stop();
    await tracing
      ?.shutdown()
      .catch((error: unknown) => logger.warn({ err: { message: (error as Error).message } }, 'could not flush traces'));
    tracing = undefined;
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
    events,
    get metricsUrl() {
      const address = metricsListener?.address();
      return address && typeof address === 'object' ? `http://127.0.0.1:${address.port}/metrics` : undefined;
    },
    get metricsAddress() {
      const address = metricsListener?.address();
      return address && typeof address === 'object' ? address : undefined;
    },
  };
}
