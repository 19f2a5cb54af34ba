import {
  checkIdentity,
  checkOrderings,
  checkUserDataStore,
  readRedis,
  readTrustedDocuments,
  requireLiveCredentials,
} from './config-rules.js';
import type { GatewayConfig } from './gateway-config.js';
import { parseSettings, secretValues, type ConfigIssue, type Env } from './parse-settings.js';
import type { SettingValues } from './settings.js';

export type { AppKind, GatewayConfig } from './gateway-config.js';
export type { ConfigIssue, DeprecatedSetting, Env } from './parse-settings.js';
export { DEFAULT_APP_NAME, DEFAULT_MFA_AMR } from './settings/setting-forms.js';

/**
 * For process entry points: the validated configuration, or one message naming every bad key on
 * stderr and exit code 78 (EX_CONFIG).
 */
export function loadConfigOrExit(env: Env): GatewayConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

export class ConfigError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  - ${issue.key} ${issue.problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const SECRETS = new WeakMap<GatewayConfig, readonly string[]>();

/**
 * The values of the settings the table marks secret (credentials, passwords, keys): what an
 * upstream's error text must never carry back to a client or a log.
 */
export function configSecrets(config: GatewayConfig): readonly string[] {
  return SECRETS.get(config) ?? [];
}

/**
 * Resolves the gateway's configuration from environment variables: the settings table's parse,
 * then the rules across settings. Pure: no I/O, no defaults read from anywhere else. Throws one
 * ConfigError naming every bad key.
 */
export function loadConfig(env: Env): GatewayConfig {
  const parsed = parseSettings(env);
  const sandboxOnly = !parsed.given('CORE_API_URL') && !parsed.given('ENRICHMENT_API_URL');
  requireLiveCredentials(parsed);
  checkIdentity(parsed, sandboxOnly);
  const config = toGatewayConfig(parsed.values, sandboxOnly);
  // On the embedded sandbox its native app connects a bank with no setting, as it signs in with none.
  if (sandboxOnly && !parsed.given('APP_RETURN_URIS')) config.appReturnUris = [...SANDBOX_APP_RETURN_URIS];
  config.redis = readRedis(parsed);
  config.trustedDocuments = readTrustedDocuments(parsed);
  config.userData.store = checkUserDataStore(parsed, config.redis !== undefined);
  checkOrderings(config, parsed);
  if (parsed.issues.length > 0) throw new ConfigError(parsed.issues);
  if (parsed.deprecated.length > 0) config.deprecatedSettings = parsed.deprecated;
  SECRETS.set(config, secretValues(env));
  return config;
}

/** The sandbox's native app's return URIs (loopback on any port, and its own scheme): APP_RETURN_URIS there by default. */
export const SANDBOX_APP_RETURN_URIS = ['http://127.0.0.1/connected', 'nz.sandbox.native:/connected'] as const;

const SECOND = 1000;
const DAY = 86_400 * SECOND;

function toGatewayConfig(v: SettingValues, sandboxOnly: boolean): GatewayConfig {
  const introspection = v.GRAPHQL_INTROSPECTION ?? sandboxOnly;
  return {
    port: v.PORT,
    host: v.HOST,
    publicUrl: v.PUBLIC_URL,
    logLevel: v.LOG_LEVEL,
    headerPrefix: v.PLATFORM_HEADER_PREFIX,
    appKind: v.APP_KIND,
    ...upstreamParts(v),
    allowedOrigins: v.ALLOWED_ORIGINS,
    wsHandshakeTimeoutMs: v.WS_HANDSHAKE_TIMEOUT_MS,
    sandboxWebhookTimeScale: v.SANDBOX_WEBHOOK_TIME_SCALE,
    redis: undefined,
    eventRetentionMs: v.EVENT_RETENTION_SECONDS * SECOND,
    userData: {
      store: 'off', // chosen with the Redis settings (checkUserDataStore)
      maxAgeMs: v.USER_DATA_MAX_AGE_SECONDS * SECOND,
      // Long enough to reconcile what is kept rather than lose it (and with it the apps' sync cursors).
      retentionMs: 2 * v.USER_DATA_MAX_AGE_SECONDS * SECOND,
      userMaxBytes: v.USER_DATA_USER_MAX_KB * 1024,
      budgetBytes: v.USER_DATA_BUDGET_MB * 1024 * 1024,
    },
    bankConnectionIdleMs: v.BANK_CONNECTION_IDLE_DAYS * DAY,
    trustRequestIdHeader: v.REQUEST_ID_HEADER_TRUSTED,
    tracing:
      v.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
        ? undefined
        : { endpoint: v.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: v.OTEL_SERVICE_NAME },
    metricsPort: v.METRICS_PORT,
    // Not HOST: the main port is meant to be reached, a token-free /metrics only by a local scraper
    // or sidecar until an operator opens it (as Apollo Router's Prometheus endpoint does).
    metricsHost: v.METRICS_HOST,
    adminToken: v.ADMIN_TOKEN,
    ipcEvents: v.IPC_EVENTS,
    consumerInfo: {
      appName: v.APP_NAME,
      platformName: v.PLATFORM_NAME ?? defaultPlatformName(v.PLATFORM_HEADER_PREFIX, sandboxOnly),
      templatePath: v.CONSUMER_INFO_TEMPLATE,
    },
    appReturnUris: v.APP_RETURN_URIS,
    compliance: { privacyNoticeUrl: v.PRIVACY_NOTICE_URL, pentestDate: v.PENTEST_DATE },
    payments: { dedupeWindowMs: v.PAYMENT_DEDUPE_WINDOW_SECONDS * SECOND },
    ...limitParts(v),
    identity: {
      issuer: v.OIDC_ISSUER,
      clientId: v.OIDC_CLIENT_ID,
      clientSecret: v.OIDC_CLIENT_SECRET,
      scopes: v.OIDC_SCOPES,
    },
    mfa: { policy: v.MFA_POLICY, acceptedAmr: v.MFA_ACCEPTED_AMR, maxAgeMs: v.MFA_MAX_AGE_SECONDS * SECOND },
    accessTokens: {
      clientIds: v.NATIVE_CLIENT_IDS,
      audience: v.ACCESS_TOKEN_AUDIENCE,
      algorithms: v.ACCESS_TOKEN_ALGORITHMS,
      keyFetchesPerMinute: v.ACCESS_TOKEN_KEY_FETCHES_PER_MINUTE,
    },
    session: {
      secret: v.SESSION_SECRET,
      maxAgeMs: v.SESSION_MAX_AGE_SECONDS * SECOND,
      idleTimeoutMs: v.SESSION_IDLE_TIMEOUT_SECONDS * SECOND,
    },
    graphql: {
      introspection,
      graphiql: v.GRAPHIQL_ENABLED ?? introspection,
      maxDepth: v.GRAPHQL_MAX_DEPTH,
      maxAliases: v.GRAPHQL_MAX_ALIASES,
      maxTokens: v.GRAPHQL_MAX_TOKENS,
      maxCost: v.GRAPHQL_MAX_COST,
    },
  };
}

function defaultPlatformName(headerPrefix: string, sandboxOnly: boolean): string {
  if (sandboxOnly) return 'the platform sandbox';
  return headerPrefix === 'X-Akahu' ? 'Akahu' : 'the open finance platform';
}

function upstreamParts(v: SettingValues): Pick<GatewayConfig, 'core' | 'enrichment' | 'upstreamMaxTcpConnections'> {
  return {
    core: {
      baseUrl: v.CORE_API_URL,
      appToken: v.APP_TOKEN,
      appSecret: v.APP_SECRET,
      oauthAuthorizeUrl: v.OAUTH_AUTHORIZE_URL,
      timeoutMs: v.CORE_TIMEOUT_MS,
    },
    enrichment: {
      baseUrl: v.ENRICHMENT_API_URL,
      apiKey: v.ENRICHMENT_API_KEY,
      maxBatch: v.ENRICHMENT_MAX_BATCH,
      maxQueriesPerRequest: v.ENRICHMENT_MAX_QUERIES_PER_REQUEST,
      timeoutMs: v.ENRICHMENT_TIMEOUT_MS,
      cacheTtlMs: v.ENRICHMENT_CACHE_TTL_SECONDS * SECOND,
      cacheMaxEntries: v.ENRICHMENT_CACHE_MAX_ENTRIES,
      batchWindowMs: v.ENRICHMENT_BATCH_WINDOW_MS,
    },
    upstreamMaxTcpConnections: v.UPSTREAM_MAX_TCP_CONNECTIONS,
  };
}

function limitParts(
  v: SettingValues,
): Pick<GatewayConfig, 'http' | 'webhooks' | 'websocket' | 'resilience' | 'shutdown'> {
  return {
    http: {
      headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
      webhookBodyTimeoutMs: v.WEBHOOK_BODY_TIMEOUT_MS,
      maxTcpConnections: v.HTTP_MAX_TCP_CONNECTIONS,
    },
    webhooks: { keyFetchesPerMinute: v.WEBHOOK_KEY_FETCHES_PER_MINUTE },
    websocket: {
      maxSubscriptionsPerSocket: v.WS_MAX_SUBSCRIPTIONS_PER_SOCKET,
      maxSocketsPerSession: v.WS_MAX_SOCKETS_PER_SESSION,
      maxSocketsPerUser: v.WS_MAX_SOCKETS_PER_USER,
      maxBufferedBytes: v.WS_MAX_BUFFERED_BYTES,
    },
    resilience: {
      maxInFlightPerUser: v.UPSTREAM_MAX_IN_FLIGHT_PER_USER,
      breakerFailures: v.CIRCUIT_BREAKER_FAILURES,
      breakerHalfOpenAfterMs: v.CIRCUIT_BREAKER_HALF_OPEN_AFTER_MS,
    },
    shutdown: { delayMs: v.SHUTDOWN_DELAY_MS, graceMs: v.SHUTDOWN_GRACE_MS },
  };
}
