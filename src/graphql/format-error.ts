import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from '@open-finance-gateway/common/logger';
import { StoreUnavailableError } from '../lib/store-unavailable.js';
import { UserCallsExhaustedError } from '../loaders/user-call-limiter.js';
import { AccessRevokedError, RefreshForbiddenError, UpstreamError } from '../upstream/upstream-error.js';
import {
  accessRevokedError,
  ErrorCode,
  gatewayError,
  PUBLIC_CODES,
  refreshForbiddenError,
  upstreamFailureToGraphQLError,
} from './errors.js';

/**
 * The one place where errors are shaped for clients, and where it is decided which of them an
 * operator must see. Coded errors pass; upstream failures become their documented code; anything
 * else is masked, so stack traces, upstream bodies and internal messages never leave the gateway.
 *
 * Shaping and logging are two calls because they happen in two places: every transport formats
 * (Apollo's `formatError` on HTTP, the socket) where no request is at hand, while the
 * log line must carry the request's id, so it is written where the request is known
 * (`reportExecutionError` with the request's logger).
 */

/** What an error is, for both: the error a resolver threw, under graphql-js's and graphql-ws's wrappers. */
function originalOf(error: unknown): { original: unknown; unwrapped: unknown } {
  const unwrapped = unwrapResolverError(error);
  // graphql-ws wraps what a subscription's results throw in a GraphQLError without a code.
  const wrapsCoded =
    unwrapped instanceof GraphQLError &&
    unwrapped.extensions?.code === undefined &&
    unwrapped.originalError instanceof GraphQLError;
  return { original: wrapsCoded ? unwrapped.originalError : unwrapped, unwrapped };
}

/** A coded error a client may see as it is (request errors, the gateway's own). */
function publicCode(original: unknown): boolean {
  const code = original instanceof GraphQLError ? original.extensions?.code : undefined;
  return typeof code === 'string' && PUBLIC_CODES.has(code) && code !== ErrorCode.INTERNAL_SERVER_ERROR;
}

/** Logs what an operator must see of one error (upstream failures, the store, anything unexpected). */
export function reportExecutionError(logger: Logger, error: unknown): void {
  const { original } = originalOf(error);
  const path = error instanceof GraphQLError ? error.path : undefined;
  if (original instanceof StoreUnavailableError)
    logger.warn({ err: { message: original.message }, path }, 'shared store unavailable during execution');
  else if (original instanceof UpstreamError)
    logger.warn(
      {
        upstream: original.upstream,
        kind: original.kind,
        status: original.status,
        platformMessage: original.details.platformMessage,
        path,
      },
      original.message,
    );
  else if (
    !(original instanceof AccessRevokedError) &&
    !(original instanceof RefreshForbiddenError) &&
    !(original instanceof UserCallsExhaustedError) &&
    !publicCode(original)
  )
    logger.error({ err: original, path }, 'unexpected error while executing GraphQL');
}

/** Reports every error of a result with the request's logger. */
export function reportExecutionErrors(logger: Logger, errors: readonly unknown[] | undefined): void {
  for (const error of errors ?? []) reportExecutionError(logger, error);
}

/** The error as a client sees it. Logs nothing: see reportExecutionError. */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const { original, unwrapped } = originalOf(error);
  const shaped = (mapped: GraphQLError): GraphQLFormattedError => ({
    message: mapped.message,
    locations: formatted.locations,
    path: formatted.path,
    extensions: mapped.extensions,
  });
  if (original instanceof AccessRevokedError) return shaped(accessRevokedError());
  if (original instanceof RefreshForbiddenError) return shaped(refreshForbiddenError(original.platformMessage));
  if (original instanceof StoreUnavailableError)
    return shaped(
      gatewayError(ErrorCode.SERVICE_UNAVAILABLE, 'The service is temporarily unavailable; try again shortly.'),
    );
  if (original instanceof UserCallsExhaustedError)
    return shaped(
      gatewayError(
        ErrorCode.RATE_LIMITED,
        'Too many requests to the platform at once for this user; try again shortly.',
        {
          retryAfterSeconds: 1,
        },
      ),
    );
  if (original instanceof UpstreamError) return shaped(upstreamFailureToGraphQLError(original));
  // Resolver errors arrive wrapped; request errors (parse, validation, variables) are GraphQLErrors.
  if (publicCode(original)) {
    if (original !== unwrapped && original instanceof GraphQLError)
      return {
        message: original.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: original.extensions,
      };
    const { stacktrace: _dropped, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  }
  return {
    message: 'Internal server error',
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR },
  };
}
