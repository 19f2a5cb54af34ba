import type { Server } from 'node:http';
import { GraphQLError, getOperationAST, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { EventStreamContext, GatewayContext } from '../../graphql/context.js';
import { ErrorCode } from '../../graphql/errors.js';
import type { OperationRules } from '../../graphql/operation-rules.js';
import type { TrustedDocuments } from '../../graphql/trusted-documents.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { CloseCode } from './close-codes.js';
import { operationOutcome } from '../observability/operation-telemetry.js';
import { subscribePerEvent, type EventExecution } from './per-event-execution.js';
import { startHeartbeat } from './heartbeat.js';
import { createSharedExecutions } from './shared-executions.js';
import { createSharedEventReads } from './shared-event-reads.js';
import { createSocketRegistry, type WebSocketLimits } from './socket-registry.js';

export interface WebSocketOptions {
  server: Server;
  schema: GraphQLSchema;
  sessions: SessionManager;
  clock: Clock;
  createContext(session: Session): GatewayContext;
  /**
   * What a subscription keeps for its life; each event gets a full context from `createContext`,
   * as does each query and mutation.
   */
  createEventStreamContext(session: Session): EventStreamContext;
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  /** Logs what an operator must see of errors before they are formatted (format-error.ts). */
  reportErrors(logger: Logger, errors: readonly unknown[]): void;
  /** Origins allowed to open a socket; a request without Origin (not a browser) is let through to the cookie check. */
  allowedOrigins: () => ReadonlySet<string>;
  rules: OperationRules;
  /** TRUSTED_DOCUMENTS: only the manifest's operations run, named by id, as over HTTP. */
  trustedDocuments?: TrustedDocuments;
  /** Told of each query and mutation once answered, and of each operation refused before it ran ('unknown'). */
  onOperation?: (type: string, outcome: string) => void;
  limits: WebSocketLimits;
  logger: Logger;
  /** @default 3000 */
  connectionInitTimeoutMs?: number;
  /** ws defaults to 100 MiB; a GraphQL message needs a few KiB. @default 64 KiB */
  maxPayloadBytes?: number;
  /** Told when a frame is sent (metrics). */
  onFrameSent?: () => void;
  /** Told when a socket is cut because its client stopped reading. */
  onSlowReaderCut?: () => void;
  /** How often peers are pinged; one that missed the previous ping is cut. @default 12000 */
  heartbeatIntervalMs?: number;
  /** Longest wait between two checks of a socket's session, whatever its deadline. @default 60000 */
  sessionRecheckMs?: number;
}

type Extra = { session?: Session };

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
 * graphql-ws on the same port and path as /graphql. Apollo's HTTP pipeline does not run here, so
 * the shared operation rules are applied through `rules.prepare`, and the rest of what HTTP gets
 * is repeated: Origin checked at the upgrade (the cross-site protection that CSRF prevention
 * gives HTTP), the session cookie required, the same error masking, and each query and mutation
 * a context of its own from the same factory as an HTTP request's (test/transport-agreement.test.ts
 * runs every operation both ways). A socket lives no longer than its session, holds a bounded
 * number of subscriptions, and is cut when its client stops reading.
 */
export function attachGraphQLWebSocket(options: WebSocketOptions): {
  close(code: number, reason: string): Promise<void>;
  readonly openSockets: number;
} {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes ?? 64 * 1024 });
  const registry = createSocketRegistry({
    sessions: options.sessions,
    clock: options.clock,
    recheckMs: options.sessionRecheckMs ?? 60_000,
    logger: options.logger,
  });

  options.server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://gateway.invalid').pathname;
    const origin = req.headers.origin;
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    if (path !== '/graphql') return refuse('404 Not Found');
    // Cross-site WebSocket hijacking comes from browsers, which always send Origin: a foreign one
    // is refused. A client that sends none is not a browser (Node's ws, graphql-ws from a server),
    // so no other site's page is behind it; it still needs the session cookie.
    if (origin !== undefined && !options.allowedOrigins().has(origin)) {
      options.logger.warn({ origin: origin.slice(0, 200) }, 'websocket refused: origin not allowed');
      return refuse('403 Forbidden');
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const formatAll = (errors: readonly GraphQLError[]) => {
    options.reportErrors(options.logger, errors);
    return errors.map((error) => options.formatError(error.toJSON(), error));
  };
  const limitError = (message: string, limit: number) =>
    new GraphQLError(message, { extensions: { code: ErrorCode.LIMIT_EXCEEDED, limit } });

  /** Checked after each frame is handed to the socket: a client that does not read is cut. */
  const watchBuffer = (socket: WebSocket) =>
    setImmediate(() => {
      // Once cut, the frames already queued must not report (and log) the cut again.
      if (socket.readyState !== socket.OPEN || socket.bufferedAmount <= options.limits.maxBufferedBytes) return;
      options.logger.warn(
        { buffered: socket.bufferedAmount, limit: options.limits.maxBufferedBytes },
        'websocket cut: its client is not reading',
      );
      socket.terminate();
      options.onSlowReaderCut?.();
    });

  /** The type of each query and mutation in flight (keyed by its context), for the metrics. */
  const oneShotTypes = new WeakMap<object, string>();
  /** Each subscription's way to execute one event (keyed by its subscribe-time context). */
  const eventExecutions = new WeakMap<object, (event: unknown) => EventExecution>();
  const shareReads = createSharedEventReads();
  const sharedExecutions = createSharedExecutions();
  /** Set by onSubscribe for every subscription; executing with the lean stream context would be a wiring bug. */
  const executionOf = (contextValue: unknown) => {
    const plan = eventExecutions.get(contextValue as object);
    if (!plan) throw new Error('subscription has no per-event execution plan');
    return plan;
  };

  const disposable = useServer<Record<string, unknown>, Extra>(
    {
      schema: options.schema,
      subscribe: (args) => subscribePerEvent(args, executionOf(args.contextValue), sharedExecutions),
      connectionInitWaitTimeout: options.connectionInitTimeoutMs ?? 3_000,
      onConnect: async (ctx) => {
        const session = await options.sessions.read(ctx.extra.request);
        if (!session) return false; // graphql-ws closes with 4403 Forbidden
        const socket = ctx.extra.socket;
        const full = registry.fullFor(session, options.limits);
        if (full) {
          options.logger.warn({ userId: session.userId, cap: full }, 'websocket refused: too many sockets');
          socket.close(
            CloseCode.TOO_MANY_SOCKETS,
            full === 'session' ? 'Too many sockets for this session' : 'Too many sockets for this user',
          );
          return false;
        }
        ctx.extra.session = session;
        registry.add(session, socket);
        // The upgrade request is not needed past this point; do not keep it for the socket's life.
        (ctx.extra as { request?: unknown }).request = undefined;
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        const open = Object.keys(ctx.subscriptions).length; // includes this one
        if (open > options.limits.maxSubscriptionsPerSocket) {
          return [
            limitError(
              `A socket may hold ${options.limits.maxSubscriptionsPerSocket} operations at once.`,
              options.limits.maxSubscriptionsPerSocket,
            ),
          ];
        }
        // A manifest id (documentId, or Apollo's extension) names the document; the text sent is not parsed.
        const admitted = options.trustedDocuments?.admit(payload) ?? { text: payload.query };
        if ('error' in admitted) return [admitted.error];
        const prepared = options.rules.prepare(options.schema, admitted.text, payload.variables);
        if ('errors' in prepared) return prepared.errors;
        // The session as it is now: the user may have connected their bank or stepped up since
        // the socket opened. An operation keeps what it started with.
        const session = (await options.sessions.touch(ctx.extra.session!.key)) ?? ctx.extra.session!;
        ctx.extra.session = session;
        const args = {
          schema: options.schema,
          document: prepared.document,
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
        };
        // A query or mutation executes once, as over HTTP: a full context of its own (its own
        // loaders, platform access and budgets), built from the same blocks as an HTTP request's.
        const type = getOperationAST(prepared.document, payload.operationName)?.operation;
        if (type !== 'subscription') {
          const contextValue = options.createContext(session);
          oneShotTypes.set(contextValue, type ?? 'unknown');
          return { ...args, contextValue };
        }
        const contextValue = options.createEventStreamContext(session);
        // Same user, document, variables and operation: the same result for the same event. The
        // key is built per event, not kept: an idle subscription should hold as little as possible.
        const { document } = prepared;
        eventExecutions.set(contextValue, (event) => {
          const cursor = cursorOf(event);
          return {
            context: () => shareReads(session.userId, event, options.createContext(session)),
            shareKey:
              cursor === undefined
                ? undefined
                : `${session.userId}|${documentId(document)}|${payload.operationName ?? ''}|${JSON.stringify(payload.variables ?? {})}|${cursor}`,
          };
        });
        return { ...args, contextValue };
      },
      // Refused before it ran (limits, trusted documents, parsing, validation), as HTTP counts them.
      onError: (_ctx, _id, _payload, errors) => {
        const formatted = formatAll(errors);
        options.onOperation?.('unknown', operationOutcome(formatted));
        return formatted;
      },
      onNext: (ctx, _id, _payload, args, result) => {
        options.onFrameSent?.();
        watchBuffer(ctx.extra.socket);
        const errors = result.errors ? formatAll(result.errors) : undefined;
        const type = oneShotTypes.get(args.contextValue as object);
        if (type) options.onOperation?.(type, operationOutcome(errors));
        return errors ? { ...result, errors } : undefined;
      },
    },
    wss,
    // No per-socket keep-alive timers: one heartbeat for every socket (below).
    0,
  );
  const heartbeat = startHeartbeat(wss, options.heartbeatIntervalMs ?? 12_000);

  return {
    async close(code, reason) {
      heartbeat.stop();
      registry.close();
      for (const client of wss.clients) client.close(code, reason);
      await disposable.dispose();
      for (const client of wss.clients) client.terminate();
    },
    get openSockets() {
      return wss.clients.size;
    },
  };
}
