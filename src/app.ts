import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { ApolloServer } from '@apollo/server';
import type { TokenReleaser } from './auth/token-releaser.js';
import type { GatewayConfig } from './config/config.js';
import type { GatewayContext } from './graphql/context.js';
import { systemClock, type Clock } from '@open-finance-gateway/common/clock';
import { createLogger, type Logger } from '@open-finance-gateway/common/logger';
import { GatewayEvents } from './lib/gateway-events.js';
import { startTracing } from './lib/tracing.js';
import { readinessReport } from './readiness/readiness-checks.js';
import type { PubSub } from './pubsub/pubsub.js';
import { CloseCode } from './server/websocket/close-codes.js';
import { createMetrics } from './server/observability/metrics.js';
import type { attachGraphQLWebSocket } from './server/websocket/websocket-server.js';
import type { GatewayStores } from './stores/create-stores.js';
import type { UpstreamHttp } from './upstream/upstream-http.js';
import { createHttpLayer } from './app/http-layer.js';
import { chooseUpstream, type UpstreamEndpoints, type Sandbox, type SandboxOptions } from './app/upstream-choice.js';
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

/** What a gateway holds from start to stop. */
interface Holder {
  lifecycle: Lifecycle;
  /** The METRICS_PORT listener, when configured; closed last on stop. */
  metricsListener?: Server;
  /** The tracer provider, when OTEL_EXPORTER_OTLP_ENDPOINT is set; flushed last on stop. */
  tracing?: { shutdown(): Promise<void> };
}

/** What every step of the lifecycle is given. */
interface AppParts {
  config: GatewayConfig;
  options: AppOptions;
  logger: Logger;
  clock: Clock;
  events: GatewayEvents;
  holder: Holder;
}

/** The composition root: the only place that knows how the pieces fit. Does nothing until start(). */
export function createApp(config: GatewayConfig, options: AppOptions = {}): GatewayApp {
  const holder: Holder = { lifecycle: { phase: 'created' } };
  const parts: AppParts = {
    config,
    options,
    logger: options.logger ?? createLogger({ level: config.logLevel }),
    clock: options.clock ?? systemClock,
    events: new GatewayEvents(),
    holder,
  };
  const running = (): Running => {
    const { lifecycle } = holder;
    if (lifecycle.phase !== 'running' && lifecycle.phase !== 'draining') throw new Error('the gateway is not running');
    return lifecycle;
  };
  return {
    start: () => startApp(parts),
    stop: (stopOptions) => stopApp(parts, stopOptions),
    get url() {
      return running().url;
    },
    get listenUrl() {
      return running().listenUrl;
    },
    get sandbox() {
      const { lifecycle } = holder;
      return lifecycle.phase === 'running' || lifecycle.phase === 'draining' ? lifecycle.sandbox : undefined;
    },
    events: parts.events,
    get metricsUrl() {
      const address = holder.metricsListener?.address();
      return address && typeof address === 'object' ? `http://127.0.0.1:${address.port}/metrics` : undefined;
    },
    get metricsAddress() {
      const address = holder.metricsListener?.address();
      return address && typeof address === 'object' ? address : undefined;
    },
  };
}

async function startApp(parts: AppParts): Promise<void> {
  const { holder } = parts;
  if (holder.lifecycle.phase !== 'created') throw new Error(`cannot start a gateway that is ${holder.lifecycle.phase}`);
  holder.lifecycle = { phase: 'starting' };
  // What each step built, undone newest first if a later step fails (nothing is left listening).
  const undo: Array<() => unknown> = [];
  try {
    await startSteps(parts, undo);
  } catch (error) {
    for (const step of undo.reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => undefined);
    holder.lifecycle = { phase: 'stopped' };
    throw error;
  }
}

/**
 * The composition, in named steps; each registers how to undo what it built, so a start that
 * fails part-way stops everything already running (see startApp()).
 */
async function startSteps(parts: AppParts, undo: Array<() => unknown>): Promise<void> {
  const { config, options, logger, clock, events, holder } = parts;
  if (config.tracing) {
    const started = await startTracing(config.tracing);
    undo.push(() => started.shutdown());
    holder.tracing = started;
  }
  const platform = await chooseUpstream(config, options.sandbox, logger, clock, undo);
  const metrics = createMetrics();
  const upstreams = createUpstreams(config, platform, metrics, logger, clock, undo);
  const state = await createState(config, upstreams.coreClient, logger, clock, events, undo, {
    connectionSweepIntervalMs: options.connectionSweepIntervalMs,
  });
  undo.push(() => state.stores.pubsub.close());

  const urls = {
    publicUrl: config.publicUrl ?? '',
    allowedOrigins: new Set(config.allowedOrigins) as ReadonlySet<string>,
  };
  const http = await createHttpLayer(
    {
      config,
      platform,
      upstreams,
      state,
      metrics,
      logger,
      clock,
      publicUrl: () => urls.publicUrl,
      allowedOrigins: () => urls.allowedOrigins,
      // Ready only once everything is wired and until shutdown begins; /readyz then probes the shared store.
      readiness: () =>
        holder.lifecycle.phase === 'draining'
          ? 'draining'
          : holder.lifecycle.phase !== 'running'
            ? 'starting'
            : 'ready',
      // A store that is down or slow fails the webhook's own writes with 503 (never acknowledged).
      accepting: () => holder.lifecycle.phase === 'running',
      sessionRecheckMs: options.sessionRecheckMs,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      events,
    },
    undo,
  );
  holder.metricsListener = http.metricsServer;

  const { server } = http;
  const { port, listenUrl } = await listen(server, config);
  urls.publicUrl ||= `http://localhost:${port}`;
  const publicUrl = urls.publicUrl;
  urls.allowedOrigins = new Set([...config.allowedOrigins, new URL(publicUrl).origin]);
  pointSandboxAt(config, platform, publicUrl, listenUrl);
  holder.lifecycle = {
    phase: 'running',
    url: publicUrl,
    listenUrl,
    server,
    apollo: http.apollo,
    upstreams: upstreams.pools,
    stores: state.stores,
    releaser: state.releaser,
    pubsub: state.stores.pubsub,
    websockets: http.websockets,
    sandbox: platform.sandbox,
  };
  logger.info({ url: `${publicUrl}/graphql`, port }, 'gateway listening');
  events.emit('listening', { url: publicUrl, listenUrl });
  logReadiness(config, logger);
}

/** Listens on PORT and HOST; the URL this process answers on directly (a wildcard address as loopback). */
async function listen(server: Server, config: GatewayConfig): Promise<{ port: number; listenUrl: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const listenHost =
    address.family === 'IPv6'
      ? `[${address.address === '::' ? '::1' : address.address}]`
      : address.address === '0.0.0.0'
        ? '127.0.0.1'
        : address.address;
  return { port: address.port, listenUrl: `http://${listenHost}:${address.port}` };
}

/** Tells the embedded sandbox where this gateway's callbacks and webhook route are, once they are known. */
function pointSandboxAt(
  config: GatewayConfig,
  platform: UpstreamEndpoints,
  publicUrl: string,
  listenUrl: string,
): void {
  const { sandbox } = platform;
  sandbox?.registerRedirectUri(`${publicUrl}/auth/callback`);
  if (platform.identity.sandbox) sandbox?.identity.registerRedirectUri(`${publicUrl}/auth/oidc/callback`);
  // The sandbox delivers to this process directly (the public URL may be a proxy it cannot reach).
  if (sandbox && !config.core.baseUrl && config.appKind === 'FULL') sandbox.setWebhookUrl(`${listenUrl}/webhooks`);
}

/**
 * With state in memory, the bank connections die with the process while the platform would go
 * on honouring their tokens: consent nobody can use or end. A graceful stop revokes them (their
 * users connect again after the restart, as they would have to anyway), within the shutdown
 * grace. A crash cannot; Redis (REDIS_URL) keeps connections across restarts instead.
 */
async function revokeForgottenTokens(running: Running, graceMs: number, logger: Logger): Promise<void> {
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
    delay(graceMs, 'timeout' as const, { ref: false }),
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
async function stopApp(parts: AppParts, options: StopOptions = {}): Promise<void> {
  const { config, logger, holder } = parts;
  const delayMs = options.delay === false ? 0 : config.shutdown.delayMs;
  if (holder.lifecycle.phase !== 'running') {
    if (holder.lifecycle.phase !== 'draining') holder.lifecycle = { phase: 'stopped' };
    return;
  }
  const running: Running = { ...holder.lifecycle, phase: 'draining' };
  holder.lifecycle = running;
  logger.info({ delayMs, graceMs: config.shutdown.graceMs }, 'draining: readiness now fails');
  if (delayMs > 0) await delay(delayMs);
  await running.websockets.close(CloseCode.GOING_AWAY, 'Going away');
  await closeServer(running.server, config.shutdown.graceMs);
  holder.lifecycle = { phase: 'stopped' };
  await releaseEverything(parts, running);
  logger.info('gateway stopped');
}

/** Closes the listener once in-flight requests finish, cutting what is left after the grace. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    // Connections that finish their response after close() started linger as keep-alive
    // sockets: keep closing idle ones until the server is down, and cut the rest after a grace.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** After the listener: the metrics listener, the event log, Apollo, tokens, upstreams, stores, the sandbox, traces. */
async function releaseEverything({ config, logger, holder }: AppParts, running: Running): Promise<void> {
  const { metricsListener } = holder;
  if (metricsListener) await new Promise((resolve) => metricsListener.close(resolve));
  holder.metricsListener = undefined;
  await running.pubsub.close();
  await running.apollo.stop();
  await revokeForgottenTokens(running, config.shutdown.graceMs, logger);
  await Promise.all(running.upstreams.map((upstream) => upstream.close()));
  running.releaser.close();
  await running.stores.close();
  await running.sandbox?.stop();
  await holder.tracing
    ?.shutdown()
    .catch((error: unknown) => logger.warn({ err: { message: (error as Error).message } }, 'could not flush traces'));
  holder.tracing = undefined;
}
