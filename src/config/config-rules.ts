import type { GatewayConfig } from './gateway-config.js';
import type { ParsedSettings } from './parse-settings.js';
import { parseRedisUrls } from './redis-settings.js';

/**
 * The rules that tie settings together, run after the table parse. A rule only reports a missing
 * setting when it is unset: a set but malformed one has had its own problem reported already.
 */

/** A live platform needs the app's credentials; no sandbox default may stand in for them. */
export function requireLiveCredentials({ given, fail }: ParsedSettings): void {
  if (given('CORE_API_URL'))
    for (const key of ['APP_TOKEN', 'APP_SECRET', 'OAUTH_AUTHORIZE_URL'] as const)
      if (!given(key)) fail(key, 'is required when CORE_API_URL is set');
  if (given('ENRICHMENT_API_URL') && !given('ENRICHMENT_API_KEY'))
    fail('ENRICHMENT_API_KEY', 'is required when ENRICHMENT_API_URL is set');
  if ((given('CORE_API_URL') || given('ENRICHMENT_API_URL')) && !given('SESSION_SECRET'))
    fail('SESSION_SECRET', 'is required once CORE_API_URL or ENRICHMENT_API_URL is set');
}

/** OIDC_*: all three with a live platform (the sandbox provider is for the sandbox only). */
export function checkIdentity({ values, given, fail }: ParsedSettings, sandboxOnly: boolean): void {
  const issuer = values.OIDC_ISSUER;
  if (issuer === undefined) {
    if (!sandboxOnly && !given('OIDC_ISSUER'))
      fail('OIDC_ISSUER', "is required once CORE_API_URL or ENRICHMENT_API_URL is set (the app's identity provider)");
    for (const key of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const)
      if (given(key)) fail(key, 'is only used with OIDC_ISSUER');
    return;
  }
  // Plain http only where nothing crosses a network one does not own: this machine, or a
  // single-label service name on a private network (a compose file's sandbox).
  if (!issuer.startsWith('https:') && !/^http:\/\/(localhost|127\.0\.0\.1|[a-z0-9-]+)(:\d+)?(\/|$)/.test(issuer))
    fail('OIDC_ISSUER', 'must be https (plain http only for localhost or a private service name)');
  if (values.OIDC_CLIENT_ID === undefined) fail('OIDC_CLIENT_ID', 'is required with OIDC_ISSUER');
  if (!given('OIDC_CLIENT_SECRET')) fail('OIDC_CLIENT_SECRET', 'is required with OIDC_ISSUER');
}

/** REDIS_URL and what must come with it: the token encryption keys are required, never defaulted. */
export function readRedis({ values, given, fail }: ParsedSettings): GatewayConfig['redis'] {
  const mode = values.REDIS_MODE;
  if (values.REDIS_URL === undefined) {
    for (const key of [
      'TOKEN_ENCRYPTION_KEYS',
      'REDIS_MODE',
      'REDIS_SENTINEL_MASTER',
      'REDIS_SENTINEL_PASSWORD',
      'REDIS_WAIT_REPLICAS',
    ] as const)
      if (given(key)) fail(key, 'is only used with REDIS_URL');
    return undefined;
  }
  if (values.TOKEN_ENCRYPTION_KEYS.length === 0 && !given('TOKEN_ENCRYPTION_KEYS'))
    fail('TOKEN_ENCRYPTION_KEYS', 'is required when REDIS_URL is set (tokens are encrypted at rest)');
  if (mode === 'sentinel' && values.REDIS_SENTINEL_MASTER === undefined)
    fail('REDIS_SENTINEL_MASTER', 'is required when REDIS_MODE is sentinel (the name of the monitored primary)');
  if (mode !== 'sentinel') {
    if (given('REDIS_SENTINEL_MASTER')) fail('REDIS_SENTINEL_MASTER', 'is only used when REDIS_MODE is sentinel');
    if (given('REDIS_SENTINEL_PASSWORD')) fail('REDIS_SENTINEL_PASSWORD', 'is only used when REDIS_MODE is sentinel');
  }
  const connection = parseRedisUrls(
    values.REDIS_URL,
    mode,
    values.REDIS_SENTINEL_MASTER,
    values.REDIS_SENTINEL_PASSWORD,
  );
  if (typeof connection === 'string') {
    fail('REDIS_URL', connection);
    return undefined;
  }
  return {
    connection,
    keyPrefix: values.REDIS_KEY_PREFIX,
    commandTimeoutMs: values.REDIS_COMMAND_TIMEOUT_MS,
    tokenKeys: values.TOKEN_ENCRYPTION_KEYS,
    // A topology that fails over promotes a replica: wait for one unless told otherwise.
    waitReplicas: values.REDIS_WAIT_REPLICAS ?? (mode === 'standalone' ? 0 : 1),
  };
}

/**
 * USER_DATA_STORE follows the other stores unless given: memory on one instance, Redis with
 * REDIS_URL. Memory beside Redis is refused: a webhook reaches one instance, and the copies the
 * others keep would never hear of it. Redis without REDIS_URL has nowhere to go. A personal app
 * receives no webhooks, so nothing would ever tell the store of a change: off, and refused on.
 */
export function checkUserDataStore(
  { values, fail }: ParsedSettings,
  onRedis: boolean,
): GatewayConfig['userData']['store'] {
  const chosen = values.USER_DATA_STORE;
  if (values.APP_KIND === 'PERSONAL') {
    if (chosen !== undefined && chosen !== 'off')
      fail('USER_DATA_STORE', 'must be off for a personal app (it receives no webhooks to keep the data current)');
    return 'off';
  }
  if (chosen === 'memory' && onRedis)
    fail('USER_DATA_STORE', 'cannot be memory with REDIS_URL (other instances would keep what a webhook changed)');
  if (chosen === 'redis' && !onRedis) fail('USER_DATA_STORE', 'is redis but REDIS_URL is not set');
  return chosen ?? (onRedis ? 'redis' : 'memory');
}

/** Durations that only make sense in a given order. */
export function checkOrderings(config: GatewayConfig, { fail }: ParsedSettings): void {
  // A live session always has a live connection: sign-in moves the connection's idle deadline.
  if (config.bankConnectionIdleMs < config.session.maxAgeMs)
    fail('BANK_CONNECTION_IDLE_DAYS', 'must be at least SESSION_MAX_AGE_SECONDS');
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs)
    fail('HTTP_HEADERS_TIMEOUT_MS', 'must not exceed HTTP_REQUEST_TIMEOUT_MS');
  // The Redis user-data store looks at each user's events appended since it last looked, for an
  // earlier version's acknowledgements (redis-user-data-scripts.ts); an event trimmed before it
  // looked might have been one, so the user's kept data starts again. Events must outlive the
  // user's record (kept twice USER_DATA_MAX_AGE_SECONDS after its last write).
  if (config.userData.store === 'redis' && config.eventRetentionMs < config.userData.retentionMs)
    fail(
      'EVENT_RETENTION_SECONDS',
      `must be at least twice USER_DATA_MAX_AGE_SECONDS (${config.userData.retentionMs / 1000}) with the user-data store on Redis: events trimmed before the store looked at them are taken for an earlier version's, and the users' kept data (and their apps' sync cursors) start again`,
    );
}

/**
 * TRUSTED_DOCUMENTS: only its path here (the file is read and checked at start). With it, GraphiQL
 * is off unless GRAPHIQL_WITH_TRUSTED_DOCUMENTS says otherwise (it could run only the manifest's texts).
 */
export function readTrustedDocuments({ values, fail }: ParsedSettings): GatewayConfig['trustedDocuments'] {
  const path = values.TRUSTED_DOCUMENTS;
  const graphiql = values.GRAPHIQL_WITH_TRUSTED_DOCUMENTS;
  if (path === undefined && graphiql) fail('GRAPHIQL_WITH_TRUSTED_DOCUMENTS', 'is only used with TRUSTED_DOCUMENTS');
  return path === undefined ? undefined : { path, graphiql };
}
