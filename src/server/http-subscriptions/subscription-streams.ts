import { EventEmitter } from 'node:events';
import {
  getOperationAST,
  GraphQLError,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { EventStreamContext, GatewayContext } from '../../graphql/context.js';
import { ErrorCode } from '../../graphql/errors.js';
import type { OperationRules } from '../../graphql/operation-rules.js';
import type { TrustedDocuments } from '../../graphql/trusted-documents.js';
import { operationOutcome } from '../observability/operation-telemetry.js';
import { CloseCode } from '../websocket/close-codes.js';
import { subscribePerEvent } from '../websocket/per-event-execution.js';
import { createSharedEventReads } from '../websocket/shared-event-reads.js';
import { createSharedExecutions } from '../websocket/shared-executions.js';
import { executionOf, prepareOperation, type SocketOperationDeps } from '../websocket/socket-operations.js';
import type { SocketRegistry, WebSocketLimits } from '../websocket/socket-registry.js';

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

/** What a stream sends: a result, or the end of the stream with why (end of access, shutdown, a dropped subscriber). */
export type StreamFrame = { result: FormattedExecutionResult } | { end: GraphQLFormattedError[] };

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

const coded = (message: string, code: string, extensions: Record<string, unknown> = {}): GraphQLFormattedError => ({
  message,
  extensions: { ...extensions, code },
});

/** Why the registry ended a stream, as a coded error (the socket's close codes, in GraphQL's words). */
function endingFor(code: number, reason: string): GraphQLFormattedError {
  if (code === CloseCode.SESSION_ENDED)
    return coded('The session ended (sign-out, revocation or expiry): sign in again.', ErrorCode.UNAUTHENTICATED, {
      reason: 'SESSION_ENDED',
    });
  if (code === CloseCode.GOING_AWAY)
    return coded(
      'The gateway is shutting down: subscribe again (with `after`) to resume.',
      ErrorCode.SERVICE_UNAVAILABLE,
    );
  return coded(reason, ErrorCode.INTERNAL_SERVER_ERROR);
}

/**
 * GraphQL subscriptions streamed over one HTTP response each (Apollo's multipart protocol, or
 * graphql-sse): a thin adapter over what the socket uses. The operation is admitted and prepared
 * by the socket's own `prepareOperation` (trusted documents, operation rules, the session as it
 * is now), each event executes with a context of its own (`subscribePerEvent`), the caps per
 * session and per user count the stream as a socket, and the session registry ends it with its
 * session (sign-out, revocation, TOKEN DELETE, expiry) with a coded error as the last frame.
 */
export function createSubscriptionStreams(options: SubscriptionStreamOptions) {
  const operations: SocketOperationDeps = {
    ...options,
    oneShotTypes: new WeakMap(),
    eventExecutions: new WeakMap(),
    shareReads: createSharedEventReads(),
  };
  const sharedExecutions = createSharedExecutions();
  const open = new Set<StreamHandle>();

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

  async function openStream(session: Session, payload: SubscribePayload): Promise<StreamOpening> {
    const type = operationType(payload);
    if (type !== undefined && type !== 'subscription') return { kind: 'not-subscription' };
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
      for (const handle of open) handle.close(code, reason);
    },
    get openStreams() {
      return open.size;
    },
  };
}

export type SubscriptionStreams = ReturnType<typeof createSubscriptionStreams>;

/**
 * One open stream, as the session registry sees it (`close`, a `close` event): its frames are
 * the subscription's results until it ends by itself, by `close` (a coded last frame), or by
 * its client going away (`return()`).
 */
class StreamHandle extends EventEmitter {
  private results: AsyncIterableIterator<ExecutionResult> | undefined;
  private ended: ((frame: StreamFrame) => void) | undefined;
  private readonly ending = new Promise<StreamFrame>((resolve) => (this.ended = resolve));
  private finished = false;

  constructor(
    private readonly format: (errors: readonly GraphQLError[]) => GraphQLFormattedError[],
    private readonly options: Pick<SubscriptionStreamOptions, 'onEventSent' | 'logger'>,
  ) {
    super();
  }

  attach(results: AsyncIterableIterator<ExecutionResult>): void {
    this.results = results;
  }

  /** The stream never opened (refused, or ended at once): the registry forgets it. */
  release(): void {
    void this.finish();
  }

  close(code: number, reason: string): void {
    this.ended?.({ end: [endingFor(code, reason)] });
  }

  frames(): AsyncIterableIterator<StreamFrame> {
    const frames: AsyncIterableIterator<StreamFrame> = {
      next: async () => {
        if (this.finished) return { done: true, value: undefined };
        const frame = await Promise.race([this.nextResult(), this.ending]);
        if (frame === undefined || 'end' in frame) await this.finish();
        if (frame === undefined) return { done: true, value: undefined };
        if ('result' in frame) this.options.onEventSent?.();
        return { done: false, value: frame };
      },
      return: async () => {
        await this.finish();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => frames,
    };
    return frames;
  }

  /** The next result, masked as over the other transports; an error thrown ends the stream with it, coded. */
  private async nextResult(): Promise<StreamFrame | undefined> {
    try {
      const next = await this.results!.next();
      if (next.done) return undefined;
      const errors = next.value.errors ? this.format(next.value.errors) : undefined;
      return { result: errors ? { ...next.value, errors } : next.value };
    } catch (error) {
      const graphQLError =
        error instanceof GraphQLError ? error : new GraphQLError('stream failed', { originalError: error as Error });
      return { end: this.format([graphQLError]) };
    }
  }

  /** Once: the subscription's queue is freed and the registry forgets the stream. */
  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.ended?.({ end: [] });
    try {
      await this.results?.return?.();
    } finally {
      this.emit('close');
    }
  }
}
