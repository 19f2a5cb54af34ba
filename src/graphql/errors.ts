import { GraphQLError } from 'graphql';
import { UpstreamError } from '../upstream/upstream-error.js';

/**
 * Every `extensions.code` a client can see. Stable: frontends branch on these, so renaming one is
 * a breaking change. The README documents each.
 */
export const ErrorCode = {
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  RATE_LIMITED: 'RATE_LIMITED',
  /** A per-socket, per-session or per-user cap was reached; `extensions.limit` says which number. */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  /** A subscription's `after` cursor is unknown or older than the retained events: re-read state. */
  CURSOR_EXPIRED: 'CURSOR_EXPIRED',
  /**
   * A subscriber fell too far behind; the subscription ended. `extensions.cursor` (when present)
   * is where to resume: subscribe again with `after` set to it and nothing is lost.
   */
  EVENTS_DROPPED: 'EVENTS_DROPPED',
  /**
   * A transaction sync cursor cannot be continued from: malformed (`extensions.reason`
   * `MALFORMED`), or what changed since it is no longer kept (`EXPIRED`: the kept data was dropped
   * or reset, or more changes happened than are kept). Sync from the start: `transactionsSync`
   * without a cursor.
   */
  SYNC_CURSOR_EXPIRED: 'SYNC_CURSOR_EXPIRED',
  /** This gateway keeps no user data (USER_DATA_STORE=off), so it cannot sync: read pages with `transactions`. */
  SYNC_UNAVAILABLE: 'SYNC_UNAVAILABLE',
  /** An idempotency key was reused for a different payment or transfer; `extensions.idempotencyKey`. */
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_CONFLICT',
  /**
   * The same creation under this idempotency key is still in flight (from another request, on
   * another instance): send the same request with `extensions.idempotencyKey` again shortly; it
   * answers with that creation and never creates a second one.
   */
  IDEMPOTENCY_IN_PROGRESS: 'IDEMPOTENCY_IN_PROGRESS',
  /**
   * A payment or transfer may or may not have been created (its answer was lost). Send the same
   * request with `extensions.idempotencyKey` to learn which; it is never created twice.
   */
  OUTCOME_UNKNOWN: 'OUTCOME_UNKNOWN',
  /**
   * The session's sign-in had no second factor, which every platform-connected field needs:
   * sign in again with one (`extensions.signInUrl`).
   */
  MFA_REQUIRED: 'MFA_REQUIRED',
  /**
   * Moving money needs multi-factor authentication within the last two hours (MFA_MAX_AGE_SECONDS):
   * send the user to `extensions.stepUpUrl`, then retry.
   */
  STEP_UP_REQUIRED: 'STEP_UP_REQUIRED',
  /** The app user has not connected their bank yet (or the connection ended): `extensions.connectUrl`. */
  NOT_CONNECTED: 'NOT_CONNECTED',
  /** The gateway's shared store (Redis) is unreachable for now; retry shortly. */
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  /**
   * TRUSTED_DOCUMENTS is set: only the app's own operations run, named by their id (`documentId`,
   * or Apollo's persisted-query extension); a document of the client's own is refused unparsed.
   */
  TRUSTED_DOCUMENT_REQUIRED: 'TRUSTED_DOCUMENT_REQUIRED',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Codes produced by Apollo Server itself for malformed requests; safe to pass through. */
export const APOLLO_REQUEST_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);

export const PUBLIC_CODES: ReadonlySet<string> = new Set([...Object.values(ErrorCode), ...APOLLO_REQUEST_CODES]);

export function gatewayError(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code } });
}

/** A count argument outside 1 to `max` is BAD_USER_INPUT, naming the argument. */
export function requireCountInRange(argumentName: string, value: number, max: number): void {
  if (value < 1 || value > max)
    throw gatewayError(ErrorCode.BAD_USER_INPUT, `${argumentName} must be from 1 to ${max}.`, { argumentName });
}

/**
 * Maps an upstream failure to the one client code that describes it. Upstream bodies never reach
 * the client; only what the specification says is meant for users (none, so far) would.
 */
export function upstreamFailureToGraphQLError(error: UpstreamError): GraphQLError {
  const service = error.upstream === 'enrichment' ? 'The enrichment service' : 'The platform';
  if (error.kind === 'timeout')
    return gatewayError(ErrorCode.UPSTREAM_TIMEOUT, `${service} did not answer in time.`, { upstream: error.upstream });
  if (error.kind === 'http') {
    if (error.status === 429) {
      return gatewayError(ErrorCode.RATE_LIMITED, `${service} is rate limiting requests; try again later.`, {
        upstream: error.upstream,
        retryAfterSeconds: error.details.retryAfterSeconds ?? 60,
      });
    }
    if (error.status === 404) return gatewayError(ErrorCode.NOT_FOUND, 'Not found.', { upstream: error.upstream });
    if (error.status === 400)
      return gatewayError(ErrorCode.BAD_USER_INPUT, `${service} rejected the request as invalid.`, {
        upstream: error.upstream,
      });
  }
  return gatewayError(ErrorCode.UPSTREAM_UNAVAILABLE, `${service} is unavailable right now.`, {
    upstream: error.upstream,
  });
}

/**
 * The platform refused the user's token (revoked in or outside the app). The session is already
 * over; the client should send the user through sign-in again.
 */
export function accessRevokedError(): GraphQLError {
  return gatewayError(ErrorCode.UNAUTHENTICATED, 'Access to your bank data was revoked. Sign in again to reconnect.', {
    reason: 'ACCESS_REVOKED',
  });
}

/** A refresh the platform forbids for this user; its message is meant for the user. */
export function refreshForbiddenError(platformMessage: string): GraphQLError {
  return gatewayError(ErrorCode.FORBIDDEN, platformMessage, { reason: 'REFRESH_FORBIDDEN' });
}
