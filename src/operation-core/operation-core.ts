import {
  execute,
  getOperationAST,
  GraphQLError,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { Session, SessionManager } from '../auth/session-manager.js';
import type { GatewayContext, SubscriptionContext } from '../graphql/context.js';
import { formatError, reportExecutionErrors } from '../graphql/format-error.js';
import type { OperationRules } from '../graphql/operation-rules.js';
import type { DocumentRequest, TrustedDocuments } from '../graphql/trusted-documents.js';
import type { RequestScope } from '../lib/request-scope.js';
import { operationOutcome } from './operation-telemetry.js';
import { subscribePerEvent, type EventExecution } from './per-event-execution.js';
import { createSharedEventReads } from './shared-event-reads.js';
import { createSharedExecutions } from './shared-executions.js';

/** What carries an operation (the `transport` label of the metrics). */
export type Transport = 'http' | LiveTransport;
/** What carries operations the core starts itself: Apollo executes plain HTTP's. */
export type LiveTransport = 'websocket' | 'multipart' | 'sse';

/** One operation as any wire carries it: a document (its text, or an id of the app's manifest) and its inputs. */
export interface OperationRequest extends DocumentRequest {
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** An operation admitted and prepared: the parsed, valid document (one object per distinct text) and its type. */
export interface PreparedOperation {
  document: DocumentNode;
  /** Undefined when the document holds no operation of the name asked for (or several, and none named). */
  type: OperationTypeNode | undefined;
  /** The text that was prepared: the manifest's, when the request named it by id. */
  text: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

/** Refused before it ran: the errors as the rules raised them, and the HTTP status they call for. */
export interface RefusedOperation {
  refused: readonly GraphQLError[];
  httpStatus: number;
}

export interface OperationCoreOptions {
  schema: GraphQLSchema;
  rules: OperationRules;
  /** TRUSTED_DOCUMENTS: only the manifest's operations are admitted. */
  trustedDocuments?: TrustedDocuments;
  sessions: SessionManager;
  /** A query's, a mutation's or one subscription event's context (its own loaders and budgets). */
  createContext(session: Session, scope?: RequestScope, origin?: string): GatewayContext;
  /** What a subscription keeps for its life, per transport (its metrics carry the label). */
  createSubscriptionContext(session: Session, transport: LiveTransport): SubscriptionContext;
  /** Told of each operation once answered, and of each refused before it ran (type `unknown`). */
  onOperation?: (transport: Transport, type: string, outcome: string) => void;
  logger: Logger;
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

/**
 * The one path every GraphQL operation takes, whatever carries it: **admit** (trusted documents),
 * **prepare** (the operation rules: parse limits, validation, depth, aliases, cost, expansion,
 * variables; each valid text parsed once), **the context** (the session as it is now), then
 * **execute** a query or mutation, or **subscribe** (each event executed with a context of its own,
 * identical subscriptions sharing one execution), then **format and report** errors (masked in
 * one place, logged with the request's logger), then **count**. Transports only parse their wire,
 * call these, and write their wire.
 */
export function createOperationCore(options: OperationCoreOptions) {
  const { schema, rules } = options;
  const sharedExecutions = createSharedExecutions();
  const shareReads = createSharedEventReads();

  const count = (transport: Transport, type: string, outcome: string) =>
    options.onOperation?.(transport, type, outcome);

  function prepare(request: OperationRequest): PreparedOperation | RefusedOperation {
    // A manifest id (documentId, or Apollo's extension) names the document; the text sent is not parsed.
    const admitted = options.trustedDocuments?.admit(request) ?? { text: request.query };
    if ('error' in admitted) return { refused: [admitted.error], httpStatus: admitted.httpStatus };
    if (typeof admitted.text !== 'string' || admitted.text === '')
      return refused(400, 'GraphQL operations must contain a non-empty `query`.', 'BAD_REQUEST');
    const prepared = rules.prepare(schema, admitted.text, request.variables);
    if ('errors' in prepared) return { refused: prepared.errors, httpStatus: 400 };
    const operationName = request.operationName ?? undefined;
    const type = getOperationAST(prepared.document, operationName)?.operation;
    const variables = request.variables ?? undefined;
    return { document: prepared.document, type, text: admitted.text, variables, operationName };
  }

  /** Reports what an operator must see (with the request's logger), then masks for the client. */
  function format(errors: readonly GraphQLError[], logger: Logger = options.logger): GraphQLFormattedError[] {
    reportExecutionErrors(logger, errors);
    return errors.map((error) => formatError(error.toJSON(), error));
  }

  /**
   * The operation, ready to run for the session as it is now (the user may have connected their
   * bank or stepped up since the socket or stream opened; the operation keeps what it started
   * with), and that session, for the transport to keep.
   */
  async function start(
    session: Session,
    prepared: PreparedOperation,
    transport: LiveTransport,
  ): Promise<{ operation: Operation; session: Session } | RefusedOperation> {
    if (!prepared.type) return refused(400, 'Unable to identify operation', 'BAD_REQUEST');
    const current = (await options.sessions.touch(session.sessionKey)) ?? session;
    if (prepared.type !== 'subscription') {
      // A query or mutation: a full context of its own (its loaders, user client and budgets).
      const args = executionArgs(schema, prepared, options.createContext(current));
      return { operation: new Operation(prepared.type, args, undefined), session: current };
    }
    const args = executionArgs(schema, prepared, options.createSubscriptionContext(current, transport));
    const plan = planEventExecution(current, prepared, options.createContext, shareReads);
    return {
      operation: new Operation(OperationTypeNode.SUBSCRIPTION, args, { plan, shared: sharedExecutions }),
      session: current,
    };
  }

  return {
    prepare,
    start,
    format,
    /** A refusal before the operation ran: formatted, and counted as an operation of unknown type. */
    refuse(transport: Transport, errors: readonly GraphQLError[], logger?: Logger): GraphQLFormattedError[] {
      const formatted = format(errors, logger);
      count(transport, 'unknown', operationOutcome(formatted));
      return formatted;
    },
    count,
    /** The context of an operation another executor runs (Apollo, over HTTP). */
    createContext: options.createContext,
  };
}

export type OperationCore = ReturnType<typeof createOperationCore>;

function refused(httpStatus: number, message: string, code: string): RefusedOperation {
  return { refused: [new GraphQLError(message, { extensions: { code } })], httpStatus };
}

/**
 * Written out, not `{ ...args, contextValue }`: a subscription keeps its arguments for its life,
 * and a spread at a site that has seen many shapes gives each object a hidden class of its own in
 * V8 (about 300 bytes per socket).
 */
function executionArgs(schema: GraphQLSchema, prepared: PreparedOperation, contextValue: unknown): ExecutionArgs {
  return {
    schema,
    document: prepared.document,
    variableValues: prepared.variables,
    operationName: prepared.operationName,
    contextValue,
  };
}

/** How a subscription runs its events: its plan, and the executions identical subscriptions share. */
interface SubscriptionRun {
  plan: (event: unknown) => EventExecution;
  shared: ReturnType<typeof createSharedExecutions>;
}

/**
 * An operation ready to run: a query or mutation executes once; a subscription opens its event
 * source and executes each event with a context of its own. A class: a subscription holds it for
 * its life, and a method on the prototype costs nothing per subscription.
 */
export class Operation {
  constructor(
    readonly type: OperationTypeNode,
    readonly args: ExecutionArgs,
    private readonly subscription: SubscriptionRun | undefined,
  ) {}

  run(): Promise<ExecutionResult | AsyncIterableIterator<ExecutionResult>> {
    if (!this.subscription) return Promise.resolve(execute(this.args));
    return subscribePerEvent(this.args, this.subscription.plan, this.subscription.shared);
  }
}

/**
 * Same user, document, variables and operation: the same result for the same event. The key is
 * built per event, not kept: an idle subscription should hold as little as possible.
 */
function planEventExecution(
  session: Session,
  prepared: PreparedOperation,
  createContext: (session: Session) => GatewayContext,
  shareReads: ReturnType<typeof createSharedEventReads>,
): (event: unknown) => EventExecution {
  const { document, operationName, variables } = prepared;
  return (event) => {
    const cursor = cursorOf(event);
    return {
      context: () => shareReads(session.userId, event, createContext(session)),
      shareKey:
        cursor === undefined
          ? undefined
          : `${session.userId}|${documentId(document)}|${operationName ?? ''}|${JSON.stringify(variables ?? {})}|${cursor}`,
    };
  };
}
