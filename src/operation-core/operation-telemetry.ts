import type { GraphQLFormattedError, OperationTypeNode } from 'graphql';
import type { RequestScope } from '../lib/request-scope.js';
import { activeSpan } from '../lib/tracing.js';

/**
 * What every HTTP operation reports once it is known: the server span is named after it, and the
 * access log line names it.
 */
export function noteResolvedOperation(
  scope: RequestScope | undefined,
  operation: OperationTypeNode,
  operationName: string | null | undefined,
): void {
  const span = activeSpan();
  span?.updateName(`graphql ${operation}${operationName ? ` ${operationName.slice(0, 100)}` : ''}`);
  span?.setAttribute('graphql.operation.type', operation);
  if (operationName) span?.setAttribute('graphql.operation.name', operationName.slice(0, 100));
  scope?.noteOperation(operationName ? `${operation} ${operationName}` : operation);
}

/** An operation's outcome for the metrics: OK, or the first error's code. */
export function operationOutcome(errors: readonly GraphQLFormattedError[] | undefined): string {
  return errors?.length ? String(errors[0]!.extensions?.code ?? 'INTERNAL_SERVER_ERROR') : 'OK';
}
