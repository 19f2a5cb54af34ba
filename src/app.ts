import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '@open-finance-gateway/common/clock';
import { listenOn } from '@open-finance-gateway/common/http/listen';
import { createLogger, type Logger } from '@open-finance-gateway/common/logger';
import { readinessReport } from './accreditation/readiness-checks.js';
import { readinessLogLine } from './accreditation/readiness-log.js';
import { createHttpLayer } from './app/http-layer.js';
import type { AppOptions, AppParts, Holder, Running, StopOptions } from './app/lifecycle.js';
import { showKeptDataInSandbox } from './app/sandbox-kept-data.js';
import { stopApp } from './app/shutdown.js';
import { createState } from './app/state.js';
import { chooseUpstream, type Sandbox, type UpstreamEndpoints } from './app/upstream-choice.js';
import { createUpstreams } from './app/upstreams.js';
import type { GatewayConfig } from './config/config.js';
import { GatewayEvents } from './lib/gateway-events.js';
import { startTracing } from './lib/tracing.js';
import { createMetrics } from './server/observability/metrics.js';

export type { AppOptions, StopOptions };

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

/** The accreditation readiness report (`npm run readiness`), once at start-up: what an operator must still do. */
function logReadiness(config: GatewayConfig, logger: Logger): void {
  const checks = readinessReport(config, { now: Date.now(), leakAuditPresent: existsSync('test/audit') });
  const { fields, message } = readinessLogLine(config, checks);
  logger.info(fields, message);
}

/** Each setting given under its former name: read this time, gone in the next version. */
function warnDeprecatedSettings(config: GatewayConfig, logger: Logger): void {
  for (const { name, replacedBy } of config.deprecatedSettings ?? [])
    logger.warn(
      { setting: name, replacedBy },
      `setting ${name} is deprecated and will be ignored in the next version: set ${replacedBy} instead`,
    );
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
  warnDeprecatedSettings(config, logger);
  if (config.tracing) {
    const started = await startTracing(config.tracing);
    undo.push(() => started.shutdown());
    holder.tracing = started;
  }
  const endpoints = await chooseUpstream(config, options.sandbox, logger, clock, undo);
  const metrics = createMetrics();
  const upstreams = createUpstreams(config, endpoints, metrics, logger, clock, undo);
  const urls = {
    publicUrl: config.publicUrl ?? '',
    allowedOrigins: new Set(config.allowedOrigins) as ReadonlySet<string>,
  };
  const state = await createState(config, upstreams.coreClient, logger, clock, events, undo, {
    publicUrl: () => urls.publicUrl,
    bankConnectionSweepIntervalMs: options.bankConnectionSweepIntervalMs,
    metrics,
  });
  undo.push(() => state.stores.eventLog.close());
  showKeptDataInSandbox(endpoints.sandbox, state.stores.userData, state.stores.handles, clock);

  const http = await createHttpLayer(
    {
      config,
      endpoints,
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
  pointSandboxAt(config, endpoints, publicUrl, listenUrl);
  holder.lifecycle = {
    phase: 'running',
    url: publicUrl,
    listenUrl,
    server,
    apollo: http.apollo,
    upstreams: upstreams.pools,
    stores: state.stores,
    revoker: state.revoker,
    eventLog: state.stores.eventLog,
    liveTransports: http.liveTransports,
    sandbox: endpoints.sandbox,
  };
  logger.info({ url: `${publicUrl}/graphql`, port }, 'gateway listening');
  events.emit('listening', { url: publicUrl, listenUrl });
  logReadiness(config, logger);
}

/** Listens on PORT and HOST; the URL this process answers on directly (a wildcard address as loopback). */
async function listen(server: Server, config: GatewayConfig): Promise<{ port: number; listenUrl: string }> {
  await listenOn(server, config.port, config.host, 'PORT');
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
  endpoints: UpstreamEndpoints,
  publicUrl: string,
  listenUrl: string,
): void {
  const { sandbox } = endpoints;
  sandbox?.registerRedirectUri(`${publicUrl}/auth/callback`);
  if (endpoints.identity.sandbox) {
    sandbox?.identity.registerRedirectUri(`${publicUrl}/auth/oidc/callback`);
    sandbox?.identity.registerResource(config.accessTokens.audience ?? publicUrl);
  }
  // The sandbox delivers to this process directly (the public URL may be a proxy it cannot reach).
  if (sandbox && !config.core.baseUrl && config.appKind === 'FULL') sandbox.setWebhookUrl(`${listenUrl}/webhooks`);
}
