import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import type { Context, SubscribePayload } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { EventStreamContext, GatewayContext } from '../../graphql/context.js';
import { ErrorCode } from '../../graphql/errors.js';
import type { OperationRules } from '../../graphql/operation-rules.js';
import type { TrustedDocuments } from '../../graphql/trusted-documents.js';
import type { EventExecution } from './per-event-execution.js';
import { createSharedEventReads } from './shared-event-reads.js';

/** A socket's context in graphql-ws: its upgrade request and socket, and the session it opened with. */
export type SocketContext = Context<Record<string, unknown>, Extra & { session?: Session }>;

/**
 * What holds an operation: a socket's context, or an HTTP subscription stream's (one operation,
 * its session), so both are admitted and prepared by the same function.
 */
export type OperationHolder = Pick<SocketContext, 'subscriptions'> & { extra: { session?: Session } };

/** What an operation over a socket is admitted and prepared with. */
export interface SocketOperationDeps {
  schema: GraphQLSchema;
  sessions: SessionManager;
  rules: OperationRules;
  trustedDocuments?: TrustedDocuments;
  limits: { maxSubscriptionsPerSocket: number };
  createContext(session: Session): GatewayContext;
  createEventStreamContext(session: Session): EventStreamContext;
  /** The type of each query and mutation in flight (keyed by its context), for the metrics. */
  oneShotTypes: WeakMap<object, string>;
  /** Each subscription's way to execute one event (keyed by its subscribe-time context). */
  eventExecutions: WeakMap<object, (event: unknown) => EventExecution>;
  shareReads: ReturnType<typeof createSharedEventReads>;
}

/** What a transport's operations share, around what the transport is given: the caches keyed by context, and the event reads. */
export function createOperationDeps(
  given: Omit<SocketOperationDeps, 'oneShotTypes' | 'eventExecutions' | 'shareReads'>,
): SocketOperationDeps {
  return {
    ...given,
    oneShotTypes: new WeakMap(),
    eventExecutions: new WeakMap(),
    shareReads: createSharedEventReads(),
  };
}

/** A small id per parsed document: the operation rules hand out one object per distinct text. */
const documentIds = new WeakMap<object, number>();
let nextDocumentId = 0;
const documentId = (document: object) =>
  documentIds.get(document) ?? (documentIds.set(document, (nextDocumentId += 1)), nextDocumentId);

const cursorOf = (event: unknown) => {
  const cursor = typeof event === 'object' && event !== null ? (event as { cursor?: unknown }).cursor : undefined;
  return typeof cursor === 'string' ? cursor : undefined;
};

const limitError = (message: string, limit: number) =>
  new GraphQLError(message, { extensions: { code: ErrorCode.LIMIT_EXCEEDED, limit } });

/**
 * graphql-ws's onSubscribe: the socket's operation cap, the trusted documents and the operation
 * rules, then the execution arguments with a context: a query or mutation's own, or a
 * subscription's lean stream context with its per-event execution plan.
 */
export async function prepareOperation(
  deps: SocketOperationDeps,
  ctx: OperationHolder,
  payload: SubscribePayload,
): Promise<ExecutionArgs | readonly GraphQLError[]> {
  const open = Object.keys(ctx.subscriptions).length; // includes this one
  if (open > deps.limits.maxSubscriptionsPerSocket) {
    return [
      limitError(
        `A socket may hold ${deps.limits.maxSubscriptionsPerSocket} operations at once.`,
        deps.limits.maxSubscriptionsPerSocket,
      ),
    ];
  }
  // A manifest id (documentId, or Apollo's extension) names the document; the text sent is not parsed.
  const admitted = deps.trustedDocuments?.admit(payload) ?? { text: payload.query };
  if ('error' in admitted) return [admitted.error];
  const prepared = deps.rules.prepare(deps.schema, admitted.text, payload.variables);
  if ('errors' in prepared) return prepared.errors;
  // The session as it is now: the user may have connected their bank or stepped up since
  // the socket opened. An operation keeps what it started with.
  const session = (await deps.sessions.touch(ctx.extra.session!.key)) ?? ctx.extra.session!;
  ctx.extra.session = session;
  // A query or mutation executes once, as over HTTP: a full context of its own (its own
  // loaders, user client and budgets), built from the same blocks as an HTTP request's.
  const type = getOperationAST(prepared.document, payload.operationName)?.operation;
  if (type !== 'subscription') {
    const contextValue = deps.createContext(session);
    deps.oneShotTypes.set(contextValue, type ?? 'unknown');
    return executionArgs(deps.schema, prepared.document, payload, contextValue);
  }
  const contextValue = deps.createEventStreamContext(session);
  deps.eventExecutions.set(contextValue, planEventExecution(deps, session, prepared.document, payload));
  return executionArgs(deps.schema, prepared.document, payload, contextValue);
}

/**
 * Written out, not `{ ...args, contextValue }`: a subscription keeps its arguments for its life,
 * and a spread at a site that has seen many shapes gives each object a hidden class of its own in
 * V8 (about 300 bytes per socket).
 */
function executionArgs(
  schema: GraphQLSchema,
  document: DocumentNode,
  payload: SubscribePayload,
  contextValue: unknown,
): ExecutionArgs {
  return {
    schema,
    document,
    variableValues: payload.variables ?? undefined,
    operationName: payload.operationName ?? undefined,
    contextValue,
  };
}

/**
 * Same user, document, variables and operation: the same result for the same event. The key is
 * built per event, not kept: an idle subscription should hold as little as possible.
 */
function planEventExecution(
  deps: SocketOperationDeps,
  session: Session,
  document: object,
  payload: SubscribePayload,
): (event: unknown) => EventExecution {
  return (event) => {
    const cursor = cursorOf(event);
    return {
      context: () => deps.shareReads(session.userId, event, deps.createContext(session)),
      shareKey:
        cursor === undefined
          ? undefined
          : `${session.userId}|${documentId(document)}|${payload.operationName ?? ''}|${JSON.stringify(payload.variables ?? {})}|${cursor}`,
    };
  };
}

/** Set by prepareOperation for every subscription; executing with the lean stream context would be a wiring bug. */
export function executionOf(deps: SocketOperationDeps, contextValue: unknown): (event: unknown) => EventExecution {
  const plan = deps.eventExecutions.get(contextValue as object);
  if (!plan) throw new Error('subscription has no per-event execution plan');
  return plan;
}
