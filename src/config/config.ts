import { parseRedisUrls, type RedisConnectionSettings } from './redis-settings.js';
import { EnvReader, type ConfigIssue, type Env } from './env-reader.js';

export type AppKind = 'FULL' | 'PERSONAL';

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

/** The app's name until APP_NAME gives the real one (the readiness report warns about it). */
export const DEFAULT_APP_NAME = 'Open Finance Demo';

export interface GatewayConfig {
  port: number;
  host: string | undefined;
  /** Explicit external URL; when undefined it is derived from the bound port at start. */
  publicUrl: string | undefined;
  logLevel: string;
  headerPrefix: string;
  appKind: AppKind;
  core: {
    /** `{base_url}` of the platform; undefined means the embedded sandbox. */
    baseUrl: string | undefined;
    appToken: string | undefined;
    appSecret: string | undefined;
    oauthAuthorizeUrl: string | undefined;
    timeoutMs: number;
  };
  enrichment: {
    /** `{enrichment_url}`; undefined means the embedded sandbox. */
    baseUrl: string | undefined;
    apiKey: string | undefined;
    maxBatch: number;
    maxQueriesPerRequest: number;
    timeoutMs: number;
    cacheTtlMs: number;
    cacheMaxEntries: number;
    /** Concurrent requests' lookups wait this long to share `/v1/search` calls; 0: no sharing. */
    batchWindowMs: number;
  };
  upstreamMaxConnections: number;
  /** Origins allowed to open GraphQL WebSockets; the public URL's origin is always allowed. */
  allowedOrigins: string[];
  /** How long a socket may wait before `connection_init` (then 4408). */
  wsConnectionInitTimeoutMs: number;
  /** Embedded sandbox only: divides webhook retry intervals so demos see retries in seconds. */
  sandboxWebhookTimeScale: number;
  /** Shared state on Redis (several instances, survives restarts); undefined keeps it in memory. */
  redis:
    | {
        connection: RedisConnectionSettings;
        keyPrefix: string;
        commandTimeoutMs: number;
        /** AES-256-GCM keys for tokens at rest: the first encrypts, all decrypt. */
        tokenKeys: Array<{ id: string; key: Buffer }>;
      }
    | undefined;
  /** How long events are kept for subscribers to resume from their cursor. */
  eventRetentionMs: number;
  /** A bank connection whose app user has not signed in for this long is revoked and deleted. */
  connectionIdleMs: number;
  /** Operator endpoints (`/admin/...`) need this bearer token; undefined turns them off. */
  adminToken: string | undefined;
  payments: {
    /** Without a client key, the same payment or transfer input within this window reuses one idempotency key. */
    dedupeWindowMs: number;
  };
  /** Send the gateway's events to the parent process over Node's IPC channel (test harnesses). */
  ipcEvents: boolean;
  /** The consumer information page shown before the platform's connection flow. */
  consumerInfo: {
    appName: string;
    platformName: string;
    /** CONSUMER_INFO_TEMPLATE: a file of the operator's own page body; read at start. */
    templatePath: string | undefined;
  };
  /** What the accreditation readiness report checks besides the running configuration. */
  compliance: {
    privacyNoticeUrl: string | undefined;
    /** The last independent penetration test. */
    pentestDate: Date | undefined;
  };
  /** OpenTelemetry traces to an OTLP/HTTP collector; undefined: tracing off. */
  tracing: { endpoint: string; serviceName: string } | undefined;
  /** `GET /metrics` without a token on this port of its own; undefined: only on the main port, behind ADMIN_TOKEN. */
  metricsPort: number | undefined;
  /** Where the METRICS_PORT listener binds: loopback unless said otherwise, since it has no token. */
  metricsHost: string;
  /** A proxy in front sets `x-request-id`: use it rather than making a new id per request. */
  trustRequestIdHeader: boolean;
  http: {
    /** Whole request headers must arrive within this. */
    headersTimeoutMs: number;
    /** The whole request (headers and body) must arrive within this. */
    requestTimeoutMs: number;
    /** A webhook body must arrive within this (the platform waits 5 s for the answer). */
    webhookBodyTimeoutMs: number;
    /** Concurrent TCP connections, WebSockets included; more are dropped at accept. */
    maxConnections: number;
  };
  webhooks: {
    /** Fetches of signing key ids that are neither the current nor the next, per minute. */
    keyFetchesPerMinute: number;
  };
  websocket: {
    maxSubscriptionsPerSocket: number;
    maxSocketsPerSession: number;
    maxSocketsPerUser: number;
    /** A socket whose unsent data passes this is cut (a client that never reads). */
    maxBufferedBytes: number;
  };
  resilience: {
    /** Upstream calls one user may have in flight; more wait for a slot within their deadline. */
    maxInFlightPerUser: number;
    /** Consecutive upstream faults (5xx, timeout, connection) that open a circuit. */
    breakerFailures: number;
    /** How long an open circuit fails fast before one probe call is let through. */
    breakerHalfOpenAfterMs: number;
  };
  shutdown: {
    /** After SIGTERM, readiness fails for this long before the listener closes (load balancers notice). */
    delayMs: number;
    /** In-flight requests get this long to finish before connections are cut. */
    graceMs: number;
  };
  /**
   * The app's own identity provider (OpenID Connect): who the app user is and how they signed in.
   * Undefined issuer: the embedded sandbox's provider (sandbox only; refused with a live platform).
   */
  identity: {
    issuer: string | undefined;
    clientId: string | undefined;
    clientSecret: string | undefined;
    /** Space-separated scopes besides `openid`. */
    scopes: string;
  };
  /** The accreditation rules' multi-factor requirements, enforced on every platform-connected field. */
  mfa: {
    /** `required`: every platform-connected field needs a second factor; `read-only`: weaker sign-ins may read, nobody moves money. */
    policy: 'required' | 'read-only';
    /** The ID token `amr` values that count as a second factor. */
    acceptedAmr: string[];
    /** MFA status lapses this long after `auth_time`; money moves only within it (step-up otherwise). */
    maxAgeMs: number;
  };
  session: {
    /** Undefined only in full sandbox mode, where a random per-process secret is used. */
    secret: string | undefined;
    maxAgeMs: number;
    idleTimeoutMs: number;
  };
  graphql: {
    introspection: boolean;
    graphiql: boolean;
    maxDepth: number;
    maxAliases: number;
    maxTokens: number;
    /** Cost limit (graphql-armor's cost model: fragment spreads and `first` counted). */
    maxCost: number;
  };
  /** TRUSTED_DOCUMENTS (see readTrustedDocuments); undefined: any valid operation runs. */
  trustedDocuments?: { path: string; graphiql: boolean };
}

export class ConfigError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  - ${issue.key} ${issue.problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The enrichment key starts with the platform's fixed prefix, which ends in `token_`. */
const ENRICHMENT_KEY_FORM = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_token_[A-Za-z0-9_-]{8,}$/;
const NO_WHITESPACE = /^\S{8,}$/;
const HEADER_PREFIX_FORM = /^X-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;

/**
 * Resolves the gateway's configuration from environment variables. Pure: no I/O, no defaults read
 * from anywhere else. Throws one ConfigError naming every bad key.
 */
export function loadConfig(env: Env): GatewayConfig {
  const read = new EnvReader(env);

  const port = read.int('PORT', 4000, 0, 65535);
  const coreUrl = read.url('CORE_API_URL');
  const enrichmentUrl = read.url('ENRICHMENT_API_URL');
  const liveCore = read.raw('CORE_API_URL') !== undefined;
  const liveEnrichment = read.raw('ENRICHMENT_API_URL') !== undefined;

  const publicUrl = read.url('PUBLIC_URL');
  if (publicUrl !== undefined && new URL(publicUrl).pathname !== '/') {
    read.fail('PUBLIC_URL', 'must be an origin (scheme, host and port) without a path');
  }

  const appToken = read.secret('APP_TOKEN', NO_WHITESPACE, 'at least 8 characters, no spaces');
  const appSecret = read.secret('APP_SECRET', NO_WHITESPACE, 'at least 8 characters, no spaces');
  const oauthAuthorizeUrl = read.url('OAUTH_AUTHORIZE_URL');
  if (liveCore) {
    for (const [key, value] of [
      ['APP_TOKEN', appToken],
      ['APP_SECRET', appSecret],
      ['OAUTH_AUTHORIZE_URL', oauthAuthorizeUrl],
    ] as const) {
      if (value === undefined && read.raw(key) === undefined) read.fail(key, 'is required when CORE_API_URL is set');
    }
  }

  const apiKey = read.secret(
    'ENRICHMENT_API_KEY',
    ENRICHMENT_KEY_FORM,
    "the platform's key prefix ending in token_ (e.g. genie_token_…)",
  );
  if (liveEnrichment && read.raw('ENRICHMENT_API_KEY') === undefined) {
    read.fail('ENRICHMENT_API_KEY', 'is required when ENRICHMENT_API_URL is set');
  }

  const sessionSecret = read.secret('SESSION_SECRET', /^\S{32,}$/, 'at least 32 characters, no spaces');
  if ((liveCore || liveEnrichment) && read.raw('SESSION_SECRET') === undefined) {
    read.fail('SESSION_SECRET', 'is required once CORE_API_URL or ENRICHMENT_API_URL is set');
  }

  const headerPrefix = read.raw('PLATFORM_HEADER_PREFIX') ?? 'X-Service';
  if (!HEADER_PREFIX_FORM.test(headerPrefix)) {
    read.fail('PLATFORM_HEADER_PREFIX', 'must look like X-Service or X-Akahu');
  }

  const sandboxOnly = !liveCore && !liveEnrichment;
  const introspection = read.bool('GRAPHQL_INTROSPECTION', sandboxOnly);

  const config: GatewayConfig = {
    port,
    host: read.raw('HOST'),
    publicUrl,
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    headerPrefix,
    appKind: read.oneOf('APP_KIND', ['FULL', 'PERSONAL'] as const, 'FULL'),
    core: {
      baseUrl: coreUrl,
      appToken,
      appSecret,
      oauthAuthorizeUrl,
      timeoutMs: read.int('CORE_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    enrichment: {
      baseUrl: enrichmentUrl,
      apiKey,
      maxBatch: read.int('ENRICHMENT_MAX_BATCH', 100, 1, 1000),
      maxQueriesPerRequest: read.int('ENRICHMENT_MAX_QUERIES_PER_REQUEST', 1000, 1, 10_000),
      timeoutMs: read.int('ENRICHMENT_TIMEOUT_MS', 5_000, 100, 120_000),
      cacheTtlMs: read.int('ENRICHMENT_CACHE_TTL_SECONDS', 3600, 0, 7 * 86_400) * 1000,
      cacheMaxEntries: read.int('ENRICHMENT_CACHE_MAX_ENTRIES', 10_000, 0, 1_000_000),
      batchWindowMs: read.int('ENRICHMENT_BATCH_WINDOW_MS', 2, 0, 100),
    },
    upstreamMaxConnections: read.int('UPSTREAM_MAX_CONNECTIONS', 32, 1, 1024),
    allowedOrigins: (read.raw('ALLOWED_ORIGINS') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean)
      .map((origin) => {
        try {
          return new URL(origin).origin;
        } catch {
          read.fail('ALLOWED_ORIGINS', 'must be a comma-separated list of origins (https://app.example.nz)');
          return origin;
        }
      }),
    wsConnectionInitTimeoutMs: read.int('WS_CONNECTION_INIT_TIMEOUT_MS', 3_000, 100, 60_000),
    sandboxWebhookTimeScale: read.int('SANDBOX_WEBHOOK_TIME_SCALE', 120, 1, 3_600_000),
    redis: undefined,
    eventRetentionMs: read.int('EVENT_RETENTION_SECONDS', 3 * 86_400, 60, 30 * 86_400) * 1000,
    connectionIdleMs: read.int('CONNECTION_IDLE_DAYS', 180, 1, 3_650) * 86_400_000,
    trustRequestIdHeader: read.bool('REQUEST_ID_HEADER_TRUSTED', false),
    tracing: readTracing(read),
    metricsPort: read.raw('METRICS_PORT') === undefined ? undefined : read.int('METRICS_PORT', 9464, 0, 65_535),
    // Not HOST: the main port is meant to be reached, a token-free /metrics only by a local scraper
    // or sidecar until an operator opens it (as Apollo Router's Prometheus endpoint does).
    metricsHost: read.raw('METRICS_HOST') ?? '127.0.0.1',
    adminToken: read.secret('ADMIN_TOKEN', /^\S{32,}$/, 'at least 32 characters, no spaces'),
    ipcEvents: read.bool('IPC_EVENTS', false),
    consumerInfo: {
      appName: read.raw('APP_NAME') ?? DEFAULT_APP_NAME,
      platformName:
        read.raw('PLATFORM_NAME') ??
        (sandboxOnly ? 'the platform sandbox' : headerPrefix === 'X-Akahu' ? 'Akahu' : 'the open finance platform'),
      templatePath: read.raw('CONSUMER_INFO_TEMPLATE'),
    },
    compliance: { privacyNoticeUrl: read.url('PRIVACY_NOTICE_URL'), pentestDate: read.pastDate('PENTEST_DATE') },
    payments: { dedupeWindowMs: read.int('PAYMENT_DEDUPE_WINDOW_SECONDS', 600, 10, 86_400) * 1000 },
    http: {
      headersTimeoutMs: read.int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 500, 120_000),
      requestTimeoutMs: read.int('HTTP_REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000),
      webhookBodyTimeoutMs: read.int('WEBHOOK_BODY_TIMEOUT_MS', 3_000, 100, 4_500),
      maxConnections: read.int('MAX_CONNECTIONS', 4_096, 1, 1_000_000),
    },
    webhooks: {
      keyFetchesPerMinute: read.int('WEBHOOK_KEY_FETCHES_PER_MINUTE', 10, 1, 600),
    },
    websocket: {
      maxSubscriptionsPerSocket: read.int('WS_MAX_SUBSCRIPTIONS_PER_SOCKET', 20, 1, 10_000),
      maxSocketsPerSession: read.int('WS_MAX_SOCKETS_PER_SESSION', 8, 1, 10_000),
      maxSocketsPerUser: read.int('WS_MAX_SOCKETS_PER_USER', 16, 1, 100_000),
      maxBufferedBytes: read.int('WS_MAX_BUFFERED_BYTES', 1_048_576, 1_024, 1_073_741_824),
    },
    resilience: {
      maxInFlightPerUser: read.int('UPSTREAM_MAX_IN_FLIGHT_PER_USER', 8, 1, 1_024),
      breakerFailures: read.int('CIRCUIT_BREAKER_FAILURES', 5, 1, 1_000),
      breakerHalfOpenAfterMs: read.int('CIRCUIT_BREAKER_HALF_OPEN_AFTER_MS', 10_000, 10, 600_000),
    },
    shutdown: {
      delayMs: read.int('SHUTDOWN_DELAY_MS', 5_000, 0, 120_000),
      graceMs: read.int('SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    },
    identity: readIdentity(read, sandboxOnly),
    mfa: {
      policy: read.oneOf('MFA_POLICY', ['required', 'read-only'] as const, 'required'),
      acceptedAmr: readAmrList(read),
      maxAgeMs: read.int('MFA_MAX_AGE_SECONDS', 7_200, 60, 7_200) * 1000,
    },
    session: {
      secret: sessionSecret,
      maxAgeMs: read.int('SESSION_MAX_AGE_SECONDS', 12 * 3600, 60, 30 * 86_400) * 1000,
      idleTimeoutMs: read.int('SESSION_IDLE_TIMEOUT_SECONDS', 2 * 3600, 60, 30 * 86_400) * 1000,
    },
    graphql: {
      introspection,
      graphiql: read.bool('GRAPHIQL_ENABLED', introspection),
      maxDepth: read.int('GRAPHQL_MAX_DEPTH', 12, 2, 100),
      maxAliases: read.int('GRAPHQL_MAX_ALIASES', 30, 1, 1000),
      maxTokens: read.int('GRAPHQL_MAX_TOKENS', 10_000, 100, 1_000_000),
      maxCost: read.int('GRAPHQL_MAX_COST', 50_000, 10, 100_000_000),
    },
  };

  config.redis = readRedis(read);
  config.trustedDocuments = readTrustedDocuments(read);
  // A live session always has a live connection: sign-in moves the connection's idle deadline.
  if (config.connectionIdleMs < config.session.maxAgeMs)
    read.fail('CONNECTION_IDLE_DAYS', 'must be at least SESSION_MAX_AGE_SECONDS');
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs)
    read.fail('HTTP_HEADERS_TIMEOUT_MS', 'must not exceed HTTP_REQUEST_TIMEOUT_MS');
  if (read.issues.length > 0) throw new ConfigError(read.issues);
  return config;
}

/**
 * TRUSTED_DOCUMENTS: the app's operation manifest (hash -> document, written by its codegen). Only
 * its path here: the file is read and checked at start. With it, GraphiQL is off unless
 * GRAPHIQL_WITH_TRUSTED_DOCUMENTS says otherwise (it could run only the manifest's texts anyway).
 */
function readTrustedDocuments(read: EnvReader): GatewayConfig['trustedDocuments'] {
  const path = read.raw('TRUSTED_DOCUMENTS');
  const graphiql = read.bool('GRAPHIQL_WITH_TRUSTED_DOCUMENTS', false);
  if (path === undefined && graphiql)
    read.fail('GRAPHIQL_WITH_TRUSTED_DOCUMENTS', 'is only used with TRUSTED_DOCUMENTS');
  return path === undefined ? undefined : { path, graphiql };
}

/** The `amr` values (RFC 8176) a second factor shows up as, unless MFA_ACCEPTED_AMR says otherwise. */
export const DEFAULT_MFA_AMR = ['mfa', 'otp', 'sms', 'hwk', 'swk'];

function readAmrList(read: EnvReader): string[] {
  const raw = read.raw('MFA_ACCEPTED_AMR');
  if (raw === undefined) return DEFAULT_MFA_AMR;
  const values = raw
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  if (values.length === 0 || values.some((value) => !/^[a-z]{2,16}$/.test(value))) {
    read.fail('MFA_ACCEPTED_AMR', 'must be a comma-separated list of amr values (otp,sms,hwk,swk,mfa)');
    return DEFAULT_MFA_AMR;
  }
  if (values.includes('pwd') || values.includes('pin'))
    read.fail('MFA_ACCEPTED_AMR', 'must not count a knowledge factor alone (pwd, pin) as multi-factor');
  return values;
}

/** OIDC_*: all three with a live platform (the sandbox provider is for the sandbox only). */
function readIdentity(read: EnvReader, sandboxOnly: boolean): GatewayConfig['identity'] {
  const issuer = read.url('OIDC_ISSUER');
  const clientId = read.raw('OIDC_CLIENT_ID');
  const clientSecret = read.secret('OIDC_CLIENT_SECRET', NO_WHITESPACE, 'at least 8 characters, no spaces');
  const scopes = read.raw('OIDC_SCOPES') ?? 'email profile';
  if (!/^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(scopes))
    read.fail('OIDC_SCOPES', 'must be space-separated scope names');
  if (issuer === undefined) {
    if (!sandboxOnly && read.raw('OIDC_ISSUER') === undefined)
      read.fail(
        'OIDC_ISSUER',
        "is required once CORE_API_URL or ENRICHMENT_API_URL is set (the app's identity provider)",
      );
    for (const key of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'])
      if (read.raw(key) !== undefined) read.fail(key, 'is only used with OIDC_ISSUER');
  } else {
    // Plain http only where nothing crosses a network one does not own: this machine, or a
    // single-label service name on a private network (a compose file's sandbox).
    if (!issuer.startsWith('https:') && !/^http:\/\/(localhost|127\.0\.0\.1|[a-z0-9-]+)(:\d+)?(\/|$)/.test(issuer))
      read.fail('OIDC_ISSUER', 'must be https (plain http only for localhost or a private service name)');
    if (clientId === undefined) read.fail('OIDC_CLIENT_ID', 'is required with OIDC_ISSUER');
    if (read.raw('OIDC_CLIENT_SECRET') === undefined) read.fail('OIDC_CLIENT_SECRET', 'is required with OIDC_ISSUER');
  }
  return { issuer, clientId, clientSecret, scopes };
}

const REDIS_MODES = ['standalone', 'sentinel', 'cluster'] as const;
const KEY_PREFIX_FORM = /^[A-Za-z0-9_.-]{1,32}:$/;
const TOKEN_KEY_FORM = /^([A-Za-z0-9_-]{1,16}):([A-Za-z0-9+/]{43}=)$/;

/** Tracing is on when the standard OTLP endpoint variable is set. */
function readTracing(read: EnvReader): GatewayConfig['tracing'] {
  const endpoint = read.url('OTEL_EXPORTER_OTLP_ENDPOINT');
  const serviceName = read.raw('OTEL_SERVICE_NAME') ?? 'open-finance-gateway';
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(serviceName))
    read.fail('OTEL_SERVICE_NAME', 'must be 1-64 letters, digits, . _ -');
  return endpoint === undefined ? undefined : { endpoint, serviceName };
}

/** REDIS_URL and what must come with it: the token encryption keys are required, never defaulted. */
function readRedis(read: EnvReader): GatewayConfig['redis'] {
  const rawUrl = read.raw('REDIS_URL');
  const mode = read.oneOf('REDIS_MODE', REDIS_MODES, 'standalone');
  const keyPrefix = read.raw('REDIS_KEY_PREFIX') ?? 'ofg:';
  if (!KEY_PREFIX_FORM.test(keyPrefix))
    read.fail('REDIS_KEY_PREFIX', 'must be 1-32 letters, digits, _ . - followed by a colon (ofg:)');
  const commandTimeoutMs = read.int('REDIS_COMMAND_TIMEOUT_MS', 1_000, 50, 60_000);
  const sentinelMaster = read.raw('REDIS_SENTINEL_MASTER');
  const sentinelPassword = read.raw('REDIS_SENTINEL_PASSWORD');
  const rawKeys = read.raw('TOKEN_ENCRYPTION_KEYS');
  const tokenKeys = readTokenKeys(read, rawKeys);
  if (rawUrl === undefined) {
    for (const [key, value] of [
      ['TOKEN_ENCRYPTION_KEYS', rawKeys],
      ['REDIS_MODE', read.raw('REDIS_MODE')],
      ['REDIS_SENTINEL_MASTER', sentinelMaster],
      ['REDIS_SENTINEL_PASSWORD', sentinelPassword],
    ] as const) {
      if (value !== undefined) read.fail(key, 'is only used with REDIS_URL');
    }
    return undefined;
  }
  if (tokenKeys.length === 0 && rawKeys === undefined)
    read.fail('TOKEN_ENCRYPTION_KEYS', 'is required when REDIS_URL is set (tokens are encrypted at rest)');
  if (mode === 'sentinel' && sentinelMaster === undefined)
    read.fail('REDIS_SENTINEL_MASTER', 'is required when REDIS_MODE is sentinel (the name of the monitored primary)');
  if (mode !== 'sentinel') {
    if (sentinelMaster !== undefined) read.fail('REDIS_SENTINEL_MASTER', 'is only used when REDIS_MODE is sentinel');
    if (sentinelPassword !== undefined)
      read.fail('REDIS_SENTINEL_PASSWORD', 'is only used when REDIS_MODE is sentinel');
  }
  const connection = parseRedisUrls(rawUrl, mode, sentinelMaster, sentinelPassword);
  if (typeof connection === 'string') read.fail('REDIS_URL', connection);
  return typeof connection === 'string' ? undefined : { connection, keyPrefix, commandTimeoutMs, tokenKeys };
}

function readTokenKeys(read: EnvReader, rawKeys: string | undefined): Array<{ id: string; key: Buffer }> {
  const tokenKeys: Array<{ id: string; key: Buffer }> = [];
  for (const entry of (rawKeys ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = TOKEN_KEY_FORM.exec(entry);
    if (!match) {
      // Never echo the value: it is key material.
      read.fail(
        'TOKEN_ENCRYPTION_KEYS',
        'must be a comma-separated list of id:base64 entries, each key 32 bytes (openssl rand -base64 32)',
      );
      break;
    }
    if (tokenKeys.some((existing) => existing.id === match[1]))
      read.fail('TOKEN_ENCRYPTION_KEYS', `has the key id ${match[1]} twice`);
    tokenKeys.push({ id: match[1]!, key: Buffer.from(match[2]!, 'base64') });
  }
  return tokenKeys;
}
