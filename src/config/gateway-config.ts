import type { DeprecatedSetting } from './parse-settings.js';
import type { RedisConnectionSettings } from './redis-settings.js';

export type AppKind = 'FULL' | 'PERSONAL';

/** The gateway's validated configuration, as the rest of the code uses it (built by loadConfig). */
export interface GatewayConfig {
  /** Settings given under a former name: read, and warned about at start. */
  deprecatedSettings?: DeprecatedSetting[];
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
  upstreamMaxTcpConnections: number;
  /** Origins allowed to open GraphQL WebSockets; the public URL's origin is always allowed. */
  allowedOrigins: string[];
  /** How long a socket may wait before `connection_init` (then 4408). */
  wsHandshakeTimeoutMs: number;
  /** Embedded sandbox only: divides webhook retry intervals so demos see retries in seconds. */
  sandboxWebhookTimeScale: number;
  /** Shared state on Redis (several instances, survives restarts); undefined keeps it in memory. */
  redis:
    | {
        connection: RedisConnectionSettings;
        keyPrefix: string;
        commandTimeoutMs: number;
        /** Replicas that must hold a webhook's event before its 200 (Redis WAIT); 0: no wait. */
        waitReplicas: number;
        /** AES-256-GCM keys for tokens at rest: the first encrypts, all decrypt. */
        tokenKeys: Array<{ id: string; key: Buffer }>;
      }
    | undefined;
  /** How long events are kept for subscribers to resume from their cursor. */
  eventRetentionMs: number;
  /** The user-data store: where answers are kept (none when `off`) and its bounds. */
  userData: {
    store: 'memory' | 'redis' | 'off';
    maxAgeMs: number;
    /** A user's kept data is deleted this long after its last change. */
    retentionMs: number;
    userMaxBytes: number;
    budgetBytes: number;
  };
  /** A bank connection whose app user has not signed in for this long is revoked and deleted. */
  bankConnectionIdleMs: number;
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
  /** APP_RETURN_URIS: where a bank connection started from a native app returns the browser to. */
  appReturnUris: string[];
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
    maxTcpConnections: number;
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
  /**
   * Access tokens from the app's identity provider (`Authorization: Bearer`, and graphql-ws'
   * `connection_init`): for native and server clients; browsers keep the cookie.
   */
  accessTokens: {
    /** NATIVE_CLIENT_IDS; undefined: the sandbox's native client on the sandbox provider, else none. */
    clientIds: string[] | undefined;
    /** ACCESS_TOKEN_AUDIENCE; undefined: the public URL. */
    audience: string | undefined;
    algorithms: string[];
    keyFetchesPerMinute: number;
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
  /** TRUSTED_DOCUMENTS: the app's operation manifest, read and checked at start; undefined: any valid operation runs. */
  trustedDocuments?: { path: string; graphiql: boolean };
}
