import type { Server } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { TokenRevoker } from '../auth/token-revoker.js';
import type { GatewayConfig } from '../config/config.js';
import type { EventLog } from '../event-log/event-log.js';
import type { GatewayContext } from '../graphql/context.js';
import type { GatewayEvents } from '../lib/gateway-events.js';
import type { UpstreamHttp } from '../upstream/upstream-http.js';
import type { GatewayStores } from './stores.js';
import type { Sandbox, SandboxOptions } from './upstream-choice.js';

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
  bankConnectionSweepIntervalMs?: number;
}

export interface StopOptions {
  /**
   * Wait SHUTDOWN_DELAY_MS with readiness failing before closing, so a load balancer stops routing
   * here first (SIGTERM from an orchestrator). false: close as soon as in-flight work is done (SIGINT
   * from a terminal, where no balancer is watching). @default true
   */
  delay?: boolean;
}

/** What a running gateway holds: what stop() drains and closes. */
export interface Running {
  /** Draining: shutdown began; readiness fails, webhooks get 503, in-flight work finishes. */
  phase: 'running' | 'draining';
  url: string;
  listenUrl: string;
  server: Server;
  apollo: ApolloServer<GatewayContext>;
  upstreams: UpstreamHttp[];
  stores: GatewayStores;
  revoker: TokenRevoker;
  eventLog: EventLog;
  /** Every socket and HTTP subscription stream: ended first at shutdown. */
  liveTransports: { close(): Promise<void> };
  sandbox: Sandbox | undefined;
}

export type Lifecycle = { phase: 'created' } | { phase: 'starting' } | Running | { phase: 'stopped' };

export /** What a gateway holds from start to stop. */
interface Holder {
  lifecycle: Lifecycle;
  /** The METRICS_PORT listener, when configured; closed last on stop. */
  metricsListener?: Server;
  /** The tracer provider, when OTEL_EXPORTER_OTLP_ENDPOINT is set; flushed last on stop. */
  tracing?: { shutdown(): Promise<void> };
}

/** What every step of the lifecycle is given. */
export interface AppParts {
  config: GatewayConfig;
  options: AppOptions;
  logger: Logger;
  clock: Clock;
  events: GatewayEvents;
  holder: Holder;
}
