import {
  getOperationAST,
  GraphQLError,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { EventStreamContext, GatewayContext } from '../../graphql/context.js';
import { ErrorCode } from '../../graphql/errors.js';
import type { OperationRules } from '../../graphql/operation-rules.js';
import type { TrustedDocuments } from '../../graphql/trusted-documents.js';
import { operationOutcome } from '../observability/operation-telemetry.js';
import { subscribePerEvent } from '../websocket/per-event-execution.js';
import { createSharedExecutions } from '../websocket/shared-executions.js';
import { createOperationDeps, executionOf, prepareOperation } from '../websocket/socket-operations.js';
import type { SocketRegistry, WebSocketLimits } from '../websocket/socket-registry.js';
import { coded, endingFor, StreamHandle, type StreamFrame } from './stream-handle.js';

export type { StreamFrame };

/** The HTTP transports a subscription can stream over (the `transport` label of the metrics). */
export type StreamTransport = 'multipart' | 'sse';

export interface SubscriptionStreamOptions {
  transport: StreamTransport;
  schema: GraphQLSchema;
  sessions: SessionManager;
  rules: OperationRules;
  trustedDocuments?: TrustedDocuments;
  /** The sockets' caps: a stream counts as one socket of its session and user. */
  limits: WebSocketLimits;
  /** Shared with the socket server, so sockets and streams count against the same caps and end alike. */
  registry: SocketRegistry;
  clock: Clock;
  createContext(session: Session): GatewayContext;
  createEventStreamContext(session: Session): EventStreamContext;
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  reportErrors(logger: Logger, errors: readonly unknown[]): void;
  logger: Logger;
  /** Told of each operation refused before it ran ('unknown'), as the other transports report them. */
  onOperation?: (type: string, outcome: string) => void;
  /** Told when a result is handed to the client (metrics). */
  onEventSent?: () => void;
}

/** What opening a stream came to. */
export type StreamOpening =
  /** Not a subscription: another handler answers it (multipart: Apollo; SSE: refused). */
  | { kind: 'not-subscription' }
  /** Refused before it ran: the HTTP status and the coded errors. */
  | { kind: 'refused'; status: number; errors: GraphQLFormattedError[] }
  /** Ran and ended at once (a cursor that cannot be resumed from): one result. */
  | { kind: 'result'; result: FormattedExecutionResult }
  /** Open: the frames until the stream ends; `return()` (client gone) frees the subscription. */
  | { kind: 'stream'; frames: AsyncIterableIterator<StreamFrame> };

/**
 * GraphQL subscriptions streamed over one HTTP response each (Apollo's multipart protocol, or
 * graphql-sse): a thin adapter over what the socket uses. The operation is admitted and prepared
 * by the socket's own `prepareOperation` (trusted documents, operation rules, the session as it
 * is now), each event executes with a context of its own (`subscribePerEvent`), the caps per
 * session and per user count the stream as a socket, and the session registry ends it with its
 * session (sign-out, revocation, TOKEN DELETE, expiry) with a coded error as the last frame.
 */
export function createSubscriptionStreams(options: SubscriptionStreamOptions) {
  const operations = createOperationDeps(options);
  const sharedExecutions = createSharedExecutions();
  const open = new Set<StreamHandle>();
  let closing: { code: number; reason: string } | undefined;

  const format = (errors: readonly GraphQLError[]): GraphQLFormattedError[] => {
    options.reportErrors(options.logger, errors);
    return errors.map((error) => options.formatError(error.toJSON(), error));
  };
  const refuse = (status: number, errors: GraphQLFormattedError[]): StreamOpening => {
    options.onOperation?.('unknown', operationOutcome(errors));
    return { kind: 'refused', status, errors };
  };

  /** The operation's type when its document is admitted and valid; undefined otherwise (prepareOperation says why). */
  function operationType(payload: SubscribePayload): string | undefined {
    const admitted = options.trustedDocuments?.admit(payload) ?? { text: payload.query };
    if ('error' in admitted) return undefined;
    const prepared = options.rules.prepare(options.schema, admitted.text, payload.variables);
    if ('errors' in prepared) return undefined;
    return getOperationAST(prepared.document, payload.operationName)?.operation;
  }

  /**
   * `endsAt`: when the credential the stream was opened with lapses (an access token's `exp`): the
   * stream ends then with UNAUTHENTICATED (`reason: TOKEN_EXPIRED`), as a socket closes with 4401.
   */
  async function openStream(session: Session, payload: SubscribePayload, endsAt?: number): Promise<StreamOpening> {
    const type = operationType(payload);
    if (type !== undefined && type !== 'subscription') return { kind: 'not-subscription' };
    // Shutting down: a stream opened now would only hold the listener open until it is cut.
    if (closing) return refuse(503, [endingFor(closing.code, closing.reason)]);
    const full = options.registry.fullFor(session, options.limits);
    if (full) {
      options.logger.warn(
        { userId: session.userId, cap: full, transport: options.transport },
        'stream refused: too many',
      );
      const limit = full === 'session' ? options.limits.maxSocketsPerSession : options.limits.maxSocketsPerUser;
      return refuse(429, [
        coded(
          `This ${full} holds ${limit} sockets and subscription streams already; close one first.`,
          ErrorCode.LIMIT_EXCEEDED,
          { limit, cap: full },
        ),
      ]);
    }
    // Counted at once, before anything is awaited: concurrent requests cannot pass the cap together.
    const handle = new StreamHandle(format, options);
    options.registry.add(session, handle);
    open.add(handle);
    handle.once('close', () => open.delete(handle));
    const holder = { subscriptions: { stream: null }, extra: { session } };
    try {
      const args = await prepareOperation(operations, holder, payload);
      if (Array.isArray(args)) {
        handle.release();
        return refuse(400, format(args as readonly GraphQLError[]));
      }
      const prepared = args as Exclude<typeof args, readonly GraphQLError[]>;
      const outcome = await subscribePerEvent(
        prepared,
        executionOf(operations, prepared.contextValue),
        sharedExecutions,
      );
      if (!(Symbol.asyncIterator in outcome)) {
        handle.release();
        const errors = outcome.errors ? format(outcome.errors) : undefined;
        return { kind: 'result', result: errors ? { ...outcome, errors } : outcome };
      }
      handle.attach(outcome);
      if (endsAt !== undefined) handle.endAt(Math.max(0, endsAt - options.clock()));
    } catch (error) {
      handle.release();
      throw error;
    }
    return { kind: 'stream', frames: handle.frames() };
  }

  return {
    /**
     * Opens a subscription stream for the session. Multipart calls it for every request that
     * accepts it and passes what is not a subscription on to Apollo; SSE refuses those.
     */
    open: openStream,
    /** Ends every open stream (shutdown): each gets a coded last frame. */
    close(code: number, reason: string): void {
      closing = { code, reason };
      for (const handle of open) handle.close(code, reason);
    },
    get openStreams() {
      return open.size;
    },
  };
}

export type SubscriptionStreams = ReturnType<typeof createSubscriptionStreams>;
