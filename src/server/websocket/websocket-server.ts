import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { handleProtocols, type SubscribePayload } from 'graphql-ws';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { RequestAuthenticator } from '../../auth/request-authentication.js';
import type { Session } from '../../auth/session-manager.js';
import { ErrorCode } from '../../graphql/errors.js';
import { GOING_AWAY, type Ending } from '../../operation-core/endings.js';
import type { LiveOperation, LiveOperations } from '../../operation-core/live-operations.js';
import type { Operation, OperationCore } from '../../operation-core/operation-core.js';
import { operationOutcome } from '../../operation-core/operation-telemetry.js';
import { socketClose, type Refusal } from '../edge/refusal-table.js';
import { GraphQLTransportWs, type Connection, type SocketWire } from '../graphql-ws/graphql-transport-ws.js';
import { startHeartbeat } from './heartbeat.js';
import { watchSlowReaders } from './slow-readers.js';

export interface WebSocketOptions {
  server: Server;
  core: OperationCore;
  /** Shared with the HTTP subscription streams: the same caps, the same endings. */
  live: LiveOperations;
  /** The session cookie of the upgrade, or the access token of `connection_init` (the HTTP path's one place). */
  authenticator: RequestAuthenticator;
  /** Origins allowed to open a socket; a request without Origin (not a browser) is let through to the credentials check. */
  allowedOrigins: () => ReadonlySet<string>;
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
}

/** A socket as a live operation of its session: it ends by closing with the ending's code. */
class SocketLive implements LiveOperation {
  session: Session | undefined = undefined;
  /** The upgrade request, until the socket is admitted (not kept for the socket's life). */
  request: IncomingMessage | undefined;

  constructor(
    readonly socket: WebSocket,
    request: IncomingMessage,
  ) {
    this.request = request;
  }

  end(ending: Ending): void {
    refuse(this.socket, ending);
  }
}

function refuse(socket: WebSocket, refusal: Refusal): void {
  const { code, reason } = socketClose(refusal);
  socket.close(code, reason);
}

/** The protocol's view of a `ws` socket: one object for every socket. */
const wsWire: SocketWire<WebSocket> = {
  protocol: (socket) => socket.protocol,
  isOpen: (socket) => socket.readyState === socket.OPEN,
  send(socket, data, written) {
    if (socket.readyState !== socket.OPEN) return written();
    socket.send(data, written);
  },
  close: (socket, code, reason) => socket.close(code, reason),
};

type SocketConnection = Connection<WebSocket, SocketLive>;

/**
 * GraphQL over WebSockets on the same port and path as /graphql: the `ws` adapter. It owns the
 * upgrade (only /graphql, only from an allowed Origin: the cross-site protection CSRF prevention
 * gives HTTP), the heartbeat, cutting slow readers and writing frames; the graphql-transport-ws
 * protocol (graphql-ws/) runs over it, and every operation goes through the operation core. A
 * socket is a live operation of its session: it counts against the caps and ends with the session.
 */
export function attachGraphQLWebSocket(options: WebSocketOptions): {
  close(): Promise<void>;
  readonly openSockets: number;
} {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayloadBytes ?? 64 * 1024,
    handleProtocols,
  });
  options.server.on('upgrade', (req, socket, head) => upgradeOrRefuse(options, wss, req, socket, head));
  const protocol = new GraphQLTransportWs(wsWire, socketHooks(options), options.logger);
  const connections = new WeakMap<WebSocket, SocketConnection>();
  function onMessage(this: WebSocket, data: RawData): void {
    const connection = connections.get(this);
    if (connection) protocol.receive(connection, String(data));
  }
  function onClose(this: WebSocket): void {
    const connection = connections.get(this);
    if (!connection) return;
    options.live.remove(connection.extra);
    protocol.closed(connection);
  }
  /** `ws` reports what the client did wrong (a frame too large or malformed). */
  function onError(this: WebSocket, error: Error): void {
    options.logger.warn({ err: error }, 'websocket error');
    const connection = connections.get(this);
    if (connection) protocol.closeOnError(connection, error);
  }
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    socket.on('error', onError);
    const connection = protocol.opened(socket, new SocketLive(socket, request));
    if (!connection) return;
    connections.set(socket, connection);
    socket.on('message', onMessage);
    socket.on('close', onClose);
  });
  // No per-socket keep-alive timers: one heartbeat for every socket.
  const heartbeat = startHeartbeat(wss, options.heartbeatIntervalMs ?? 12_000);

  return {
    async close() {
      heartbeat.stop();
      for (const client of wss.clients) refuse(client, GOING_AWAY);
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

/** The upgrade: only on /graphql, and only from an allowed origin (or none); credentials come at connection_init. */
function upgradeOrRefuse(
  options: WebSocketOptions,
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  const path = new URL(req.url ?? '/', 'http://gateway.invalid').pathname;
  const origin = req.headers.origin;
  const refuseUpgrade = (status: string) => {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    socket.destroy();
  };
  if (path !== '/graphql') return refuseUpgrade('404 Not Found');
  // Cross-site WebSocket hijacking comes from browsers, which always send Origin: a foreign one
  // is refused. A client that sends none is not a browser (Node's ws, graphql-ws from a server),
  // so no other site's page is behind it; it still needs credentials.
  if (origin !== undefined && !options.allowedOrigins().has(origin)) {
    options.logger.warn({ origin: origin.slice(0, 200) }, 'websocket refused: origin not allowed');
    return refuseUpgrade('403 Forbidden');
  }
  wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
}

/** What the gateway decides in the protocol: who the socket is, and each operation through the core. */
function socketHooks(options: WebSocketOptions) {
  const { core, live } = options;
  const { maxSubscriptionsPerSocket } = live.limits;
  const slowReaders = watchSlowReaders({
    maxBufferedBytes: live.limits.maxBufferedBytes,
    logger: options.logger,
    onCut: options.onSlowReaderCut,
  });
  return {
    connectionInitWaitTimeout: options.handshakeTimeoutMs ?? 3_000,
    onConnect: (connection: SocketConnection) => admitSocket(options, connection),
    async onSubscribe(connection: SocketConnection, _id: string, payload: SubscribePayload) {
      if (Object.keys(connection.subscriptions).length > maxSubscriptionsPerSocket)
        return [
          new GraphQLError(`A socket may hold ${maxSubscriptionsPerSocket} operations at once.`, {
            extensions: { code: ErrorCode.LIMIT_EXCEEDED, limit: maxSubscriptionsPerSocket },
          }),
        ];
      const prepared = core.prepare(payload);
      if ('refused' in prepared) return prepared.refused;
      const started = await core.start(connection.extra.session!, prepared, 'websocket');
      if ('refused' in started) return started.refused;
      connection.extra.session = started.session;
      return started.operation;
    },
    // Refused before it ran (limits, trusted documents, parsing, validation), or a subscription's failure.
    onError: (errors: readonly GraphQLError[]) => core.refuse('websocket', errors),
    onNext(connection: SocketConnection, operation: Operation, result: ExecutionResult) {
      options.onFrameSent?.();
      slowReaders.sent(connection.socket);
      const errors = result.errors ? core.format(result.errors) : undefined;
      if (operation.type !== 'subscription') core.count('websocket', operation.type, operationOutcome(errors));
      return errors ? { ...result, errors } : undefined;
    },
  };
}

/**
 * A socket's credentials at `connection_init` (the upgrade's cookie, or `{ "authorization":
 * "Bearer …" }`), then its admission as a live operation of its session, under the caps. A bearer
 * socket ends when its token expires.
 */
async function admitSocket(options: WebSocketOptions, connection: SocketConnection): Promise<boolean> {
  const extra = connection.extra;
  const given = connection.connectionParams?.authorization;
  if (given !== undefined && typeof given !== 'string') {
    refuse(extra.socket, {
      kind: 'credentials',
      refusal: {
        status: 400,
        code: 'UNAUTHENTICATED',
        reason: 'MALFORMED_CONNECTION_PARAMS',
        message: 'connection_init authorization must be "Bearer <access token>"',
      },
    });
    return false;
  }
  const headers = extra.request!.headers;
  const authentication = await options.authenticator.authenticate(headers, given ?? headers.authorization);
  if (!authentication || !authentication.ok) {
    const refusal: Refusal = authentication
      ? { kind: 'credentials', refusal: authentication.refusal }
      : { kind: 'sign-in-first' };
    options.logger.info(
      { reason: authentication?.refusal.reason ?? 'NO_CREDENTIALS' },
      'websocket refused: credentials',
    );
    refuse(extra.socket, refusal);
    return false;
  }
  extra.session = authentication.session;
  const ending = options.live.admit(
    authentication.session,
    extra,
    authentication.via === 'bearer' ? authentication.tokenExpiresAt : undefined,
  );
  if (ending) {
    extra.session = undefined;
    refuse(extra.socket, ending);
    return false;
  }
  // The upgrade request is not needed past this point; do not keep it for the socket's life.
  extra.request = undefined;
  return true;
}
