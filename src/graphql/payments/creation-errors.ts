import type { GraphQLError } from 'graphql';
import { CreationConflictError, CreationInProgressError } from '../../idempotency/creation-once.js';
import { UpstreamError } from '../../upstream/upstream-error.js';
import { ErrorCode, gatewayError, upstreamFailureToGraphQLError } from '../errors.js';

/** Platform 400 messages are meant for people ("Payment above app daily limit"), but are never echoed if they look like credentials. */
function platformReason(message: string | undefined): string | undefined {
  if (!message || message.length > 200 || /token|bearer|authori[sz]ation|secret|password/i.test(message))
    return undefined;
  return message;
}

function conflict(what: 'payment' | 'transfer', idempotencyKey: string): GraphQLError {
  return gatewayError(
    ErrorCode.IDEMPOTENCY_CONFLICT,
    `This idempotency key was already used for a different ${what}. Use a new key for a new ${what}.`,
    { idempotencyKey },
  );
}

/**
 * What a failed payment or transfer creation means for the client. The rule: never report a
 * creation as failed unless it certainly did not happen. Whatever may have reached the platform
 * without an answer (a deadline, a cut connection, a 5xx, an unreadable 2xx, a key still being
 * processed) is OUTCOME_UNKNOWN with the idempotency key, and the same request with that key
 * resolves it: the platform replays the first answer. Nothing here is ever retried blindly.
 */
export function creationFailure(error: unknown, what: 'payment' | 'transfer', idempotencyKey: string): unknown {
  if (error instanceof CreationInProgressError)
    return gatewayError(
      ErrorCode.IDEMPOTENCY_IN_PROGRESS,
      `This ${what} is still being created by an earlier request. Send the same request with idempotencyKey "${idempotencyKey}" again shortly for its result; it will not be created twice.`,
      { idempotencyKey },
    );
  if (error instanceof CreationConflictError) return conflict(what, idempotencyKey);
  if (!(error instanceof UpstreamError) || error.upstream !== 'core') return error;
  const unknown = (): GraphQLError =>
    gatewayError(
      ErrorCode.OUTCOME_UNKNOWN,
      `The ${what} may or may not have been created: the platform\u2019s answer was lost. Send the same request with idempotencyKey "${idempotencyKey}" to find out; it will not be created twice.`,
      { idempotencyKey },
    );
  if (error.kind === 'timeout' || error.kind === 'bad_response') return unknown();
  // An open circuit sent nothing: that one is certain.
  if (error.kind === 'unavailable') return error.details.circuitOpen ? upstreamFailureToGraphQLError(error) : unknown();
  const status = error.status ?? 0;
  if (status === 400) {
    const reason = platformReason(error.details.platformMessage);
    return gatewayError(
      ErrorCode.BAD_USER_INPUT,
      reason ? `The platform refused the ${what}: ${reason}` : `The platform refused the ${what}.`,
      { reason: reason ?? null },
    );
  }
  if (status === 422) return conflict(what, idempotencyKey);
  if (status === 409 || status >= 500) return unknown();
  return upstreamFailureToGraphQLError(error);
}

/** A cancel that failed: too late (400, with the platform's reason), unknown payment, or the upstream's own failure. */
export function cancelFailure(error: unknown): unknown {
  if (!(error instanceof UpstreamError) || error.upstream !== 'core') return error;
  if (error.kind === 'http' && error.status === 400) {
    const reason = platformReason(error.details.platformMessage);
    return gatewayError(
      ErrorCode.BAD_USER_INPUT,
      reason ? `The payment cannot be cancelled: ${reason}` : 'The payment cannot be cancelled.',
      {
        reason: reason ?? null,
      },
    );
  }
  return upstreamFailureToGraphQLError(error);
}
