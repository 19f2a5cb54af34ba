import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GraphQLError, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { handleProtocols } from 'graphql-ws';
import { WebSocketServer } from 'ws';
import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { AuthRefusal, RequestAuthenticator } from '../../auth/request-authentication.js';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { EventStreamContext, GatewayContext } from '../../graphql/context.js';
import type { OperationRules } from '../../graphql/operation-rules.js';
import type { TrustedDocuments } from '../../graphql/trusted-documents.js';
import { operationOutcome } from '../observability/operation-telemetry.js';
import { CloseCode } from './close-codes.js';
import { serveGraphQLTransportWs } from './graphql-transport-ws.js';
import { startHeartbeat } from './heartbeat.js';
import { subscribePerEvent } from './per-event-execution.js';
import { createSharedExecutions } from './shared-executions.js';
import { watchSlowReaders } from './slow-readers.js';
import { createOperationDeps, executionOf, prepareOperation, type SocketContext } from './socket-operations.js';
import { createSocketRegistry, type SocketRegistry, type WebSocketLimits } from './socket-registry.js';

export interface WebSocketOptions {
  server: Server;
  schema: GraphQLSchema;
  sessions: SessionManager;
  /** The session cookie of the upgrade, or the access token of `connection_init` (the HTTP path's one place). */
  authenticator: RequestAuthenticator;
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
  handshakeTimeoutMs?: number;
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
  /** Shared with the HTTP subscription streams, which count against the same caps; made here when absent. */
  registry?: SocketRegistry;
}

/**
 * graphql-ws on the same port and path as /graphql. Apollo's HTTP pipeline does not run here, so
 * the shared operation rules are applied through `rules.prepare`, and the rest of what HTTP gets
 * is repeated: Origin checked at the upgrade (the cross-site protection that CSRF prevention
 * gives HTTP), the session cookie required, the same error masking, and each query and mutation
 * a context of its own from the same factory as an HTTP request's (test/server/transport-agreement.test.ts
 * runs every operation both ways). A socket lives no longer than its session, holds a bounded
 * number of subscriptions, and is cut when its client stops reading.
 */
export function attachGraphQLWebSocket(options: WebSocketOptions): {
  close(code: number, reason: string): Promise<void>;
  readonly openSockets: number;
} {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayloadBytes ?? 64 * 1024,
    handleProtocols,
  });
  const registry =
    options.registry ??
    createSocketRegistry({
      sessions: options.sessions,
      clock: options.clock,
      recheckMs: options.sessionRecheckMs ?? 60_000,
      logger: options.logger,
    });
  options.server.on('upgrade', (req, socket, head) => upgradeOrRefuse(options, wss, req, socket, head));

  const operations = createOperationDeps(options);
  const sharedExecutions = createSharedExecutions();
  const slowReaders = watchSlowReaders({
    maxBufferedBytes: options.limits.maxBufferedBytes,
    logger: options.logger,
    onCut: options.onSlowReaderCut,
  });
  serveGraphQLTransportWs(
    wss,
    {
      subscribe: (args) => subscribePerEvent(args, executionOf(operations, args.contextValue), sharedExecutions),
      connectionInitWaitTimeout: options.handshakeTimeoutMs ?? 3_000,
      onConnect: (ctx) => admitSocket(options, registry, ctx),
      onSubscribe: (ctx, _id, payload) => prepareOperation(operations, ctx, payload),
      // Refused before it ran (limits, trusted documents, parsing, validation), as HTTP counts them.
      onError: (errors) => {
        const formatted = formatAll(options, errors);
        options.onOperation?.('unknown', operationOutcome(formatted));
        return formatted;
      },
      onNext: (ctx, args, result) => {
        options.onFrameSent?.();
        slowReaders.sent(ctx.extra.socket);
        const errors = result.errors ? formatAll(options, result.errors) : undefined;
        const type = operations.oneShotTypes.get(args.contextValue as object);
        if (type) options.onOperation?.(type, operationOutcome(errors));
        return errors ? { ...result, errors } : undefined;
      },
    },
    options.logger,
  );
  // No per-socket keep-alive timers: one heartbeat for every socket.
  const heartbeat = startHeartbeat(wss, options.heartbeatIntervalMs ?? 12_000);

  return {
    async close(code, reason) {
      heartbeat.stop();
      registry.close();
      for (const client of wss.clients) client.close(code, reason);
      // What graphql-ws's dispose did: stop serving, and wait for the closing handshakes.
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
      for (const client of wss.clients) client.terminate();
    },
    get openSockets() {
      return wss.clients.size;
    },
  };
}

/** The upgrade: only on /graphql, and only from an allowed origin (or none); the session is checked at connection_init. */
function upgradeOrRefuse(
  options: WebSocketOptions,
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
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
}

/** The close code of a refusal: the HTTP status's twin in graphql-ws' range, or "try again later". */
function closeCodeOf(refusal: AuthRefusal): number {
  if (refusal.status === 400) return CloseCode.BAD_CREDENTIALS;
  if (refusal.status === 403) return CloseCode.FORBIDDEN;
  if (refusal.status === 503) return CloseCode.TRY_AGAIN_LATER;
  return CloseCode.SESSION_ENDED;
}

/**
 * graphql-ws's onConnect: a live session (the upgrade's cookie, or `{ "authorization": "Bearer …" }`
 * in `connection_init`), under the caps of sockets per session and per user. A bearer socket
 * closes with 4401 when its token expires.
 */
async function admitSocket(options: WebSocketOptions, registry: SocketRegistry, ctx: SocketContext): Promise<boolean> {
  const socket = ctx.extra.socket;
  const given = ctx.connectionParams?.authorization;
  if (given !== undefined && typeof given !== 'string') {
    socket.close(CloseCode.BAD_CREDENTIALS, 'connection_init authorization must be "Bearer <access token>"');
    return false;
  }
  const headers = ctx.extra.request.headers;
  const authentication = await options.authenticator.authenticate(headers, given ?? headers.authorization);
  if (authentication && !authentication.ok) {
    const { reason } = authentication.refusal;
    options.logger.info({ reason }, 'websocket refused: credentials');
    socket.close(closeCodeOf(authentication.refusal), reason);
    return false;
  }
  const session = authentication?.session;
  if (!session) return false; // graphql-ws closes with 4403 Forbidden
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
  registry.add(session, socket, authentication.via === 'bearer' ? authentication.tokenExpiresAt : undefined);
  // The upgrade request is not needed past this point; do not keep it for the socket's life.
  (ctx.extra as { request?: unknown }).request = undefined;
  return true;
}

/** Reported (what an operator must see) and masked, as over HTTP. */
function formatAll(options: WebSocketOptions, errors: readonly GraphQLError[]): GraphQLFormattedError[] {
  options.reportErrors(options.logger, errors);
  return errors.map((error) => options.formatError(error.toJSON(), error));
}
