import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from '../lib/logger.js';
import { AccessRevokedError, RefreshForbiddenError, UpstreamError } from '../upstream/upstream-error.js';
import { StoreUnavailableError } from '../lib/store-unavailable.js';
import { UserCallsExhaustedError } from '../loaders/user-call-limiter.js';
import {
  ErrorCode,
  PUBLIC_CODES,
  accessRevokedError,
  gatewayError,
  refreshForbiddenError,
  upstreamFailureToGraphQLError,
} from './errors.js';

/**
 * The one place where errors are shaped for clients. Coded errors pass; upstream failures become
 * their documented code; anything else is logged in full and masked, so stack traces, upstream
 * bodies and internal messages never leave the gateway.
 */
export function createFormatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const unwrapped = unwrapResolverError(error);
    // graphql-ws wraps what a subscription's stream throws in a GraphQLError without a code.
    const wrapsCoded =
      unwrapped instanceof GraphQLError &&
      unwrapped.extensions?.code === undefined &&
      unwrapped.originalError instanceof GraphQLError;
    const original = wrapsCoded ? (unwrapped.originalError as GraphQLError) : unwrapped;
    if (original instanceof AccessRevokedError || original instanceof RefreshForbiddenError) {
      const mapped =
        original instanceof AccessRevokedError ? accessRevokedError() : refreshForbiddenError(original.platformMessage);
      return {
        message: mapped.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: mapped.extensions,
      };
    }
    if (original instanceof StoreUnavailableError) {
      logger.warn(
        { err: { message: original.message }, path: formatted.path },
        'shared store unavailable during execution',
      );
      const mapped = gatewayError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'The service is temporarily unavailable; try again shortly.',
      );
      return {
        message: mapped.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: mapped.extensions,
      };
    }
    if (original instanceof UserCallsExhaustedError) {
      const mapped = gatewayError(
        ErrorCode.RATE_LIMITED,
        'Too many requests to the platform at once for this user; try again shortly.',
        { retryAfterSeconds: 1 },
      );
      return {
        message: mapped.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: mapped.extensions,
      };
    }
    if (original instanceof UpstreamError) {
      logger.warn(
        {
          upstream: original.upstream,
          kind: original.kind,
          status: original.status,
          platformMessage: original.details.platformMessage,
          path: formatted.path,
        },
        original.message,
      );
      const mapped = upstreamFailureToGraphQLError(original);
      return {
        message: mapped.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: mapped.extensions,
      };
    }
    // Resolver errors arrive wrapped; request errors (parse, validation, variables) are GraphQLErrors.
    const code = original instanceof GraphQLError ? original.extensions?.code : undefined;
    if (typeof code === 'string' && PUBLIC_CODES.has(code) && code !== ErrorCode.INTERNAL_SERVER_ERROR) {
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
    logger.error({ err: original, path: formatted.path }, 'unexpected error while executing GraphQL');
    return {
      message: 'Internal server error',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR },
    };
  };
}
