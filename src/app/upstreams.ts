import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import { configSecrets, type GatewayConfig } from '../config/config.js';
import { createEnrichmentBatcher } from '../loaders/enrichment-batcher.js';
import { createEnrichmentCache } from '../loaders/enrichment-cache.js';
import { JoinableRequests } from '../loaders/request-activity.js';
import type { LoaderDependencies } from '../loaders/request-loaders.js';
import type { GatewayMetrics } from '../server/observability/metrics.js';
import { createCoreClient, type CoreClient } from '../upstream/core-client.js';
import { createEnrichmentClient } from '../upstream/enrichment-client.js';
import { createUpstreamHttp, type UpstreamHttp } from '../upstream/upstream-http.js';
import type { UpstreamEndpoints } from './upstream-choice.js';

const MAX_CORE_RESPONSE_BYTES = 4 * 1024 * 1024;
const MAX_ENRICHMENT_RESPONSE_BYTES = 8 * 1024 * 1024;
/** A PEM public key is under 1 KiB; anything much larger is not one. */
const MAX_SIGNING_KEY_BYTES = 16 * 1024;

export interface Upstreams {
  /** Every pool, closed on stop. */
  pools: UpstreamHttp[];
  coreClient: CoreClient;
  /** Its own small pool with a short deadline, for the webhook route's key fetches. */
  keysHttp: UpstreamHttp;
  loaderDeps: LoaderDependencies;
}

/** Step 2: the upstream clients, each with its deadlines, caps, breakers and metrics. */
export function createUpstreams(
  config: GatewayConfig,
  endpoints: UpstreamEndpoints,
  metrics: GatewayMetrics,
  logger: Logger,
  clock: Clock,
  undo: Array<() => unknown>,
): Upstreams {
  const { core, enrichment } = endpoints;
  // Every credential the gateway holds (for any upstream, and every setting the table marks
  // secret): none may echo back through an upstream's error text.
  const secrets = [...new Set([core.appToken, core.appSecret, enrichment.apiKey, ...configSecrets(config)])];
  const breaker = {
    failures: config.resilience.breakerFailures,
    halfOpenAfterMs: config.resilience.breakerHalfOpenAfterMs,
  };
  const pool = (
    name: string,
    baseUrl: string,
    timeoutMs: number,
    maxTcpConnections: number,
    maxResponseBytes: number,
  ) => {
    const http = createUpstreamHttp({
      name,
      baseUrl,
      timeoutMs,
      maxTcpConnections,
      maxResponseBytes,
      breaker,
      secrets,
      logger,
      observe: (path, status, seconds) => metrics.upstream(name, path, status, seconds),
    });
    undo.push(() => http.close());
    return http;
  };
  const coreHttp = pool(
    'core',
    core.baseUrl,
    config.core.timeoutMs,
    config.upstreamMaxTcpConnections,
    MAX_CORE_RESPONSE_BYTES,
  );
  const enrichmentHttp = pool(
    'enrichment',
    enrichment.baseUrl,
    config.enrichment.timeoutMs,
    config.upstreamMaxTcpConnections,
    MAX_ENRICHMENT_RESPONSE_BYTES,
  );
  // 1.5 s: with the key cache's 1 s wait for a near key, a webhook is still answered within 3 s.
  const keysHttp = pool('core-keys', core.baseUrl, 1_500, 4, MAX_SIGNING_KEY_BYTES);
  const coreClient = createCoreClient(coreHttp, {
    appToken: core.appToken,
    appSecret: core.appSecret,
    headerPrefix: config.headerPrefix,
  });
  const joinable = new JoinableRequests();
  const loaderDeps: LoaderDependencies = {
    enrichment: createEnrichmentBatcher({
      client: createEnrichmentClient(enrichmentHttp, enrichment.apiKey, logger),
      maxBatch: config.enrichment.maxBatch,
      windowMs: config.enrichment.batchWindowMs,
      joinable,
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
    joinable,
  };
  return { pools: [coreHttp, enrichmentHttp, keysHttp], coreClient, keysHttp, loaderDeps };
}
