import type { Server } from 'node:http';
import { GraphQLError, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Session, SessionManager } from '../auth/session-manager.js';
import type { GatewayConfig } from '../config/config.js';
import type { GatewayContext } from '../graphql/context.js';
import { maxAliasesRule, maxDepthRule } from '../graphql/limits.js';
import type { Logger } from '../lib/logger.js';

export interface WebSocketOptions {
  server: Server;
  schema: GraphQLSchema;
  sessions: SessionManager;
  createContext(session: Session): GatewayContext;
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  /** Origins allowed to open a socket (browsers always send one; a missing Origin is refused too). */
  allowedOrigins: () => ReadonlySet<string>;
  graphql: GatewayConfig['graphql'];
  logger: Logger;
  /** @default 3000 */
  connectionInitTimeoutMs?: number;
  /** ws defaults to 100 MiB; a GraphQL message needs a few KiB. @default 64 KiB */
  maxPayloadBytes?: number;
}

/** Close code for a socket whose session ended (sign-out, revocation). */
export const SESSION_ENDED_CLOSE_CODE = 4401;

type Extra = {
  session?: Session;
};

/**
 * graphql-ws on the same port and path as /graphql. Apollo's HTTP pipeline does not run here, so
 * its rules are applied again: Origin checked at the upgrade (the cross-site protection that
 * CSRF prevention gives HTTP), the session cookie required, the same validation limits and
 * introspection switch, and the same error masking.
 */
export function attachGraphQLWebSocket(options: WebSocketOptions): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes ?? 64 * 1024 });
  const socketsBySession = new Map<string, Set<WebSocket>>();
  const rules = [
    ...specifiedRules,
    maxDepthRule(options.graphql.maxDepth),
    maxAliasesRule(options.graphql.maxAliases),
    ...(options.graphql.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];

  options.server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://gateway.invalid').pathname;
    const origin = req.headers.origin;
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    if (path !== '/graphql') return refuse('404 Not Found');
    if (!origin || !options.allowedOrigins().has(origin)) {
      options.logger.warn({ origin: origin ?? null }, 'websocket refused: origin not allowed');
      return refuse('403 Forbidden');
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const stopListening = options.sessions.onEnded((_userId, keys) => {
    for (const key of keys) {
      for (const socket of socketsBySession.get(key) ?? []) {
        // A moment's grace so an accessRevoked event already published can reach the client.
        setTimeout(() => socket.close(SESSION_ENDED_CLOSE_CODE, 'Session ended'), 100).unref();
      }
    }
  });

  const formatAll = (errors: readonly GraphQLError[]) => errors.map((error) => options.formatError(error.toJSON(), error));
  /** The codes Apollo gives request errors on HTTP, and its hiding of schema hints. */
  const coded = (error: GraphQLError, code: string) =>
    new GraphQLError(options.graphql.introspection ? error.message : error.message.replace(/ Did you mean .*$/, ''), {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      extensions: { ...error.extensions, code },
    });

  const disposable = useServer<Record<string, unknown>, Extra>(
    {
      schema: options.schema,
      connectionInitWaitTimeout: options.connectionInitTimeoutMs ?? 3_000,
      onConnect: async (ctx) => {
        const session = await options.sessions.read(ctx.extra.request);
        if (!session) return false; // graphql-ws closes with 4403 Forbidden
        ctx.extra.session = session;
        let sockets = socketsBySession.get(session.key);
        if (!sockets) socketsBySession.set(session.key, (sockets = new Set()));
        sockets.add(ctx.extra.socket);
        ctx.extra.socket.once('close', () => {
          sockets.delete(ctx.extra.socket);
          if (sockets.size === 0) socketsBySession.delete(session.key);
        });
        return true;
      },
      onSubscribe: (ctx, _id, payload) => {
        let document;
        try {
          document = parse(payload.query, { maxTokens: options.graphql.maxTokens });
        } catch (error) {
          return [coded(error instanceof GraphQLError ? error : new GraphQLError('Could not parse the document'), 'GRAPHQL_PARSE_FAILED')];
        }
        const errors = validate(options.schema, document, rules);
        if (errors.length > 0) return errors.map((error) => coded(error, 'GRAPHQL_VALIDATION_FAILED'));
        return {
          schema: options.schema,
          document,
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
          contextValue: options.createContext(ctx.extra.session!),
        };
      },
      onError: (_ctx, _id, _payload, errors) => formatAll(errors),
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: formatAll(result.errors) } : undefined),
    },
    wss,
  );

  return {
    async close() {
      stopListening();
      for (const client of wss.clients) client.terminate();
      await disposable.dispose();
    },
  };
}
