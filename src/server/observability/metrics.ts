import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { droppedLogLines } from '@open-finance-gateway/common/logger';
import { routeTemplate } from '../../lib/route-template.js';
import type { Transport } from '../../operation-core/operation-core.js';
import { userDataMetrics } from './user-data-metrics.js';

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;
const latency = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The gateway's Prometheus metrics, in one registry. Labels are bounded sets chosen by the gateway
 * (route templates, upstream names, status classes, outcome codes), never a user id, a token, an
 * operation name or any other text a client chose.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  logMetrics(registry);
  return {
    registry,
    ...requestMetrics(registry),
    ...upstreamMetrics(registry),
    ...webhookMetrics(registry),
    ...subscriptionMetrics(registry),
    ...userDataMetrics(registry),
    /** Open subscription streams over HTTP, by transport (read when scraped). */
    watchStreams(read: () => Record<'multipart' | 'sse', number>) {
      new Gauge({
        name: 'gateway_subscription_streams_open',
        help: 'Open subscription streams over HTTP, by transport (multipart or sse).',
        labelNames: ['transport'],
        registers: [registry],
        collect() {
          for (const [transport, open] of Object.entries(read())) this.set({ transport }, open);
        },
      });
    },
    /** Gauges read when scraped. */
    watch(name: string, help: string, read: () => number) {
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    },
  };
}

export type GatewayMetrics = ReturnType<typeof createMetrics>;

/** Lines the process log dropped: its reader on stdout fell too far behind (common/src/logger.ts). */
function logMetrics(registry: Registry): void {
  let counted = 0;
  new Counter({
    name: 'gateway_log_lines_dropped_total',
    help: 'Log lines dropped because the reader of stdout fell more than 16 MiB behind.',
    registers: [registry],
    collect() {
      const dropped = droppedLogLines();
      this.inc(dropped - counted);
      counted = dropped;
    },
  });
}

/** HTTP requests, GraphQL operations (both transports), and /readyz's refusals. */
function requestMetrics(registry: Registry) {
  const httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by route and status class.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request duration by route.',
    labelNames: ['route'],
    buckets: latency,
    registers: [registry],
  });
  const operations = new Counter({
    name: 'gateway_graphql_operations_total',
    help: 'GraphQL queries and mutations, and operations refused before they run (type unknown), by type, outcome (OK or the first error code) and transport (http, websocket, multipart or sse).',
    labelNames: ['type', 'outcome', 'transport'],
    registers: [registry],
  });
  const readinessFailures = new Counter({
    name: 'gateway_readiness_failures_total',
    help: 'GET /readyz answered 503, by reason: starting, draining, redis: slow, redis: down.',
    labelNames: ['reason'],
    registers: [registry],
  });
  return {
    http(method: string, route: string, status: number, seconds: number) {
      httpRequests.inc({ method, route, status: statusClass(status) });
      httpDuration.observe({ route }, seconds);
    },
    operation(type: string, outcome: string, transport: Transport) {
      operations.inc({ type, outcome, transport });
    },
    readinessFailure(reason: string) {
      readinessFailures.inc({ reason });
    },
  };
}

/** Calls to the platform, and the enrichment batches and cache in front of them. */
function upstreamMetrics(registry: Registry) {
  const upstreamCalls = new Counter({
    name: 'gateway_upstream_requests_total',
    help: 'Upstream calls by upstream, route template and status class (or error kind).',
    labelNames: ['upstream', 'route', 'status'],
    registers: [registry],
  });
  const upstreamDuration = new Histogram({
    name: 'gateway_upstream_request_duration_seconds',
    help: 'Upstream call duration.',
    labelNames: ['upstream', 'route'],
    buckets: latency,
    registers: [registry],
  });
  const batchSize = new Histogram({
    name: 'gateway_enrichment_batch_size',
    help: 'Lookups per /v1/search call.',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers: [registry],
  });
  const cache = new Counter({
    name: 'gateway_enrichment_cache_total',
    help: 'Enrichment lookups answered from the cache (hit) or sent (miss).',
    labelNames: ['result'],
    registers: [registry],
  });
  return {
    upstream(upstream: string, path: string, status: number | string, seconds: number) {
      const route = routeTemplate(path);
      upstreamCalls.inc({ upstream, route, status: typeof status === 'number' ? statusClass(status) : status });
      upstreamDuration.observe({ upstream, route }, seconds);
    },
    enrichmentBatch(size: number) {
      batchSize.observe(size);
    },
    enrichmentCache(hit: boolean) {
      cache.inc({ result: hit ? 'hit' : 'miss' });
    },
  };
}

/** Webhooks received, and the signing keys fetched to check them. */
function webhookMetrics(registry: Registry) {
  const webhooks = new Counter({
    name: 'gateway_webhooks_total',
    help: 'Webhooks by outcome: published, duplicate, ignored, dead-lettered, in-progress, refused_<reason>, unavailable.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const keyFetches = new Counter({
    name: 'gateway_webhook_key_fetches_total',
    help: 'Signing-key fetches from the platform, by result.',
    labelNames: ['result'],
    registers: [registry],
  });
  return {
    webhook(outcome: string) {
      webhooks.inc({ outcome });
    },
    keyFetch(result: 'ok' | 'failed') {
      keyFetches.inc({ result });
    },
  };
}

/** Subscriptions started (on sockets and HTTP streams), and the frames sent to them. */
function subscriptionMetrics(registry: Registry) {
  const eventsDelivered = new Counter({
    name: 'gateway_subscription_events_delivered_total',
    help: 'Subscription frames sent.',
    registers: [registry],
  });
  const subscriptionsStarted = new Counter({
    name: 'gateway_subscriptions_started_total',
    help: 'Subscriptions started, by transport (websocket, multipart or sse).',
    labelNames: ['transport'],
    registers: [registry],
  });
  return {
    eventDelivered() {
      eventsDelivered.inc();
    },
    subscriptionStarted(transport: Exclude<Transport, 'http'>) {
      subscriptionsStarted.inc({ transport });
    },
  };
}
